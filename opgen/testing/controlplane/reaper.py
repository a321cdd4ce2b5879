"""A watchdog that cleans up a control plane whose owner died without stopping it.

`Environment` starts this script (standard library only, run by path so it
starts fast) in its own session with a pipe on stdin, and tells it what to
clean up, one line each: `pgid <n>` for a process group, `forget <n>` when a
group was stopped normally, `done` when the owner finished its own teardown.
When stdin closes without `done`, the owner was killed (SIGKILL, a crash, an
unhandled SIGTERM): the watchdog terminates every group it knows (SIGTERM,
then SIGKILL) and removes the work directory given as its only argument.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import time
from pathlib import Path

__all__ = ["main"]

GRACE_SECONDS = 10.0


def _alive(pgid: int) -> bool:
    """Whether any non-zombie process is in the group.

    The owner is dead, so its children's zombies wait for whatever init
    reaps orphans (some container inits never do); signalling alone would
    count them as alive.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _terminate(groups: list[int]) -> None:
    """Stop groups last-started first (kube-apiserver before etcd), as a normal stop does."""
    for pgid in reversed(groups):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + GRACE_SECONDS
        while time.monotonic() < deadline and _alive(pgid):
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    work_dir = argv[1] if len(argv) > 1 else None
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    groups: list[int] = []
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "done":
            return 0
        if command == "pgid" and argument.isdigit():
            groups.append(int(argument))
        elif command == "forget" and argument.isdigit() and int(argument) in groups:
            groups.remove(int(argument))
    _terminate(groups)
    if work_dir:
        shutil.rmtree(work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
