"""Where opgen keeps what it can make again: the user's cache directory.

`$OPGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/opgen`, else `~/.cache/opgen`. What
is kept there is derived data only, each file named by what it was made from,
so a file is either right or not found; a directory that cannot be written
only costs the time.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CACHE_ENV", "cache_dir", "installed", "write_atomically"]

CACHE_ENV = "OPGEN_CACHE_DIR"
"""Overrides where opgen keeps what it builds once (tests set it)."""


def cache_dir(env: Mapping[str, str]) -> Path:
    """opgen's cache directory, as `env` (the process environment) places it."""
    configured = env.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser().absolute()
    xdg = env.get("XDG_CACHE_HOME")
    home = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".cache"
    return (home / "opgen").absolute()


def write_atomically(path: Path, data: bytes) -> bool:
    """Write `data` to `path` through a temporary file renamed over it, so a
    reader sees the whole file or none; False when it could not be written."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, path)
            return True
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return False


def installed(package: str) -> str | None:
    """A fingerprint of the installed `package` (the path, size and time of its
    module file), found without importing it; None when it is not installed.
    What the package made is kept under it: another install makes anew."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    try:
        status = os.stat(spec.origin)
    except OSError:
        return None
    made_by = f"{spec.origin}\0{status.st_size}\0{status.st_mtime_ns}"
    return hashlib.sha256(made_by.encode()).hexdigest()[:16]
