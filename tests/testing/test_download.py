"""`opgen envtest use`'s download: a local index and archive, checked, unpacked atomically.

Every test serves its index and archive from 127.0.0.1 (`tests.testing.fake_index`);
none reaches the internet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

import opgen.api as op
from opgen.errors import EnvtestError
from opgen.testing import Environment
from opgen.testing.binaries import Binaries, build, find_binaries
from opgen.testing.binaries.obtain import Source, index_url, obtain_binaries
from opgen.testing.binaries.releases import (
    DEFAULT_INDEX_URL,
    DownloadUnavailable,
    current_platform,
    pick_archive,
)
from opgen.testing.binaries.versions import KUBERNETES_VERSION, KubernetesVersion
from tests.testing.fake_index import (
    ArchiveServer,
    archive_of,
    closed_port_url,
    envtest_archive,
    serve,
)
from tests.testing.fakes import KUBE_VERSION_OUTPUT, fake_binary, fake_set

VERSION = KubernetesVersion.parse(KUBERNETES_VERSION)
LOCK = f".{KUBERNETES_VERSION}.lock"


@pytest.fixture
def server() -> Iterator[ArchiveServer]:
    with serve() as running:
        yield running


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def archive(tmp_path: Path) -> bytes:
    return envtest_archive(tmp_path)


class Builds:
    """Stands in for the Go build: writes a fake set (with kube-controller-manager)."""

    def __init__(self) -> None:
        self.sets = 0
        self.controller_managers = 0

    def build_into(
        self,
        version: KubernetesVersion,
        staging: Path,
        env: Mapping[str, str],
        progress: Callable[[str], None],
        etcd_source: str = "auto",
    ) -> Path:
        self.sets += 1
        return fake_set(staging / "bin")

    def build_controller_manager_into(
        self,
        version: KubernetesVersion,
        staging: Path,
        env: Mapping[str, str],
        progress: Callable[[str], None],
    ) -> Path:
        self.controller_managers += 1
        return fake_binary(
            staging / "bin" / "kube-controller-manager", KUBE_VERSION_OUTPUT
        )


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Builds:
    fake = Builds()
    monkeypatch.setattr(build, "build_into", fake.build_into)
    monkeypatch.setattr(
        build, "build_controller_manager_into", fake.build_controller_manager_into
    )
    return fake


def test_the_archive_for_this_platform_is_downloaded_checked_and_unpacked(
    server: ArchiveServer, cache: Path, archive: bytes, builds: Builds
) -> None:
    name = server.publish(archive)
    messages: list[str] = []
    first = obtain_binaries(
        VERSION, {}, cache, messages.append, source="download", index=server.index_url
    )
    assert first.source == "download"
    assert first.directory == cache / KUBERNETES_VERSION
    assert sorted(path.name for path in first.directory.iterdir()) == [
        "etcd",
        "kube-apiserver",
        "kubectl",
    ]
    assert first.kubectl == cache / KUBERNETES_VERSION / "kubectl"
    assert first.kube_controller_manager is None
    assert sorted(path.name for path in cache.iterdir()) == [LOCK, KUBERNETES_VERSION]
    assert server.requested == ["/envtest-releases.yaml", f"/download/{name}"]
    assert f"downloading {server.base_url}/download/{name}" in messages

    second = obtain_binaries(
        VERSION, {}, cache, messages.append, index=server.index_url
    )
    assert (second.source, second.kubectl) == ("cache", first.kubectl)
    assert len(server.requested) == 2
    assert builds.sets == 0


def test_the_index_url_comes_from_the_flag_then_the_environment_then_controller_tools(
    server: ArchiveServer, cache: Path, archive: bytes
) -> None:
    server.publish(archive)
    environ = {"OPGEN_ENVTEST_INDEX_URL": server.index_url}
    assert index_url(environ, "https://mirror.example/index.yaml") == (
        "https://mirror.example/index.yaml"
    )
    assert index_url({}) == DEFAULT_INDEX_URL
    found = obtain_binaries(VERSION, environ, cache, lambda _: None)
    assert found.source == "download"
    assert server.requested[0] == "/envtest-releases.yaml"


@pytest.mark.parametrize("source", ["download", "auto"])
def test_a_tampered_archive_is_refused_and_nothing_is_left(
    server: ArchiveServer,
    cache: Path,
    archive: bytes,
    builds: Builds,
    source: Source,
) -> None:
    tampered = archive[:-10] + bytes(10)
    name = server.publish(archive, served=tampered)
    with pytest.raises(EnvtestError) as raised:
        obtain_binaries(
            VERSION, {}, cache, lambda _: None, source=source, index=server.index_url
        )
    message = str(raised.value)
    assert (
        f"{name} from {server.base_url}/download/{name} does not match the SHA-512"
        in (message)
    )
    assert "refused and nothing was installed" in message
    assert "tampered" in message
    assert [path.name for path in cache.iterdir()] == [LOCK]
    # a checksum failure is never papered over by a build
    assert builds.sets == 0


def test_an_interrupted_download_is_a_clear_error_and_leaves_nothing(
    server: ArchiveServer, cache: Path, archive: bytes, builds: Builds
) -> None:
    name = server.publish(archive)
    server.cut_off.add(name)
    with pytest.raises(EnvtestError) as raised:
        obtain_binaries(VERSION, {}, cache, lambda _: None, index=server.index_url)
    message = str(raised.value)
    assert (
        f"the download of {server.base_url}/download/{name} broke off after" in message
    )
    assert f"of {len(archive)} bytes" in message
    assert "run `opgen envtest use` again" in message
    assert [path.name for path in cache.iterdir()] == [LOCK]
    assert builds.sets == 0


def test_without_an_archive_for_this_platform_download_says_so(
    server: ArchiveServer, cache: Path, archive: bytes, builds: Builds
) -> None:
    here = current_platform()
    others = [p for p in [("linux", "amd64"), ("darwin", "arm64")] if p != here]
    server.publish(archive, platforms=others)
    os_name, arch = here
    with pytest.raises(DownloadUnavailable) as raised:
        obtain_binaries(
            VERSION,
            {},
            cache,
            lambda _: None,
            source="download",
            index=server.index_url,
        )
    assert f"has no envtest-v{KUBERNETES_VERSION}-{os_name}-{arch}.tar.gz" in str(
        raised.value
    )
    assert [path.name for path in cache.iterdir()] == [LOCK]
    assert builds.sets == 0


def test_without_an_archive_for_this_platform_auto_builds_instead(
    server: ArchiveServer, cache: Path, archive: bytes, builds: Builds
) -> None:
    here = current_platform()
    server.publish(archive, platforms=[p for p in [("linux", "s390x")] if p != here])
    messages: list[str] = []
    found = obtain_binaries(VERSION, {}, cache, messages.append, index=server.index_url)
    assert (found.source, builds.sets) == ("build", 1)
    assert found.kube_controller_manager == cache / KUBERNETES_VERSION / (
        "kube-controller-manager"
    )
    assert any("building the binaries with Go instead" in m for m in messages)
    assert sorted(path.name for path in cache.iterdir()) == [LOCK, KUBERNETES_VERSION]


def test_a_platform_opgen_does_not_download_for_is_named() -> None:
    with pytest.raises(
        DownloadUnavailable, match="no prebuilt envtest archive for windows/amd64"
    ):
        pick_archive("releases: {}", "index", VERSION, "windows", "amd64")


def test_a_missing_patch_names_the_patches_the_index_has(
    server: ArchiveServer, cache: Path, archive: bytes, builds: Builds
) -> None:
    for patch in (f"1.{VERSION.minor}.9", f"1.{VERSION.minor}.0", "1.30.0"):
        server.publish(archive, version=patch)
    with pytest.raises(DownloadUnavailable) as raised:
        obtain_binaries(
            VERSION,
            {},
            cache,
            lambda _: None,
            source="download",
            index=server.index_url,
        )
    assert str(raised.value).startswith(
        f"the envtest index {server.index_url} has no release v{KUBERNETES_VERSION}; "
        f"it lists v1.{VERSION.minor}.0, v1.{VERSION.minor}.9 for 1.{VERSION.minor}"
    )


def test_a_refused_connection_falls_back_to_the_build(
    cache: Path, builds: Builds
) -> None:
    refused = closed_port_url()
    messages: list[str] = []
    found = obtain_binaries(VERSION, {}, cache, messages.append, index=refused)
    assert (found.source, builds.sets) == ("build", 1)
    assert any(m.startswith(f"cannot reach {refused}") for m in messages)
    with pytest.raises(DownloadUnavailable, match=f"cannot reach {refused}"):
        obtain_binaries(
            VERSION,
            {},
            cache.with_name("other"),
            lambda _: None,
            source="download",
            index=refused,
        )


def test_controller_manager_is_built_into_a_downloaded_set_only_when_asked_for(
    server: ArchiveServer, cache: Path, archive: bytes, builds: Builds
) -> None:
    server.publish(archive)
    downloaded = obtain_binaries(
        VERSION, {}, cache, lambda _: None, index=server.index_url
    )
    assert downloaded.kube_controller_manager is None
    assert builds.controller_managers == 0

    messages: list[str] = []
    completed = obtain_binaries(
        VERSION,
        {},
        cache,
        messages.append,
        index=server.index_url,
        controller_manager=True,
    )
    assert completed.kube_controller_manager == cache / KUBERNETES_VERSION / (
        "kube-controller-manager"
    )
    assert completed.kubectl == downloaded.kubectl
    assert builds.controller_managers == 1
    assert any("the envtest archives do not carry it" in m for m in messages)
    assert sorted(path.name for path in cache.iterdir()) == [LOCK, KUBERNETES_VERSION]

    again = obtain_binaries(VERSION, {}, cache, lambda _: None, controller_manager=True)
    assert (again.source, builds.controller_managers) == ("cache", 1)


def test_an_assets_directory_without_controller_manager_says_how_to_get_one(
    tmp_path: Path, cache: Path
) -> None:
    assets = fake_set(tmp_path / "assets", controller_manager=False)
    with pytest.raises(EnvtestError) as raised:
        obtain_binaries(
            VERSION,
            {"KUBEBUILDER_ASSETS": str(assets)},
            cache,
            lambda _: None,
            controller_manager=True,
        )
    message = str(raised.value)
    assert "kube-controller-manager is not among the binaries" in message
    assert "TEST_ASSET_KUBE_CONTROLLER_MANAGER" in message
    assert "garbage collection" in message


@pytest.fixture(scope="module")
def real_binaries(envtest: Environment) -> Binaries:
    """The session's real binaries (requesting `envtest` skips/fails consistently)."""
    import os

    return find_binaries(VERSION, os.environ)


def test_a_set_downloaded_from_an_archive_of_real_binaries_runs_a_control_plane(
    server: ArchiveServer, cache: Path, real_binaries: Binaries
) -> None:
    server.publish(
        archive_of(
            {
                "kube-apiserver": real_binaries.kube_apiserver,
                "etcd": real_binaries.etcd,
            },
            compresslevel=1,
        )
    )
    downloaded = obtain_binaries(
        VERSION, {}, cache, lambda _: None, source="download", index=server.index_url
    )
    assert downloaded.source == "download"
    assert downloaded.kube_apiserver.read_bytes() == (
        real_binaries.kube_apiserver.read_bytes()
    )
    environment = Environment(binaries=downloaded, use_existing_cluster=False).start()
    try:

        async def default_namespace() -> str | None:
            async with environment.client() as client:
                return (await client.get(op.k8s.Namespace, "default")).metadata.name

        assert asyncio.run(default_namespace()) == "default"
    finally:
        environment.stop()
