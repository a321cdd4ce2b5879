"""Type-checking a CEL rule against its node's schema, and estimating its cost.

`check_expression(expression, schema, ...)` answers what the API server's
CEL compiler would object to when the CRD is installed, with the offset in
the expression: a syntax error (the engine's parser judges), an undeclared
name or a function the server does not offer, a field the schema does not
have (`undefined field`), an operator or function applied to values of the
wrong type, and a rule that cannot be a bool (a `messageExpression`: a
string). It also returns the server's estimate of the rule's cost
(`opgen.engine.cel.cost`, which follows the server's estimator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opgen.engine.cel.cost import (
    PER_CALL_LIMIT,
    STATIC_CRD_COST_LIMIT,
    STATIC_RULE_COST_LIMIT,
    Decls,
    decl_of,
    estimate,
    with_type_and_meta,
)
from opgen.engine.cel.facts import cel_field
from opgen.engine.cel.library import FUNCTIONS
from opgen.engine.cel.program import CelSyntaxError, available, compile_expression
from opgen.engine.cel.syntax import MACROS, Node, ParseError, parse

__all__ = [
    "PER_CALL_LIMIT",
    "STATIC_CRD_COST_LIMIT",
    "STATIC_RULE_COST_LIMIT",
    "CelProblem",
    "CelType",
    "CheckMemo",
    "Checked",
    "check_expression",
    "schema_type",
]


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
            return CelType("map", schema_type(extra))
        return CelType("object", schema=schema)
    if kind == "array":
        items = schema.get("items")
        return CelType("list", schema_type(items))
    if kind == "string":
        spelt = schema.get("format")
        if spelt == "byte":
            return _SCALAR["bytes"]
        if spelt == "duration":
            return _SCALAR["duration"]
        if spelt in ("date", "date-time"):
            return _SCALAR["timestamp"]
        return _SCALAR["string"]
    if kind == "integer":
        return _SCALAR["int"]
    if kind == "number":
        return _SCALAR["double"]
    if kind == "boolean":
        return _SCALAR["bool"]
    return DYN


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
    approximate: bool = False
    """Whether the cost counts a call the estimator does not know as 1."""
    runnable: bool = True


_OPTIONAL_MACROS = {"optMap", "optFlatMap"}
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
_KNOWN = _STANDARD | MACROS | set(FUNCTIONS)
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
}
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
        self.types: dict[int, CelType] = {}
        """Each node's type, by `id(node)`, for the cost estimate."""

    def problem(self, message: str, node: Node) -> CelType:
        self.problems.append(CelProblem(message, node.position))
        return DYN

    def lookup(self, name: str) -> CelType | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def visit(self, node: Node) -> CelType:
        method = getattr(self, f"visit_{node.kind}")
        result: CelType = method(node)
        self.types[id(node)] = result
        return result

    def visit_literal(self, node: Node) -> CelType:
        return _SCALAR.get(node.name, DYN)

    def visit_list(self, node: Node) -> CelType:
        items = [self.visit(arg) for arg in node.args]
        same = items[0] if items and all(i == items[0] for i in items) else DYN
        return CelType("list", same)

    def visit_map(self, node: Node) -> CelType:
        values = [self.visit(arg) for arg in node.args][1::2]
        same = values[0] if values and all(v == values[0] for v in values) else DYN
        return CelType("map", same)

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
        if node.target is not None and name in MACROS:
            return self.macro(node)
        if node.target is not None and name in _OPTIONAL_MACROS:
            return self.optional_macro(node)
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
        if name == "reverse" and receiver is not None and receiver.kind == "string":
            # the server offers strings version 2, without reverse (version 3)
            return self.problem(
                "found no matching overload for 'reverse' applied to 'string.()'", node
            )
        if (
            name in _STRING_METHODS
            and receiver is not None
            and receiver.kind not in ("string", "dyn")
        ):
            return self.problem(
                f"found no matching overload for '{name}' applied to '{receiver}'",
                node,
            )
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
            return _SCALAR["string"]
        if name in ("split", "findAll") and receiver is not None:
            return CelType("list", _SCALAR["string"])
        if name in ("sum", "min", "max") and subject.kind == "list":
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
            element = operand.item or DYN
        elif operand.kind == "map":
            element = _SCALAR["string"]
        elif operand.kind in ("dyn", "object"):
            element = DYN
        else:
            return self.problem(
                f"expression of type '{operand}' cannot be range of a comprehension "
                "(must be list, map, or dynamic)",
                node.target,
            )
        self.scopes.append({node.args[0].name: element})
        bodies = [self.visit(arg) for arg in node.args[1:]]
        self.scopes.pop()
        if node.name in ("all", "exists", "exists_one"):
            return _SCALAR["bool"]
        if node.name == "filter":
            return CelType("list", element)
        return CelType("list", bodies[-1] if bodies else DYN)

    def optional_macro(self, node: Node) -> CelType:
        """`opt.optMap(v, expr)` (an optional of expr's value) and
        `opt.optFlatMap(v, expr)` (expr, itself an optional)."""
        assert node.target is not None
        operand = self.visit(node.target)
        if len(node.args) != 2 or node.args[0].kind != "ident":
            return self.problem(
                f"{node.name}() variable name must be a simple identifier", node
            )
        if operand.kind not in ("optional", "dyn"):
            return self.problem(
                f"found no matching overload for 'hasValue' applied to '{operand}.()'",
                node,
            )
        value = operand.item or DYN if operand.kind == "optional" else DYN
        self.scopes.append({node.args[0].name: value})
        body = self.visit(node.args[1])
        self.scopes.pop()
        if node.name == "optMap":
            return CelType("optional", body)
        return body

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
            return _SCALAR["bool"]
        if not known:
            return left if left.kind != "dyn" else right
        if name == "_+_":
            if left.kind == right.kind and left.kind in ("string", "bytes"):
                return _SCALAR[left.kind]
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


_CheckKey = tuple[str, int, bool, bool, bool, bool]


@dataclass(eq=False)
class CheckMemo:
    """What checking one CRD works out once and is asked again: each node's
    declaration to CEL, and each rule's check (the checker and the cost budget
    both check every rule). Nodes are known by identity and held, so none is
    freed and its id reused while the memo lives: make one per CRD checked."""

    decls: Decls = field(default_factory=dict)
    checked: dict[_CheckKey, tuple[Any, Checked]] = field(default_factory=dict)


def check_expression(
    expression: str,
    schema: Any,
    *,
    old_self: bool = False,
    optional_old_self: bool = False,
    message_expression: bool = False,
    root: bool = False,
    memo: CheckMemo | None = None,
) -> Checked:
    """Check one rule (or `messageExpression`) of the node `schema`; `root`
    when the node is a resource's root (the CRD's, or an embedded resource).
    With a `memo`, the same question is answered once (the answer is shared:
    do not change it)."""
    if memo is None:
        return _check(
            expression,
            schema,
            old_self,
            optional_old_self,
            message_expression,
            root,
            None,
        )
    key = (
        expression,
        id(schema),
        old_self,
        optional_old_self,
        message_expression,
        root,
    )
    found = memo.checked.get(key)
    if found is not None and found[0] is schema:
        return found[1]
    checked = _check(
        expression,
        schema,
        old_self,
        optional_old_self,
        message_expression,
        root,
        memo.decls,
    )
    memo.checked[key] = (schema, checked)
    return checked


def _check(
    expression: str,
    schema: Any,
    old_self: bool,
    optional_old_self: bool,
    message_expression: bool,
    root: bool,
    decls: Decls | None,
) -> Checked:
    checked = Checked()
    if available():
        try:
            compile_expression(expression)
        except CelSyntaxError as error:
            if "unsupported syntax" not in error.detail:
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
    node = schema
    if root and isinstance(schema, dict):
        schema = with_type_and_meta(schema)
    self_type = schema_type(schema)
    old_type = None
    if old_self:
        old_type = CelType("optional", self_type) if optional_old_self else self_type
    checker = _Checker(self_type, old_type)
    result = checker.visit(tree)
    checked.problems.extend(checker.problems)
    checked.result = result
    declared = decl_of(node, root and isinstance(node, dict), decls)
    estimated = estimate(tree, checker.types, declared)
    checked.cost = estimated.cost
    checked.approximate = estimated.approximate
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
