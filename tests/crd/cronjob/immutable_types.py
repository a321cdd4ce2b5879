"""ImmutableType: controller-tools' `immutable/types.go` (the `+k8s:immutable` marker)."""

from __future__ import annotations

from typing import Annotated

import opgen.api as op


class NestedStruct(op.Model):
    key: str
    value: str


class ImmutableSpec(op.Model):
    required_string: Annotated[str, op.Immutable()]
    optional_string: Annotated[str, op.Immutable()] | None = None
    optional_literal_string: Annotated[str, op.Immutable()] = ""
    required_struct: Annotated[NestedStruct, op.Immutable()]
    optional_struct: Annotated[NestedStruct, op.Immutable()] | None = None
    optional_omit_zero_struct: Annotated[NestedStruct, op.Immutable()] | None = None
    required_slice: Annotated[list[str], op.Immutable()]
    optional_slice: Annotated[list[str], op.Immutable()] = []
    required_map: Annotated[dict[str, str], op.Immutable()]
    optional_map: Annotated[dict[str, str], op.Immutable()] = {}
    mutable_string: str


@op.kind(group="testdata.kubebuilder.io", version="v1")
class ImmutableType(op.CustomResource[ImmutableSpec, None]):
    pass
