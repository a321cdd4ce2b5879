"""Errors and warnings that reach the user.

Every stage raises a subclass of `OpgenError` with a message fit for a user:
where (file, class, field), what is wrong, and how to fix it. Only `opgen.cli`
turns them into output and exit codes (1 for user errors).

    OpgenError
    ├── LoadError        a types file cannot be imported or holds no kinds
    ├── MarkerError      a marker is unknown, misplaced or misused
    ├── SchemaError      a type has no Kubernetes mapping or breaks a structural rule
    ├── ProjectError     PROJECT is missing or invalid, or an input fails validation
    ├── ScaffoldError    a file or scaffold marker is not as opgen expects
    └── EnvtestError     envtest binaries cannot be found, built or started

Warnings are `Diagnostic` values collected by the stages and printed by the CLI;
they never stop generation.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """Where in the user's code a problem is: file, class and field, each optional."""

    file: str | None = None
    cls: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        parts: list[str] = []
        if self.file:
            parts.append(self.file)
        symbol = ".".join(p for p in (self.cls, self.field) if p)
        if symbol:
            parts.append(symbol)
        return ": ".join(parts)


class OpgenError(Exception):
    """Root of every error opgen reports to a user."""

    def __init__(
        self, message: str, *, location: Location | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint

    def __str__(self) -> str:
        return _describe(self.message, self.location, self.hint)


class LoadError(OpgenError):
    """A types file cannot be imported, or it defines nothing opgen can use."""


class MarkerError(OpgenError):
    """A marker is unknown, placed where it cannot apply, or given bad arguments."""


class SchemaError(OpgenError):
    """A type has no Kubernetes mapping, or the schema breaks an API-server rule."""


class ProjectError(OpgenError):
    """The PROJECT file is missing or invalid, or a command input fails validation."""


class ScaffoldError(OpgenError):
    """A file or scaffold marker is not in the state opgen needs to edit it."""


class EnvtestError(OpgenError):
    """envtest binaries cannot be found, built, or started."""


@dataclass(frozen=True)
class Diagnostic:
    """A warning: generation goes on, the CLI prints it."""

    message: str
    location: Location | None = None
    hint: str | None = None

    def __str__(self) -> str:
        return _describe(self.message, self.location, self.hint)


def _describe(message: str, location: Location | None, hint: str | None) -> str:
    """`file: Class.field: message` plus an indented hint line, as the CLI prints it."""
    text = message
    if location is not None and str(location):
        text = f"{location}: {text}"
    if hint:
        text = f"{text}\n  hint: {hint}"
    return text
