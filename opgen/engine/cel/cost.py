"""The API server's static cost estimate of a CEL rule, reasoned the way it reasons.

The server refuses a CRD whose rule is estimated to cost more than
`STATIC_RULE_COST_LIMIT` (times how many times the rule's node can occur in
one object), or whose rules add up past `STATIC_CRD_COST_LIMIT`. Its estimate
is cel-go's checker cost model (`checker/cost.go`) with Kubernetes' function
costs (`apiserver/pkg/cel/library/cost.go`) and sizes read from the schema
(`apiserver/pkg/cel/common/schemas.go`). This module follows those rules on
opgen's parse tree:

- every identifier and field selection on an object or map costs 1, a
  constant 0, `has()` 0, a list literal 10, a map literal 30, most calls 1
  plus their operands;
- a macro (`all`, `exists`, `exists_one`, `map`, `filter`) is the loop CEL
  expands it into: its range's size times the cost of one turn;
- string functions cost a tenth of the string's length, `matches` and `find`
  that times a quarter of the pattern's length, `==` a tenth of the shorter
  side, `in` a list its size;
- sizes come from the schema: `maxItems`, `maxProperties`, `maxLength` (four
  bytes a character) and `enum`, else as many as fit in a 3 MiB request
  (`MAX_REQUEST_BYTES` divided by the smallest serialized item); map keys
  have no size bound and count as 0, as the server's estimator counts them.

Arithmetic saturates at 2^64 - 1 as the server's does. A call the model does
not know (`approximate`) is estimated at 1 plus its operands.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opgen.engine.cel.facts import cel_field
from opgen.engine.cel.syntax import MACROS, Node

__all__ = [
    "MAX_REQUEST_BYTES",
    "PER_CALL_LIMIT",
    "STATIC_CRD_COST_LIMIT",
    "STATIC_RULE_COST_LIMIT",
    "Decl",
    "Decls",
    "decl_of",
    "estimate",
    "max_cardinality",
    "with_type_and_meta",
]

STATIC_RULE_COST_LIMIT = 10_000_000
"""The server refuses a rule whose estimated cost is above this (StaticEstimatedCostLimit)."""
STATIC_CRD_COST_LIMIT = 100_000_000
"""... and a CRD whose rules add up past this (StaticEstimatedCRDCostLimit)."""
PER_CALL_LIMIT = 1_000_000
"""One evaluation stops at this cost (PerCallLimit)."""
MAX_REQUEST_BYTES = 3 * 1024 * 1024
"""The largest request the server accepts; unbounded sizes are what fits in it."""

MAX = 2**64 - 1
"""The server's estimate saturates at the largest uint64."""
_STRING = 0.1
_REGEX = 0.25


def _add(*values: int) -> int:
    return min(sum(values), MAX)


def _times(left: int, right: int) -> int:
    return min(left * right, MAX)


def _factor(value: int, factor: float) -> int:
    """A size times a cost factor, rounded up, as a float64 computation does it."""
    product = math.ceil(float(value) * factor)
    return MAX if product >= 2**64 else int(product)


@dataclass(frozen=True)
class Size:
    low: int
    high: int

    def plus(self, other: Size) -> Size:
        return Size(_add(self.low, other.low), _add(self.high, other.high))

    def times(self, other: Size) -> Size:
        return Size(_times(self.low, other.low), _times(self.high, other.high))

    def union(self, other: Size) -> Size:
        return Size(min(self.low, other.low), max(self.high, other.high))


UNKNOWN = Size(0, MAX)


def _fixed(value: int) -> Size:
    return Size(value, value)


@dataclass(frozen=True)
class _Entries:
    """What a list or map literal (or a value built from one) holds."""

    container: str
    key: Size
    value: Size

    def union(self, other: _Entries | None) -> _Entries | None:
        if other is None:
            return None
        return _Entries(
            self.container, self.key.union(other.key), self.value.union(other.value)
        )


# ---- the schema as the server's estimator sees it --------------------------------


@dataclass
class Decl:
    """A schema node as the server declares it to CEL: its kind, the most
    elements it can hold (items, properties, bytes), the fewest bytes it
    serializes to, and what is inside it."""

    kind: str
    max_elements: int = 0
    min_size: int = 0
    fields: dict[str, Decl] = field(default_factory=dict)
    elem: Decl | None = None
    key: Decl | None = None


_MAX_STRING = MAX_REQUEST_BYTES - 2
"""The longest string a request holds (its quotes taken off)."""
_FORMATS = {
    "duration": ("duration", 3, 32),
    "date": ("timestamp", 12, 12),
    "date-time": ("timestamp", 21, 32),
}


def with_type_and_meta(schema: dict[str, Any]) -> dict[str, Any]:
    """A resource root as the server presents it: kind, apiVersion and
    metadata.name/generateName are always there (strings without a bound)."""
    properties = schema.get("properties") or {}
    meta = properties.get("metadata") or {}
    meta_properties = meta.get("properties") or {}
    if (
        properties
        and (properties.get("kind") or {}).get("type") == "string"
        and (properties.get("apiVersion") or {}).get("type") == "string"
        and meta.get("type") == "object"
        and (meta_properties.get("name") or {}).get("type") == "string"
        and (meta_properties.get("generateName") or {}).get("type") == "string"
    ):
        return schema
    text = {"type": "string"}
    return {
        **schema,
        "properties": {
            **properties,
            "kind": text,
            "apiVersion": text,
            "metadata": {
                "type": "object",
                "properties": {"name": text, "generateName": text},
            },
        },
    }


Decls = dict[tuple[int, bool], tuple[Any, Decl | None]]
"""The declarations worked out while checking one CRD, by (id of the node, root),
each with its node: held, the node keeps its id for as long as the memo lives."""


def decl_of(schema: Any, root: bool = False, known: Decls | None = None) -> Decl | None:
    """How the server declares `schema` to CEL (None: not visible to CEL);
    `root` for the root of a resource (the CRD's, or an embedded one). `known`
    remembers each node's declaration: every rule of a node and of its parents
    asks for the declarations of the whole subtree (a pod template's thousands
    of nodes)."""
    if known is None:
        return _declare(schema, root, None)
    found = known.get((id(schema), root))
    if found is not None and found[0] is schema:
        return found[1]
    decl = _declare(schema, root, known)
    known[(id(schema), root)] = (schema, decl)
    return decl


def _declare(schema: Any, root: bool, known: Decls | None) -> Decl | None:
    if not isinstance(schema, dict):
        return None
    if schema.get("x-kubernetes-int-or-string"):
        length = schema.get("maxLength")
        bound = max(length, 0) * 4 if isinstance(length, int) else _MAX_STRING
        return Decl("dyn", bound, 1)
    if root:
        schema = with_type_and_meta(schema)
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        if not isinstance(items, dict):
            return None
        elem = decl_of(items, bool(items.get("x-kubernetes-embedded-resource")), known)
        if elem is None:
            return None
        bound = schema.get("maxItems")
        count = (
            max(bound, 0)
            if isinstance(bound, int)
            else _MAX_STRING // (elem.min_size + 1)
        )
        return Decl("list", count, 2, elem=elem)
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            elem = decl_of(
                extra, bool(extra.get("x-kubernetes-embedded-resource")), known
            )
            if elem is None:
                return None
            bound = schema.get("maxProperties")
            count = (
                max(bound, 0)
                if isinstance(bound, int)
                else _MAX_STRING // (elem.min_size + 6)
            )
            return Decl("map", count, 2, elem=elem, key=Decl("string", 0, 2))
        required = set(schema.get("required") or ())
        fields: dict[str, Decl] = {}
        smallest = 2
        for name, prop in (schema.get("properties") or {}).items():
            embedded = isinstance(prop, dict) and prop.get(
                "x-kubernetes-embedded-resource"
            )
            found = decl_of(prop, bool(embedded), known)
            if found is None:
                continue
            fields[cel_field(name)] = found
            if name in required and "default" not in prop:
                smallest += len(name) + found.min_size + 4
        return Decl("object", 0, smallest, fields=fields)
    if kind == "string":
        spelt = schema.get("format")
        length = schema.get("maxLength")
        if spelt == "byte":
            bound = max(length, 0) if isinstance(length, int) else _MAX_STRING
            return Decl("bytes", bound, 2)
        if spelt in _FORMATS:
            name, smallest, largest = _FORMATS[spelt]
            return Decl(name, largest, smallest)
        if isinstance(length, int):
            return Decl("string", max(length, 0) * 4, 2)
        values = schema.get("enum")
        if values:
            longest = max(
                (len(v.encode()) for v in values if isinstance(v, str)), default=0
            )
            return Decl("string", longest, 2)
        return Decl("string", _MAX_STRING, 2)
    if kind == "boolean":
        return Decl("bool", 0, 4)
    if kind == "number":
        return Decl("double", 0, 1)
    if kind == "integer":
        return Decl("int", 0, 1)
    return None


def max_cardinality(decl: Decl) -> int:
    """How often a node of this kind fits in one request (the factor of a rule
    under a list or map without a bound)."""
    return MAX_REQUEST_BYTES // (decl.min_size + 1)


# ---- the estimate ---------------------------------------------------------------


@dataclass
class _Local:
    path: tuple[str, ...]
    size: Size | None
    entries: _Entries | None


_SCALARS = {"bool", "double", "duration", "int", "timestamp", "uint"}
_NAMESPACES = {"strings", "optional", "sets", "ip", "math", "lists"}


class _Coster:
    def __init__(self, root: Decl | None, types: dict[int, Any]) -> None:
        self.root = root
        self.types = types
        self.paths: dict[int, tuple[str, ...]] = {}
        self.sizes: dict[int, Size] = {}
        self.entries: dict[int, _Entries] = {}
        self.locals: dict[str, list[_Local]] = {}
        self.approximate = False

    # -- types, paths, sizes --

    def kind(self, node: Node) -> str:
        found = self.types.get(id(node))
        return str(getattr(found, "kind", "dyn"))

    def item_kind(self, node: Node) -> str | None:
        found = self.types.get(id(node))
        if getattr(found, "kind", None) != "list":
            return None
        return str(getattr(getattr(found, "item", None), "kind", "dyn"))

    def local(self, name: str) -> _Local | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def path(self, node: Node) -> tuple[str, ...]:
        if node.kind == "ident":
            found = self.local(node.name)
            if found is not None:
                return found.path
        return self.paths.get(id(node), ())

    def estimated(self, path: tuple[str, ...]) -> Size | None:
        """The schema's bound for the value at `path` (its first step, the
        variable, taken for the rule's node, as the server takes it)."""
        if not path:
            return None
        current = self.root
        for step in path[1:]:
            if current is None:
                return None
            if step in ("@items", "@values"):
                current = current.elem
            elif step == "@keys":
                current = current.key
            else:
                current = current.fields.get(step)
        if current is None:
            return None
        return Size(0, current.max_elements)

    def size(self, node: Node) -> Size | None:
        if id(node) in self.sizes:
            return self.sizes[id(node)]
        if node.kind == "literal":
            if isinstance(node.value, str | bytes) and node.name in (
                "string",
                "bytes",
            ):
                return _fixed(len(node.value))
            return _fixed(1)
        if node.kind in ("list", "map"):
            count = len(node.args) if node.kind == "list" else len(node.args) // 2
            return _fixed(count)
        found = self.estimated(self.path(node))
        if found is not None:
            self.sizes[id(node)] = found
            return found
        kind = self.kind(node)
        if kind in _SCALARS or (
            kind == "optional"
            and getattr(getattr(self.types.get(id(node)), "item", None), "kind", "")
            in _SCALARS
        ):
            return _fixed(1)
        if node.kind == "ident":
            variable = self.local(node.name)
            if variable is not None and variable.size is not None:
                return variable.size
        return None

    def size_or_unknown(self, node: Node) -> Size:
        return self.size(node) or UNKNOWN

    def entries_of(self, node: Node) -> _Entries | None:
        if id(node) in self.entries:
            return self.entries[id(node)]
        if node.kind == "ident":
            variable = self.local(node.name)
            if variable is not None:
                return variable.entries
        return None

    def push(
        self,
        name: str,
        path: tuple[str, ...],
        size: Size | None,
        entries: _Entries | None,
    ) -> None:
        self.locals.setdefault(name, []).append(_Local(path, size, entries))

    def pop(self, name: str) -> None:
        self.locals[name].pop()

    # -- costs --

    def cost(self, node: Node) -> int:
        method: Callable[[Node], int] = getattr(self, f"cost_{node.kind}")
        return method(node)

    def cost_literal(self, node: Node) -> int:
        return 0

    def cost_ident(self, node: Node) -> int:
        found = self.local(node.name)
        self.paths[id(node)] = found.path if found is not None else (node.name,)
        return 1

    def cost_select(self, node: Node) -> int:
        assert node.target is not None
        if node.optional:  # `a.?b` is the call `_?._(a, "b")`
            return _add(1, self.cost(node.target))
        total = self.cost(node.target)
        if self.kind(node.target) in ("object", "map"):
            total = _add(total, 1)
        self.paths[id(node)] = (*self.path(node.target), node.name)
        return total

    def cost_index(self, node: Node) -> int:
        assert node.target is not None
        total = _add(1, self.cost(node.target), self.cost(node.args[0]))
        if node.optional:
            return total
        kind = self.kind(node.target)
        if kind in ("list", "map", "dyn", "object"):
            step = "@items" if kind == "list" else "@values"
            self.paths[id(node)] = (*self.path(node.target), step)
            held = self.entries_of(node.target)
            size = held.value if held is not None else self.size(node)
            if size is not None:
                self.sizes[id(node)] = size
        return total

    def cost_list(self, node: Node) -> int:
        total = 0
        held = Size(MAX, 0) if node.args else Size(0, 0)
        for item in node.args:
            total = _add(total, self.cost(item))
            held = held.union(self.size_or_unknown(item))
        self.entries[id(node)] = _Entries("list", _fixed(1), held)
        return _add(total, 10)

    def cost_map(self, node: Node) -> int:
        total = 0
        keys = Size(MAX, 0) if node.args else Size(0, 0)
        values = keys
        for position in range(0, len(node.args), 2):
            key, value = node.args[position], node.args[position + 1]
            total = _add(total, self.cost(key), self.cost(value))
            keys = keys.union(self.size_or_unknown(key))
            values = values.union(self.size_or_unknown(value))
        self.entries[id(node)] = _Entries("map", keys, values)
        return _add(total, 30)

    def cost_struct(self, node: Node) -> int:
        return _add(40, *(self.cost(arg) for arg in node.args[1::2]))

    def cost_call(self, node: Node) -> int:
        name = node.name
        target = node.target
        if target is not None and name in MACROS and node.args:
            return self.comprehension(node)
        if target is not None and name in ("optMap", "optFlatMap") and node.args:
            return self.optional_macro(node)
        if name == "has" and target is None and node.args:
            selected = node.args[0]
            # presence tests cost nothing in Kubernetes (PresenceTestHasCost(false))
            return self.cost(selected.target) if selected.target is not None else 0
        if name == "dyn" and target is None and len(node.args) == 1:
            total = _add(1, self.cost(node.args[0]))
            self.copy_sizes(node, node.args[0])
            return total
        namespaced = (
            target is not None
            and target.kind == "ident"
            and target.name in _NAMESPACES
            and self.local(target.name) is None
        )
        arg_costs = [self.cost(arg) for arg in node.args]
        total = 0
        receiver: Node | None = None
        if target is not None and not namespaced:
            total = self.cost(target)
            receiver = target
        function = f"{target.name}.{name}" if namespaced and target else name
        call, size = self.function(node, function, receiver, node.args, arg_costs)
        if size is None:
            size = self.size(node)
        if size is not None:
            self.sizes[id(node)] = size
        return _add(total, call)

    def copy_sizes(self, to: Node, source: Node) -> None:
        size = self.size(source)
        if size is not None:
            self.sizes[id(to)] = size
        held = self.entries_of(source)
        if held is not None:
            self.entries[id(to)] = held

    def comprehension(self, node: Node) -> int:
        assert node.target is not None
        variable = node.args[0].name if node.args[0].kind == "ident" else ""
        range_cost = self.cost(node.target)
        held = self.entries_of(node.target)
        container = held.container if held is not None else self.kind(node.target)
        if container == "list":
            step_name, size = "@items", held.value if held is not None else None
        else:
            step_name, size = "@keys", held.key if held is not None else None
        self.push(variable, (*self.path(node.target), step_name), size, None)
        bodies = [self.cost(arg) for arg in node.args[1:]]
        shapes = [self.size(arg) for arg in node.args[1:]]
        self.pop(variable)
        count = self.size_or_unknown(node.target)
        macro = node.name
        body = bodies[-1] if bodies else 0
        if macro == "all":  # true; @not_strictly_false(r); r && p; r
            init, turn, result = 0, _add(2, 1, body), 1
        elif macro == "exists":  # false; @not_strictly_false(!r); r || p; r
            init, turn, result = 0, _add(3, 1, body), 1
        elif macro == "exists_one":  # 0; true; p ? r + 1 : r; r == 1
            init, turn, result = 0, _add(body, 2), 2
        elif macro == "filter":  # []; true; p ? r + [x] : r; r
            init, turn, result = 10, _add(body, 13), 1
        elif len(bodies) == 2:  # map(x, p, f): p ? r + [f] : r
            init, turn, result = 10, _add(bodies[0], 12, body), 1
        else:  # map(x, f): r + [f]
            init, turn, result = 10, _add(12, body), 1
        if macro in ("map", "filter"):
            self.sizes[id(node)] = count
            if macro == "filter":
                self.push(variable, (*self.path(node.target), step_name), size, None)
                item = self.size(node.args[0]) or UNKNOWN
                self.pop(variable)
            else:
                item = shapes[-1] or UNKNOWN
            self.entries[id(node)] = _Entries("list", _fixed(1), Size(0, 0).union(item))
        else:
            self.sizes[id(node)] = _fixed(1)
        return _add(range_cost, init, result, _times(count.high, turn))

    def optional_macro(self, node: Node) -> int:
        """`o.optMap(v, e)` is `o.hasValue() ? optional.of(cel.bind(v, o.value(),
        e)) : optional.none()`; `optFlatMap` the same without `optional.of`."""
        assert node.target is not None
        variable = node.args[0].name if node.args[0].kind == "ident" else ""
        target = self.cost(node.target)
        held = getattr(self.types.get(id(node.target)), "item", None)
        size = _fixed(1) if getattr(held, "kind", "") in _SCALARS else None
        self.push(variable, (), size, None)
        body = self.cost(node.args[1]) if len(node.args) > 1 else 0
        self.pop(variable)
        has_value = _add(1, target)
        bound = _add(10, 1, target, body)  # an empty list, o.value(), e
        if node.name == "optMap":
            return _add(has_value, 1, bound)
        return _add(has_value, max(bound, 1))

    # -- functions --

    def element_size(self, target: Node) -> Size:
        """The size of a list's items, read from the schema by the list's path."""
        path = self.path(target)
        if not path:
            return UNKNOWN
        return self.estimated((*path, "@items")) or UNKNOWN

    def function(
        self,
        node: Node,
        name: str,
        target: Node | None,
        args: list[Node],
        arg_costs: list[int],
    ) -> tuple[int, Size | None]:
        """A call's own cost plus its arguments' (not its receiver's), and the
        size of its result when the model knows it."""
        spent = _add(*arg_costs) if arg_costs else 0
        sized = self.size_or_unknown

        def traversal(of: Node, factor: float = _STRING) -> int:
            return _factor(sized(of).high, factor)

        # Kubernetes' own estimates (library/cost.go) come first
        if name in _LIST_WALKS and target is not None:
            item = self.item_kind(target)
            if item is None:  # indexOf and lastIndexOf of a string
                return _add(traversal(target), spent), None
            each = 1
            if item in ("string", "bytes"):
                each = _add(1, _factor(self.element_size(target).high, _STRING))
            return _add(_times(sized(target).high, each), spent), None
        if name in ("lowerAscii", "upperAscii", "substring", "trim") and target:
            return _add(traversal(target), spent), sized(target)
        if name == "replace" and target is not None and len(args) >= 2:
            return _add(traversal(target, 2 * _STRING), spent), self.replaced(
                target, args
            )
        if name == "split" and target is not None:
            largest = sized(target).high
            if len(args) > 1 and args[1].kind == "literal" and args[1].name == "int":
                largest = int(args[1].value)  # type: ignore[call-overload]
            return _add(traversal(target, 2 * _STRING), spent), Size(0, largest)
        if name == "join" and target is not None:
            count = sized(target)
            joined = Size(0, 0)
            if self.item_kind(target) is not None:
                joined = count.times(self.element_size(target))
            if args:
                separators = Size(max(count.low - 1, 0), max(count.high - 1, 0))
                joined = joined.plus(sized(args[0]).times(separators))
            return _add(_factor(joined.high, _STRING), spent), joined
        if name in ("find", "findAll") and target is not None and args:
            text = _factor(_add(sized(target).high, 1), _STRING)
            pattern = _factor(sized(args[0]).high, _REGEX)
            return _add(_times(text, pattern), spent), Size(0, sized(target).high)
        if name in _PARSERS and args:
            found = sized(args[0]) if name == "url" else None
            return _add(traversal(args[0]), spent), found
        if name == "ip" and args:
            if self.kind(args[0]) == "cidr":
                return _add(1, spent), None
            return _add(traversal(args[0]), spent), None
        if name == "ip" and target is not None:  # cidr.ip()
            return _add(1, spent), None
        if name == "ip.isCanonical" and args:
            return _add(traversal(args[0], 2 * _STRING), spent), None
        if name in ("containsIP", "containsCIDR") and args:
            compare = _factor(32, _STRING)
            if name == "containsCIDR":
                compare = _add(compare, _factor(16, _STRING), 1)
            if self.kind(args[0]) == "string":
                compare = _add(compare, traversal(args[0]))
            return _add(compare, spent), None
        if name in _NOMINAL:
            return _add(1, spent), None
        if name in ("_==_", "_!=_"):
            left, right = self.kind(args[0]), self.kind(args[1])
            if left == right and left in ("quantity", "ip", "cidr", "semver"):
                return _add(1, spent), None
            if left == right == "url":
                return _add(_factor(1, _STRING), spent), None
        # ... then cel-go's (checker/cost.go) and its extensions'
        if name in ("sets.contains", "sets.intersects", "sets.equivalent") and (
            len(args) == 2
        ):
            factor = 2 if name == "sets.equivalent" else 1
            product = sized(args[0]).high * sized(args[1]).high
            return _add(_factor(min(product, MAX), factor), 1, spent), None
        if name == "format" and target is not None:
            return _add(traversal(target), spent), None
        if name == "strings.quote" and args:
            quoted = sized(args[0])
            return _add(traversal(args[0]), spent), Size(
                _add(quoted.low, 2), _add(_times(quoted.high, 2), 2)
            )
        if name in ("bytes", "string") and len(args) == 1 and target is None:
            # string(bytes) and bytes(string) walk their argument; a dyn
            # argument may be either, so the estimate covers both overloads
            source = self.kind(args[0])
            converted = "string" if name == "bytes" else "bytes"
            if source in (converted, "dyn"):
                length = sized(args[0])
                walk = _add(traversal(args[0]), spent)
                if source == "dyn":
                    walk = max(walk, _add(1, spent))
                if name == "bytes":
                    return walk, Size(length.low, _times(length.high, 4))
                return walk, Size(length.low // 4, length.high)
        if (
            name in ("startsWith", "endsWith")
            and target is not None
            and args
            and self.kind(target) in ("string", "dyn")
        ):
            return _add(traversal(args[0]), spent), None
        if name == "_in_" and len(args) == 2:
            kind = self.kind(args[1])
            listed = _add(sized(args[1]).high, spent)
            if kind == "list":
                return listed, None
            if kind in ("dyn", "object"):
                return max(listed, _add(1, spent)), None
            return _add(1, spent), None
        if name == "matches" and target is not None and args:
            text = _factor(_add(sized(target).high, 1), _STRING)
            pattern = _factor(sized(args[0]).high, _REGEX)
            return _add(_times(text, pattern), spent), None
        if (
            name == "contains"
            and target is not None
            and args
            and self.kind(target) in ("string", "dyn")
        ):
            return _add(_times(traversal(target), traversal(args[0])), spent), None
        if name in ("_&&_", "_||_"):
            return spent, None
        if name == "_?_:_":
            condition, yes, no = arg_costs
            held = self.entries_of(args[1])
            other = self.entries_of(args[2])
            if held is not None:
                merged = held.union(other)
                if merged is not None:
                    self.entries[id(node)] = merged
            return _add(condition, max(yes, no)), sized(args[1]).union(sized(args[2]))
        if name == "_+_" and len(args) == 2:
            return self.plus(node, args, spent)
        if name in _ORDERINGS or name in ("_==_", "_!=_"):
            strings = name in ("_==_", "_!=_") or self.may_be_text(args)
            if strings:
                smallest = min(sized(args[0]).high, sized(args[1]).high)
                text = _add(_factor(smallest, _STRING), spent)
                if name in _ORDERINGS and self.may_be_number(args):
                    return max(text, _add(1, spent)), None
                return text, None
        if name not in _DEFAULT_ONE:
            self.approximate = True
        return _add(1, spent), None

    def may_be_text(self, args: list[Node]) -> bool:
        kinds = {self.kind(arg) for arg in args}
        return kinds <= {"string", "dyn"} or kinds <= {"bytes", "dyn"}

    def may_be_number(self, args: list[Node]) -> bool:
        return any(
            self.kind(arg) not in ("string", "bytes") for arg in args
        ) and not any(self.kind(arg) in ("string", "bytes") for arg in args)

    def plus(self, node: Node, args: list[Node], spent: int) -> tuple[int, Size | None]:
        kinds = {self.kind(arg) for arg in args}
        left, right = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
        total = left.plus(right)
        held = self.entries_of(args[0])
        if held is not None:
            merged = held.union(self.entries_of(args[1]))
            if merged is not None:
                self.entries[id(node)] = merged
        if kinds & {"string", "bytes"} or kinds == {"dyn"}:
            text = _add(_factor(total.high, _STRING), spent)
            if kinds == {"dyn"}:
                return max(text, _add(1, spent)), total
            return text, total
        if "list" in kinds:
            return _add(1, spent), total
        return _add(1, spent), None

    def replaced(self, target: Node, args: list[Node]) -> Size:
        text = self.size_or_unknown(target)
        old = self.size_or_unknown(args[0])
        new = self.size_or_unknown(args[1])
        if old.low == 0:
            most = text.high + 1 if text.high < MAX else text.high
            kept_high = text.high
        elif new.high <= old.low:
            most, kept_high = 0, text.high
        else:
            most, kept_high = math.ceil(text.high / old.low), 0
        if old.high == 0:
            least = text.low + 1 if text.low < MAX else text.low
            kept_low = text.low
        elif old.high <= new.low:
            least, kept_low = 0, text.low
        else:
            least, kept_low = math.ceil(text.low / old.high), 0
        return Size(least, most).times(new).plus(Size(kept_low, kept_high))


_ORDERINGS = {"_<_", "_<=_", "_>_", "_>=_"}
_LIST_WALKS = {"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"}
_PARSERS = {
    "url",
    "cidr",
    "isIP",
    "isCIDR",
    "quantity",
    "isQuantity",
    "semver",
    "isSemver",
}
_NOMINAL = {
    "masked",
    "prefixLength",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "sign",
    "asInteger",
    "isInteger",
    "asApproximateFloat",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "major",
    "minor",
    "patch",
    "getScheme",
    "getHostname",
    "getHost",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "format.named",
}
_DEFAULT_ONE = {
    "size",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "duration",
    "timestamp",
    "type",
    "!_",
    "-_",
    "_-_",
    "_*_",
    "_/_",
    "_%_",
    "_[_]",
    "charAt",
    "reverse",
    "isURL",
    "hasValue",
    "value",
    "orValue",
    "or",
    "optional.of",
    "optional.none",
    "optional.ofNonZeroValue",
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
    "startsWith",
    "endsWith",
    "contains",
    "matches",
    "_==_",
    "_!=_",
    *_ORDERINGS,
}


@dataclass(frozen=True)
class Estimate:
    cost: int
    """The most the expression can cost (cel-go's `CostEstimate.Max`)."""
    approximate: bool
    """True when a call the model does not know was counted as 1."""


def estimate(tree: Node, types: dict[int, Any], root: Decl | None) -> Estimate:
    """The server's estimate of what `tree` costs at most, with the checker's
    `types` (by node id) and the node's declaration `root`."""
    coster = _Coster(root, types)
    cost = coster.cost(tree)
    return Estimate(min(cost, MAX), coster.approximate)
