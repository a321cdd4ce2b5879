"""A CEL parser for checking rules: expressions to a small tree with positions.

The CEL engine parses and runs expressions but shows no tree; opgen's rule
check (`opgen.engine.cel.check`) needs one to find unknown fields, wrong types
and functions the server does not offer, and where in the rule they are.
This parser follows CEL's grammar (operators and precedence, member calls,
indexing, list/map literals, the optional `.?`/`[?` forms, string and bytes
literals with their prefixes); the engine stays the judge of syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from opgen.engine.cel.facts import RESERVED_WORDS

__all__ = ["MACROS", "Node", "ParseError", "parse", "tokens", "wire_name"]


@dataclass
class Node:
    """One node: `kind` is ident, select, call, index, literal, list, map or
    struct; `position` the offset in the expression."""

    kind: str
    position: int
    name: str = ""
    """The identifier, selected field, function name, or literal's type."""
    args: list[Node] = field(default_factory=list)
    target: Node | None = None
    """The operand (select, index) or receiver (a member call)."""
    value: object = None
    optional: bool = False
    start: int = -1
    end: int = -1
    """The span of source text the node was parsed from (a parenthesized
    expression's span takes in its parentheses)."""


class ParseError(ValueError):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<number>0[xX][0-9a-fA-F]+[uU]?|(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+[uU]?)
  | (?P<string>(?:[rR][bB]?|[bB][rR]?)?(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
  | (?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
  | (?P<op>\.\?|\[\?|==|!=|<=|>=|&&|\|\||[-+*/%!<>?:.,()\[\]{}])
    """,
    re.VERBOSE | re.DOTALL,
)

_RESERVED = RESERVED_WORDS - {"true", "false", "null", "in"}
"""Reserved words that are not literals or operators (those parse as such)."""


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    position: int


def tokens(text: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise ParseError(
                f"token recognition error at: {text[position]!r}", position
            )
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(Token(kind, match.group(), position))
        position = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


_BINARY = [
    ("||",),
    ("&&",),
    ("==", "!=", "<", "<=", ">", ">=", "in"),
    ("+", "-"),
    ("*", "/", "%"),
]


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokens(text)
        self.at = 0

    @property
    def token(self) -> Token:
        return self.tokens[self.at]

    def take(self, text: str | None = None) -> Token:
        token = self.token
        if text is not None and token.text != text:
            shown = token.text or "end of input"
            raise ParseError(f"expected {text!r}, found {shown!r}", token.position)
        self.at += 1
        return token

    def spanned(self, node: Node, start: int) -> Node:
        """`node`, its span set from `start` to the end of the last token taken."""
        last = self.tokens[self.at - 1]
        node.start, node.end = start, last.position + len(last.text)
        return node

    def is_op(self, *texts: str) -> bool:
        return self.token.kind in ("op", "ident") and self.token.text in texts

    def expression(self) -> Node:
        condition = self.binary(0)
        if self.is_op("?"):
            position = self.take().position
            then = self.binary(0)
            self.take(":")
            otherwise = self.expression()
            node = Node("call", position, "_?_:_", [condition, then, otherwise])
            return self.spanned(node, condition.start)
        return condition

    def binary(self, level: int) -> Node:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.is_op(*_BINARY[level]):
            operator = self.take()
            right = self.binary(level + 1)
            left = self.spanned(
                Node("call", operator.position, f"_{operator.text}_", [left, right]),
                left.start,
            )
            if level == 2 and self.is_op(*_BINARY[level]):
                # relations do not chain in CEL's grammar, but parse left to right
                continue
        return left

    def unary(self) -> Node:
        if self.is_op("!", "-"):
            operator = self.take()
            operand = self.unary()
            if (
                operator.text == "-"
                and operand.kind == "literal"
                and operand.name in ("int", "double")
                and isinstance(operand.value, int | float)
            ):
                operand.value = -operand.value
                operand.position = operator.position
                return self.spanned(operand, operator.position)
            node = Node("call", operator.position, f"{operator.text}_", [operand])
            return self.spanned(node, operator.position)
        return self.member()

    def member(self) -> Node:
        node = self.primary()
        while True:
            if self.is_op(".", ".?"):
                dot = self.take()
                optional = dot.text == ".?"
                name = self.take()
                if name.kind != "ident":
                    raise ParseError("expected a field name", name.position)
                if self.is_op("(") and not optional:
                    # CEL places a call at its opening parenthesis
                    opening = self.take().position
                    args = self.arguments(")")
                    node = self.spanned(
                        Node("call", opening, name.text, args, target=node), node.start
                    )
                else:
                    # ... and a field selection at its dot
                    node = self.spanned(
                        Node(
                            "select",
                            dot.position,
                            name.text,
                            target=node,
                            optional=optional,
                        ),
                        node.start,
                    )
            elif self.is_op("[", "[?"):
                bracket = self.take()
                index = self.expression()
                self.take("]")
                node = self.spanned(
                    Node(
                        "index",
                        bracket.position,
                        args=[index],
                        target=node,
                        optional=bracket.text == "[?",
                    ),
                    node.start,
                )
            else:
                return node

    def arguments(self, closing: str) -> list[Node]:
        args: list[Node] = []
        while not self.is_op(closing):
            args.append(self.expression())
            if not self.is_op(","):
                break
            self.take(",")
        self.take(closing)
        return args

    def primary(self) -> Node:
        start = self.token.position
        return self.spanned(self.bare_primary(), start)

    def bare_primary(self) -> Node:
        token = self.token
        if token.kind == "number":
            self.take()
            return _number(token)
        if token.kind == "string":
            self.take()
            kind = "bytes" if "b" in _prefix(token.text) else "string"
            return Node("literal", token.position, kind, value=_literal_text(token))
        if token.kind == "ident":
            self.take()
            if token.text in ("true", "false"):
                return Node(
                    "literal", token.position, "bool", value=token.text == "true"
                )
            if token.text == "null":
                return Node("literal", token.position, "null")
            if token.text in _RESERVED:
                raise ParseError(f"reserved identifier: {token.text}", token.position)
            if self.is_op("("):
                opening = self.take().position
                return Node("call", opening, token.text, self.arguments(")"))
            if self.is_op("{"):
                self.take()
                fields, optional = self.entries()
                node = Node("struct", token.position, token.text, fields)
                node.optional = optional
                return node
            return Node("ident", token.position, token.text)
        if self.is_op("."):
            self.take()
            return self.bare_primary()
        if self.is_op("("):
            self.take()
            inner = self.expression()
            self.take(")")
            return inner
        if self.is_op("[", "[?"):
            # `optional` on a list literal: it has an optional element (`[?x]`)
            optional = self.take().text == "[?"
            items: list[Node] = []
            while not self.is_op("]"):
                if self.is_op("?"):
                    self.take()
                    optional = True
                items.append(self.expression())
                if not self.is_op(","):
                    break
                self.take(",")
            self.take("]")
            return Node("list", token.position, args=items, optional=optional)
        if self.is_op("{"):
            self.take()
            entries, optional = self.entries()
            # `optional` on a map literal: it has an optional entry (`{?k: v}`)
            return Node("map", token.position, args=entries, optional=optional)
        shown = token.text or "end of input"
        raise ParseError(f"unexpected {shown!r}", token.position)

    def entries(self) -> tuple[list[Node], bool]:
        entries: list[Node] = []
        optional = False
        while not self.is_op("}"):
            if self.is_op("?"):
                self.take()
                optional = True
            key = self.expression()
            self.take(":")
            entries.extend([key, self.expression()])
            if not self.is_op(","):
                break
            self.take(",")
        self.take("}")
        return entries, optional


def _prefix(text: str) -> str:
    return text[: len(text) - len(text.lstrip("rRbB"))].lower()


_ESCAPE = re.compile(
    r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2}|.)", re.DOTALL
)
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def _escaped(text: str) -> str:
    """One escape sequence (without its backslash) as the character it stands for."""
    if text[0] in "xXuU":
        return chr(int(text[1:], 16))
    if text[0] in "0123" and len(text) == 3:
        return chr(int(text, 8))
    return _SIMPLE_ESCAPES.get(text, text)


def _literal_text(token: Token) -> str | bytes:
    """A string literal's value (bytes for a bytes literal)."""
    prefix = _prefix(token.text)
    body = token.text[len(prefix) :]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    inner = body[len(quote) : len(body) - len(quote)]
    raw, as_bytes = "r" in prefix, "b" in prefix
    if raw:
        return inner.encode() if as_bytes else inner
    pieces: list[bytes] = []
    done = 0
    for found in _ESCAPE.finditer(inner):
        pieces.append(inner[done : found.start()].encode())
        char = _escaped(found.group()[1:])
        # in a bytes literal, \x and octal escapes stand for one byte each
        single = as_bytes and found.group()[1] in "xX01234567" and ord(char) < 256
        pieces.append(bytes([ord(char)]) if single else char.encode())
        done = found.end()
    pieces.append(inner[done:].encode())
    value = b"".join(pieces)
    return value if as_bytes else value.decode("utf-8", "replace")


def _number(token: Token) -> Node:
    text = token.text
    if text[-1] in "uU":
        return Node("literal", token.position, "uint", value=int(text[:-1], 0))
    if text.lower().startswith("0x"):
        return Node("literal", token.position, "int", value=int(text, 16))
    if any(c in text for c in ".eE"):
        return Node("literal", token.position, "double", value=float(text))
    return Node("literal", token.position, "int", value=int(text))


def parse(expression: str) -> Node:
    """The tree of `expression`; `ParseError` (with an offset) if it is not CEL."""
    parser = _Parser(expression)
    node = parser.expression()
    if parser.token.kind != "end":
        raise ParseError(f"unexpected {parser.token.text!r}", parser.token.position)
    return node


Projection = dict[str, "Projection"] | None
"""The parts of `self` an expression reads: None is all of it; a dict maps the
wire names it selects (`*` for every item or value) to what it reads of them."""

MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
"""The comprehension macros, called as methods: `list.all(x, p)`, `m.map(k, f)`."""
_ESCAPES = (("__dot__", "."), ("__dash__", "-"), ("__slash__", "/"))


def wire_name(name: str) -> str:
    """The property a CEL field name stands for (`__namespace__` → `namespace`)."""
    if (
        name.startswith("__")
        and name.endswith("__")
        and name[2:-2]
        in _RESERVED
        | {
            "true",
            "false",
            "null",
            "in",
        }
    ):
        return name[2:-2]
    for escaped, char in _ESCAPES:
        name = name.replace(escaped, char)
    return name.replace("__underscores__", "__")


def merge(left: Projection, right: Projection) -> Projection:
    """What two projections read together."""
    if left is None or right is None:
        return None
    merged = dict(left)
    for name, sub in right.items():
        merged[name] = merge(merged[name], sub) if name in merged else sub
    return merged


def self_projection(*expressions: str) -> Projection:
    """What the expressions read of `self` (None: all of it, or one does not parse)."""
    root: dict[str, Projection] = {}
    whole = False

    def record(path: list[str], all_of_it: bool) -> None:
        nonlocal whole
        if not path:
            whole = whole or all_of_it
            return
        node: dict[str, Projection] = root
        for step in path[:-1]:
            below = node.setdefault(step, {})
            if below is None:
                return
            node = below
        last = path[-1]
        if all_of_it:
            node[last] = None
        elif last not in node:
            node[last] = {}

    def path_of(node: Node, scope: dict[str, list[str]]) -> list[str] | None:
        if node.kind == "ident":
            if node.name == "self":
                return []
            return scope.get(node.name)
        if node.kind == "select" and node.target is not None and not node.optional:
            base = path_of(node.target, scope)
            return None if base is None else [*base, wire_name(node.name)]
        if node.kind == "index" and node.target is not None and not node.optional:
            base = path_of(node.target, scope)
            use(node.args[0], scope)
            return None if base is None else [*base, "*"]
        if node.kind == "call" and node.target is not None and node.name in MACROS:
            base = path_of(node.target, scope)
            if base is not None:
                record([*base, "*"], False)
            inner = dict(scope)
            if node.args and node.args[0].kind == "ident" and base is not None:
                inner[node.args[0].name] = [*base, "*"]
            elif node.args and node.args[0].kind == "ident":
                inner.pop(node.args[0].name, None)
                if base is None and node.target is not None:
                    use(node.target, scope)
            for arg in node.args[1:]:
                use(arg, inner)
            return None
        if node.kind == "call" and node.name == "size":
            # a size reads how many items, keys or characters, not the items
            operands = [node.target] if node.target is not None else node.args
            if len(operands) == 1 and len(node.args) == (node.target is None):
                base = path_of(operands[0], scope)
                if base is not None:
                    record([*base, "*"], False)
                    return None
        if node.kind == "call" and node.name == "has" and node.target is None:
            for arg in node.args:
                found = path_of(arg, scope)
                if found is not None:
                    record(found, False)
            return None
        for child in node.args:
            use(child, scope)
        if node.target is not None:
            use(node.target, scope)
        return None

    def use(node: Node, scope: dict[str, list[str]]) -> None:
        found = path_of(node, scope)
        if found is not None:
            record(found, True)

    for expression in expressions:
        try:
            use(parse(expression), {})
        except ParseError:
            return None
    return None if whole else root


def project(value: object, projection: Projection) -> object:
    """The part of a wire value a projection reads."""
    if projection is None:
        return value
    if isinstance(value, dict):
        every = projection.get("*", {}) if "*" in projection else None
        names = value.keys() if every is not None else projection.keys() & value.keys()
        out = {}
        for name in names:
            sub = projection.get(name, {}) if name in projection else every
            if every is not None and name in projection:
                sub = merge(projection[name], every)
            out[name] = project(value[name], sub)
        return out
    if isinstance(value, list):
        if "*" in projection:
            return [project(item, projection["*"]) for item in value]
        return value
    return value
