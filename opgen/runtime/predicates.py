"""Predicates: which informer events are worth a reconcile.

A predicate is any callable `(Event) -> bool`. The primary kind of a
controller uses `default_for()` unless told otherwise: spec changes
(generation), deletion and finalizer changes pass; status-only and
metadata-only updates do not, so writing status never loops a reconcile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from opgen.runtime import selectors
from opgen.runtime.informer import Event

__all__ = [
    "Predicate",
    "and_",
    "annotations_changed",
    "default_for",
    "deletion_or_finalizers_changed",
    "generation_changed",
    "has_labels",
    "labels_changed",
    "not_",
    "or_",
    "resource_version_changed",
]

Predicate = Callable[[Event], bool]


def _updated(event: Event) -> bool:
    return event.type == "MODIFIED" and event.old is not None


def generation_changed(event: Event) -> bool:
    """Creates and deletes pass; updates pass when metadata.generation changed
    (kinds without a generation pass on any change)."""
    if not _updated(event):
        return True
    assert event.old is not None
    if event.new.generation is None or event.old.generation is None:
        return event.old.resource_version != event.new.resource_version
    return event.old.generation != event.new.generation


def deletion_or_finalizers_changed(event: Event) -> bool:
    """Updates that set deletionTimestamp or change finalizers."""
    if not _updated(event):
        return True
    assert event.old is not None
    return (
        event.old.deletion_timestamp != event.new.deletion_timestamp
        or event.old.finalizers != event.new.finalizers
    )


def default_for(event: Event) -> bool:
    """The primary kind's default: generation changed, or deletion/finalizers changed."""
    return generation_changed(event) or deletion_or_finalizers_changed(event)


def labels_changed(event: Event) -> bool:
    if not _updated(event):
        return True
    assert event.old is not None
    return dict(event.old.labels) != dict(event.new.labels)


def annotations_changed(event: Event) -> bool:
    if not _updated(event):
        return True
    assert event.old is not None
    return dict(event.old.annotations) != dict(event.new.annotations)


def resource_version_changed(event: Event) -> bool:
    if not _updated(event):
        return True
    assert event.old is not None
    return event.old.resource_version != event.new.resource_version


def has_labels(selector: selectors.Selector) -> Predicate:
    """Events whose object matches a label selector."""

    def predicate(event: Event) -> bool:
        return selectors.labels_match(selector, event.new.labels)

    return predicate


def and_(*predicates: Predicate) -> Predicate:
    def predicate(event: Event) -> bool:
        return all(p(event) for p in predicates)

    return predicate


def or_(*predicates: Predicate) -> Predicate:
    def predicate(event: Event) -> bool:
        return any(p(event) for p in predicates)

    return predicate


def not_(inner: Predicate) -> Predicate:
    def predicate(event: Event) -> bool:
        return not inner(event)

    return predicate


def all_pass(predicates: Sequence[Predicate], event: Event) -> bool:
    return all(p(event) for p in predicates)
