"""Go duration strings (`1h30m`, `300ms`, `-1.5h`) to and from `timedelta`.

Kubernetes (`metav1.Duration`) writes durations the way Go's `time.Duration`
does, not as ISO 8601. `parse_go_duration` accepts exactly what
`time.ParseDuration` accepts; `format_go_duration` prints what
`time.Duration.String()` prints. Go durations are integer nanoseconds and
Python timedeltas integer microseconds, so sub-microsecond parts are rounded
toward zero. `DURATION_PATTERN` is the same rule as a regular expression, for
a CRD's `pattern`.
"""

from __future__ import annotations

import datetime
import re

__all__ = ["DURATION_PATTERN", "format_go_duration", "parse_go_duration"]

DURATION_PATTERN = r"^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$"
"""What Go's `time.ParseDuration` accepts (apart from values beyond ±292 years)."""

_NANOS_PER_UNIT = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,  # U+00B5 micro sign
    "μs": 1_000,  # U+03BC greek mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}
# [0-9], not \d: Go accepts ASCII digits only.
_PART = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)")
_MAX_NANOS = 2**63 - 1


def parse_go_duration(text: str) -> datetime.timedelta:
    """Parse a Go duration string; raise ValueError when Go would refuse it."""
    original = text
    sign = 1
    if text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if text == "0":
        return datetime.timedelta(0)
    if not text:
        raise ValueError(f"invalid duration {original!r}")
    nanos = 0
    position = 0
    while position < len(text):
        match = _PART.match(text, position)
        if match is None:
            raise ValueError(
                f"invalid duration {original!r}: expected a number followed by a unit "
                "(ns, us, ms, s, m, h), e.g. 1h30m"
            )
        number, unit = match.groups()
        whole, _, fraction = number.partition(".")
        scale = _NANOS_PER_UNIT[unit]
        nanos += int(whole or "0") * scale
        if fraction:
            nanos += int(fraction) * scale // 10 ** len(fraction)
        if nanos > _MAX_NANOS:
            raise ValueError(f"invalid duration {original!r}: out of range")
        position = match.end()
    return datetime.timedelta(microseconds=sign * (nanos // 1_000))


def _format_fraction(value: int, digits: int) -> tuple[str, int]:
    """Go's fmtFrac: the fractional part of `value` with `digits` digits, trailing zeros dropped."""
    fraction = value % 10**digits
    rest = value // 10**digits
    text = f"{fraction:0{digits}d}".rstrip("0")
    return ("." + text if text else ""), rest


def format_go_duration(value: datetime.timedelta) -> str:
    """Print `value` as Go's `time.Duration.String()` would: `1h30m0s`, `1.5s`, `300ms`."""
    nanos = (
        value.days * 86_400 + value.seconds
    ) * 1_000_000_000 + value.microseconds * 1_000
    if nanos == 0:
        return "0s"
    sign = "-" if nanos < 0 else ""
    nanos = abs(nanos)
    if nanos < 1_000_000_000:
        if nanos < 1_000:
            return f"{sign}{nanos}ns"
        if nanos < 1_000_000:
            fraction, whole = _format_fraction(nanos, 3)
            return f"{sign}{whole}{fraction}µs"
        fraction, whole = _format_fraction(nanos, 6)
        return f"{sign}{whole}{fraction}ms"
    fraction, seconds = _format_fraction(nanos, 9)
    text = f"{seconds % 60}{fraction}s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        hours = minutes // 60
        if hours:
            text = f"{hours}h{text}"
    return sign + text
