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

import contextlib
import datetime
import decimal
import enum
import types
import typing
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from opgen.api._structure import Default, ListMapKey
from opgen.engine.cel import REASONS, cel_field, uses_old_self
from opgen.engine.cel.rules import (
    ABSENT,
    Violation,
    check_rules,
    rule_mode,
    rules_deferred,
)
from opgen.engine.cel.syntax import Projection, project, self_projection
from opgen.engine.markers import Marker, MarkerContext, Placement, SchemaNode, node_type
from opgen.engine.naming import to_camel
from opgen.engine.reading import field_markers, is_custom_resource, type_markers
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
    "prepare_rules",
    "rule_causes",
    "validate_kind",
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
    keyword: ClassVar[str] = "x-kubernetes-validations"
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
    reads: Projection
    """What the rules read of the value (converting it to CEL is the costly part)."""
    item_reads: Projection


@dataclass(frozen=True)
class _RulePlan:
    own: tuple[SchemaNode, ...]
    fields: tuple[_FieldRules, ...]
    needed: frozenset[str] | None
    """The Python fields the rules read (None: all); only these are dumped."""
    reads: Projection
    """What the model's own rules read of it."""

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
            fields.append(
                _FieldRules(
                    name,
                    wire,
                    tuple(rules),
                    tuple(items),
                    _reads(rules),
                    _reads(items),
                )
            )
    reads = _reads(own)
    plan = _RulePlan(tuple(own), tuple(fields), _needed(cls, reads, fields), reads)
    type.__setattr__(cls, "__opgen_rule_plan__", plan)
    return plan


def _reads(rules: list[SchemaNode]) -> Projection:
    return self_projection(
        *(
            str(text)
            for rule in rules
            for text in (rule.get("rule"), rule.get("messageExpression"))
            if text
        )
    )


def _needed(
    cls: type, reads: Projection, fields: list[_FieldRules]
) -> frozenset[str] | None:
    if reads is None:
        return None
    by_wire = {
        info.alias or to_camel(name): name
        for name, info in getattr(cls, "model_fields", {}).items()
    }
    needed = {rules.name for rules in fields}
    needed.update(by_wire[wire] for wire in reads if wire in by_wire)
    return frozenset(needed)


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
    if plan.own:
        seen = project(wire, plan.reads)
        add(
            check_rules(plan.own, seen, old=old, plain=plain, transitions=transitions),
            base,
        )
    for rules in plan.fields:
        if rules.wire not in wire:
            continue
        value = wire[rules.wire]
        where = _joined(base, rules.wire)
        previous = olds.get(rules.wire, ABSENT)
        if rules.rules:
            add(
                check_rules(
                    rules.rules,
                    project(value, rules.reads),
                    old=previous,
                    plain=plain,
                    transitions=transitions,
                ),
                where,
            )
        if rules.item_rules and isinstance(value, list):
            for position, item in enumerate(value):
                add(
                    check_rules(
                        rules.item_rules,
                        project(item, rules.item_reads),
                        plain=plain,
                        transitions=False,
                    ),
                    f"{where}[{position}]",
                )
    return causes


_warned: set[type] = set()


_EMPTY_DEFAULTS: tuple[Any, ...] = ("", [], {})


def _unsent_empties(cls: type) -> tuple[str, ...]:
    """Fields whose default is empty and so not in the CRD (docs/markers.md):
    the server does not see them unless the object sets them."""
    cached = cls.__dict__.get("__opgen_unsent_empties__")
    if isinstance(cached, tuple):
        return cached
    found = []
    for name, info in getattr(cls, "model_fields", {}).items():
        if info.is_required():
            continue
        default = info.get_default(call_default_factory=True)
        empty = any(default == e and type(default) is type(e) for e in _EMPTY_DEFAULTS)
        if empty and not any(isinstance(m, Default) for m in field_markers(info)):
            found.append(name)
    names = tuple(found)
    type.__setattr__(cls, "__opgen_unsent_empties__", names)
    return names


_SCALARS = (
    str,
    int,
    float,
    bytes,
    type(None),
    enum.Enum,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    decimal.Decimal,
)


def _may_hold_models(annotation: Any) -> bool:
    """Whether a field's value can hold a model (a `dict[str, str]` cannot)."""
    if isinstance(annotation, type) and not typing.get_args(annotation):
        if issubclass(annotation, BaseModel):
            return True
        return not issubclass(annotation, _SCALARS)
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return False
    if origin is Annotated:
        return _may_hold_models(typing.get_args(annotation)[0])
    if origin is not None:
        return any(
            _may_hold_models(arg)
            for arg in typing.get_args(annotation)
            if arg is not Ellipsis
        )
    if hasattr(annotation, "__value__"):
        return _may_hold_models(annotation.__value__)
    return annotation is not None and annotation is not type(None)


def _model_holders(cls: type) -> tuple[tuple[str, str], ...]:
    """The fields (name, wire key) of `cls` that can hold models, kept on the class."""
    cached = cls.__dict__.get("__opgen_model_holders__")
    if isinstance(cached, tuple):
        return cached
    holders = tuple(
        (name, info.alias or to_camel(name))
        for name, info in getattr(cls, "model_fields", {}).items()
        if _may_hold_models(info.annotation)
    )
    type.__setattr__(cls, "__opgen_model_holders__", holders)
    return holders


def server_view(model: Any, wire: Any) -> Any:
    """`wire` (the model's dump) as the server sees the object it came from:
    empty defaults the object did not set are left out, as on the wire."""
    if isinstance(model, BaseModel) and isinstance(wire, dict):
        unset = [
            name
            for name in _unsent_empties(type(model))
            if name not in model.model_fields_set
        ]
        fields = type(model).model_fields
        for name in unset:
            wire.pop(fields[name].alias or to_camel(name), None)
        for name, key in _model_holders(type(model)):
            if key in wire:
                server_view(getattr(model, name), wire[key])
    elif isinstance(model, list | tuple) and isinstance(wire, list):
        for item, dumped in zip(model, wire, strict=False):
            server_view(item, dumped)
    elif isinstance(model, dict) and isinstance(wire, dict):
        for key, item in model.items():
            if key in wire:
                server_view(item, wire[key])
    return wire


def _engine_missing(cls: type) -> bool:
    # the engine loads here, when a model with rules first checks them
    from opgen.engine.cel.program import MISSING_ENGINE, available

    if available():
        return False
    if cls not in _warned:
        _warned.add(cls)
        warnings.warn(f"{cls.__name__}: {MISSING_ENGINE}", stacklevel=3)
    return True


def _rule_problem(causes: list[RuleCause]) -> PydanticCustomError:
    return PydanticCustomError(
        "kubernetes_rule",
        "{problem}",
        {
            "problem": "; ".join(
                f"{c.field + ': ' if c.field else ''}{c.message}" for c in causes
            ),
            "causes": causes,
        },
    )


def validate_kind(cls: type, data: Any, handler: Callable[[Any], Any]) -> Any:
    """A kind's validation: its models built with their rules deferred, then every
    rule of the object checked in one walk, so all failures are reported
    together, as the server reports them."""
    if rule_mode() != "create" or not is_custom_resource(cls):
        return handler(data)
    with rules_deferred():
        obj = handler(data)
    if _engine_missing(cls):
        return obj
    read = obj.model_dump(
        mode="json", by_alias=True, exclude_none=True, include=_rule_include(cls)
    )
    causes = _tree_causes(
        cls, server_view(obj, read), ABSENT, "", plain=True, transitions=True
    )
    if causes:
        raise _rule_problem(causes)
    return obj


def rules_empty(cls: type) -> bool:
    """Whether a model class has no CEL rules of its own (`enforce_rules` does nothing)."""
    return _rule_plan(cls).empty


def enforce_rules(model: Any) -> None:
    """Evaluate a validated model's own CEL rules (those of its class and fields).

    Raises a Pydantic error carrying the causes (`rule_causes(error)` reads
    them). Nested models check their own rules when they are validated; inside
    a kind, the kind checks them all (`validate_kind`).
    """
    if rule_mode() != "create":
        return
    cls = type(model)
    plan = _rule_plan(cls)
    if plan.empty or _engine_missing(cls):
        return
    wire = server_view(
        model,
        model.model_dump(
            mode="json", by_alias=True, exclude_none=True, include=plan.needed
        ),
    )
    causes = _violations(plan, wire, ABSENT, plain=True, transitions=True)
    if causes:
        raise _rule_problem(causes)


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


@dataclass(frozen=True)
class _Child:
    """A field holding nested models that have rules somewhere below."""

    wire: str
    shape: str
    """`one` (a model), `list` (a list of models) or `map` (a map of models)."""
    cls: type
    keys: tuple[str, ...]
    """A `map` list's keys (its items are paired by them on updates)."""


def _children(cls: type, visiting: frozenset[type] = frozenset()) -> tuple[_Child, ...]:
    """The fields of `cls` worth walking for rules, read once and kept on the class."""
    cached = cls.__dict__.get("__opgen_rule_children__")
    if isinstance(cached, tuple):
        return cached
    children: list[_Child] = []
    for name, info in getattr(cls, "model_fields", {}).items():
        wire = info.alias or to_camel(name)
        shape, child = "one", _model_class(info.annotation)
        if child is None:
            unwrapped = _unwrap(info.annotation)
            args = typing.get_args(unwrapped)
            origin = typing.get_origin(unwrapped)
            if origin is list and args:
                shape, child = "list", _model_class(args[0])
            elif origin is dict and len(args) == 2:
                shape, child = "map", _model_class(args[1])
        if child is None:
            continue
        if child not in visiting and not _has_rules(child, visiting | {cls}):
            continue
        keys = tuple(m.key for m in field_markers(info) if isinstance(m, ListMapKey))
        children.append(_Child(wire, shape, child, keys))
    found = tuple(children)
    if not visiting:
        type.__setattr__(cls, "__opgen_rule_children__", found)
    return found


def _has_rules(cls: type, visiting: frozenset[type] = frozenset()) -> bool:
    return not _rule_plan(cls).empty or bool(_children(cls, visiting))


def prepare_rules(cls: type) -> None:
    """Read the rule walk of a kind (or any model) and of every model it nests,
    as their first validation with rules would: what `_children` and
    `_rule_include` keep on each class, and the CEL programs of their rules
    (the engine loaded). Nested classes are read before the
    classes that hold them, so each is read once (a first validation reads
    the tree below each class it meets first again). Only models that nest
    no cycle, whose walk does not depend on where it starts; a class whose
    fields are not all resolved yet is left to its first validation."""
    done: set[type] = set()
    path: set[type] = set()

    def visit(model: type) -> bool:
        """Whether the models below `model` (and it) were read: no cycle."""
        if model in path:
            return False
        if model in done:
            return True
        if getattr(model, "__pydantic_fields_complete__", True) is False:
            return False
        path.add(model)
        acyclic = True
        for info in getattr(model, "model_fields", {}).values():
            inner = _unwrap(info.annotation)
            for candidate in (inner, *typing.get_args(inner)):
                child = _model_class(candidate)
                if child is not None:
                    acyclic = visit(child) and acyclic
        path.discard(model)
        if acyclic:
            done.add(model)
            _children(model)
        return acyclic

    if visit(cls):
        _rule_include(cls)
        if _has_rules(cls):
            _compile_rules(done)


def _compile_rules(classes: Iterable[type]) -> None:
    """Load the CEL engine and compile the rules of `classes` (each program is
    kept per expression); one that does not compile is left to its check,
    which reports it."""
    from opgen.engine.cel.program import available, compile_expression

    if not available():
        return
    for cls in classes:
        plan = _rule_plan(cls)
        rules = [
            *plan.own,
            *(rule for field in plan.fields for rule in field.rules),
            *(rule for field in plan.fields for rule in field.item_rules),
        ]
        for rule in rules:
            with contextlib.suppress(Exception):
                compile_expression(str(rule["rule"]))


def _rule_include(
    cls: type, visiting: frozenset[type] = frozenset()
) -> dict[str, Any] | None:
    """What of an object of class `cls` its rules and its nested models'
    rules read, as `model_dump`'s `include` (None: all of it): dumping the
    rest costs more than the rules. Read once and kept on the class."""
    cached = cls.__dict__.get("__opgen_rule_include__")
    if isinstance(cached, dict):
        return cached
    plan = _rule_plan(cls)
    if plan.needed is None or cls in visiting:
        return None
    fields = getattr(cls, "model_fields", {})
    by_wire = {info.alias or to_camel(name): name for name, info in fields.items()}
    include: dict[str, Any] = {name: True for name in plan.needed}
    for child in _children(cls):
        name = by_wire[child.wire]
        if name in include:
            continue
        below = _rule_include(child.cls, visiting | {cls})
        read = True if below is None else below
        include[name] = read if child.shape == "one" else {"__all__": read}
    if not visiting:
        type.__setattr__(cls, "__opgen_rule_include__", include)
    return include


def _tree_causes(
    cls: type, new: Any, old: Any, base: str, *, plain: bool, transitions: bool
) -> list[RuleCause]:
    """Every failed rule of the object `new` of class `cls` (and of its nested
    models), with `old` paired node by node the way the server pairs them."""
    if not isinstance(new, dict):
        return []
    plan = _rule_plan(cls)
    causes = (
        []
        if plan.empty
        else _violations(
            plan, new, old, plain=plain, transitions=transitions, base=base
        )
    )
    flags = {"plain": plain, "transitions": transitions}
    olds = old if isinstance(old, dict) else {}
    for child in _children(cls):
        value = new.get(child.wire)
        if value is None:
            continue
        previous = olds.get(child.wire, ABSENT)
        where = _joined(base, child.wire)
        if child.shape == "one":
            causes += _tree_causes(child.cls, value, previous, where, **flags)
        elif child.shape == "list" and isinstance(value, list):
            keys = [
                k if k in (value[0] if value else {}) else to_camel(k)
                for k in child.keys
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
                causes += _tree_causes(
                    child.cls, entry, matched, f"{where}[{position}]", **flags
                )
        elif child.shape == "map" and isinstance(value, dict):
            prior = previous if isinstance(previous, dict) else {}
            for key, entry in value.items():
                causes += _tree_causes(
                    child.cls,
                    entry,
                    prior.get(key, ABSENT),
                    f"{where}[{key}]",
                    **flags,
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
    with rules_deferred():
        obj = cls.model_validate(data)
    if not _has_rules(cls) or _engine_missing(cls):
        return obj
    causes = _tree_causes(
        cls,
        server_view(obj, to_wire_value(obj)),
        server_view(old, to_wire_value(old)),
        "",
        plain=True,
        transitions=True,
    )
    if causes:
        raise _rule_error(cls.__name__, causes, data)
    return obj


def failed_rules(
    cls: type, wire: Mapping[str, Any], old: Mapping[str, Any] | None = None
) -> list[RuleCause]:
    """The CEL rules an object of `cls` in wire form (as the server stores it,
    defaults applied) fails, transition rules too when `old` is given: the
    rules run on the data itself, so they are judged even where another
    constraint of the same model fails, as the server judges them."""
    if _engine_missing(cls):
        return []
    return _tree_causes(
        cls,
        dict(wire),
        dict(old) if old is not None else ABSENT,
        "",
        plain=True,
        transitions=old is not None,
    )


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
