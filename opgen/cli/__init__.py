"""The `opgen` command line: parse, call the stages, print, exit.

Exit codes: 0 success, 1 user error (a clear message, nothing written),
2 usage error (typer/click's own). Heavy modules are imported inside the
commands so that `opgen --help` starts fast.
"""

from __future__ import annotations

import sys

import typer

from opgen import __version__
from opgen.cli import edit, envtest, generate, imports, install, scaffold, webhook
from opgen.cli._app import app

__all__ = ["app", "main"]

generate.register(app)
scaffold.register(app)
edit.register(app)
imports.register(app)
envtest.register(app)
webhook.register(app)
install.register(app)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"opgen {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print opgen's version and exit.",
        callback=_version_callback,
        is_eager=True,
    ),
) -> None:
    """opgen: Kubebuilder for Python.

    Write Pydantic models for a custom resource; opgen generates the CRD, RBAC,
    typed clients and a complete operator project around them.
    """


def main() -> None:
    """Console-script entry point."""
    sys.exit(app(standalone_mode=True))
