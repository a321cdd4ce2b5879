"""Oneof: controller-tools' `oneof/types.go` (AtMostOneOf, ExactlyOneOf, AtLeastOneOf)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from typing_extensions import TypeAliasType

import opgen.api as op


@op.Rule("!(has(self.foo) && has(self.bar))", message="only one of foo|bar may be set")
@op.AtMostOneOf("foo", "bar")
class TypeWithOneofs(op.Model):
    foo: str | None = None
    bar: str | None = None


@op.AtMostOneOf("a", "b")
@op.AtMostOneOf("c", "d")
class TypeWithMultipleOneofs(op.Model):
    a: str | None = None
    b: str | None = None
    c: str | None = None
    d: str | None = None


@op.ExactlyOneOf("foo", "bar")
class TypeWithExactOneofs(op.Model):
    foo: str | None = None
    bar: str | None = None


@op.ExactlyOneOf("a", "b")
@op.ExactlyOneOf("c", "d")
class TypeWithMultipleExactOneofs(op.Model):
    a: str | None = None
    b: str | None = None
    c: str | None = None
    d: str | None = None


@op.AtLeastOneOf("a", "b")
@op.AtLeastOneOf("c", "d")
class TypeWithMultipleAtLeastOneofs(op.Model):
    a: str | None = None
    b: str | None = None
    c: str | None = None
    d: str | None = None


@op.AtMostOneOf("a", "b")
@op.ExactlyOneOf("c", "d")
@op.AtLeastOneOf("e", "f")
class TypeWithAllOneofs(op.Model):
    a: str | None = None
    b: str | None = None
    c: str | None = None
    d: str | None = None
    e: str | None = None
    f: str | None = None


@op.AtMostOneOf("foo", "bar")
class TypeWithOmitZero(op.Model):
    foo: str | None = None
    bar: str | None = None


@op.ExactlyOneOf("a", "b")
class TypeWithOmitZeroExact(op.Model):
    a: str | None = None
    b: str | None = None


@op.AtLeastOneOf("c", "d")
class TypeWithOmitZeroAtLeastOneOf(op.Model):
    c: str | None = None
    d: str | None = None


CustomTypeAlias = TypeAliasType(
    "CustomTypeAlias",
    Annotated[
        int,
        op.Format("int32"),
        op.Rule("self >= 100 && self <= 1000", message="invalid CustomTypeAlias value"),
        Field(description="CustomTypeAlias is a custom alias"),
    ],
)


class OneofSpec(op.Model):
    """OneofSpec is the spec for the oneofs API."""

    first_type_with_oneof: TypeWithOneofs | None = None
    second_type_with_oneof: TypeWithMultipleOneofs | None = None
    first_type_with_exact_oneof: TypeWithExactOneofs | None = None
    second_type_with_exact_oneof: TypeWithMultipleExactOneofs | None = None
    type_with_multiple_at_least_oneofs: TypeWithMultipleAtLeastOneofs | None = Field(
        default=None, alias="typeWithMultipleAtLeastOneOf"
    )
    type_with_all_one_of: TypeWithAllOneofs | None = None
    type_with_omit_zero: TypeWithOmitZero | None = None
    type_with_omit_zero_exact: TypeWithOmitZeroExact | None = None
    type_with_omit_zero_at_least_one_of: TypeWithOmitZeroAtLeastOneOf | None = None
    first_custom_type_alias: CustomTypeAlias | None = None
    second_custom_type_alias: CustomTypeAlias | None = None
    """This verifies if the custom type alias XValidation is not duplicated."""


@op.kind(group="testdata.kubebuilder.io", version="v1beta1")
class Oneof(op.CustomResource[OneofSpec, None]):
    """Oneof is the Schema for the Oneof API"""
