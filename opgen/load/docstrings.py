"""Attribute docstrings as data: each class's, read from its source once per run.

An attribute docstring (the string literal under a field) is the field's
description in the CRD. `op.Model` does not ask Pydantic to read them: Pydantic
finds each class's source anew as the class is created (a walk of the call
stack, then a parse of the class), which cost about half of importing a types
file, at every operator start-up too. The schema stage asks
`field_docstring` instead, which reads them from one `ast` parse per file and
keeps them, by class, in the run's `RunContext`, and across runs in opgen's
cache directory (`opgen.cachedir`), by a hash of the file's bytes and
the Python version; nothing changes any model's Pydantic settings.

Which fields get one follows the models' settings, which nothing changes
while a run loads them: a model of `op.Model` whose `use_attribute_docstrings`
is `op.Model`'s (None: Pydantic reads none) or unset gets the docstrings read
here; one that sets it True was read by Pydantic itself, and one that sets it
False (as any plain Pydantic model leaves it) gets none.

The rule is Pydantic's: a string literal statement directly after an annotated
assignment to a name in the class body documents that attribute; the text is
`inspect.cleandoc`'d; an explicit `Field(description=...)` wins; a field takes
the docstring of the class that declares (annotates) it.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import itertools
import marshal
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from opgen.api import Model
from opgen.cachedir import cache_dir, write_atomically
from opgen.load.context import ClassDefinition, RunContext
from opgen.model.kinds import source_file

__all__ = ["field_docstring", "register_module"]

_CONFIG_KEY = "use_attribute_docstrings"


def register_module(module: ModuleType, run: RunContext) -> None:
    """Remember where a user module's classes come from (the loader takes user
    modules out of `sys.modules` after importing them)."""
    file = getattr(module, "__file__", None)
    if file:
        run.module_files[module.__name__] = Path(file).resolve()


def _definition(body: list[ast.stmt]) -> ClassDefinition:
    names: list[str] = []
    docs: dict[str, str] = {}
    for statement, following in itertools.pairwise([*body, None]):
        if not (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
        ):
            continue
        names.append(statement.target.id)
        if (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return tuple(names), docs


def _classes(tree: ast.Module) -> dict[str, list[ClassDefinition]]:
    """Every class statement's definition by qualified name (a name can repeat)."""
    found: dict[str, list[ClassDefinition]] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for statement in body:
            for node in _direct_definitions(statement):
                if isinstance(node, ast.ClassDef):
                    name = prefix + node.name
                    found.setdefault(name, []).append(_definition(node.body))
                    walk(node.body, name + ".")
                else:  # a function: its classes are local
                    walk(node.body, f"{prefix}{node.name}.<locals>.")

    walk(tree.body, "")
    return found


def _direct_definitions(
    statement: ast.stmt,
) -> Iterator[ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef]:
    """Class and function definitions in `statement`, looking into if/try/with blocks."""
    if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        yield statement
        return
    for field in ("body", "orelse", "finalbody", "handlers"):
        for child in getattr(statement, field, ()) or ():
            if isinstance(child, ast.ExceptHandler):
                for inner in child.body:
                    yield from _direct_definitions(inner)
            elif isinstance(child, ast.stmt):
                yield from _direct_definitions(child)


def _file_of(cls: type[Any], run: RunContext) -> Path | None:
    """Where `cls` was written: as this run loaded it, else as the loader or its
    module says (a class loaded by another run)."""
    known = run.module_files.get(cls.__module__)
    if known is not None:
        return known
    file = source_file(cls)
    return Path(file).resolve() if file else None


def _parsed(file: Path, run: RunContext) -> dict[str, list[ClassDefinition]]:
    status = file.stat()
    stamp = (status.st_mtime_ns, status.st_size)
    cached = run.class_definitions.get(file)
    if cached is None or cached[0] != stamp:
        cached = (stamp, _definitions(file.read_bytes(), file))
        run.class_definitions[file] = cached
    return cached[1]


_FORMAT = 1
"""Bumped when what `_classes` reads, or how it is kept, changes."""


def _definitions(source: bytes, file: Path) -> dict[str, list[ClassDefinition]]:
    """The class statements of `source`: as kept in opgen's cache directory for
    this source and Python version, else parsed (and kept). A parse is most of
    the schema stage's time per types file, for the same answer every run."""
    key = hashlib.sha256(f"{_FORMAT} {sys.version}\0".encode() + source).hexdigest()
    kept = cache_dir(os.environ) / "docstrings" / key[:2] / key
    try:
        found = marshal.loads(kept.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        found = None
    if _well_formed(found):
        return found  # type: ignore[no-any-return]
    definitions = _classes(ast.parse(source, filename=str(file)))
    write_atomically(kept, marshal.dumps(definitions))
    return definitions


def _well_formed(found: object) -> bool:
    return isinstance(found, dict) and all(
        isinstance(name, str)
        and isinstance(statements, list)
        and all(
            isinstance(statement, tuple)
            and len(statement) == 2
            and isinstance(statement[0], tuple)
            and isinstance(statement[1], dict)
            for statement in statements
        )
        for name, statements in found.items()
    )


def _for_class(cls: type[Any], run: RunContext) -> Mapping[str, str]:
    """The attribute docstrings written in the body of `cls`, by attribute name
    (read once per run).

    A class name written twice in a file (in the branches of an `if`, say) is
    told apart by the names the class annotates; between statements that
    annotate the same names the first wins."""
    found = run.descriptions.get(cls)
    if found is None:
        found = run.descriptions[cls] = _read_for_class(cls, run)
    return found


def _read_for_class(cls: type[Any], run: RunContext) -> Mapping[str, str]:
    file = _file_of(cls, run)
    if file is None or file.suffix != ".py":
        return {}
    try:
        definitions = _parsed(file, run).get(cls.__qualname__, [])
    except (OSError, SyntaxError, ValueError):
        return {}
    if len(definitions) > 1:
        names = tuple(inspect.get_annotations(cls))
        definitions = [d for d in definitions if d[0] == names] or definitions
    return definitions[0][1] if definitions else {}


def field_docstring(cls: type[Any], field: str, run: RunContext) -> str | None:
    """The attribute docstring of `field` of model `cls` that Pydantic did not
    read (None when there is none, or Pydantic's settings give none): the one in
    the body of the class in `cls`'s MRO that annotates `field`."""
    declaring = run.declaring_classes.get(cls)
    if declaring is None:
        declaring = run.declaring_classes[cls] = _declaring_classes(cls)
    klass = declaring.get(field)
    if klass is None:
        return None
    if not issubclass(klass, Model):
        return None  # a plain Pydantic model: Pydantic's settings decide
    if klass.model_config.get(_CONFIG_KEY) is not None:
        return None  # Pydantic read it (True), or the model asks for none
    return _for_class(klass, run).get(field)


def _declaring_classes(cls: type[Any]) -> dict[str, type[Any]]:
    """The class in `cls`'s MRO that annotates each name, the first one (one walk
    of the MRO per class, not one per field)."""
    found: dict[str, type[Any]] = {}
    for klass in cls.__mro__:
        for name in inspect.get_annotations(klass):
            found.setdefault(name, klass)
    return found
