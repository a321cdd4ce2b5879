"""rt.logs: zap's flags, JSON and console lines, tracebacks by level; rt.flags.BoolFlag."""

from __future__ import annotations

import argparse
import io
import json
import logging
import re
from collections.abc import Iterator

import pytest

from opgen import runtime as rt


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def emit(
    options: rt.logs.LogOptions, *records: tuple[int, str, dict[str, object]]
) -> str:
    stream = io.StringIO()
    rt.logs.configure(options, stream)
    log = logging.getLogger("ray_operator.controller")
    for level, message, extra in records:
        log.log(level, message, extra=extra)
    return stream.getvalue()


def raise_and_log(options: rt.logs.LogOptions, level: int) -> str:
    stream = io.StringIO()
    rt.logs.configure(options, stream)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("ray_operator").log(level, "reconcile failed", exc_info=True)
    return stream.getvalue()


@pytest.mark.usefixtures("restore_root_logger")
def test_json_lines_carry_zaps_keys_and_the_extras() -> None:
    out = emit(
        rt.logs.LogOptions(encoder="json", time_encoding="epoch"),
        (logging.INFO, "reconciled", {"controller": "raycluster", "namespace": "a"}),
        (logging.WARNING, "slow", {}),
    )
    first, second = (json.loads(line) for line in out.splitlines())
    assert first.keys() == {"level", "ts", "logger", "msg", "controller", "namespace"}
    assert first["level"] == "info" and first["msg"] == "reconciled"
    assert first["logger"] == "ray_operator.controller"
    assert first["controller"] == "raycluster" and first["namespace"] == "a"
    assert isinstance(first["ts"], float)
    assert second["level"] == "warn"


@pytest.mark.usefixtures("restore_root_logger")
def test_the_level_filters_records() -> None:
    out = emit(
        rt.logs.LogOptions(level=logging.WARNING, encoder="json"),
        (logging.INFO, "quiet", {}),
        (logging.ERROR, "loud", {}),
    )
    assert [json.loads(line)["msg"] for line in out.splitlines()] == ["loud"]


@pytest.mark.usefixtures("restore_root_logger")
def test_tracebacks_only_from_the_stacktrace_level() -> None:
    options = rt.logs.LogOptions(encoder="json", stacktrace_level=logging.ERROR)
    warned = json.loads(raise_and_log(options, logging.WARNING))
    assert warned["error"] == "RuntimeError: boom"
    assert "stacktrace" not in warned
    failed = json.loads(raise_and_log(options, logging.ERROR))
    assert failed["error"] == "RuntimeError: boom"
    assert failed["stacktrace"].startswith("Traceback (most recent call last):")


@pytest.mark.usefixtures("restore_root_logger")
def test_console_lines_are_tab_separated_with_fields_as_json() -> None:
    out = emit(
        rt.logs.LogOptions(),
        (logging.INFO, "starting manager", {}),
        (logging.ERROR, "reconcile failed", {"controller": "raycluster"}),
    )
    plain, with_fields = out.splitlines()
    time, level, logger, message = plain.split("\t")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}", time)
    assert (level, logger, message) == (
        "INFO",
        "ray_operator.controller",
        "starting manager",
    )
    assert with_fields.split("\t")[1] == "ERROR"
    assert json.loads(with_fields.split("\t")[4]) == {"controller": "raycluster"}


@pytest.mark.usefixtures("restore_root_logger")
def test_console_tracebacks_follow_the_line() -> None:
    out = raise_and_log(rt.logs.LogOptions(), logging.ERROR)
    first, *rest = out.splitlines()
    assert json.loads(first.split("\t")[4]) == {"error": "RuntimeError: boom"}
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "RuntimeError: boom"


@pytest.mark.parametrize(
    ("encoding", "pattern"),
    [
        ("epoch", r"\d+\.\d+"),
        ("millis", r"\d+\.\d+"),
        ("nano", r"\d{19}"),
        ("iso8601", r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}"),
        ("rfc3339", r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d"),
        ("rfc3339nano", r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d"),
    ],
)
@pytest.mark.usefixtures("restore_root_logger")
def test_time_encodings(encoding: str, pattern: str) -> None:
    out = emit(
        rt.logs.LogOptions(encoder="json", time_encoding=encoding),
        (logging.INFO, "tick", {}),
    )
    assert re.fullmatch(pattern, str(json.loads(out)["ts"]))


@pytest.mark.usefixtures("restore_root_logger")
def test_configure_replaces_the_root_handlers() -> None:
    first, second = io.StringIO(), io.StringIO()
    rt.logs.configure(rt.logs.LogOptions(), first)
    rt.logs.configure(rt.logs.LogOptions(encoder="json"), second)
    logging.getLogger("x").warning("once")
    assert first.getvalue() == ""
    assert json.loads(second.getvalue())["msg"] == "once"


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("debug", logging.DEBUG),
        ("INFO", logging.INFO),
        ("Warn", logging.WARNING),
        ("warning", logging.WARNING),
        ("error", logging.ERROR),
        ("panic", logging.CRITICAL),
        ("1", logging.DEBUG),
        ("10", logging.DEBUG),
    ],
)
def test_levels_as_zap_reads_them(text: str, level: int) -> None:
    assert rt.logs.parse_level(text) == level


@pytest.mark.parametrize("text", ["0", "-1", "verbose", ""])
def test_levels_zap_refuses(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        rt.logs.parse_level(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [(t, True) for t in ("1", "t", "T", "TRUE", "true", "True")]
    + [(f, False) for f in ("0", "f", "F", "FALSE", "false", "False")],
)
def test_booleans_as_go_parses_them(text: str, value: bool) -> None:
    assert rt.flags.parse_bool(text) is value


@pytest.mark.parametrize("text", ["yes", "no", "on", "tRUE", ""])
def test_booleans_go_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="not a boolean"):
        rt.flags.parse_bool(text)
