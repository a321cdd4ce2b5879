"""The manager's command line: Kubebuilder's flags, spelled as Go operators spell them.

`add_manager_flags(parser)` adds every flag Kubebuilder's `main.go` defines,
with its name and default, and zap's logging flags (`rt.logs`);
`rt.ManagerOptions.from_flags(args, leader_election_id=...)` builds the
manager's options from them and `rt.logs.LogOptions.from_flags(args)` its
logging. A generated `main.py` calls the three and defines no flag itself::

    parser = argparse.ArgumentParser(prog="ray-operator")
    rt.flags.add_manager_flags(parser)
    args = parser.parse_args(argv)

Kubebuilder's `main.go` uses Go's `flag` package, whose boolean flags take
`--name` and `--name=false`. Charts, kustomize patches and runbooks written
for Go operators pass the second form, so `BoolFlag` accepts it, alongside
Python's `--no-name`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

__all__ = ["BoolFlag", "add_manager_flags", "parse_bool"]

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


class _Http2Flag(BoolFlag):
    """`--enable-http2`: accepted off (as Kubebuilder's manifests pass it), refused on."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        super().__call__(parser, namespace, values, option_string)
        if getattr(namespace, self.dest):
            parser.error(f"{option_string}: opgen's servers speak HTTP/1.1 only")


def add_manager_flags(parser: argparse.ArgumentParser) -> None:
    """Add the manager's flags, with Kubebuilder's names and defaults, and zap's
    logging flags; `rt.ManagerOptions.from_flags` reads them back."""
    from opgen.runtime import logs

    parser.add_argument(
        "--metrics-bind-address",
        default="0",
        help="Address the metrics endpoint binds to: ':8443' for HTTPS, ':8080' "
        "for HTTP, or '0' (the default) to disable it.",
    )
    parser.add_argument(
        "--metrics-secure",
        action=BoolFlag,
        default=True,
        help="Serve metrics over HTTPS, only to callers whose token the API server "
        "authenticates and allows to get /metrics (--metrics-secure=false: plain HTTP).",
    )
    parser.add_argument(
        "--health-probe-bind-address",
        default=":8081",
        help="Address the /healthz and /readyz probes bind to.",
    )
    parser.add_argument(
        "--leader-elect",
        action=BoolFlag,
        default=False,
        help="Elect a leader, so that only one replica of the manager is active.",
    )
    parser.add_argument(
        "--metrics-cert-path",
        default="",
        help="Folder holding the metrics server's certificate and key, reloaded when "
        "they change; without it the server generates a self-signed certificate.",
    )
    parser.add_argument(
        "--metrics-cert-name",
        default="tls.crt",
        help="Certificate file name in --metrics-cert-path.",
    )
    parser.add_argument(
        "--metrics-cert-key",
        default="tls.key",
        help="Key file name in --metrics-cert-path.",
    )
    parser.add_argument(
        "--webhook-port",
        type=int,
        default=9443,
        help="Port the webhook server listens on.",
    )
    parser.add_argument(
        "--webhook-cert-path",
        default="",
        help="Folder holding the webhook server's certificate and key, reloaded when "
        "they change; default: /tmp/k8s-webhook-server/serving-certs when it holds "
        "them, else a self-signed certificate the API server does not trust.",
    )
    parser.add_argument(
        "--webhook-cert-name",
        default="tls.crt",
        help="Certificate file name in --webhook-cert-path.",
    )
    parser.add_argument(
        "--webhook-cert-key",
        default="tls.key",
        help="Key file name in --webhook-cert-path.",
    )
    parser.add_argument(
        "--enable-http2",
        action=_Http2Flag,
        default=False,
        help="Kubebuilder's flag, off as there (HTTP/2 Rapid Reset, CVE-2023-44487): "
        "the metrics, probe and webhook servers speak HTTP/1.1 only.",
    )
    logs.add_flags(parser)
