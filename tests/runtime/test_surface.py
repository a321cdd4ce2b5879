"""`opgen.runtime.__all__` is the runtime's whole surface, and user code stays on it.

The surface is pinned name by name: adding or removing one is a decision this
test makes visible. docs/runtime.md mentions every name, and what a project
writes (the scaffold's templates, the example, the Python blocks of the docs)
reaches the runtime only through `__all__`.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from opgen import runtime as rt

ROOT = Path(__file__).resolve().parents[2]

SURFACE = {
    # reconcilers
    "Request",
    "Result",
    "Reconciler",
    "FuncReconciler",
    "TerminalError",
    "Controller",
    "ControllerOptions",
    "For",
    "Owns",
    "Watches",
    "Client",
    "Reader",
    "Page",
    "Preconditions",
    "Cache",
    "create_or_update",
    "apply_if_changed",
    "retry_on_conflict",
    "Operation",
    "EventRecorder",
    "status",
    "conditions",
    "finalizers",
    "owner",
    "predicates",
    "typed",
    "webhook",
    # errors
    "ApiError",
    "NotFound",
    "Conflict",
    "AlreadyExists",
    "Invalid",
    "Gone",
    "TransportError",
    "DecodeError",
    "FieldProblem",
    # a main.py
    "Manager",
    "ManagerOptions",
    "MetricsOptions",
    "ProbeOptions",
    "WebhookOptions",
    "CacheOptions",
    "KindSelection",
    "ClientOptions",
    "LeaderElectionConfig",
    "LeaderElector",
    "LeaderElectionLost",
    "ShardingOptions",
    "ShardMembershipLost",
    "NoCluster",
    "ConfigError",
    "flags",
    "logs",
    # test doubles
    "seams",
}

PUBLIC_MODULES = {
    name
    for name in SURFACE
    if (ROOT / "opgen/runtime" / f"{name}.py").exists()
    or (ROOT / "opgen/runtime" / name).is_dir()
}

USER_CODE = [
    "opgen/templates/**/*.py.j2",
    "examples/raycluster/**/*.py",
    "examples/raycluster_types.py",
    "examples/standalone/**/*.py",
    "examples/generated/**/*.py",
]
DOCS = ["docs/*.md", "README.md"]

_ATTRIBUTE = re.compile(r"(?<![\w.])rt\.([A-Za-z_]\w*)")
_FROM_PACKAGE = re.compile(r"from opgen\.runtime import \(?([\w\s,]+?)\)?\s*$", re.M)
_SUBMODULE = re.compile(r"(?:from|import) opgen\.runtime\.(\w+)")
_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def test_all_is_the_pinned_surface() -> None:
    assert set(rt.__all__) == SURFACE
    assert len(rt.__all__) == len(SURFACE), "a name listed twice"


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_name_exists_and_is_documented(name: str) -> None:
    assert hasattr(rt, name)
    text = (ROOT / "docs/runtime.md").read_text(encoding="utf-8")
    assert re.search(
        rf"(?<![\w.])(rt|opgen\.runtime)\.{re.escape(name)}\b", text
    ), f"docs/runtime.md never mentions rt.{name}"


def type_checkers_view() -> dict[str, str]:
    """Each name the `TYPE_CHECKING` block of `opgen/runtime/__init__.py` imports
    (what mypy and editors see), with the module it comes from."""
    tree = ast.parse((ROOT / "opgen/runtime/__init__.py").read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    return {
        alias.name: (
            f"opgen.runtime.{alias.name}"
            if node.module == "opgen.runtime"
            else str(node.module)
        )
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_type_checkers_see_what_the_interpreter_loads() -> None:
    """The names load on first use; the static imports type checkers read name
    the same objects, and no more or fewer."""
    seen = type_checkers_view()
    assert set(seen) == SURFACE
    for name, module in seen.items():
        if module == f"opgen.runtime.{name}":
            assert getattr(rt, name) is importlib.import_module(module), name
        else:
            assert getattr(rt, name) is getattr(importlib.import_module(module), name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(
        AttributeError, match=r"'opgen\.runtime' has no attribute 'Informer'"
    ):
        _ = rt.Informer  # type: ignore[attr-defined]
    assert set(dir(rt)) >= SURFACE


def off_the_surface(code: str) -> list[str]:
    """What `code` takes from `opgen.runtime` beyond `__all__`."""
    found = [f"rt.{n}" for n in _ATTRIBUTE.findall(code) if n not in SURFACE]
    for names in _FROM_PACKAGE.findall(code):
        found += [
            f"from opgen.runtime import {n}"
            for n in re.split(r"[\s,]+", names)
            if n and n not in SURFACE
        ]
    found += [
        f"opgen.runtime.{n}"
        for n in _SUBMODULE.findall(code)
        if n not in PUBLIC_MODULES
    ]
    return found


def user_code() -> Iterator[tuple[str, str]]:
    for pattern in USER_CODE:
        for path in sorted(ROOT.glob(pattern)):
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
    for pattern in DOCS:
        for path in sorted(ROOT.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            for number, block in enumerate(_PYTHON_BLOCK.findall(text), 1):
                yield f"{path.relative_to(ROOT)} (python block {number})", block


def test_user_code_uses_only_the_surface() -> None:
    problems = {
        where: found for where, code in user_code() if (found := off_the_surface(code))
    }
    assert not problems, problems


def test_the_check_can_fail() -> None:
    code = (
        "from opgen.runtime.rest import RestClient\n"
        "from opgen.runtime import Client, Informer\n"
        "store = rt.store.Store()\n"
        "from opgen.runtime import status\n"
    )
    assert off_the_surface(code) == [
        "rt.store",
        "from opgen.runtime import Informer",
        "opgen.runtime.rest",
    ]
    assert sum(1 for _ in user_code()) > 50


def test_the_import_contract_forbids_every_internal_module() -> None:
    """pyproject.toml's contract names the internal modules one by one; a new
    module of the runtime must join it (or the surface)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    contract = text.split(
        'name = "Only the runtime and envtest import the runtime\'s internal modules"'
    )[1].split("[[tool.importlinter.contracts]]")[0]
    listed = re.search(r"forbidden_modules = \[(.*?)\]", contract)
    assert listed is not None
    forbidden = set(re.findall(r'"opgen\.runtime\.(\w+)"', listed.group(1)))
    modules = {
        path.stem if path.suffix == ".py" else path.name
        for path in (ROOT / "opgen/runtime").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path / "__init__.py").exists()
    }
    assert forbidden == modules - PUBLIC_MODULES
    assert modules >= PUBLIC_MODULES
