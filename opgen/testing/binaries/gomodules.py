"""Go modules from the Go module proxy, as directories of Go's module cache.

`module_dir("k8s.io/api", "v0.36.3")` runs `go mod download -json` and returns
the module's directory in GOMODCACHE; Go caches it, so later calls are quick
and work offline. Used to read Go API declarations (the core types'
regeneration) and the CRDs that Go projects publish in their modules (tests).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.binaries.kubebuild import require_go, run_go

__all__ = ["module_dir"]


def module_dir(module: str, version: str, env: Mapping[str, str] | None = None) -> Path:
    """The directory of `module@version` in Go's module cache (downloaded if needed)."""
    environment = dict(os.environ if env is None else env)
    go = require_go(environment, f"download the Go module {module}@{version}")
    with tempfile.TemporaryDirectory(prefix="opgen-gomod-") as work:
        log = Path(work) / "go.log"
        output = run_go(
            go,
            *("mod", "download", "-json", f"{module}@{version}"),
            work=Path(work),
            env=environment,
            log=log,
            hint="check that the Go module proxy is reachable "
            "(`go env GOPROXY GOSUMDB`), or that the module is in Go's module cache",
        )
    try:
        directory = Path(json.loads(output)["Dir"])
    except (ValueError, KeyError) as error:
        raise EnvtestError(
            f"cannot read where `go mod download` put {module}@{version}: {error}"
        ) from error
    if not directory.is_dir():
        raise EnvtestError(f"{module}@{version}: {directory} is not a directory")
    return directory
