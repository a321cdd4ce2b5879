"""opgen's own wheel and sdist: `python -m build`, `twine check`, and what they hold.

`python -m build` builds the sdist, then the wheel from the unpacked sdist, so
the sdist is complete when the wheel builds. The wheel's metadata is read
back: one version (opgen/__init__.py's), the runtime's requirements without
the generator's packages, which only the `cli` extra brings.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from importlib.metadata import files, packages_distributions
from pathlib import Path

import pytest

import opgen

ROOT = Path(__file__).resolve().parents[2]
CLI_ONLY = {"typer", "jinja2", "black"}
"""The generator's packages; never in the runtime install."""
RUNTIME_SIDE = {"api", "engine", "runtime", "testing", "model", "errors.py"}
"""What the runtime install imports (the import-linter contract's modules)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def only(folder: Path, pattern: str) -> Path:
    [found] = folder.glob(pattern)
    return found


def wheel_file(wheel: Path, suffix: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(suffix)]
        return archive.read(name).decode()


@pytest.mark.slow
def test_wheel_and_sdist_build_and_twine_accepts_them(built: Path) -> None:
    files = sorted(p.name for p in built.iterdir())
    assert files == [
        f"opgen-{opgen.__version__}-py3-none-any.whl",
        f"opgen-{opgen.__version__}.tar.gz",
    ]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "twine",
            "check",
            "--strict",
            *map(str, built.iterdir()),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


@pytest.mark.slow
def test_the_version_comes_from_one_place(built: Path) -> None:
    """opgen/__init__.py's `__version__` is the wheel's and the sdist's version."""
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject
    assert '[tool.hatch.version]\npath = "opgen/__init__.py"' in pyproject
    metadata = Parser().parsestr(
        wheel_file(only(built, "*.whl"), ".dist-info/METADATA")
    )
    assert metadata["Version"] == opgen.__version__
    with tarfile.open(only(built, "*.tar.gz")) as sdist:
        pkg_info = sdist.extractfile(f"opgen-{opgen.__version__}/PKG-INFO")
        assert pkg_info is not None
        assert (
            Parser().parsestr(pkg_info.read().decode())["Version"] == opgen.__version__
        )


def requirement_names(metadata: Message, extra: str | None) -> set[str]:
    """The distributions the wheel requires, with no extra or with `extra`."""
    found = set()
    for requirement in metadata.get_all("Requires-Dist") or []:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)
        assert name is not None, requirement
        marker = requirement.partition(";")[2].replace('"', "'").strip()
        if marker == ("" if extra is None else f"extra == '{extra}'"):
            found.add(name.group(0).lower().replace("_", "-"))
    return found


def providing(module: str, candidates: list[str]) -> list[str]:
    """Which of `candidates` (distributions sharing a top-level name, as
    google-re2 and re2 may) holds `module`."""
    if len(candidates) == 1:
        return candidates
    parts = module.split(".")
    path = "/".join(parts[:2])
    inside = f"{path}/__init__.py" if len(parts) == 1 else f"{path}/"
    prefixes = (inside, f"{path}.py")
    held = [
        candidate
        for candidate in candidates
        if any(str(file).startswith(prefixes) for file in files(candidate) or [])
    ]
    return held or candidates


def third_party_imports(top: str) -> dict[str, set[str]]:
    """Distribution name -> the opgen files that import it, for `opgen/<top>`."""
    distributions = packages_distributions()
    found: dict[str, set[str]] = {}
    root = ROOT / "opgen" / top
    for path in [root] if root.is_file() else sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                name = module.partition(".")[0]
                if name in sys.stdlib_module_names or name == "opgen":
                    continue
                for distribution in providing(module, distributions.get(name, [name])):
                    key = distribution.lower().replace("_", "-")
                    found.setdefault(key, set()).add(str(path.relative_to(ROOT)))
    return found


@pytest.mark.slow
def test_the_runtime_requirements_leave_the_generator_to_the_cli_extra(
    built: Path,
) -> None:
    metadata = Parser().parsestr(
        wheel_file(only(built, "*.whl"), ".dist-info/METADATA")
    )
    runtime = requirement_names(metadata, None)
    assert runtime >= {"pydantic", "aiohttp", "cryptography", "prometheus-client"}
    assert not runtime & CLI_ONLY
    # opgen reads kubeconfigs itself; lightkube is a benchmark's baseline only.
    assert not runtime & {"lightkube", "lightkube-models", "httpx2"}
    assert requirement_names(metadata, "bench") == {"lightkube"}
    assert requirement_names(metadata, "cli") >= CLI_ONLY
    assert set(metadata.get_all("Provides-Extra") or []) == {
        "cel",
        "cli",
        "testing",
        "dev",
        "bench",
    }
    # The CEL engine's package requires typer: it stays out of the runtime install.
    assert "common-expression-language" not in runtime
    assert any(
        requirement.startswith("common-expression-language")
        and "extra == 'cel'" in requirement
        for requirement in metadata.get_all("Requires-Dist") or []
    )


@pytest.mark.slow
def test_every_package_opgen_imports_is_declared_where_it_is_needed(
    built: Path,
) -> None:
    """The runtime side's imports are runtime requirements (the pytest plugin's
    the `testing` extra's); the generator's may also be the `cli` extra's."""
    metadata = Parser().parsestr(
        wheel_file(only(built, "*.whl"), ".dist-info/METADATA")
    )
    runtime = requirement_names(metadata, None)
    testing = requirement_names(metadata, "testing")
    cli = requirement_names(metadata, "cli")
    undeclared = {}
    for top in sorted(p.name for p in (ROOT / "opgen").iterdir()):
        if top.startswith(("_", ".")) or top == "templates":
            continue
        declared = runtime | (testing if top == "testing" else set())
        if top not in RUNTIME_SIDE:
            declared |= cli
        for distribution, importers in third_party_imports(top).items():
            if distribution not in declared:
                undeclared[distribution] = sorted(importers)
    assert undeclared == {}


@pytest.mark.slow
def test_the_wheel_holds_the_templates_and_the_entry_points(built: Path) -> None:
    wheel = only(built, "*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert "opgen/py.typed" in names
    assert "opgen/templates/project/Dockerfile.j2" in names
    assert not any(name.startswith(("tests/", "benchmarks/")) for name in names)
    entry_points = wheel_file(wheel, ".dist-info/entry_points.txt")
    assert "opgen = opgen.__main__:main" in entry_points
    assert "opgen = opgen.testing.plugin" in entry_points
