"""Command-line flags spelled as Go operators spell them.

A manager's `main.py` uses argparse; Kubebuilder's `main.go` uses Go's `flag`
package, whose boolean flags take `--name` and `--name=false`. Charts, kustomize
patches and runbooks written for Go operators pass the second form, so
`BoolFlag` accepts it, alongside Python's `--no-name`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

__all__ = ["BoolFlag", "parse_bool"]

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_bool(text: str) -> bool:
    """A boolean as Go's strconv.ParseBool reads it; ValueError for anything else."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{text!r} is not a boolean (true, false, 1, 0, t, f)")


class BoolFlag(argparse.Action):
    """A boolean flag: `--name`, `--name=true`, `--name=false` or `--no-name`.

    `--name=VALUE` takes every spelling Go's strconv.ParseBool takes (`true`,
    `True`, `TRUE`, `t`, `1` and their opposites); `--no-name` takes none.
    """

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        default: bool = False,
        help: str | None = None,
        **kwargs: Any,
    ) -> None:
        negated = [
            f"--no-{name[2:]}" for name in option_strings if name.startswith("--")
        ]
        super().__init__(
            [*option_strings, *negated],
            dest,
            nargs="?",
            default=default,
            metavar="BOOL",
            help=help,
            **kwargs,
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        negated = option_string is not None and option_string.startswith("--no-")
        if values is None:
            setattr(namespace, self.dest, not negated)
            return
        if negated:
            parser.error(f"{option_string} takes no value (got {values!r})")
        try:
            setattr(namespace, self.dest, parse_bool(str(values)))
        except ValueError as error:
            parser.error(f"{option_string}: {error}")

    def format_usage(self) -> str:
        return " | ".join(self.option_strings)
