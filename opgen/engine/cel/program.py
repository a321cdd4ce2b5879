"""Compiling and running one CEL expression in Kubernetes' environment.

The CEL engine is the `common-expression-language` package (the Rust `cel`
crate; docs/markers.md has the measurement behind the choice). Kubernetes'
libraries (`opgen.engine.cel.library`) are added to one context per thread;
each evaluation sets the variables it needs (`self`, `oldSelf`) on it.

The engine runs optional values (`optional.of`, `.orValue`, `.hasValue`,
`.value`, selecting a field of an optional) but does not parse CEL's optional
selection, `a.?b` and `a[?k]`: opgen spells those as calls of its own
functions before the engine compiles the rule (`_without_optional`). List
and map literals with optional items (`[?x]`, `{?k: v}`) and the `optMap`
and `optFlatMap` macros stay beyond it (`CelSyntaxError`, "unsupported syntax").

The engine comes with the `cel` extra (and `testing`, `cli`): the runtime
does not need it, since the API server checks every rule itself. Without it
(or on Python 3.10, where the package has no wheels) `available()` is False
and callers say so.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import itertools
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from opgen.engine.cel.library import FUNCTIONS, NAMESPACES, CelFunctionError
from opgen.engine.cel.syntax import Node, ParseError, parse, tokens, wire_name


def _load_engine() -> Any:
    """The engine's extension module (`cel.cel`), loaded without the package's
    `__init__`, which imports its command line (typer, rich) on the way."""
    spec = importlib.util.find_spec("cel")
    if spec is None or not spec.submodule_search_locations:
        return None  # Python 3.10, or opgen installed without the cel extra
    for folder in spec.submodule_search_locations:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"cel{suffix}"
            if path.is_file():
                loader = importlib.machinery.ExtensionFileLoader("cel.cel", str(path))
                module_spec = importlib.util.spec_from_loader("cel.cel", loader)
                assert module_spec is not None
                module = importlib.util.module_from_spec(module_spec)
                loader.exec_module(module)
                return module
    return None


_cel: Any = _load_engine()

__all__ = [
    "NO_OLD_SELF",
    "CelEvaluationError",
    "CelSyntaxError",
    "OptionalOf",
    "available",
    "bind",
    "compile_expression",
    "evaluate",
    "run",
]

MISSING_ENGINE = (
    "CEL rules (op.Rule) are not checked in Python, only by the API server: the "
    "CEL engine is not installed; `pip install 'opgen[cel]'` (Python 3.11 or "
    "later) to check them"
)


class CelSyntaxError(ValueError):
    """An expression that does not parse; `line` and `column` count from 1."""

    def __init__(self, expression: str, detail: str, line: int, column: int) -> None:
        super().__init__(f"{detail} (line {line}, column {column})")
        self.expression = expression
        self.detail = detail
        self.line = line
        self.column = column


class CelEvaluationError(ValueError):
    """An expression that failed while running (no such key, overflow, ...)."""


_POSITION = re.compile(r"<input>:(\d+):(\d+): (.*?)(?:\n|$)")


def available() -> bool:
    """Whether the CEL engine is installed."""
    return _cel is not None


_SIZE = "k8sSize"
"""What `size` runs as: the engine counts a string's bytes, CEL (and the API
server) its code points; lists, maps and bytes count as the engine does."""


def _size(value: Any) -> int:
    return len(value)


def _present(value: Any) -> tuple[bool, Any]:
    """Whether an optional receiver holds a value, and the value."""
    assert _cel is not None
    if isinstance(value, _cel.OptionalValue):
        return (True, value.value()) if value.has_value() else (False, None)
    return True, value


def _optional_field(target: Any, name: Any) -> Any:
    """`target.?name`: the field if the object (or map) has it, else none."""
    assert _cel is not None
    present, value = _present(target)
    if not present:
        return _cel.OptionalValue.none()
    if not isinstance(value, dict):
        raise CelFunctionError(f"no such overload: {type(value).__name__}.?{name}")
    key = wire_name(str(name))
    if key in value:
        return _cel.OptionalValue.of(value[key])
    return _cel.OptionalValue.none()


def _optional_index(target: Any, key: Any) -> Any:
    """`target[?key]`: the map's value or the list's item if there is one, else none."""
    assert _cel is not None
    present, value = _present(target)
    if not present:
        return _cel.OptionalValue.none()
    if isinstance(value, dict):
        if key in value:
            return _cel.OptionalValue.of(value[key])
        return _cel.OptionalValue.none()
    if isinstance(value, list) and isinstance(key, int) and not isinstance(key, bool):
        if 0 <= key < len(value):
            return _cel.OptionalValue.of(value[key])
        return _cel.OptionalValue.none()
    raise CelFunctionError(
        f"no such overload: {type(value).__name__}[?{type(key).__name__}]"
    )


def _engine_source(expression: str) -> str:
    """`expression` with every call of `size` (`size(x)`, `x.size()`) calling
    `k8sSize` instead; the rest, string literals included, as written."""
    found = tokens(expression)
    pieces: list[str] = []
    done = 0
    for token, following in itertools.pairwise(found):
        if token.kind == "ident" and token.text == "size" and following.text == "(":
            pieces += [expression[done : token.position], _SIZE]
            done = token.position + len(token.text)
    return "".join([*pieces, expression[done:]])


_OPTIONAL_FIELD = "k8sOptionalField"
_OPTIONAL_INDEX = "k8sOptionalIndex"
_OPTIONAL_SYNTAX = ("unsupported syntax '.?'", "unsupported syntax '[?'")


def _has_optional(node: Node) -> bool:
    if node.kind in ("select", "index") and node.optional:
        return True
    children = [node.target, *node.args] if node.target is not None else node.args
    return any(_has_optional(child) for child in children)


def _without_optional(node: Node, text: str) -> str:
    """The source of `node` with CEL's optional selection (`a.?b`, `a[?k]`),
    which the engine does not parse, spelt as calls of opgen's functions."""
    if node.kind == "select" and node.optional and node.target is not None:
        return (
            f"{_OPTIONAL_FIELD}({_without_optional(node.target, text)}, '{node.name}')"
        )
    if node.kind == "index" and node.optional and node.target is not None:
        target = _without_optional(node.target, text)
        return f"{_OPTIONAL_INDEX}({target}, {_without_optional(node.args[0], text)})"
    children = [node.target, *node.args] if node.target is not None else node.args
    rewritten = sorted(
        (child for child in children if _has_optional(child)),
        key=lambda child: child.start,
    )
    pieces: list[str] = []
    done = node.start
    for child in rewritten:
        pieces += [text[done : child.start], _without_optional(child, text)]
        done = child.end
    return "".join([*pieces, text[done : node.end]])


def _optional_source(expression: str, error: ValueError) -> str:
    """`expression` with its optional selections as calls the engine runs;
    `error` (the engine's refusal of it as written) if it has other syntax
    the engine lacks."""
    try:
        tree = parse(expression)
    except ParseError:
        raise error from None
    unsupported = [False]

    def look(node: Node) -> None:
        if node.kind in ("list", "map", "struct") and node.optional:
            unsupported[0] = True  # `[?x]`, `{?k: v}`: the engine cannot build these
        for child in [node.target, *node.args] if node.target else node.args:
            look(child)

    look(tree)
    if unsupported[0]:
        raise error
    return _without_optional(tree, expression)


def _refuse_optional_macros(expression: str) -> None:
    """The engine compiles `optMap` and `optFlatMap` but cannot run them
    (their variable is undefined when they run): refuse them up front."""
    if "optMap" not in expression and "optFlatMap" not in expression:
        return
    try:
        tree = parse(expression)
    except ParseError:
        return

    def look(node: Node) -> None:
        if (
            node.kind == "call"
            and node.target is not None
            and node.name in ("optMap", "optFlatMap")
        ):
            line = expression.count("\n", 0, node.position) + 1
            column = node.position - (expression.rfind("\n", 0, node.position) + 1)
            raise CelSyntaxError(
                expression, f"unsupported syntax '{node.name}'", line, column + 1
            )
        for child in [node.target, *node.args] if node.target else node.args:
            look(child)

    look(tree)


@lru_cache(maxsize=4096)
def compile_expression(expression: str) -> Any:
    """The compiled program for `expression`; `CelSyntaxError` if it does not parse."""
    if _cel is None:
        raise CelEvaluationError(MISSING_ENGINE)
    try:
        source = expression
        try:
            _cel.compile(expression)  # errors point into the expression as written
        except ValueError as error:
            if not any(syntax in str(error) for syntax in _OPTIONAL_SYNTAX):
                raise
            source = _optional_source(expression, error)
        _refuse_optional_macros(expression)
        return _cel.compile(_engine_source(source))
    except ValueError as error:
        text = str(error)
        found = _POSITION.search(text)
        if found is None:
            raise CelSyntaxError(expression, text, 1, 1) from None
        raise CelSyntaxError(
            expression, found.group(3), int(found.group(1)), int(found.group(2))
        ) from None


@dataclass(frozen=True)
class _NoOldSelf:
    """`oldSelf` of a rule with optionalOldSelf on a create: `optional.none()`."""


NO_OLD_SELF = _NoOldSelf()


@dataclass(frozen=True)
class OptionalOf:
    """`oldSelf` of a rule with optionalOldSelf on an update: `optional.of(value)`."""

    value: Any


class _Contexts(threading.local):
    context: Any = None


_CONTEXTS = _Contexts()


def _context() -> Any:
    context = _CONTEXTS.context
    if context is None:
        assert _cel is not None
        context = _cel.Context()
        for name, function in FUNCTIONS.items():
            context.add_function(name, function)
        context.add_function(_SIZE, _size)
        context.add_function(_OPTIONAL_FIELD, _optional_field)
        context.add_function(_OPTIONAL_INDEX, _optional_index)
        for name, value in NAMESPACES.items():
            context.add_variable(name, value)
        _CONTEXTS.context = context
    return context


def _cel_value(value: Any) -> Any:
    if value is NO_OLD_SELF:
        assert _cel is not None
        return _cel.OptionalValue.none()
    if isinstance(value, OptionalOf):
        assert _cel is not None
        return _cel.OptionalValue.of(value.value)
    return value


def bind(variables: dict[str, Any]) -> None:
    """Set variables for the `run`s that follow on this thread (converting a
    value to CEL costs more than most rules: bind once, run each rule)."""
    context = _context()
    for name, value in variables.items():
        context.add_variable(name, _cel_value(value))


def evaluate(expression: str, variables: dict[str, Any]) -> Any:
    """Run `expression` with `variables` (wire values: dicts, lists, str, int, ...)."""
    compile_expression(expression)
    bind(variables)
    return run(expression)


def run(expression: str) -> Any:
    """Run `expression` with the variables last bound on this thread."""
    program = compile_expression(expression)
    context = _context()
    try:
        return program.execute(context)
    except (RuntimeError, TypeError, ValueError, KeyError, IndexError) as error:
        raise CelEvaluationError(_evaluation_message(error)) from None
    except OverflowError:
        raise CelEvaluationError("integer overflow") from None


def _evaluation_message(error: BaseException) -> str:
    if isinstance(error, KeyError):
        return f"no such key: {error.args[0] if error.args else ''}"
    text = str(error).split("\n", 1)[0]
    return text
