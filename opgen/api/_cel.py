"""CEL validation markers (`x-kubernetes-validations`): Rule, Immutable, one-of groups.

The API server evaluates these rules on every write. opgen checks what it can
without a CEL compiler (reasons, messages, `optionalOldSelf` only with
`oldSelf`, field names of one-of groups; the CEL facts are in
`opgen.engine.cel`); the expressions themselves are compiled by the API server
when the CRD is installed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from opgen.engine.cel import REASONS, cel_field, uses_old_self
from opgen.engine.markers import Marker, MarkerContext, Placement, SchemaNode, node_type
from opgen.engine.naming import to_camel
from opgen.errors import MarkerError

__all__ = ["AtLeastOneOf", "AtMostOneOf", "ExactlyOneOf", "Immutable", "Rule"]


def _append_rule(node: SchemaNode, rule: SchemaNode) -> SchemaNode:
    return {
        **node,
        "x-kubernetes-validations": [*node.get("x-kubernetes-validations", ()), rule],
    }


@dataclass(frozen=True)
class Rule(Marker):
    """A CEL validation rule (`x-kubernetes-validations`); repeatable."""

    rule: str
    message: str | None = None
    message_expression: str | None = None
    reason: str | None = None
    field_path: str | None = None
    optional_old_self: bool | None = None
    repeatable: ClassVar[bool] = True

    def __post_init__(self) -> None:
        shown = f"op.Rule({self.rule!r})"
        if not isinstance(self.rule, str) or not self.rule.strip():
            raise MarkerError(f"{shown}: the rule must be a non-empty CEL expression")
        if self.message is not None:
            if not self.message.strip():
                raise MarkerError(f"{shown}: message must not be blank")
            if "\n" in self.message or "\r" in self.message:
                raise MarkerError(f"{shown}: message must not contain line breaks")
        elif ("\n" in self.rule.strip() or "\r" in self.rule.strip()) and not (
            self.message_expression
        ):
            raise MarkerError(f"{shown}: a rule with line breaks needs a message=")
        if self.message_expression is not None and not self.message_expression.strip():
            raise MarkerError(f"{shown}: message_expression must not be blank")
        if self.reason is not None and self.reason not in REASONS:
            raise MarkerError(
                f"{shown}: reason={self.reason!r} is not one the API server accepts",
                hint="one of " + ", ".join(REASONS),
            )
        if self.field_path is not None and (
            not self.field_path.strip() or "\n" in self.field_path
        ):
            raise MarkerError(
                f"{shown}: field_path must be a one-line path like .spec.foo"
            )
        if self.optional_old_self is not None and not uses_old_self(self.rule):
            raise MarkerError(
                f"{shown}: optional_old_self only makes sense when the rule uses oldSelf"
            )

    def as_schema(self) -> SchemaNode:
        rule: SchemaNode = {"rule": self.rule}
        if self.message is not None:
            rule["message"] = self.message
        if self.message_expression is not None:
            rule["messageExpression"] = self.message_expression
        if self.reason is not None:
            rule["reason"] = self.reason
        if self.field_path is not None:
            rule["fieldPath"] = self.field_path
        if self.optional_old_self is not None:
            rule["optionalOldSelf"] = self.optional_old_self
        return rule

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        return _append_rule(node, self.as_schema())


@dataclass(frozen=True)
class Immutable(Marker):
    """The value cannot change once set (`self == oldSelf`). On an optional field
    it also cannot be removed once set."""

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        if ctx.placement is Placement.FIELD and not ctx.required and ctx.wire_name:
            name = ctx.wire_name
            ref = cel_field(name)
            ctx.parent_rules.append(
                {
                    "message": f"field {name} is immutable once set",
                    "rule": f"!has(oldSelf.{ref}) || has(self.{ref})",
                }
            )
        return _append_rule(
            node, {"message": "field is immutable", "rule": "self == oldSelf"}
        )


@dataclass(frozen=True, init=False)
class _OneOfGroup(Marker):
    fields: tuple[str, ...] = field(default=())
    placements: ClassVar[Placement] = Placement.TYPE
    repeatable: ClassVar[bool] = True
    requirement: ClassVar[str]
    """The rule's message; `{names}` stands for the members, space-separated."""

    def __init__(self, *fields: str) -> None:
        name = type(self).__name__
        if len(fields) == 1 and isinstance(fields[0], list | tuple):
            fields = tuple(fields[0])
        if len(fields) < 2:
            raise MarkerError(f"op.{name}{fields!r}: name at least two fields")
        for member in fields:
            if not isinstance(member, str) or not member:
                raise MarkerError(f"op.{name}: {member!r} is not a field name")
            if "." in member:
                raise MarkerError(
                    f"op.{name}: {member!r} is a nested path; the fields must belong "
                    "to the decorated model"
                )
        object.__setattr__(self, "fields", tuple(fields))

    def display(self) -> str:
        return f"op.{type(self).__name__}({', '.join(repr(f) for f in self.fields)})"

    def _members(self, node: SchemaNode, ctx: MarkerContext) -> list[str]:
        if node_type(node) != "object" or "properties" not in node:
            raise ctx.error(self, "decorates a model with fields")
        properties = node["properties"]
        required = set(node.get("required", ()))
        members: list[str] = []
        for member in self.fields:
            wire = member if member in properties else to_camel(member)
            if wire not in properties:
                raise ctx.error(
                    self,
                    f"the model has no field {member!r}",
                    hint="its fields: " + ", ".join(sorted(properties)),
                )
            if wire in required:
                raise ctx.error(
                    self,
                    f"field {member!r} is required, so the group can never be satisfied "
                    "the way it reads",
                    hint="give the member fields a default (e.g. = None)",
                )
            members.append(wire)
        if len(set(members)) != len(members):
            raise ctx.error(self, "names a field twice")
        return members

    def _present(self, value: Any) -> list[str]:
        """The members set in a wire object (`has(self.x)` in the CEL rule)."""
        if not isinstance(value, dict):
            return []
        names = [m if m in value else to_camel(m) for m in self.fields]
        return [name for name in names if name in value]

    def _satisfied_by(self, count: int) -> bool:
        """Whether `count` members set is what the group allows."""
        raise NotImplementedError

    def _rule(self, members: list[str]) -> str:
        """The CEL expression over the members' wire names."""
        raise NotImplementedError

    def check(self, value: Any) -> str | None:
        if not isinstance(value, dict) or self._satisfied_by(len(self._present(value))):
            return None
        names = " ".join(m if m in value else to_camel(m) for m in self.fields)
        set_now = ", ".join(self._present(value)) or "none"
        return f"{self.requirement.format(names=names)} (set: {set_now})"

    def apply(self, node: SchemaNode, ctx: MarkerContext) -> SchemaNode:
        members = self._members(node, ctx)
        return _append_rule(
            node,
            {
                "message": self.requirement.format(names=" ".join(members)),
                "rule": self._rule(members),
            },
        )


def _count(members: list[str]) -> str:
    return "+".join(f"(has(self.{cel_field(m)})?1:0)" for m in members)


@dataclass(frozen=True, init=False)
class AtMostOneOf(_OneOfGroup):
    """At most one of the named fields may be set (a CEL rule on the model)."""

    priority: ClassVar[int] = 11
    requirement: ClassVar[str] = "at most one of the fields in [{names}] may be set"

    def _satisfied_by(self, count: int) -> bool:
        return count <= 1

    def _rule(self, members: list[str]) -> str:
        return f"{_count(members)} <= 1"


@dataclass(frozen=True, init=False)
class ExactlyOneOf(_OneOfGroup):
    """Exactly one of the named fields must be set (a CEL rule on the model)."""

    priority: ClassVar[int] = 12
    requirement: ClassVar[str] = "exactly one of the fields in [{names}] must be set"

    def _satisfied_by(self, count: int) -> bool:
        return count == 1

    def _rule(self, members: list[str]) -> str:
        return f"{_count(members)} == 1"


@dataclass(frozen=True, init=False)
class AtLeastOneOf(_OneOfGroup):
    """At least one of the named fields must be set (a CEL rule on the model)."""

    priority: ClassVar[int] = 13
    requirement: ClassVar[str] = "at least one of the fields in [{names}] must be set"

    def _satisfied_by(self, count: int) -> bool:
        return count >= 1

    def _rule(self, members: list[str]) -> str:
        return "||".join(f"has(self.{cel_field(m)})" for m in members)
