"""Running the external tools envtest needs (go, apt-get, dpkg-deb, the binaries).

Output goes to a log file; a failure raises `EnvtestError` quoting the command
and the tail of its log, so the user sees why without digging.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.logs import log_tail

__all__ = ["run_logged", "version_output"]


def run_logged(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    timeout: float,
    hint: str | None = None,
) -> str:
    """Run a command, append its output to `log`, return its stdout.

    stderr goes to the log only; stdout is returned (and logged) so callers can
    parse it (e.g. `go mod download -json`).
    """
    with log.open("a") as log_file:
        log_file.write(f"$ {' '.join(args)}\n")
        log_file.flush()
        try:
            done = subprocess.run(
                list(args),
                cwd=cwd,
                env=dict(env),
                stdout=subprocess.PIPE,
                stderr=log_file,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as error:
            raise EnvtestError(
                f"`{' '.join(args)}` did not finish within {timeout:.0f} s; log: {log}",
                hint=hint,
            ) from error
        except OSError as error:
            raise EnvtestError(f"cannot run `{args[0]}`: {error}", hint=hint) from error
        log_file.write(done.stdout)
    if done.returncode != 0:
        raise EnvtestError(
            f"`{' '.join(args)}` failed with exit code {done.returncode}; "
            f"last lines of {log}:\n{log_tail(log)}",
            hint=hint,
        )
    return done.stdout


def version_output(binary: Path, timeout: float = 30.0) -> str:
    """What `binary --version` prints (stdout and stderr), or an `EnvtestError`."""
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise EnvtestError(f"cannot run `{binary} --version`: {error}") from error
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        raise EnvtestError(
            f"`{binary} --version` failed with exit code {done.returncode}: {output[:500]}"
        )
    return output
