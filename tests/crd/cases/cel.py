"""Golden cases: CEL (Rule, Immutable, AtMostOneOf, ExactlyOneOf, AtLeastOneOf)."""

from __future__ import annotations

from typing import Annotated

import opgen.api as op

GROUP = "cases.opgen.dev"


@op.Rule(
    "self.minReplicas <= self.maxReplicas",
    message="minReplicas must not exceed maxReplicas",
)
class Scaling(op.Model):
    min_replicas: int = 0
    max_replicas: int = 10


class RuleSpec(op.Model):
    scaling: Scaling
    name: Annotated[
        str,
        op.Rule("self.startsWith('app-')", message="must start with app-"),
        op.Rule(
            "self.size() <= 20",
            # string(int) has no size bound, so the API server refuses its cost
            # in a messageExpression; concatenating `self` is fine.
            message_expression="'name ' + self + ' is longer than 20 characters'",
            reason="FieldValueInvalid",
        ),
    ]
    replicas: Annotated[
        int,
        op.Rule(
            "oldSelf.hasValue() || self == 0",
            message="must be 0 on creation",
            optional_old_self=True,
        ),
    ] = 0


@op.Rule(
    "!has(self.spec) || self.spec.replicas <= 100",
    message="too many replicas",
    field_path=".spec.replicas",
)
@op.kind(group=GROUP, version="v1")
class RuleCase(op.CustomResource[RuleSpec, None]):
    """op.Rule(rule, message=, ...): `x-kubernetes-validations`, repeatable."""


class ImmutableSpec(op.Model):
    storage_class: Annotated[str, op.Immutable()]
    """Cannot change after creation."""
    volume_name: Annotated[str, op.Immutable()] | None = None
    """Optional: cannot change or be removed once set."""


@op.kind(group=GROUP, version="v1")
class ImmutableCase(op.CustomResource[ImmutableSpec, None]):
    """op.Immutable(): `self == oldSelf` (and a set-once rule on the parent for optional fields)."""


@op.AtMostOneOf("cpu", "gpu")
class AtMostOneOfSpec(op.Model):
    cpu: int | None = None
    gpu: int | None = None


@op.kind(group=GROUP, version="v1")
class AtMostOneOfCase(op.CustomResource[AtMostOneOfSpec, None]):
    """op.AtMostOneOf(*fields): at most one of the fields may be set."""


@op.ExactlyOneOf("config_map", "secret")
class Source(op.Model):
    config_map: str | None = None
    secret: str | None = None


class ExactlyOneOfSpec(op.Model):
    source: Source


@op.kind(group=GROUP, version="v1")
class ExactlyOneOfCase(op.CustomResource[ExactlyOneOfSpec, None]):
    """op.ExactlyOneOf(*fields): exactly one of the fields must be set."""


@op.AtLeastOneOf("email", "slack")
class AtLeastOneOfSpec(op.Model):
    email: str | None = None
    slack: str | None = None


@op.kind(group=GROUP, version="v1")
class AtLeastOneOfCase(op.CustomResource[AtLeastOneOfSpec, None]):
    """op.AtLeastOneOf(*fields): at least one of the fields must be set."""
