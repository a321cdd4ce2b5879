"""Test kinds: a namespaced Widget and a cluster-scoped Gadget, both with status and scale."""

from __future__ import annotations

from pydantic import Field

from tests.runtime import standin as op


class WidgetSpec(op.Model):
    replicas: int = 1
    message: str = ""
    fail: str | None = None


class WidgetStatus(op.Model):
    replicas: int = 0
    selector: str | None = None
    observed_generation: int | None = None
    ready: bool | None = None
    conditions: list[op.Condition] = Field(default_factory=list)


@op.kind(
    group="test.opgen.dev",
    version="v1",
    plural="widgets",
    scale=(".spec.replicas", ".status.replicas", ".status.selector"),
)
class Widget(op.CustomResource[WidgetSpec, WidgetStatus]):
    """A namespaced test kind."""


@op.kind(
    group="test.opgen.dev",
    version="v1",
    plural="gadgets",
    namespaced=False,
    scale=(".spec.replicas", ".status.replicas", ".status.selector"),
)
class Gadget(op.CustomResource[WidgetSpec, WidgetStatus]):
    """A cluster-scoped test kind."""


def widget(name: str, namespace: str, **spec: object) -> Widget:
    return Widget(metadata=op.ObjectMeta(name=name, namespace=namespace), spec=WidgetSpec(**spec))  # type: ignore[arg-type]
