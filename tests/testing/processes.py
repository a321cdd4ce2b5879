"""Finding leftover processes by what their command line mentions (Linux /proc)."""

from __future__ import annotations

import os
from pathlib import Path


def processes_mentioning(text: str) -> list[str]:
    """Command lines (space-joined) of live processes whose arguments contain `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            raw = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state == "Z":
            continue
        command = raw.replace(b"\0", b" ").decode(errors="replace")
        if text in command:
            found.append(f"{entry.name}: {command}")
    return found
