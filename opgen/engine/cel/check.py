"""Type-checking a CEL rule against its node's schema, and estimating its cost.

`check_expression(expression, schema, ...)` answers what the API server's
CEL compiler would object to when the CRD is installed, with the offset in
the expression: a syntax error (the engine's parser judges), an undeclared
name or a function the server does not offer, a field the schema does not
have (`undefined field`), an operator or function applied to values of the
wrong type, and a rule that cannot be a bool (a `messageExpression`: a
string). It also returns an estimate of the rule's cost, the way the server's
estimator reasons: lists and maps as large as `maxItems`/`maxProperties`
allow (or as many items as fit in a 3 MiB request), strings as long as
`maxLength` allows. The estimate does not reproduce cel-go's per-function
constants (docs/markers.md says where it lies).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opgen.engine.cel.facts import cel_field
from opgen.engine.cel.library import FUNCTIONS
from opgen.engine.cel.program import CelSyntaxError, available, compile_expression
from opgen.engine.cel.syntax import Node, ParseError, parse

__all__ = [
    "PER_CALL_LIMIT",
    "STATIC_CRD_COST_LIMIT",
    "STATIC_RULE_COST_LIMIT",
    "CelProblem",
    "CelType",
    "Checked",
    "check_expression",
    "schema_type",
]

STATIC_RULE_COST_LIMIT = 10_000_000
"""The server refuses a rule whose estimated cost is above this (StaticEstimatedCostLimit)."""
STATIC_CRD_COST_LIMIT = 100_000_000
"""... and a CRD whose rules add up past this (StaticEstimatedCRDCostLimit)."""
PER_CALL_LIMIT = 1_000_000
"""One evaluation stops at this cost (PerCallLimit)."""
MAX_REQUEST_BYTES = 3 * 1024 * 1024
"""The request size the server's estimator assumes for unbounded lists and strings."""


@dataclass(frozen=True)
class CelType:
    """A CEL type as opgen checks it: `kind` is dyn, int, uint, double, string,
    bool, bytes, null, timestamp, duration, list, map, object, optional, type,
    or a Kubernetes type (quantity, url, ip, cidr, semver)."""

    kind: str
    item: CelType | None = None
    """A list's items, a map's values, an optional's value."""
    schema: Any = None
    """An object's schema node (its properties)."""
    size: int | None = None
    """The most items (lists, maps) or characters (strings) a value can have."""

    def __str__(self) -> str:
        if self.kind == "list":
            return f"list({self.item})"
        if self.kind == "map":
            return f"map(string, {self.item})"
        return self.kind


DYN = CelType("dyn")
_SCALAR = {
    "int": CelType("int"),
    "uint": CelType("uint"),
    "double": CelType("double"),
    "string": CelType("string"),
    "bool": CelType("bool"),
    "bytes": CelType("bytes"),
    "null": CelType("null"),
    "timestamp": CelType("timestamp"),
    "duration": CelType("duration"),
    "type": CelType("type"),
}
_ROOT_METADATA = CelType(
    "object",
    schema={
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 253},
            "generateName": {"type": "string", "maxLength": 253},
        },
    },
)
_MIN_ITEM_BYTES = {"string": 3, "object": 3, "array": 3, "integer": 2, "number": 2}


def schema_type(schema: Any) -> CelType:
    """How the server presents a value of this schema node to CEL."""
    if not isinstance(schema, dict):
        return DYN
    if schema.get("x-kubernetes-int-or-string") or (
        schema.get("x-kubernetes-preserve-unknown-fields")
        and not schema.get("properties")
    ):
        return DYN
    kind = schema.get("type")
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            return CelType(
                "map",
                schema_type(extra),
                size=_count(schema.get("maxProperties"), extra),
            )
        return CelType("object", schema=schema)
    if kind == "array":
        items = schema.get("items")
        return CelType(
            "list", schema_type(items), size=_count(schema.get("maxItems"), items)
        )
    if kind == "string":
        spelt = schema.get("format")
        if spelt == "byte":
            return _SCALAR["bytes"]
        if spelt == "duration":
            return _SCALAR["duration"]
        if spelt in ("date", "date-time"):
            return _SCALAR["timestamp"]
        length = schema.get("maxLength")
        return CelType("string", size=length if isinstance(length, int) else None)
    if kind == "integer":
        return _SCALAR["int"]
    if kind == "number":
        return _SCALAR["double"]
    if kind == "boolean":
        return _SCALAR["bool"]
    return DYN


def _count(bound: Any, items: Any) -> int:
    if isinstance(bound, int):
        return bound
    kind = items.get("type") if isinstance(items, dict) else None
    return MAX_REQUEST_BYTES // _MIN_ITEM_BYTES.get(str(kind), 2)


@dataclass(frozen=True)
class CelProblem:
    message: str
    position: int


@dataclass
class Checked:
    """The outcome: problems (offsets into the expression), the rule's type, its
    estimated cost, and whether the engine can run it in Python."""

    problems: list[CelProblem] = field(default_factory=list)
    result: CelType = DYN
    cost: int = 0
    runnable: bool = True


_MACROS = {"all", "exists", "exists_one", "map", "filter"}
_STANDARD = {
    "size",
    "matches",
    "startsWith",
    "endsWith",
    "contains",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "duration",
    "timestamp",
    "dyn",
    "type",
    "has",
    "getFullYear",
    "getMonth",
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
    "hasValue",
    "value",
    "orValue",
    "or",
    "optMap",
    "optFlatMap",
}
_NAMESPACED = {
    "strings": {"quote"},
    "ip": {"isCanonical"},
    "optional": {"of", "none", "ofNonZeroValue"},
    "sets": {"contains", "equivalent", "intersects"},
}
_KNOWN = _STANDARD | _MACROS | set(FUNCTIONS)
_TYPE_NAMES = {
    "int",
    "uint",
    "double",
    "string",
    "bool",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
}
_STRING_METHODS = {
    "startsWith",
    "endsWith",
    "contains",
    "matches",
    "charAt",
    "lowerAscii",
    "upperAscii",
    "replace",
    "split",
    "substring",
    "trim",
    "find",
    "findAll",
    "format",
    "reverse",
}
_LIST_WALKS = frozenset(
    {"isSorted", "sum", "min", "max", "indexOf", "lastIndexOf", "join"}
)
_FAMILY = {
    "int": "number",
    "uint": "number",
    "double": "number",
    "string": "string",
    "bytes": "bytes",
    "bool": "bool",
    "timestamp": "timestamp",
    "duration": "duration",
    "list": "list",
    "map": "map",
    "object": "map",
}
_RESULTS = {
    "size": _SCALAR["int"],
    "matches": _SCALAR["bool"],
    "startsWith": _SCALAR["bool"],
    "endsWith": _SCALAR["bool"],
    "contains": _SCALAR["bool"],
    "int": _SCALAR["int"],
    "uint": _SCALAR["uint"],
    "double": _SCALAR["double"],
    "string": _SCALAR["string"],
    "bytes": _SCALAR["bytes"],
    "bool": _SCALAR["bool"],
    "duration": _SCALAR["duration"],
    "timestamp": _SCALAR["timestamp"],
    "charAt": _SCALAR["string"],
    "indexOf": _SCALAR["int"],
    "lastIndexOf": _SCALAR["int"],
    "lowerAscii": _SCALAR["string"],
    "upperAscii": _SCALAR["string"],
    "replace": _SCALAR["string"],
    "substring": _SCALAR["string"],
    "trim": _SCALAR["string"],
    "join": _SCALAR["string"],
    "reverse": _SCALAR["string"],
    "format": _SCALAR["string"],
    "quote": _SCALAR["string"],
    "find": _SCALAR["string"],
    "isSorted": _SCALAR["bool"],
    "hasValue": _SCALAR["bool"],
    "isQuantity": _SCALAR["bool"],
    "isURL": _SCALAR["bool"],
    "isIP": _SCALAR["bool"],
    "isCIDR": _SCALAR["bool"],
    "isSemver": _SCALAR["bool"],
    "quantity": CelType("quantity"),
    "url": CelType("url"),
    "cidr": CelType("cidr"),
    "semver": CelType("semver"),
    "isGreaterThan": _SCALAR["bool"],
    "isLessThan": _SCALAR["bool"],
    "compareTo": _SCALAR["int"],
}


class _Checker:
    def __init__(self, self_type: CelType, old_self: CelType | None) -> None:
        self.scopes: list[dict[str, CelType]] = [{"self": self_type}]
        if old_self is not None:
            self.scopes[0]["oldSelf"] = old_self
        self.problems: list[CelProblem] = []
        self.cost = 0

    def problem(self, message: str, node: Node) -> CelType:
        self.problems.append(CelProblem(message, node.position))
        return DYN

    def lookup(self, name: str) -> CelType | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def visit(self, node: Node) -> CelType:
        self.cost += 1
        method = getattr(self, f"visit_{node.kind}")
        result: CelType = method(node)
        return result

    def visit_literal(self, node: Node) -> CelType:
        return _SCALAR.get(node.name, DYN)

    def visit_list(self, node: Node) -> CelType:
        items = [self.visit(arg) for arg in node.args]
        same = items[0] if items and all(i == items[0] for i in items) else DYN
        return CelType("list", same, size=len(items))

    def visit_map(self, node: Node) -> CelType:
        values = [self.visit(arg) for arg in node.args][1::2]
        same = values[0] if values and all(v == values[0] for v in values) else DYN
        return CelType("map", same, size=len(values))

    def visit_struct(self, node: Node) -> CelType:
        return self.problem(f"undeclared reference to '{node.name}'", node)

    def visit_ident(self, node: Node) -> CelType:
        found = self.lookup(node.name)
        if found is not None:
            return found
        if node.name in _TYPE_NAMES or node.name in _NAMESPACED:
            return _SCALAR["type"]
        if node.name == "oldSelf":
            return self.problem(
                "undeclared reference to 'oldSelf' (oldSelf is only available on "
                "correlatable nodes)",
                node,
            )
        return self.problem(f"undeclared reference to '{node.name}'", node)

    def field_of(self, operand: CelType, name: str, node: Node) -> CelType:
        if operand.kind == "object":
            properties = operand.schema.get("properties") or {}
            for prop, schema in properties.items():
                if cel_field(prop) == name:
                    if prop == "metadata" and "kind" in properties:
                        return (
                            _ROOT_METADATA  # a kind's root: the server presents these
                        )
                    return schema_type(schema)
            if operand.schema.get("x-kubernetes-preserve-unknown-fields"):
                return DYN
            return self.problem(f"undefined field '{name}'", node)
        if operand.kind == "map":
            return operand.item or DYN
        if operand.kind in ("dyn", "optional"):
            return DYN
        return self.problem(f"type '{operand}' does not support field selection", node)

    def visit_select(self, node: Node) -> CelType:
        assert node.target is not None
        if node.target.kind == "ident" and node.target.name in _NAMESPACED:
            return DYN
        operand = self.visit(node.target)
        found = self.field_of(operand, node.name, node)
        return CelType("optional", found) if node.optional else found

    def visit_index(self, node: Node) -> CelType:
        assert node.target is not None
        operand = self.visit(node.target)
        index = self.visit(node.args[0])
        if operand.kind == "list":
            if index.kind not in ("int", "uint", "dyn"):
                return self.problem(
                    f"found no matching overload for '_[_]' applied to '({operand}, {index})'",
                    node,
                )
            return operand.item or DYN
        if operand.kind == "map":
            return operand.item or DYN
        if operand.kind in ("object", "dyn", "optional"):
            return DYN
        return self.problem(
            f"found no matching overload for '_[_]' applied to '({operand}, {index})'",
            node,
        )

    def visit_call(self, node: Node) -> CelType:
        name = node.name
        if (name.startswith("_") and name.endswith("_")) or name in ("!_", "-_"):
            return self.operator(node)
        if node.target is not None and name in _MACROS:
            return self.macro(node)
        if name == "has" and node.target is None:
            return self.has(node)
        if node.target is not None and node.target.kind == "ident":
            space = node.target.name
            if space in _NAMESPACED and self.lookup(space) is None:
                for arg in node.args:
                    self.visit(arg)
                if name not in _NAMESPACED[space]:
                    return self.problem(
                        f"undeclared reference to '{space}.{name}'", node
                    )
                return _RESULTS.get(name, DYN)
        if name not in _KNOWN:
            for arg in node.args:
                self.visit(arg)
            return self.problem(f"undeclared reference to '{name}'", node)
        receiver = self.visit(node.target) if node.target is not None else None
        args = [self.visit(arg) for arg in node.args]
        subject = receiver if receiver is not None else (args[0] if args else DYN)
        if name in _STRING_METHODS and receiver is not None:
            if receiver.kind not in ("string", "dyn"):
                return self.problem(
                    f"found no matching overload for '{name}' applied to '{receiver}'",
                    node,
                )
            self.cost += _string_cost(receiver)
        if name == "size" and subject.kind not in (
            "string",
            "bytes",
            "list",
            "map",
            "dyn",
            "object",
        ):
            return self.problem(
                f"found no matching overload for 'size' applied to '({subject})'", node
            )
        if name == "string" and args and args[0].kind != "string":
            return CelType("string", size=UNBOUNDED)
        if name in ("split", "findAll") and receiver is not None:
            return CelType("list", _SCALAR["string"], size=receiver.size)
        if name in _LIST_WALKS and subject.kind == "list":
            items = subject.size if subject.size not in (None, UNBOUNDED) else 1
            self.cost += items * _element_cost(subject.item or DYN)
            if name in ("sum", "min", "max"):
                return subject.item or DYN
        if name == "ip":
            return CelType("ip")
        if name == "value" and receiver is not None and receiver.kind == "optional":
            return receiver.item or DYN
        if name == "orValue" and receiver is not None and receiver.kind == "optional":
            return receiver.item or DYN
        return _RESULTS.get(name, DYN)

    def has(self, node: Node) -> CelType:
        if len(node.args) != 1 or node.args[0].kind != "select":
            return self.problem("invalid argument to has() macro", node)
        selected = node.args[0]
        assert selected.target is not None
        operand = self.visit(selected.target)
        before = len(self.problems)
        self.field_of(operand, selected.name, selected)
        # the server places a has() problem at the macro, not at the selection
        for position in range(before, len(self.problems)):
            found = self.problems[position]
            self.problems[position] = CelProblem(found.message, node.position)
        return _SCALAR["bool"]

    def macro(self, node: Node) -> CelType:
        assert node.target is not None
        operand = self.visit(node.target)
        if not node.args or node.args[0].kind != "ident":
            return self.problem(f"{node.name}() needs a variable name first", node)
        if operand.kind == "list":
            element, size = operand.item or DYN, operand.size
        elif operand.kind == "map":
            element, size = _SCALAR["string"], operand.size
        elif operand.kind in ("dyn", "object"):
            element, size = DYN, None
        else:
            return self.problem(
                f"expression of type '{operand}' cannot be range of a comprehension "
                "(must be list, map, or dynamic)",
                node.target,
            )
        before = self.cost
        self.scopes.append({node.args[0].name: element})
        bodies = [self.visit(arg) for arg in node.args[1:]]
        self.scopes.pop()
        body_cost = self.cost - before
        self.cost = before + (size if size is not None else 1) * (body_cost + 1)
        if node.name in ("all", "exists", "exists_one"):
            return _SCALAR["bool"]
        if node.name == "filter":
            return CelType("list", _unbounded(element), size=size)
        return CelType("list", _unbounded(bodies[-1]) if bodies else DYN, size=size)

    def operator(self, node: Node) -> CelType:
        args = [self.visit(arg) for arg in node.args]
        name = node.name
        if name == "!_":
            if args[0].kind not in ("bool", "dyn"):
                return self.problem(
                    f"found no matching overload for '!_' applied to '({args[0]})'",
                    node,
                )
            return _SCALAR["bool"]
        if name in ("_&&_", "_||_"):
            for arg, kind in zip(node.args, args, strict=True):
                if kind.kind not in ("bool", "dyn"):
                    return self.problem(f"expected type 'bool' but found '{kind}'", arg)
            return _SCALAR["bool"]
        if name == "_?_:_":
            if args[0].kind not in ("bool", "dyn"):
                return self.problem("the condition of ?: must be a bool", node)
            return args[1] if args[1] == args[2] else DYN
        if name == "-_":
            return args[0]
        left, right = args
        shown = f"'{name}' applied to '({left}, {right})'"
        known = left.kind != "dyn" and right.kind != "dyn"
        if name == "_in_":
            if right.kind not in ("list", "map", "dyn", "object"):
                return self.problem(f"found no matching overload for {shown}", node)
            self.cost += right.size or 0
            return _SCALAR["bool"]
        if name in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"):
            if (
                known
                and _FAMILY.get(left.kind, left.kind)
                != _FAMILY.get(right.kind, right.kind)
                and "null" not in (left.kind, right.kind)
            ):
                return self.problem(f"found no matching overload for {shown}", node)
            if (
                name not in ("_==_", "_!=_")
                and known
                and left.kind
                in (
                    "list",
                    "map",
                    "object",
                    "null",
                )
            ):
                return self.problem(f"found no matching overload for {shown}", node)
            if left.kind in ("string", "list"):
                self.cost += _string_cost(left)
            return _SCALAR["bool"]
        if not known:
            return left if left.kind != "dyn" else right
        if name == "_+_":
            if left.kind == right.kind and left.kind in ("string", "bytes"):
                if UNBOUNDED in (left.size, right.size):
                    self.cost += _HUGE
                    return CelType(left.kind, size=UNBOUNDED)
                total = (left.size or MAX_REQUEST_BYTES) + (
                    right.size or MAX_REQUEST_BYTES
                )
                self.cost += total // 10 + 1
                return CelType(left.kind, size=total)
            if left == right and left.kind in ("int", "uint", "double"):
                return left
            if left.kind == "list" and right.kind == "list":
                return CelType("list", left.item if left.item == right.item else DYN)
            if {left.kind, right.kind} <= {"timestamp", "duration"} and not (
                left.kind == right.kind == "timestamp"
            ):
                return _SCALAR[
                    (
                        "timestamp"
                        if "timestamp" in (left.kind, right.kind)
                        else "duration"
                    )
                ]
        elif name == "_-_":
            if left == right and left.kind in ("int", "uint", "double", "duration"):
                return left
            if left.kind == "timestamp" and right.kind in ("timestamp", "duration"):
                return _SCALAR["duration" if right.kind == "timestamp" else "timestamp"]
        elif name in ("_*_", "_/_") and left == right:
            if left.kind in ("int", "uint", "double"):
                return left
        elif name == "_%_" and left == right and left.kind in ("int", "uint"):
            return left
        return self.problem(f"found no matching overload for {shown}", node)


UNBOUNDED = -1
"""A size cel-go's estimator cannot bound (a macro's output items, `string(x)`):
anything that walks such a value is estimated at the largest cost."""
_HUGE = 2**63


def _string_cost(kind: CelType) -> int:
    if kind.size == UNBOUNDED:
        return _HUGE
    size = kind.size if kind.size is not None else MAX_REQUEST_BYTES
    return size // 10 + 1


def _element_cost(kind: CelType) -> int:
    if kind.kind in ("string", "bytes"):
        return _string_cost(kind)
    if kind.kind in ("list", "map") and kind.size == UNBOUNDED:
        return _HUGE
    return 1


def _unbounded(kind: CelType) -> CelType:
    """A value as cel-go's estimator sees it after a macro produced it."""
    if kind.kind in ("string", "bytes", "list", "map"):
        return CelType(kind.kind, kind.item, kind.schema, UNBOUNDED)
    return kind


def check_expression(
    expression: str,
    schema: Any,
    *,
    old_self: bool = False,
    optional_old_self: bool = False,
    message_expression: bool = False,
) -> Checked:
    """Check one rule (or `messageExpression`) of the node `schema`."""
    checked = Checked()
    if available():
        try:
            compile_expression(expression)
        except CelSyntaxError as error:
            if ".?" not in expression and "[?" not in expression:
                offset = _offset(expression, error.line, error.column)
                detail = error.detail
                if not detail.startswith("Syntax error"):
                    detail = f"Syntax error: {detail}"
                checked.problems.append(CelProblem(detail, offset))
                return checked
            checked.runnable = False
    try:
        tree = parse(expression)
    except ParseError as error:
        checked.problems.append(CelProblem(f"Syntax error: {error}", error.position))
        return checked
    self_type = schema_type(schema)
    old_type = None
    if old_self:
        old_type = CelType("optional", self_type) if optional_old_self else self_type
    checker = _Checker(self_type, old_type)
    result = checker.visit(tree)
    checked.problems.extend(checker.problems)
    checked.result = result
    checked.cost = min(checker.cost, _HUGE)
    if not checker.problems:
        wanted = "string" if message_expression else "bool"
        if result.kind not in (wanted, "dyn"):
            what = "messageExpression" if message_expression else "cel expression"
            checked.problems.append(
                CelProblem(f"{what} must evaluate to a {wanted}, not {result}", 0)
            )
    return checked


def _offset(expression: str, line: int, column: int) -> int:
    lines = expression.split("\n")
    return sum(len(text) + 1 for text in lines[: line - 1]) + column - 1
