"""Where opgen's decorators keep what they record on a class.

A decorator (a type marker, a kind-level decorator, `@op.rbac`,
`@op.webhook`, `@op.conversion`) appends a frozen value to a list kept on the
decorated class itself, under one of the attributes below;
`opgen.engine.reading` reads them back. Values live on the class they
decorate, never on a base class, so a subclass does not inherit what
decorated its parent.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CUSTOM_RESOURCE_FLAG",
    "KIND_MARKERS_ATTR",
    "RBAC_ATTR",
    "TYPE_MARKERS_ATTR",
    "WEBHOOK_ATTR",
    "record_on_class",
    "recorded_on_class",
]

TYPE_MARKERS_ATTR = "__opgen_type_markers__"
"""Markers used as class decorators on a model."""
KIND_MARKERS_ATTR = "__opgen_kind_markers__"
"""Kind-level decorators on a CustomResource class."""
RBAC_ATTR = "__opgen_rbac_rules__"
"""`@op.rbac` rules on a reconciler class."""
WEBHOOK_ATTR = "__opgen_webhooks__"
"""`@op.webhook` and `@op.conversion` declarations on a handler class."""
CUSTOM_RESOURCE_FLAG = "__opgen_custom_resource__"
"""A class attribute, True on `op.CustomResource` and its subclasses."""


def record_on_class(cls: type, attr: str, value: object) -> None:
    """Add `value` to the list `attr` kept on `cls` itself (never on a base class,
    so that subclasses do not inherit what decorated their parent)."""
    recorded: list[object] | None = cls.__dict__.get(attr)
    if recorded is None:
        recorded = []
        setattr(cls, attr, recorded)
    recorded.append(value)


def recorded_on_class(cls: type, attr: str) -> tuple[Any, ...]:
    """What decorators recorded under `attr` on `cls` itself, in source order.

    Decorators run bottom-up, so the list is reversed.
    """
    return tuple(reversed(cls.__dict__.get(attr) or ()))
