"""Getting an etcd >= 3.5.13: Debian trixie's `etcd-server` package, else a Go build.

The Debian route downloads the package with a private apt configuration (its
own sources list, lists and cache directories) and unpacks it with
`dpkg-deb -x`: nothing is installed and the machine's apt state is untouched.
The Go route builds `go.etcd.io/etcd/server/v3` (its module root is the etcd
`main` package) at the version Kubernetes' own go.mod requires, in a
throwaway module, since `go install` refuses modules with replace directives.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Literal

from opgen.errors import EnvtestError
from opgen.testing.binaries.binaryset import verify_etcd
from opgen.testing.binaries.commands import run_logged
from opgen.testing.binaries.gomod import required_version
from opgen.testing.binaries.kubebuild import go_build, require_go, run_go

__all__ = [
    "DEBIAN_SUITE",
    "DEFAULT_DEBIAN_MIRROR",
    "EtcdSource",
    "build_etcd_with_go",
    "debian_mirror",
    "download_debian_etcd",
    "obtain_etcd",
]

EtcdSource = Literal["auto", "debian", "go"]

DEBIAN_SUITE = "trixie"
DEFAULT_DEBIAN_MIRROR = "http://deb.debian.org/debian"
DEBIAN_KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
APT_SOURCES = Path("/etc/apt/sources.list")
APT_SOURCE_PARTS = Path("/etc/apt/sources.list.d")
ETCD_SERVER_MODULE = "go.etcd.io/etcd/server/v3"
APT_TIMEOUT = 600.0


def _is_archive_suite(suite: str) -> bool:
    return (
        not suite.endswith(("-security", "-updates", "-backports")) and "/" not in suite
    )


def _is_debian_archive(uri: str) -> bool:
    return uri.rstrip("/").endswith("/debian")


def debian_mirror(source_texts: Iterable[str]) -> str | None:
    """The Debian archive mirror in apt sources (deb822 `.sources` or one-line `.list`)."""
    for text in source_texts:
        for stanza in text.split("\n\n"):
            fields: dict[str, str] = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.strip()
            if "uris" in fields and "deb" in fields.get("types", "deb").split():
                suites = fields.get("suites", "").split()
                if any(_is_archive_suite(suite) for suite in suites):
                    for uri in fields["uris"].split():
                        if _is_debian_archive(uri):
                            return uri.rstrip("/")
        for line in text.splitlines():
            words = line.split("#", 1)[0].split()
            if not words or words[0] != "deb":
                continue
            words = words[1:]
            if words and words[0].startswith("["):
                while words and not words[0].endswith("]"):
                    words = words[1:]
                words = words[1:]
            if (
                len(words) >= 2
                and _is_debian_archive(words[0])
                and _is_archive_suite(words[1])
            ):
                return words[0].rstrip("/")
    return None


def _system_sources() -> list[str]:
    files = [APT_SOURCES]
    if APT_SOURCE_PARTS.is_dir():
        files += sorted(APT_SOURCE_PARTS.glob("*.sources")) + sorted(
            APT_SOURCE_PARTS.glob("*.list")
        )
    texts = []
    for path in files:
        try:
            texts.append(path.read_text())
        except OSError:
            continue
    return texts


def _apt_options(root: Path) -> list[str]:
    options = {
        "Dir::Etc::SourceList": str(root / "sources.list"),
        "Dir::Etc::SourceParts": "/dev/null",
        "Dir::Etc::Preferences": "/dev/null",
        "Dir::Etc::PreferencesParts": "/dev/null",
        "Dir::State::Lists": str(root / "lists"),
        "Dir::Cache": str(root / "cache"),
    }
    if os.geteuid() == 0:
        # apt's download sandbox user cannot read our private directories.
        options["APT::Sandbox::User"] = "root"
    return [
        argument
        for key, value in options.items()
        for argument in ("-o", f"{key}={value}")
    ]


def download_debian_etcd(
    work: Path, dest: Path, env: Mapping[str, str], progress: Callable[[str], None]
) -> None:
    """Unpack trixie's etcd-server package and copy its `etcd` binary to `dest`."""
    apt_get = shutil.which("apt-get", path=env.get("PATH", os.defpath))
    dpkg_deb = shutil.which("dpkg-deb", path=env.get("PATH", os.defpath))
    if apt_get is None or dpkg_deb is None:
        raise EnvtestError(
            "apt-get and dpkg-deb are not available (not a Debian-based system)"
        )
    mirror = debian_mirror(_system_sources()) or DEFAULT_DEBIAN_MIRROR
    root = work / "apt"
    for directory in (
        root / "lists" / "partial",
        root / "cache" / "archives" / "partial",
    ):
        directory.mkdir(parents=True, exist_ok=True)
    signed_by = f"[signed-by={DEBIAN_KEYRING}] " if DEBIAN_KEYRING.is_file() else ""
    (root / "sources.list").write_text(f"deb {signed_by}{mirror} {DEBIAN_SUITE} main\n")
    log = work / "apt.log"
    progress(f"downloading etcd-server from Debian {DEBIAN_SUITE} ({mirror})")
    options = _apt_options(root)
    run_logged(
        [apt_get, *options, "update"], cwd=work, env=env, log=log, timeout=APT_TIMEOUT
    )
    run_logged(
        [apt_get, *options, "download", f"etcd-server/{DEBIAN_SUITE}"],
        cwd=work,
        env=env,
        log=log,
        timeout=APT_TIMEOUT,
    )
    packages = sorted(work.glob("etcd-server_*.deb"))
    if not packages:
        raise EnvtestError(f"apt-get download left no etcd-server_*.deb in {work}")
    unpacked = work / "etcd-server"
    run_logged(
        [dpkg_deb, "-x", str(packages[-1]), str(unpacked)],
        cwd=work,
        env=env,
        log=log,
        timeout=APT_TIMEOUT,
    )
    binary = unpacked / "usr" / "bin" / "etcd"
    if not binary.is_file():
        raise EnvtestError(f"{packages[-1].name} holds no usr/bin/etcd")
    shutil.copy2(binary, dest)


def build_etcd_with_go(
    work: Path,
    dest: Path,
    version: str,
    env: Mapping[str, str],
    progress: Callable[[str], None],
) -> None:
    """Build etcd `version` (e.g. `v3.6.8`) from the Go module proxy into `dest`."""
    go = require_go(env, "build etcd")
    work.mkdir(parents=True, exist_ok=True)
    log = work / "build.log"
    (work / "go.mod").write_text("module opgen.local/envtest-etcd-build\n")
    progress(f"building etcd {version} from Go modules")
    run_go(go, "get", f"{ETCD_SERVER_MODULE}@{version}", work=work, env=env, log=log)
    go_build(
        go,
        [ETCD_SERVER_MODULE],
        output=str(dest),
        ldflags="-s -w",
        work=work,
        env=env,
        log=log,
    )


def obtain_etcd(
    work: Path,
    dest: Path,
    kubernetes_gomod: str,
    env: Mapping[str, str],
    progress: Callable[[str], None],
    source: EtcdSource = "auto",
) -> None:
    """Put a verified etcd >= 3.5.13 at `dest`: Debian first, Go as the fallback."""
    debian_error: EnvtestError | None = None
    if source in ("auto", "debian"):
        try:
            download_debian_etcd(work / "debian", dest, env, progress)
            verify_etcd(dest)
            return
        except EnvtestError as error:
            if source == "debian":
                raise
            debian_error = error
            dest.unlink(missing_ok=True)
            progress(
                f"Debian's etcd is not usable here ({error.message.splitlines()[0]})"
            )
    version = required_version(kubernetes_gomod, ETCD_SERVER_MODULE)
    if version is None:
        raise EnvtestError(
            f"k8s.io/kubernetes' go.mod requires no {ETCD_SERVER_MODULE}, "
            "so there is no etcd version to build",
            hint=str(debian_error) if debian_error else None,
        )
    build_etcd_with_go(work / "go", dest, version, env, progress)
    verify_etcd(dest)
