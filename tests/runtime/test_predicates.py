"""Predicates: generation-changed by default, with deletion and finalizer changes let through."""

from __future__ import annotations

from typing import Any

from opgen.runtime import predicates
from opgen.runtime.informer import Event
from opgen.runtime.store import Entry, entry_from_dict


def entry(generation: int | None = 1, rv: str = "1", **meta: Any) -> Entry:
    return entry_from_dict(
        {
            "metadata": {
                "name": "x",
                "namespace": "a",
                "resourceVersion": rv,
                "generation": generation,
                **meta,
            }
        }
    )


def update(old: Entry, new: Entry) -> Event:
    return Event("MODIFIED", old, new)


def test_default_for_filters_status_and_metadata_only_updates() -> None:
    base = entry()
    assert predicates.default_for(Event("ADDED", None, base))
    assert predicates.default_for(Event("DELETED", base, base))
    assert not predicates.default_for(
        update(base, entry(rv="2"))
    )  # status write: same generation
    assert not predicates.default_for(update(base, entry(rv="2", labels={"a": "b"})))
    assert predicates.default_for(update(base, entry(generation=2, rv="2")))
    assert predicates.default_for(
        update(base, entry(rv="2", deletionTimestamp="2026-01-01T00:00:00Z"))
    )
    assert predicates.default_for(update(base, entry(rv="2", finalizers=["f"])))


def test_kinds_without_generation_pass_on_any_change() -> None:
    assert predicates.generation_changed(update(entry(None), entry(None, rv="2")))
    assert not predicates.generation_changed(update(entry(None), entry(None)))


def test_label_and_annotation_predicates_and_combinators() -> None:
    old = entry(labels={"a": "1"}, annotations={"x": "1"})
    relabelled = entry(rv="2", labels={"a": "2"}, annotations={"x": "1"})
    assert predicates.labels_changed(update(old, relabelled))
    assert not predicates.annotations_changed(update(old, relabelled))
    selected = predicates.has_labels({"a": "2"})
    assert selected(update(old, relabelled)) and not selected(Event("ADDED", None, old))
    both = predicates.and_(predicates.labels_changed, selected)
    either = predicates.or_(predicates.annotations_changed, selected)
    assert both(update(old, relabelled)) and either(update(old, relabelled))
    assert not predicates.not_(predicates.labels_changed)(update(old, relabelled))
    assert predicates.resource_version_changed(update(old, relabelled))
