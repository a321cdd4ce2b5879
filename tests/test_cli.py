"""The command line's own contract: version, help, exit codes."""

from __future__ import annotations

import subprocess
import sys

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
