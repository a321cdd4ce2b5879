"""The command line's own contract: version, help, exit codes, and docs/cli.md."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from opgen import __version__
from opgen.cli import app


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"opgen {__version__}"


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "opgen", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert __version__ in done.stdout


def test_unknown_option_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["--no-such-option"])
    assert result.exit_code == 2


# --- -C DIR: as if started in DIR ----------------------------------------------

EXAMPLE_TYPES = Path(__file__).resolve().parents[1] / "examples" / "standalone"


def test_dash_c_resolves_paths_against_dir_and_names_them_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    (work / "api").mkdir(parents=True)
    (work / "api" / "types.py").write_text(
        (EXAMPLE_TYPES / "raycluster_types.py").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    result = CliRunner().invoke(
        app, ["-C", str(tmp_path), "-C", "work", "generate", "crd",
              "--types", "api/types.py", "--out", "crds"],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    assert result.output == "wrote crds/ray.io_rayclusters.yaml\n"
    assert (work / "crds" / "ray.io_rayclusters.yaml").is_file()
    assert not (elsewhere / "crds").exists()
    assert Path.cwd() == elsewhere


def test_dash_c_names_a_missing_file_relative_to_dir(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["-C", str(tmp_path), "generate", "crd", "--types", "gone.py", "--out", "o"],
    )
    assert result.exit_code == 1
    assert "error: gone.py: no such file" in result.output


def test_dash_c_refuses_a_missing_directory(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["-C", str(tmp_path / "nope"), "generate"])
    assert result.exit_code == 1
    assert f"error: -C {tmp_path / 'nope'}: no such directory" in result.output


# --- docs/cli.md follows the app -------------------------------------------------

CLI_DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def _commands() -> list[tuple[str, Any]]:
    """(`opgen create api`, click command) for the app and every command under it."""
    found: list[tuple[str, Any]] = []

    def walk(command: Any, path: str) -> None:
        found.append((path, command))
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, f"{path} {name}")

    walk(typer.main.get_command(app), "opgen")
    return found


def _sections(text: str) -> dict[str, str]:
    """Heading line → the text under it, up to the next heading ("" for the intro)."""
    sections: dict[str, str] = {}
    heading = ""
    lines: list[str] = []
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if line.startswith("#") and not in_code:
            sections[heading] = "\n".join(lines)
            heading, lines = line, []
        else:
            lines.append(line)
    sections[heading] = "\n".join(lines)
    return sections


def _section_of(path: str, sections: dict[str, str]) -> tuple[str, str]:
    """The section whose heading names `path`, else that of its closest parent."""
    while True:
        for heading, body in sections.items():
            if f"`{path}`" in heading:
                return heading, body
        parent, _, _ = path.rpartition(" ")
        assert parent, f"docs/cli.md has no section for {path}"
        path = parent


def _names(command: Any) -> list[str]:
    names: list[str] = []
    for param in command.params:
        if param.param_type_name == "argument":
            names.append(param.metavar or param.name.upper())
        else:
            names.extend([*param.opts, *param.secondary_opts])
    return names


@pytest.mark.parametrize("path", [path for path, _ in _commands()])
def test_cli_md_explains_every_command_and_option(path: str) -> None:
    sections = _sections(CLI_DOC.read_text(encoding="utf-8"))
    command = dict(_commands())[path]
    names = _names(command)
    if path == "opgen":
        heading = next(h for h in sections if h.startswith("# "))
        body = sections[heading]
        names += ["-h", "--help"]  # every command's help option
    elif not command.params:
        return  # a group like `opgen create`: its subcommands carry the options
    else:
        heading, body = _section_of(path, sections)
        assert path in heading or path in body, f"{heading!r} never names {path}"
    for name in names:
        assert re.search(
            rf"(?<![\w-]){re.escape(name)}(?![\w-])", body
        ), f"docs/cli.md {heading!r} does not explain {name} of {path}"


def test_cli_md_synopses_name_only_real_options() -> None:
    sections = _sections(CLI_DOC.read_text(encoding="utf-8"))
    commands = dict(_commands())
    for heading, body in sections.items():
        match = re.search(r"`(opgen[a-z ]*)`", heading)
        if match is None or match[1] not in commands:
            continue
        synopsis = body.split("```")[1] if "```" in body else ""
        known = {
            name
            for path, command in commands.items()
            if path.startswith(match[1])
            for name in _names(command)
        }
        for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", synopsis):
            assert (
                option in known
            ), f"{heading}: {option} is not an option of {match[1]}"


@pytest.mark.parametrize("flag", ["--check", "--dry-run"])
def test_a_generate_flag_before_the_subcommand_is_a_usage_error(
    flag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `opgen generate --check manifests` must not quietly write the manifests.
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["generate", flag, "manifests"])
    assert result.exit_code == 2
    assert f"opgen generate manifests {flag}" in result.output
    assert list(tmp_path.iterdir()) == []
