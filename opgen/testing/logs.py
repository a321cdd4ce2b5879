"""The tail of a log file, which the errors of both envtest jobs quote.

A build step that fails (`binaries.commands.run_logged`) and a control-plane
process that does not start (`controlplane.processes`) both show the last
lines of their log, so the user sees why without digging.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["LOG_TAIL_LINES", "log_tail"]

LOG_TAIL_LINES = 40


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last `lines` lines of a log file ("" when it does not exist)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
