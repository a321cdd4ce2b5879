"""Running a snippet in a fresh interpreter, for tests about what a process imports.

Import-cost and import-isolation tests cannot run in pytest's own process, which
has loaded everything already. `in_fresh_interpreter` runs the code in a new
`python`, fails the test with its stderr if it exits non-zero, and returns what
it printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["in_fresh_interpreter"]


def in_fresh_interpreter(
    code: str,
    *,
    cwd: Path | None = None,
    script: Path | None = None,
    pythonpath: Path | None = None,
) -> str:
    """Run `code` with `python -c` (or written to `script` and run from there, for
    code whose source must be a file), and return its stripped stdout."""
    if script is not None:
        script.write_text(code, encoding="utf-8")
        command = [sys.executable, str(script)]
    else:
        command = [sys.executable, "-c", code]
    environment = None
    if pythonpath is not None:
        environment = {**os.environ, "PYTHONPATH": str(pythonpath)}
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()
