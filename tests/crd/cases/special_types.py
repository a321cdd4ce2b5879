"""Golden cases: Kubernetes value types, one kind each."""

from __future__ import annotations

from typing import Annotated

import opgen.api as op

GROUP = "cases.opgen.dev"


class QuantitySpec(op.Model):
    memory: op.Quantity = "1Gi"
    limits: dict[str, op.Quantity] = {}


@op.kind(group=GROUP, version="v1")
class QuantityCase(op.CustomResource[QuantitySpec, None]):
    """op.Quantity: int-or-string with the quantity pattern."""


class IntOrStringSpec(op.Model):
    max_unavailable: op.IntOrString = "25%"
    port: Annotated[op.IntOrString, op.Pattern(r"^[a-z0-9-]+$|^[0-9]+$")] | None = None


@op.kind(group=GROUP, version="v1")
class IntOrStringCase(op.CustomResource[IntOrStringSpec, None]):
    """op.IntOrString: `anyOf` integer/string with `x-kubernetes-int-or-string`."""


class TimeSpec(op.Model):
    not_before: op.Time | None = None


@op.kind(group=GROUP, version="v1")
class TimeCase(op.CustomResource[TimeSpec, None]):
    """op.Time: `format: date-time`, RFC 3339 in UTC."""


class MicroTimeSpec(op.Model):
    renewed_at: op.MicroTime | None = None


@op.kind(group=GROUP, version="v1")
class MicroTimeCase(op.CustomResource[MicroTimeSpec, None]):
    """op.MicroTime: `format: date-time` with microseconds."""


class DurationSpec(op.Model):
    interval: op.Duration
    timeout: op.Duration | None = None


@op.kind(group=GROUP, version="v1")
class DurationCase(op.CustomResource[DurationSpec, None]):
    """op.Duration: a Go duration string (`1h30m`)."""


class RawExtensionSpec(op.Model):
    config: op.RawExtension = {}


@op.kind(group=GROUP, version="v1")
class RawExtensionCase(op.CustomResource[RawExtensionSpec, None]):
    """op.RawExtension: an object kept as it is."""


class JsonSpec(op.Model):
    value: op.JSON = None
    values: dict[str, op.JSON] = {}


@op.kind(group=GROUP, version="v1")
class JsonCase(op.CustomResource[JsonSpec, None]):
    """op.JSON: any JSON value."""


class BytesSpec(op.Model):
    ca_bundle: op.Bytes | None = None
    """Not `= b""`: the API server refuses an empty `format: byte` string."""


@op.kind(group=GROUP, version="v1")
class BytesCase(op.CustomResource[BytesSpec, None]):
    """op.Bytes: `format: byte` (standard base64)."""


class FloatSpec(op.Model):
    ratio: op.Float = 0.5


@op.kind(group=GROUP, version="v1")
class FloatCase(op.CustomResource[FloatSpec, None]):
    """op.Float: `type: number` (plain float is refused)."""


class PodTemplate(op.Model):
    metadata: op.ObjectMeta = op.ObjectMeta()
    image: str = ""


class ObjectMetaSpec(op.Model):
    template: PodTemplate | None = None


@op.kind(group=GROUP, version="v1")
class ObjectMetaCase(op.CustomResource[ObjectMetaSpec, None]):
    """op.ObjectMeta: `{type: object}` at the root, name/namespace/labels/annotations/finalizers when nested."""


class ConditionsStatus(op.Model):
    conditions: op.Conditions = []


@op.kind(group=GROUP, version="v1")
@op.subresource_status()
class ConditionsCase(op.CustomResource[None, ConditionsStatus]):
    """op.Conditions: a list of op.Condition keyed by type."""


class ObjectReferenceSpec(op.Model):
    target: op.ObjectReference | None = None


@op.kind(group=GROUP, version="v1")
class ObjectReferenceCase(op.CustomResource[ObjectReferenceSpec, None]):
    """op.ObjectReference: an atomic reference to any object."""


class LocalObjectReferenceSpec(op.Model):
    secret_ref: op.LocalObjectReference | None = None


@op.kind(group=GROUP, version="v1")
class LocalObjectReferenceCase(op.CustomResource[LocalObjectReferenceSpec, None]):
    """op.LocalObjectReference: an atomic reference by name in the same namespace."""
