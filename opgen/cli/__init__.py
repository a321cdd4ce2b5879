"""The `opgen` command line: parse, call the stages, print, exit.

Exit codes: 0 success, 1 user error (a clear message, nothing written),
2 usage error (typer/click's own). Heavy modules are imported inside the
commands so that `opgen --help` starts fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from opgen import __version__
from opgen.cli import edit, envtest, generate, imports, install, scaffold, webhook
from opgen.cli._app import app, fail

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


def _run_in(ctx: typer.Context, directories: list[Path]) -> None:
    """Work in `directories` joined (as `git -C a -C b` does), back where we were on exit.

    Changing the working directory, as git and make do, makes every relative path
    the command reads or names resolve against DIR and be reported relative to it.
    The previous one is restored when the command ends, for in-process callers.
    """
    if not directories:
        return
    given = Path(*directories)
    if not given.is_dir():
        raise fail(f"-C {given}: no such directory")
    previous = os.getcwd()
    os.chdir(given)
    ctx.call_on_close(lambda: os.chdir(previous))


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False,
        "--version",
        help="Print opgen's version and exit.",
        callback=_version_callback,
        is_eager=True,
    ),
    directories: Annotated[
        list[Path] | None,
        typer.Option(
            "-C",
            metavar="DIR",
            help="Run as if opgen was started in DIR (like git -C and make -C); repeat "
            "to go further in, each relative to the one before.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """opgen: Kubebuilder for Python.

    Write Pydantic models for a custom resource; opgen generates the CRD, RBAC,
    typed clients and a complete operator project around them.
    """
    _run_in(ctx, directories or [])


def main() -> None:
    """Console-script entry point."""
    sys.exit(app(standalone_mode=True))
