"""The typer application and the one place user errors become exit codes."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import typer

from opgen.errors import Diagnostic, OpgenError

if TYPE_CHECKING:
    from opgen.write import Plan

app = typer.Typer(
    name="opgen",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

P = ParamSpec("P")
R = TypeVar("R")

USER_ERROR = 1


def fail(message: str) -> typer.Exit:
    """Print an error line and return the Exit to raise (code 1)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(USER_ERROR)


def warn(diagnostics: Iterable[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        typer.echo(f"warning: {diagnostic}", err=True)


def report_applied(plan: Plan, *, nothing: str) -> None:
    """One line per path an applied plan changed or skipped; `nothing` when none."""
    for line in plan.describe():
        if not line.startswith("unchanged"):
            typer.echo(line)
    if not plan.writes:
        typer.echo(nothing)


def reports_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn an `OpgenError` raised by a stage into one message and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except OpgenError as error:
            raise fail(str(error)) from None

    return wrapper
