"""A manager's logging: zap's flags, and console or JSON lines.

Go operators log through zap, configured by the flags controller-runtime's
`zap.Options.BindFlags` adds; `add_flags` adds the same flags to a manager's
argparse parser and `configure` sets up the `logging` root logger from them:

    --zap-log-level (or --log-level)   debug, info, warn, error, panic, or an integer > 0 (debug)
    --zap-encoder                      console (default) or json: one JSON object per line
    --zap-devel                        development defaults: debug level, stack traces from warn
    --zap-time-encoding                epoch, millis, nano, iso8601, rfc3339, rfc3339nano
    --zap-stacktrace-level             from which level exception tracebacks are printed

A JSON line carries zap's keys (`level`, `ts`, `logger`, `msg`, `error`,
`stacktrace`) and every `extra=` the record was logged with (`controller`,
`namespace`, `name`, ...), so log pipelines that parse Go operators' logs parse
these too.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import traceback
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TextIO

from opgen.runtime.flags import BoolFlag

__all__ = [
    "ENCODERS",
    "TIME_ENCODINGS",
    "ConsoleFormatter",
    "JsonFormatter",
    "LogOptions",
    "add_flags",
    "configure",
    "parse_level",
]

Encoder = Literal["console", "json"]
ENCODERS: tuple[Encoder, ...] = ("console", "json")
TIME_ENCODINGS = ("epoch", "millis", "nano", "iso8601", "rfc3339", "rfc3339nano")

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "dpanic": logging.CRITICAL,
    "panic": logging.CRITICAL,
    "fatal": logging.CRITICAL,
    "critical": logging.CRITICAL,
}
_LEVEL_NAMES = {
    logging.DEBUG: "debug",
    logging.INFO: "info",
    logging.WARNING: "warn",
    logging.ERROR: "error",
    logging.CRITICAL: "critical",
}
_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "taskName",
}


def parse_level(text: str) -> int:
    """A level as zap's flag reads it (any case); a positive integer is debug."""
    name = text.strip().lower()
    if name in _LEVELS:
        return _LEVELS[name]
    if name.isdigit() and int(name) > 0:
        return logging.DEBUG
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a level (debug, info, warn, error, panic, or an integer > 0)"
    )


@dataclass(frozen=True)
class LogOptions:
    """How the manager logs; `from_flags` reads the flags `add_flags` added."""

    level: int = logging.INFO
    encoder: Encoder = "console"
    time_encoding: str = "iso8601"
    stacktrace_level: int = logging.ERROR

    @classmethod
    def from_flags(cls, args: argparse.Namespace) -> LogOptions:
        devel = bool(args.zap_devel)
        encoder: Encoder = args.zap_encoder or "console"
        default_time = "epoch" if encoder == "json" else "iso8601"
        return cls(
            level=args.log_level or (logging.DEBUG if devel else logging.INFO),
            encoder=encoder,
            time_encoding=args.zap_time_encoding or default_time,
            stacktrace_level=args.zap_stacktrace_level
            or (logging.WARNING if devel else logging.ERROR),
        )


def add_flags(parser: argparse.ArgumentParser) -> None:
    """Add zap's logging flags (and `--log-level`, the same as `--zap-log-level`)."""
    group = parser.add_argument_group("logging (zap's flags)")
    group.add_argument(
        "--zap-log-level",
        "--log-level",
        dest="log_level",
        type=parse_level,
        default=None,
        metavar="LEVEL",
        help="Lowest level logged: debug, info (the default), warn, error, panic, "
        "or an integer > 0 (debug).",
    )
    group.add_argument(
        "--zap-encoder",
        choices=ENCODERS,
        default=None,
        help="console (the default): one readable line per record; json: one JSON "
        "object per line, for log pipelines.",
    )
    group.add_argument(
        "--zap-devel",
        action=BoolFlag,
        default=False,
        help="Development defaults: debug level, tracebacks from warn up.",
    )
    group.add_argument(
        "--zap-time-encoding",
        choices=TIME_ENCODINGS,
        default=None,
        help="How times are written (default: epoch for json, iso8601 for console).",
    )
    group.add_argument(
        "--zap-stacktrace-level",
        type=parse_level,
        default=None,
        metavar="LEVEL",
        help="From which level exception tracebacks are printed (default: error; "
        "warn with --zap-devel); below it only the exception's message.",
    )


def configure(options: LogOptions, stream: TextIO | None = None) -> logging.Handler:
    """Send every record at `options.level` and above to `stream` (stderr), formatted."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    formatter: logging.Formatter = (
        JsonFormatter(options)
        if options.encoder == "json"
        else ConsoleFormatter(options)
    )
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(options.level)
    return handler


class _Formatter(logging.Formatter):
    def __init__(self, options: LogOptions) -> None:
        super().__init__()
        self.options = options

    def timestamp(self, record: logging.LogRecord) -> float | int | str:
        encoding = self.options.time_encoding
        if encoding == "epoch":
            return record.created
        if encoding == "millis":
            return record.created * 1000
        if encoding == "nano":
            return int(record.created * 1_000_000_000)
        moment = datetime.fromtimestamp(record.created).astimezone()
        if encoding == "iso8601":
            return moment.strftime("%Y-%m-%dT%H:%M:%S.") + (
                f"{moment.microsecond // 1000:03d}{moment.strftime('%z')}"
            )
        precision = "microseconds" if encoding == "rfc3339nano" else "seconds"
        return moment.isoformat(timespec=precision)

    def fields(self, record: logging.LogRecord) -> dict[str, Any]:
        """The record's `extra=` values, then the exception's message and traceback."""
        fields = {
            key: value
            for key, value in vars(record).items()
            if key not in _RECORD_FIELDS and not key.startswith("_")
        }
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            fields["error"] = f"{type(error).__name__}: {error}"
            if record.levelno >= self.options.stacktrace_level:
                fields["stacktrace"] = "".join(
                    traceback.format_exception(*record.exc_info)
                ).rstrip()
        elif record.stack_info:
            fields["stacktrace"] = record.stack_info
        return fields


class JsonFormatter(_Formatter):
    """One JSON object per record, with zap's keys."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "level": _LEVEL_NAMES.get(record.levelno, record.levelname.lower()),
            "ts": self.timestamp(record),
            "logger": record.name,
            "msg": record.getMessage(),
            **self.fields(record),
        }
        return json.dumps(line, default=str, ensure_ascii=False)


class ConsoleFormatter(_Formatter):
    """Time, LEVEL, logger and message separated by tabs, then the fields as JSON."""

    def format(self, record: logging.LogRecord) -> str:
        fields = self.fields(record)
        stacktrace = fields.pop("stacktrace", None)
        parts = [
            str(self.timestamp(record)),
            _LEVEL_NAMES.get(record.levelno, record.levelname.lower()).upper(),
            record.name,
            record.getMessage(),
        ]
        if fields:
            parts.append(json.dumps(fields, default=str, ensure_ascii=False))
        line = "\t".join(parts)
        return f"{line}\n{stacktrace}" if stacktrace else line
