"""Child processes of a control plane: started in their own process group, logged, stopped.

Each binary runs as the leader of a new session, so stopping it can signal
the whole group (SIGTERM, a grace period, then SIGKILL) and a Ctrl-C in the
terminal does not hit it before the orderly teardown. Output goes to a log
file whose tail is quoted when a start fails. `Watchdog` wraps the reaper
script (`opgen.testing.controlplane.reaper`) that cleans up if the owner dies.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from opgen.errors import EnvtestError
from opgen.testing.controlplane import reaper
from opgen.testing.logs import log_tail

__all__ = ["ManagedProcess", "Watchdog", "free_port"]


def free_port() -> int:
    """A loopback port that was free a moment ago (racy by nature; callers retry)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ManagedProcess:
    """One control-plane binary running in its own process group."""

    def __init__(
        self,
        name: str,
        args: Sequence[str],
        log: Path,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.args = list(args)
        self.log = log
        self._env = dict(env) if env is not None else None
        self._popen: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        if self._popen is None:
            raise RuntimeError(f"{self.name} was not started")
        return self._popen.pid

    def start(self) -> None:
        with self.log.open("ab") as log_file:
            log_file.write(f"$ {' '.join(self.args)}\n".encode())
            log_file.flush()
            try:
                self._popen = subprocess.Popen(
                    self.args,
                    stdin=subprocess.DEVNULL,
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    env=self._env,
                    start_new_session=True,
                )
            except OSError as error:
                raise EnvtestError(
                    f"cannot start {self.name} ({self.args[0]}): {error}"
                ) from error

    @property
    def running(self) -> bool:
        """Started and not exited (nor stopped)."""
        return self._popen is not None and self.exit_code() is None

    def exit_code(self) -> int | None:
        """None while running; the exit code once it has exited (not reaped yet)."""
        if self._popen is None:
            return None
        if self._popen.returncode is not None:
            return self._popen.returncode
        try:
            # WNOWAIT leaves the zombie, so the process group id stays reserved
            # until stop() has signalled the rest of the group.
            status = os.waitid(
                os.P_PID, self._popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT
            )
        except ChildProcessError:
            return self._popen.poll()
        if status is None:
            return None
        return status.si_status

    def log_tail(self) -> str:
        return log_tail(self.log)

    def failure(self, what: str) -> EnvtestError:
        """An error saying `what` went wrong, quoting the end of this process's log."""
        return EnvtestError(
            f"{self.name} {what}; last lines of {self.log}:\n{self.log_tail()}",
            hint="the log above usually names the cause; a busy machine may need a longer "
            "start_timeout",
        )

    def port_conflict(self) -> bool:
        """Whether the process died because a port was taken (worth a retry)."""
        return (
            self.exit_code() is not None and "address already in use" in self.log_tail()
        )

    def stop(self, timeout: float) -> bool:
        """SIGTERM the process group, wait up to `timeout`, then SIGKILL it; reap the
        leader. True when it exited on SIGTERM (or had exited), False when killed."""
        if self._popen is None or self._popen.returncode is not None:
            return True
        pgid = self._popen.pid
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.exit_code() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        exited = self.exit_code() is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        self._popen.wait()
        return exited


class Watchdog:
    """The reaper process for one work directory."""

    def __init__(self, work_dir: Path) -> None:
        self._popen: subprocess.Popen[str] | None = subprocess.Popen(
            [sys.executable, "-S", reaper.__file__, str(work_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )

    def _send(self, line: str) -> None:
        stdin: IO[str] | None = self._popen.stdin if self._popen is not None else None
        if stdin is None:
            return
        with contextlib.suppress(BrokenPipeError, ValueError):
            stdin.write(line + "\n")
            stdin.flush()

    def watch(self, process: ManagedProcess) -> None:
        self._send(f"pgid {process.pid}")

    def forget(self, process: ManagedProcess) -> None:
        self._send(f"forget {process.pid}")

    def close(self) -> None:
        """Tell the reaper the owner cleaned up after itself, and let it exit."""
        if self._popen is None:
            return
        self._send("done")
        with contextlib.suppress(BrokenPipeError, ValueError, OSError):
            if self._popen.stdin is not None:
                self._popen.stdin.close()
        try:
            self._popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._popen.kill()
            self._popen.wait()
        self._popen = None
