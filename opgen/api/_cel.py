"""CEL validation markers (`x-kubernetes-validations`): Rule, Immutable, one-of groups.

The API server evaluates these rules on every write, and so do the models:
`enforce_rules` (run by `op.Model` after validation) evaluates a model's own
rules and those of its fields with `opgen.engine.cel`; `validate_update(old,
new)` also runs the transition rules (`oldSelf`), pairing old and new nodes
the way the server does (fields by name, items of `map` lists by their keys,
map values by key). `rule_causes(error)` lists failed rules as the server's
422 causes. Objects decoded from the server are not checked again
(`opgen.engine.cel.rules.rules_skipped`).
"""

from __future__ import annotations

import types
import typing
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from opgen.api._structure import ListMapKey
from opgen.engine.cel import REASONS, cel_field, uses_old_self
from opgen.engine.cel.program import MISSING_ENGINE, available
from opgen.engine.cel.rules import (
    ABSENT,
    Violation,
    check_rules,
    rule_mode,
    transition_rules_deferred,
)
from opgen.engine.markers import Marker, MarkerContext, Placement, SchemaNode, node_type
from opgen.engine.naming import to_camel
from opgen.engine.reading import field_markers, type_markers
from opgen.engine.wire import to_wire_value
from opgen.errors import MarkerError

__all__ = [
    "AtLeastOneOf",
    "AtMostOneOf",
    "ExactlyOneOf",
    "Immutable",
    "Rule",
    "RuleCause",
    "enforce_rules",
    "rule_causes",
    "validate_update",
]


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


# ---- evaluating the rules in Python ---------------------------------------------


@dataclass(frozen=True)
class _FieldRules:
    name: str
    wire: str
    rules: tuple[SchemaNode, ...]
    item_rules: tuple[SchemaNode, ...]


@dataclass(frozen=True)
class _RulePlan:
    own: tuple[SchemaNode, ...]
    fields: tuple[_FieldRules, ...]

    @property
    def empty(self) -> bool:
        return not (self.own or self.fields)


def _marker_rules(marker: Marker) -> list[SchemaNode]:
    if isinstance(marker, Rule):
        return [marker.as_schema()]
    if isinstance(marker, Immutable):
        return [{"message": "field is immutable", "rule": "self == oldSelf"}]
    return []


def _rule_plan(cls: type) -> _RulePlan:
    """The rules of a model class, read once from its markers and kept on it."""
    plan = cls.__dict__.get("__opgen_rule_plan__")
    if isinstance(plan, _RulePlan):
        return plan
    own: list[SchemaNode] = []
    for marker in type_markers(cls):
        own.extend(_marker_rules(marker))
    fields: list[_FieldRules] = []
    for name, info in getattr(cls, "model_fields", {}).items():
        wire = info.alias or to_camel(name)
        rules: list[SchemaNode] = []
        items: list[SchemaNode] = []
        for marker in field_markers(info):
            rules.extend(_marker_rules(marker))
            if isinstance(marker, Immutable) and not info.is_required():
                ref = cel_field(wire)
                own.append(
                    {
                        "message": f"field {wire} is immutable once set",
                        "rule": f"!has(oldSelf.{ref}) || has(self.{ref})",
                    }
                )
            for inner in getattr(marker, "markers", ()):
                if isinstance(inner, Marker):
                    items.extend(_marker_rules(inner))
        if rules or items:
            fields.append(_FieldRules(name, wire, tuple(rules), tuple(items)))
    plan = _RulePlan(tuple(own), tuple(fields))
    type.__setattr__(cls, "__opgen_rule_plan__", plan)
    return plan


@dataclass(frozen=True)
class RuleCause:
    """One failed CEL rule, as the API server reports it in a 422's causes."""

    field: str
    """The path the server names (`spec.workerGroups[0].minReplicas`)."""
    message: str
    """The cause's message (`Invalid value: "object": ...`)."""
    reason: str
    """`FieldValueInvalid`, `FieldValueForbidden`, `FieldValueRequired` or
    `FieldValueDuplicate`."""
    rule: str


def _joined(base: str, relative: str) -> str:
    if not relative:
        return base
    relative = relative.lstrip(".") if not base else relative
    if relative.startswith("[") or not base:
        return base + relative
    return f"{base}{relative}" if relative.startswith(".") else f"{base}.{relative}"


def _violations(
    plan: _RulePlan,
    wire: dict[str, Any],
    old: Any,
    *,
    plain: bool,
    transitions: bool,
    base: str = "",
) -> list[RuleCause]:
    causes: list[RuleCause] = []

    def add(found: list[Violation], where: str) -> None:
        causes.extend(
            RuleCause(_joined(where, v.field), v.cause_message(), v.reason, v.rule)
            for v in found
        )

    olds = old if isinstance(old, dict) else {}
    add(
        check_rules(plan.own, wire, old=old, plain=plain, transitions=transitions),
        base,
    )
    for rules in plan.fields:
        if rules.wire not in wire:
            continue
        value = wire[rules.wire]
        where = _joined(base, rules.wire)
        previous = olds.get(rules.wire, ABSENT)
        add(
            check_rules(
                rules.rules, value, old=previous, plain=plain, transitions=transitions
            ),
            where,
        )
        if rules.item_rules and isinstance(value, list):
            for position, item in enumerate(value):
                add(
                    check_rules(rules.item_rules, item, plain=plain, transitions=False),
                    f"{where}[{position}]",
                )
    return causes


_warned: set[type] = set()


def enforce_rules(model: Any) -> None:
    """Evaluate a validated model's own CEL rules (those of its class and fields).

    Raises a Pydantic error carrying the causes (`rule_causes(error)` reads
    them). Nested models check their own rules when they are validated.
    """
    mode = rule_mode()
    if mode == "skip":
        return
    cls = type(model)
    plan = _rule_plan(cls)
    if plan.empty:
        return
    if not available():
        if cls not in _warned:
            _warned.add(cls)
            warnings.warn(f"{cls.__name__}: {MISSING_ENGINE}", stacklevel=2)
        return
    wire = to_wire_value(model)
    causes = _violations(plan, wire, ABSENT, plain=True, transitions=mode == "create")
    if causes:
        raise PydanticCustomError(
            "kubernetes_rule",
            "{problem}",
            {
                "problem": "; ".join(
                    f"{c.field + ': ' if c.field else ''}{c.message}" for c in causes
                ),
                "causes": causes,
            },
        )


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            others = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(others) != 1:
                return None
            annotation = others[0]
        elif hasattr(annotation, "__value__"):
            annotation = annotation.__value__
        else:
            return annotation


def _model_class(annotation: Any) -> type | None:
    inner = _unwrap(annotation)
    if isinstance(inner, type) and hasattr(inner, "model_fields"):
        return inner
    return None


def _transition_causes(cls: type, new: Any, old: Any, base: str) -> list[RuleCause]:
    if not isinstance(new, dict):
        return []
    plan = _rule_plan(cls)
    causes = _violations(plan, new, old, plain=False, transitions=True, base=base)
    olds = old if isinstance(old, dict) else {}
    for name, info in getattr(cls, "model_fields", {}).items():
        wire = info.alias or to_camel(name)
        if wire not in new:
            continue
        value, previous = new[wire], olds.get(wire, ABSENT)
        where = _joined(base, wire)
        child = _model_class(info.annotation)
        if child is not None:
            causes += _transition_causes(child, value, previous, where)
            continue
        shape = _unwrap(info.annotation)
        args = typing.get_args(shape)
        origin = typing.get_origin(shape)
        if origin is list and args and (item := _model_class(args[0])) is not None:
            keys = [m.key for m in field_markers(info) if isinstance(m, ListMapKey)]
            keys = [
                k if k in (value[0] if value else {}) else to_camel(k) for k in keys
            ]
            before: dict[tuple[Any, ...], Any] = {}
            if keys and isinstance(previous, list):
                before = {
                    tuple(i.get(k) for k in keys): i
                    for i in previous
                    if isinstance(i, dict)
                }
            for position, entry in enumerate(value):
                if not isinstance(entry, dict):
                    continue
                matched = (
                    before.get(tuple(entry.get(k) for k in keys), ABSENT)
                    if keys
                    else ABSENT
                )
                causes += _transition_causes(
                    item, entry, matched, f"{where}[{position}]"
                )
        elif origin is dict and len(args) == 2 and (item := _model_class(args[1])):
            prior = previous if isinstance(previous, dict) else {}
            for key, entry in value.items():
                causes += _transition_causes(
                    item, entry, prior.get(key, ABSENT), f"{where}[{key}]"
                )
    return causes


def _rule_error(title: str, causes: list[RuleCause], value: Any) -> ValidationError:
    return ValidationError.from_exception_data(
        title,
        [
            {
                "type": PydanticCustomError(
                    "kubernetes_rule",
                    "{problem}",
                    {"problem": f"{c.field}: {c.message}", "causes": [c]},
                ),
                "loc": (),
                "input": value,
            }
            for c in causes
        ],
    )


ModelT = TypeVar("ModelT", bound=BaseModel)


def validate_update(old: ModelT, new: ModelT | Mapping[str, Any]) -> ModelT:
    """Validate `new` as an update of `old`: every rule, transition rules too.

    Raises `pydantic.ValidationError`, like `model_validate`; `rule_causes`
    lists the failed rules as the API server reports them.
    """
    cls = type(old)
    data = to_wire_value(new) if isinstance(new, BaseModel) else dict(new)
    with transition_rules_deferred():
        obj = cls.model_validate(data)
    if not available():
        return obj
    causes = _transition_causes(cls, to_wire_value(obj), to_wire_value(old), "")
    if causes:
        raise _rule_error(cls.__name__, causes, data)
    return obj


def _loc_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif str(part).startswith("function-"):
            continue
        else:
            path = f"{path}.{part}" if path else str(part)
    return path


def rule_causes(error: ValidationError) -> list[RuleCause]:
    """The CEL rules a `ValidationError` reports, with the server's field paths."""
    causes: list[RuleCause] = []
    for item in error.errors():
        if item["type"] != "kubernetes_rule":
            continue
        base = _loc_path(tuple(item["loc"]))
        for cause in (item.get("ctx") or {}).get("causes", ()):
            causes.append(
                RuleCause(
                    _joined(base, cause.field) if base else cause.field,
                    cause.message,
                    cause.reason,
                    cause.rule,
                )
            )
    return causes
