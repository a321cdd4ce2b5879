"""The throwaway Go module that builds kube-apiserver and kube-controller-manager.

The published `k8s.io/kubernetes` go.mod requires every staging module
(`k8s.io/api`, `k8s.io/client-go`, ...) at the placeholder `v0.0.0`; inside
the monorepo a go.work resolves them, which does not travel with the module.
The staging modules are published as `v0.Y.Z` for Kubernetes `v1.Y.Z`, so the
build module replaces each placeholder with that version. The list changes
between minors, so it is read from the release's own go.mod, never hard-coded.
Pure text in, text out: no I/O here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.testing.binaries.versions import KubernetesVersion

__all__ = [
    "BUILD_MODULE_PATH",
    "GoDirectives",
    "build_gomod",
    "go_directives",
    "required_version",
    "requirements",
    "staging_modules",
]

BUILD_MODULE_PATH = "opgen.local/envtest-build"

_STAGING_MODULE = re.compile(r"^k8s\.io/[A-Za-z0-9._-]+$")
_GO_LINE = re.compile(r"^go\s+(\S+)$")


def _strip_comment(line: str) -> str:
    return line.split("//", 1)[0].strip()


def requirements(gomod: str) -> tuple[tuple[str, str], ...]:
    """Every `require` entry of a go.mod, as (module path, version), in file order."""
    found: list[tuple[str, str]] = []
    in_require_block = False
    for raw_line in gomod.splitlines():
        line = _strip_comment(raw_line)
        if in_require_block:
            if line == ")":
                in_require_block = False
                continue
            entry = line
        elif line == "require (":
            in_require_block = True
            continue
        elif line.startswith("require "):
            entry = line.removeprefix("require ").strip()
        else:
            continue
        parts = entry.split()
        if len(parts) == 2:
            found.append((parts[0], parts[1]))
    return tuple(found)


def staging_modules(kubernetes_gomod: str) -> tuple[str, ...]:
    """Module paths that `k8s.io/kubernetes` requires at exactly `v0.0.0`.

    Pseudo-versions such as `k8s.io/utils v0.0.0-2025...` are real published
    versions and stay as they are.
    """
    modules: list[str] = []
    for module, version in requirements(kubernetes_gomod):
        if (
            version == "v0.0.0"
            and _STAGING_MODULE.match(module)
            and module not in modules
        ):
            modules.append(module)
    return tuple(modules)


def required_version(gomod: str, module: str) -> str | None:
    """The version `gomod` requires of `module`, or None."""
    for path, version in requirements(gomod):
        if path == module:
            return version
    return None


@dataclass(frozen=True)
class GoDirectives:
    """The `go` version and `godebug` settings to copy into the build module.

    GODEBUG defaults follow the main module, so the build module must carry
    Kubernetes' own settings for the binaries to behave like official ones.
    """

    go_version: str | None
    godebug_lines: tuple[str, ...]


def go_directives(kubernetes_gomod: str) -> GoDirectives:
    """Read the `go` line and the `godebug` lines or block, verbatim."""
    go_version: str | None = None
    godebug: list[str] = []
    in_godebug_block = False
    for raw_line in kubernetes_gomod.splitlines():
        line = _strip_comment(raw_line)
        if in_godebug_block:
            godebug.append(raw_line.rstrip())
            if line == ")":
                in_godebug_block = False
            continue
        go_match = _GO_LINE.match(line)
        if go_match is not None:
            go_version = go_match[1]
        elif line == "godebug (":
            in_godebug_block = True
            godebug.append(raw_line.rstrip())
        elif line.startswith("godebug "):
            godebug.append(raw_line.rstrip())
    return GoDirectives(go_version=go_version, godebug_lines=tuple(godebug))


def build_gomod(kubernetes_gomod: str, version: KubernetesVersion) -> str:
    """The go.mod of the build module for `version`, given that release's go.mod."""
    directives = go_directives(kubernetes_gomod)
    lines = [f"module {BUILD_MODULE_PATH}", ""]
    if directives.go_version is not None:
        lines += [f"go {directives.go_version}", ""]
    if directives.godebug_lines:
        lines += [*directives.godebug_lines, ""]
    lines += [f"require k8s.io/kubernetes {version.git_version}", ""]
    replaces = staging_modules(kubernetes_gomod)
    if replaces:
        lines.append("replace (")
        lines += [
            f"\t{module} => {module} {version.staging_version}" for module in replaces
        ]
        lines += [")", ""]
    return "\n".join(lines)
