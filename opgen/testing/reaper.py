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

__all__ = ["main"]

GRACE_SECONDS = 10.0


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _terminate(groups: set[int]) -> None:
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline and any(_alive(pgid) for pgid in groups):
        time.sleep(0.1)
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    work_dir = argv[1] if len(argv) > 1 else None
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    groups: set[int] = set()
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "done":
            return 0
        if command == "pgid" and argument.isdigit():
            groups.add(int(argument))
        elif command == "forget" and argument.isdigit():
            groups.discard(int(argument))
    _terminate(groups)
    if work_dir:
        shutil.rmtree(work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
