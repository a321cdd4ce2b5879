"""Building kube-apiserver and kube-controller-manager from Go modules.

`go install k8s.io/kubernetes/cmd/kube-apiserver@v1.Y.Z` cannot work (the
placeholder requirements, and `go install pkg@version` ignores replaces), so
this writes a throwaway main module (see `opgen.testing.binaries.gomod`), resolves it
with `go get` and runs `go build` with the version stamped the way
Kubernetes' own build does; an unstamped binary reports `v0.0.0-master` and
derives a wrong emulation version from it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from opgen.errors import EnvtestError
from opgen.testing.binaries.commands import run_logged
from opgen.testing.binaries.gomod import BUILD_MODULE_PATH, build_gomod, go_directives
from opgen.testing.binaries.guidance import WAYS_OUT
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = [
    "GO_BUILD_TIMEOUT",
    "GO_DOWNLOAD_TIMEOUT",
    "KUBERNETES_COMMANDS",
    "build_kubernetes",
    "go_build",
    "go_environment",
    "go_version",
    "require_go",
    "run_go",
    "version_ldflags",
]

KUBERNETES_COMMANDS = ("kube-apiserver", "kube-controller-manager")
VERSION_PACKAGES = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")
GO_DOWNLOAD_TIMEOUT = 1800.0
GO_BUILD_TIMEOUT = 3600.0

_GO_VERSION = re.compile(r"go(\d+)\.(\d+)(?:\.(\d+))?")


def go_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment for every `go` command: local toolchain, static, no VCS stamping."""
    return {
        **env,
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "0",
        "GOFLAGS": "-mod=mod -buildvcs=false",
        "GOWORK": "off",
    }


def run_go(
    go: str,
    *args: str,
    work: Path,
    env: Mapping[str, str],
    log: Path,
    timeout: float = GO_DOWNLOAD_TIMEOUT,
    hint: str | None = None,
) -> str:
    """`go <args>` in `work` with `go_environment(env)`, logged to `log`; its stdout."""
    return run_logged(
        [go, *args],
        cwd=work,
        env=go_environment(env),
        log=log,
        timeout=timeout,
        hint=hint,
    )


def go_build(
    go: str,
    packages: Sequence[str],
    *,
    output: str,
    ldflags: str,
    work: Path,
    env: Mapping[str, str],
    log: Path,
) -> None:
    """`go build -trimpath` of `packages` into `output` (a file, or a directory ending
    in a separator)."""
    run_go(
        go,
        "build",
        "-trimpath",
        "-ldflags",
        ldflags,
        "-o",
        output,
        *packages,
        work=work,
        env=env,
        log=log,
        timeout=GO_BUILD_TIMEOUT,
    )


def require_go(env: Mapping[str, str], why: str) -> str:
    """The path of `go`, or an `EnvtestError` with the ways out."""
    go = shutil.which("go", path=env.get("PATH", os.defpath))
    if go is None:
        raise EnvtestError(
            f"Go is not installed (no `go` on PATH), and it is needed to {why}",
            hint=WAYS_OUT,
        )
    return go


def _version_tuple(text: str) -> tuple[int, int, int] | None:
    match = _GO_VERSION.search(text)
    if match is None:
        return None
    return int(match[1]), int(match[2]), int(match[3] or 0)


def go_version(
    go: str, env: Mapping[str, str], work: Path, log: Path
) -> tuple[int, int, int]:
    reported = run_go(go, "env", "GOVERSION", work=work, env=env, log=log, timeout=60)
    parsed = _version_tuple(reported)
    if parsed is None:
        raise EnvtestError(
            f"cannot read Go's version from `go env GOVERSION`: {reported!r}"
        )
    return parsed


def version_ldflags(version: KubernetesVersion, build_date: str) -> str:
    """`-ldflags` for a stripped binary that reports `version` like an official build."""
    values = {
        "gitVersion": version.git_version,
        "gitMajor": str(version.major),
        "gitMinor": str(version.minor),
        "gitTreeState": "clean",
        "buildDate": build_date,
    }
    flags = ["-s", "-w"]
    for package in VERSION_PACKAGES:
        flags += [f"-X {package}.{name}={value}" for name, value in values.items()]
    return " ".join(flags)


def _build_date(env: Mapping[str, str]) -> str:
    epoch = env.get("SOURCE_DATE_EPOCH")
    seconds = int(epoch) if epoch and epoch.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _kubernetes_gomod(
    go: str, version: KubernetesVersion, work: Path, env: Mapping[str, str], log: Path
) -> str:
    hint = (
        "check that the Go module proxy is reachable (`go env GOPROXY GOSUMDB`); "
        f"otherwise {WAYS_OUT}"
    )
    downloaded = run_go(
        go,
        *("mod", "download", "-json", f"k8s.io/kubernetes@{version.git_version}"),
        work=work,
        env=env,
        log=log,
        hint=hint,
    )
    try:
        gomod_path = Path(json.loads(downloaded)["GoMod"])
        return gomod_path.read_text()
    except (ValueError, KeyError, OSError) as error:
        raise EnvtestError(
            f"cannot read k8s.io/kubernetes@{version.git_version}'s go.mod "
            f"from `go mod download -json`: {error}",
            hint=hint,
        ) from error


def build_kubernetes(
    version: KubernetesVersion,
    work: Path,
    out: Path,
    env: Mapping[str, str],
    progress: Callable[[str], None],
    commands: Sequence[str] = KUBERNETES_COMMANDS,
) -> str:
    """Build `commands` (both binaries by default) into `out`; return
    k8s.io/kubernetes' go.mod text."""
    go = require_go(env, f"build {' and '.join(commands)}")
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    log = work / "build.log"
    (work / "go.mod").write_text(f"module {BUILD_MODULE_PATH}\n")

    progress(
        f"reading k8s.io/kubernetes@{version.git_version}'s go.mod from the Go module proxy"
    )
    kubernetes_gomod = _kubernetes_gomod(go, version, work, env, log)
    wanted_go = go_directives(kubernetes_gomod).go_version
    have_go = go_version(go, env, work, log)
    if (
        wanted_go is not None
        and (wanted := _version_tuple(f"go{wanted_go}"))
        and have_go < wanted
    ):
        raise EnvtestError(
            f"Kubernetes {version} needs Go >= {wanted_go}, but `go` is "
            f"{'.'.join(map(str, have_go))}",
            hint="install a newer Go (https://go.dev/dl/), or set KUBEBUILDER_ASSETS",
        )
    (work / "go.mod").write_text(build_gomod(kubernetes_gomod, version))

    packages = [f"k8s.io/kubernetes/cmd/{command}" for command in commands]
    progress("resolving the module graph (`go get`; downloads modules on a cold cache)")
    run_go(
        go,
        "get",
        *(f"{package}@{version.git_version}" for package in packages),
        work=work,
        env=env,
        log=log,
    )
    progress(
        f"compiling {' and '.join(commands)} "
        "(a cold build takes several minutes; later runs use the cache)"
    )
    go_build(
        go,
        packages,
        output=f"{out}{os.sep}",
        ldflags=version_ldflags(version, _build_date(env)),
        work=work,
        env=env,
        log=log,
    )
    return kubernetes_gomod
