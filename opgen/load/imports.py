"""Import a user's Python file by path, once, and leave `sys.modules` as it was.

A file inside a package (directories with `__init__.py`) is imported under its
dotted name with the package's parent on `sys.path`; a lone file under its
stem. While a file executes, every user module loaded so far is visible in
`sys.modules`, so sibling imports find the already executed module instead of
running the file again; afterwards the user modules are taken out again and
kept, by file, in the run's `RunContext` (a file edited since is executed anew;
the next run executes every file anew). Pydantic models whose forward
references were left open are completed before that, so they never need the
module again.

Failures become `LoadError`s naming the file and line: syntax errors, import
errors, and any exception raised while the file runs (a `MarkerError` from a
badly constructed marker keeps its class; Pydantic's refusal of a field type
is told with its class and field, `pydantic_errors`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
import sysconfig
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import CodeType, ModuleType, TracebackType

from pydantic.errors import PydanticSchemaGenerationError

from opgen.errors import LoadError, Location, OpgenError
from opgen.load import docstrings
from opgen.load.context import RunContext, Stamp
from opgen.load.pydantic_errors import schema_generation_error
from opgen.load.sourcelines import symbol_at
from opgen.model.kinds import SOURCE_FILE_ATTR

__all__ = ["display_path", "import_module_from_path"]

_SYSTEM_DIRS = tuple(
    Path(p).resolve()
    for key in ("stdlib", "platstdlib", "purelib", "platlib")
    if (p := sysconfig.get_paths().get(key))
)
_OPGEN_DIR = Path(__file__).resolve().parent.parent
_MARKER_NAMED = re.compile(r"@?op\.(\w+)")


def display_path(path: Path | str) -> str:
    """`path` relative to the working directory when it lies below it."""
    path = Path(path)
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def import_module_from_path(
    path: Path | str, run: RunContext | None = None
) -> ModuleType:
    """Execute the Python file at `path` (once per `run`) and return its module."""
    run = RunContext() if run is None else run
    file = Path(path)
    if not file.is_file():
        raise LoadError(f"{display_path(file)}: no such file")
    if file.suffix != ".py":
        raise LoadError(
            f"{display_path(file)}: not a Python file (expected a .py file)"
        )
    file = file.resolve()
    cached = run.modules_by_file.get(file)
    if cached is not None and cached[0] == _stamp(file):
        return cached[1]
    root, name = _module_name(file, run)
    with _user_modules_visible(root, run), _on_sys_path(root), _read_from_source(root):
        before = set(sys.modules)
        try:
            module = _execute(file, name)
        except BaseException:
            for added in set(sys.modules) - before:
                if _is_user_module(sys.modules[added], root):
                    del sys.modules[added]
            raise
        _adopt_new_modules(before, root, run)
    run.modules_by_file[file] = (_stamp(file), module)
    return module


def _stamp(file: Path) -> Stamp:
    """What tells an edited file from the one already executed."""
    status = os.stat(file)
    return status.st_mtime_ns, status.st_size


def _module_name(file: Path, run: RunContext) -> tuple[Path, str]:
    parts = [] if file.stem == "__init__" else [file.stem]  # a package is its folder
    directory = file.parent
    while (directory / "__init__.py").is_file():
        parts.insert(0, directory.name)
        directory = directory.parent
    if (
        len(parts) == 1
        and parts[0] in sys.modules
        and parts[0] not in run.modules_by_name
    ):
        digest = hashlib.sha256(str(file).encode()).hexdigest()[:8]
        parts = [f"_opgen_user_{digest}_{file.stem}"]
    return directory, ".".join(parts)


@contextmanager
def _on_sys_path(root: Path) -> Iterator[None]:
    entry = str(root)
    added = entry not in sys.path
    if added:
        sys.path.insert(0, entry)
    try:
        yield
    finally:
        if added and entry in sys.path:
            sys.path.remove(entry)


class _SourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles the user's file from its source on every import.

    Python's bytecode cache is checked against the source's modification time,
    in whole seconds, and its size: an edit saved within the second of the last
    run, at the same size, would run the previous version. A user's types and
    handlers are small, so compiling them costs little."""

    def get_code(self, fullname: str) -> CodeType:
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the modules below `below` as `sys.path` does, to load them with
    `_SourceLoader`; leaves every other module to the finders after it."""

    def __init__(self, below: str) -> None:
        self.below = below

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if (
            spec is None
            or not isinstance(spec.loader, importlib.machinery.SourceFileLoader)
            or spec.origin is None
            or not spec.origin.startswith(self.below)
        ):
            return None
        spec.loader = _SourceLoader(fullname, spec.origin)
        return spec


@contextmanager
def _read_from_source(root: Path) -> Iterator[None]:
    finder = _SourceFinder(os.path.join(str(root), ""))
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


@contextmanager
def _user_modules_visible(root: Path, run: RunContext) -> Iterator[None]:
    """Put the user modules already executed from below `root` back in `sys.modules`.

    Only those from the same root, and only while their file is unchanged: a
    package of the same name elsewhere (another project) or an edited file
    must be executed anew, never stand in for the file being imported.
    """
    below = os.path.join(str(root), "")  # the root and a separator
    restored = {
        name: module
        for name, (module, file) in run.modules_by_name.items()
        if name not in sys.modules and _is_current(module, file, below, run)
    }
    sys.modules.update(restored)
    try:
        yield
    finally:
        for name, module in restored.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]


def _is_current(module: ModuleType, file: Path, below: str, run: RunContext) -> bool:
    """`module` was executed from `file`, under the directory path `below` (which
    ends with a separator), and the file has not changed since.

    A string prefix and `os.stat`, not `Path` methods: each import checks every
    module loaded before it."""
    if not str(file).startswith(below):
        return False
    cached = run.modules_by_file.get(file)
    if cached is None or cached[1] is not module:
        return False
    try:
        return cached[0] == _stamp(file)
    except OSError:  # deleted since
        return False


def _execute(file: Path, name: str) -> ModuleType:
    try:
        if "." in name:
            importlib.invalidate_caches()
            return importlib.import_module(name)
        spec = importlib.util.spec_from_file_location(
            name, file, loader=_SourceLoader(name, str(file))
        )
        if spec is None or spec.loader is None:  # pragma: no cover
            # Never for a .py file: it always has a spec and a loader.
            raise LoadError(f"{display_path(file)}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    except SyntaxError as error:
        where = display_path(error.filename or file)
        raise LoadError(
            f"syntax error: {error.msg}",
            location=Location(file=f"{where}:{error.lineno}"),
        ) from None
    except OpgenError as error:
        line = _user_frame(error.__traceback__, file.parent)
        if error.location is None or not error.location.file:
            old = error.location or Location()
            cls, field = old.cls, old.field
            if line is not None and cls is None:
                # Marker errors start with the marker (`op.MinLength(-1): ...`):
                # with lazy annotations the line is the class statement, and the
                # field is the one whose annotation names it.
                named = _MARKER_NAMED.match(error.message)
                cls, field = symbol_at(
                    _frame_file(line, file),
                    _frame_line(line),
                    mentioning=named[1] if named else None,
                )
            error.location = Location(file=line, cls=cls, field=field)
        raise
    except PydanticSchemaGenerationError as error:
        line = _user_frame(error.__traceback__, file.parent) or display_path(file)
        raise schema_generation_error(
            error, _frame_file(line, file), _frame_line(line), line
        ) from None
    except Exception as error:
        line = _user_frame(error.__traceback__, file.parent) or display_path(file)
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        hint = None
        if isinstance(error, ImportError):
            hint = "is the module installed in this environment, and the import spelled right?"
        raise LoadError(
            f"{line}: {type(error).__name__}: {first_line}",
            location=None,
            hint=hint,
        ) from None


def _frame_file(where: str, default: Path) -> Path:
    """The file of a `file:line` from `_user_frame`."""
    name, _, line = where.rpartition(":")
    return Path(name) if name and line.isdigit() else default


def _frame_line(where: str) -> int:
    """The line of a `file:line` from `_user_frame` (0 when there is none)."""
    line = where.rpartition(":")[2]
    return int(line) if line.isdigit() else 0


def _user_frame(tb: TracebackType | None, directory: Path) -> str | None:
    """`file:line` of the innermost traceback frame in the user's code."""
    found: str | None = None
    for frame in traceback.extract_tb(tb):
        frame_path = Path(frame.filename)
        if frame_path.is_absolute() and _OPGEN_DIR in frame_path.parents:
            continue
        if (
            frame_path.suffix == ".py"
            and not _is_system(frame_path)
            and frame_path.exists()
        ):
            found = f"{display_path(frame_path)}:{frame.lineno}"
    return found


def _is_system(path: Path) -> bool:
    resolved = path.resolve()
    return any(resolved == d or d in resolved.parents for d in _SYSTEM_DIRS)


def _is_user_module(module: ModuleType | None, root: Path) -> bool:
    if module is None or module.__name__.split(".")[0] == "opgen":
        return False
    file = getattr(module, "__file__", None)
    if not file:
        return False
    resolved = Path(file).resolve()
    return root in resolved.parents and not _is_system(resolved)


def _adopt_new_modules(before: set[str], root: Path, run: RunContext) -> None:
    """Complete, tag and cache the user modules this import added; take them out of sys.modules."""
    added = [
        name
        for name in sorted(set(sys.modules) - before)
        if _is_user_module(sys.modules[name], root)
    ]
    for name in added:
        module = sys.modules[name]
        docstrings.register_module(module, run)
        _complete_models(module)
    for name in added:
        module = sys.modules.pop(name)
        file = Path(str(module.__file__)).resolve()  # a user module has a file
        run.modules_by_name[name] = (module, file)
        run.modules_by_file[file] = (_stamp(file), module)


def _complete_models(module: ModuleType) -> None:
    file = display_path(str(module.__file__))
    for value in list(vars(module).values()):
        if not isinstance(value, type) or value.__module__ != module.__name__:
            continue
        try:
            setattr(value, SOURCE_FILE_ATTR, file)
        except (AttributeError, TypeError):  # pragma: no cover - exotic metaclasses
            continue
        rebuild = getattr(value, "model_rebuild", None)
        if callable(rebuild) and getattr(value, "__pydantic_complete__", True) is False:
            try:
                rebuild()
            except Exception as error:
                raise LoadError(
                    f"{file}: {value.__qualname__}: cannot resolve its type annotations: "
                    f"{str(error).splitlines()[0]}",
                    hint="define or import every type the model refers to",
                ) from None
