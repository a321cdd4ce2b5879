"""The Go peers of the benchmarks, built from the Go module proxy and cached.

- `controller_gen()`: controller-gen `CONTROLLER_TOOLS_VERSION`, by `go install
  sigs.k8s.io/controller-tools/cmd/controller-gen@<version>`;
- `crpeer()`: the controller-runtime operator whose source is
  `benchmarks/runtime/crpeer/` (our own code; its go.mod pins controller-runtime
  `CONTROLLER_RUNTIME_VERSION`).

Like the envtest binaries, each is built once and kept under
`$OPGEN_BENCH_CACHE`, else `$XDG_CACHE_HOME/opgen/bench`, else
`~/.cache/opgen/bench`, in a directory named after its version (the crpeer's
after a hash of its source, so an edit rebuilds it), under a file lock.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from opgen.testing.binaries.cache import install_staged, locked, stage_dir
from opgen.testing.binaries.kubebuild import require_go, run_go

__all__ = [
    "CONTROLLER_RUNTIME_VERSION",
    "CONTROLLER_TOOLS_VERSION",
    "bench_cache",
    "controller_gen",
    "crpeer",
    "go_env",
]

CONTROLLER_TOOLS_VERSION = "v0.23.0"
# v0.24 is the controller-runtime line built on Kubernetes 1.36 (k8s.io/* v0.36),
# the version of the envtest control plane; v0.25 needs k8s.io/* v0.37.
CONTROLLER_RUNTIME_VERSION = "v0.24.1"
CACHE_ENV = "OPGEN_BENCH_CACHE"
CRPEER_SOURCE = Path(__file__).parent / "runtime" / "crpeer"


def bench_cache() -> Path:
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return (base / "opgen" / "bench").absolute()


def go_env() -> dict[str, str]:
    """The environment the benchmarks run `go` and controller-gen with."""
    return {**os.environ, "GOTOOLCHAIN": "local", "GOWORK": "off"}


def _build(
    name: str, binary: str, go_args: Callable[[Path], list[str]], work: Path | None
) -> Path:
    """`go <go_args(bin_dir)>` must put `binary` into bin_dir; cached in `<cache>/<name>/`."""
    root = bench_cache()
    target = root / name
    if (target / binary).exists():
        return target / binary
    with locked(root, name):
        if (target / binary).exists():
            return target / binary
        go = require_go(os.environ, f"build {name} for the benchmark")
        print(f"building {name} (once; cached in {target}) ...", file=sys.stderr)
        with stage_dir(root, name) as staging:
            out = staging / "bin"
            out.mkdir()
            env = {**go_env(), "GOBIN": str(out)}
            run_go(
                go,
                *go_args(out),
                work=work or staging,
                env=env,
                log=root / f"{name}.build.log",
            )
            if not (out / binary).exists():
                raise RuntimeError(
                    f"go did not produce {binary}; see {root / f'{name}.build.log'}"
                )
            install_staged(out, target)
    return target / binary


def controller_gen() -> Path:
    """The cached controller-gen binary."""
    return _build(
        f"controller-gen-{CONTROLLER_TOOLS_VERSION}",
        "controller-gen",
        lambda _: [
            "install",
            f"sigs.k8s.io/controller-tools/cmd/controller-gen@{CONTROLLER_TOOLS_VERSION}",
        ],
        None,
    )


def _source_hash(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        if path.suffix in (".go", ".mod", ".sum"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def crpeer() -> Path:
    """The cached controller-runtime peer operator binary (builds of older sources go)."""
    name = f"crpeer-{CONTROLLER_RUNTIME_VERSION}-{_source_hash(CRPEER_SOURCE)}"
    binary = _build(
        name,
        "crpeer",
        lambda out: ["build", "-trimpath", "-o", str(out / "crpeer"), "."],
        CRPEER_SOURCE,
    )
    for old in bench_cache().glob("crpeer-*"):
        if old.is_dir() and old.name != name:
            shutil.rmtree(old, ignore_errors=True)
    return binary
