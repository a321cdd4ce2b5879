"""`convert`: one call between opgen's models and lightkube's, either way.

A custom resource embeds Kubernetes types as `op.k8s` models
(`cluster.spec.head.template: op.k8s.PodTemplateSpec`); the runtime's
built-in resources are lightkube's (`lightkube.resources.apps_v1.Deployment`,
whose `spec.template` is a `lightkube.models.core_v1.PodTemplateSpec`). Both
describe the same wire form, so a value crosses over through it:

    from lightkube.models.core_v1 import PodTemplateSpec

    deployment.spec.template = convert(cluster.spec.head.template, PodTemplateSpec)
    template = convert(deployment.spec.template, op.k8s.PodTemplateSpec)

Any pair works: an `op.Model` (or `op.CustomResource`), a lightkube model or
resource, or a plain wire dict as the value; a Pydantic model class or a
lightkube class as the target. The value is validated as the target: an opgen
model refuses what its markers refuse.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

from pydantic import BaseModel

__all__ = ["convert", "wire_form"]

T = TypeVar("T")


def wire_form(value: object) -> dict[str, Any]:
    """`value` as the API server would see it: camelCase keys, no nulls."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return cast(dict[str, Any], to_dict())
    if isinstance(value, dict):
        return value
    raise TypeError(
        f"cannot convert {type(value).__name__}: give an opgen model, a lightkube "
        "model or a dict"
    )


def convert(value: object, into: type[T]) -> T:
    """`value` (an opgen model, a lightkube model, a wire dict) as an `into`."""
    wire = wire_form(value)
    if isinstance(into, type) and issubclass(into, BaseModel):
        return cast(T, into.model_validate(wire))
    from_dict = getattr(into, "from_dict", None)
    if callable(from_dict):
        return cast(T, from_dict(wire))
    raise TypeError(
        f"cannot convert into {getattr(into, '__name__', into)!r}: give a Pydantic "
        "model class (op.k8s.PodTemplateSpec, ...) or a lightkube class"
    )
