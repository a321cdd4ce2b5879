"""The index of prebuilt envtest archives: which archive serves a version on a platform.

controller-tools publishes `envtest-releases.yaml`, the index setup-envtest
reads: `releases: {v1.Y.Z: {envtest-v1.Y.Z-<os>-<arch>.tar.gz: {hash, selfLink}}}`,
`hash` being the archive's SHA-512 in hex. Each archive holds kube-apiserver,
etcd and kubectl (no kube-controller-manager). Only an exact version is used:
the binaries must report the version opgen pins, so a neighbouring patch is
named in the error, never substituted.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from opgen.errors import EnvtestError
from opgen.testing.binaries.versions import KubernetesVersion

__all__ = [
    "DEFAULT_INDEX_URL",
    "INDEX_URL_ENV",
    "PLATFORMS",
    "Archive",
    "DownloadUnavailable",
    "current_platform",
    "pick_archive",
]

DEFAULT_INDEX_URL = (
    "https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/"
    "HEAD/envtest-releases.yaml"
)
INDEX_URL_ENV = "OPGEN_ENVTEST_INDEX_URL"

PLATFORMS = (
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
)
"""The platforms opgen downloads for (the index also lists others it does not test)."""

_MACHINE_ARCH = {
    "x86_64": "amd64",
    "amd64": "amd64",
    "aarch64": "arm64",
    "arm64": "arm64",
}
_RELEASE_KEY = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
_SHA512_HEX = re.compile(r"^[0-9a-f]{128}$")


class DownloadUnavailable(EnvtestError):
    """No archive can be had: none for this version or platform, or the index or
    archive host cannot be reached. `opgen envtest use` builds instead."""


@dataclass(frozen=True)
class Archive:
    """One archive of the index."""

    name: str
    url: str
    sha512: str


def current_platform() -> tuple[str, str]:
    """This machine as the index names it: (`linux`|`darwin`|..., `amd64`|`arm64`|...)."""
    system = platform.system().lower()
    machine = platform.machine().lower()
    return system, _MACHINE_ARCH.get(machine, machine)


def _archive_name(version: KubernetesVersion, os_name: str, arch: str) -> str:
    return f"envtest-{version.git_version}-{os_name}-{arch}.tar.gz"


def _release_versions(releases: Mapping[str, object]) -> list[KubernetesVersion]:
    found = []
    for name in releases:
        match = _RELEASE_KEY.match(str(name))
        if match is not None:
            found.append(KubernetesVersion(*(int(part) for part in match.groups())))
    return found


def _releases(index_text: str, index_url: str) -> Mapping[str, object]:
    try:
        document = yaml.safe_load(index_text)
    except yaml.YAMLError as error:
        raise EnvtestError(
            f"the envtest index {index_url} is not YAML: {error}",
            hint=f"point --index-url / ${INDEX_URL_ENV} at an envtest-releases.yaml",
        ) from error
    releases = document.get("releases") if isinstance(document, dict) else None
    if not isinstance(releases, dict):
        raise EnvtestError(
            f"the envtest index {index_url} has no `releases:` mapping",
            hint=f"point --index-url / ${INDEX_URL_ENV} at an envtest-releases.yaml",
        )
    return releases


def pick_archive(
    index_text: str,
    index_url: str,
    version: KubernetesVersion,
    os_name: str,
    arch: str,
) -> Archive:
    """The archive for `version` on `os_name`/`arch`; `DownloadUnavailable` when there is none."""
    if (os_name, arch) not in PLATFORMS:
        supported = ", ".join(f"{o}/{a}" for o, a in PLATFORMS)
        raise DownloadUnavailable(
            f"no prebuilt envtest archive for {os_name}/{arch} (downloads cover {supported})"
        )
    releases = _releases(index_text, index_url)
    archives = releases.get(version.git_version)
    if not isinstance(archives, dict):
        same_minor = [
            found.git_version
            for found in sorted(_release_versions(releases))
            if (found.major, found.minor) == (version.major, version.minor)
        ]
        nearby = (
            f"; it lists {', '.join(same_minor)} for {version.major}.{version.minor}"
            if same_minor
            else ""
        )
        raise DownloadUnavailable(
            f"the envtest index {index_url} has no release {version.git_version}{nearby}"
        )
    name = _archive_name(version, os_name, arch)
    entry = archives.get(name)
    if not isinstance(entry, dict):
        raise DownloadUnavailable(
            f"the envtest index {index_url} has no {name} for {version.git_version}"
        )
    sha512 = str(entry.get("hash", "")).lower()
    url = entry.get("selfLink")
    if not _SHA512_HEX.match(sha512) or not isinstance(url, str) or not url:
        raise EnvtestError(
            f"the envtest index {index_url} lists {name} without a SHA-512 `hash` "
            "and a `selfLink`",
            hint=f"point --index-url / ${INDEX_URL_ENV} at an envtest-releases.yaml",
        )
    return Archive(name=name, url=url, sha512=sha512)
