"""Where binaries come from: env vars, then the cache, then a build (under a lock)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from opgen.errors import EnvtestError
from opgen.testing.binaries import (
    BinariesNotFound,
    build,
    find_binaries,
    verify_etcd,
)
from opgen.testing.binaries.cache import cache_root
from opgen.testing.binaries.obtain import obtain_binaries
from opgen.testing.binaries.versions import KUBERNETES_VERSION, KubernetesVersion
from tests.testing.fakes import KUBE_VERSION_OUTPUT, fake_binary, fake_set
from tests.waiting import until

VERSION = KubernetesVersion.parse(KUBERNETES_VERSION)


def _quiet(message: str) -> None:
    pass


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def cached_set(cache: Path) -> Path:
    return fake_set(cache / KUBERNETES_VERSION)


class FakeBuild:
    """Stands in for `build.build_into`: writes a fake set, counts calls."""

    def __init__(
        self, fail: bool = False, until: Callable[[], bool] | None = None
    ) -> None:
        self.calls = 0
        self.fail = fail
        self.until = until
        """The build lasts until this holds."""
        self._lock = threading.Lock()

    def __call__(
        self,
        version: KubernetesVersion,
        staging: Path,
        env: Mapping[str, str],
        progress: Callable[[str], None],
        etcd_source: str = "auto",
    ) -> Path:
        with self._lock:
            self.calls += 1
        if self.until is not None:
            until(self.until, "the other callers to wait for the lock", every=0.01)
        if self.fail:
            (staging / "bin").mkdir()
            raise EnvtestError("the build broke")
        return fake_set(staging / "bin")


def test_kubebuilder_assets_wins_over_the_cache(
    tmp_path: Path, cache: Path, cached_set: Path
) -> None:
    assets = fake_set(tmp_path / "assets")
    found = find_binaries(VERSION, {"KUBEBUILDER_ASSETS": str(assets)}, cache)
    assert found.source == "environment"
    assert found.directory == assets
    assert found.kube_apiserver == assets / "kube-apiserver"
    assert found.kube_controller_manager == assets / "kube-controller-manager"


def test_test_asset_variables_override_single_binaries(tmp_path: Path) -> None:
    assets = fake_set(tmp_path / "assets")
    other_etcd = fake_binary(tmp_path / "elsewhere" / "my-etcd", "etcd Version: 3.5.20")
    found = find_binaries(
        VERSION,
        {"KUBEBUILDER_ASSETS": str(assets), "TEST_ASSET_ETCD": str(other_etcd)},
        tmp_path / "no-cache",
    )
    assert found.etcd == other_etcd
    assert found.kube_apiserver == assets / "kube-apiserver"


def test_test_asset_variables_alone_are_enough(tmp_path: Path) -> None:
    apiserver = fake_binary(tmp_path / "a" / "kube-apiserver", KUBE_VERSION_OUTPUT)
    etcd = fake_binary(tmp_path / "b" / "etcd", "etcd Version: 3.5.20")
    found = find_binaries(
        VERSION,
        {"TEST_ASSET_KUBE_APISERVER": str(apiserver), "TEST_ASSET_ETCD": str(etcd)},
        tmp_path / "no-cache",
    )
    assert (found.kube_apiserver, found.etcd, found.kube_controller_manager) == (
        apiserver,
        etcd,
        None,
    )
    assert found.directory == apiserver.parent


def test_an_assets_directory_without_controller_manager_is_accepted(
    tmp_path: Path,
) -> None:
    assets = fake_set(tmp_path / "setup-envtest-set", controller_manager=False)
    found = find_binaries(
        VERSION, {"KUBEBUILDER_ASSETS": str(assets)}, tmp_path / "no-cache"
    )
    assert found.kube_controller_manager is None


@pytest.mark.parametrize(
    ("variable", "message"),
    [
        ("KUBEBUILDER_ASSETS", "has no executable kube-apiserver"),
        ("TEST_ASSET_KUBE_APISERVER", "is not an executable file"),
    ],
)
def test_a_variable_pointing_at_nothing_is_an_error_not_a_fallback(
    tmp_path: Path, cache: Path, cached_set: Path, variable: str, message: str
) -> None:
    with pytest.raises(EnvtestError, match=message) as raised:
        find_binaries(VERSION, {variable: str(tmp_path / "missing")}, cache)
    assert not isinstance(raised.value, BinariesNotFound)


def test_the_cache_is_used_when_no_variable_is_set(
    cache: Path, cached_set: Path
) -> None:
    found = find_binaries(VERSION, {}, cache)
    assert found.source == "cache"
    assert found.directory == cached_set


def test_an_incomplete_cache_is_not_used(cache: Path, cached_set: Path) -> None:
    (cached_set / "etcd").unlink()
    with pytest.raises(BinariesNotFound) as raised:
        find_binaries(VERSION, {}, cache)
    assert "opgen envtest use" in str(raised.value)
    assert "USE_EXISTING_CLUSTER=true" in str(raised.value)


def test_cache_root_order(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path / "home")}
    assert cache_root(home) == tmp_path / "home" / ".cache" / "opgen" / "envtest"
    xdg = {**home, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert cache_root(xdg) == tmp_path / "xdg" / "opgen" / "envtest"
    configured = {**xdg, "OPGEN_ENVTEST_CACHE": str(tmp_path / "configured")}
    assert cache_root(configured) == tmp_path / "configured"
    assert cache_root(configured, tmp_path / "flag") == tmp_path / "flag"


def test_obtain_builds_once_then_reuses_the_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_build = FakeBuild()
    monkeypatch.setattr(build, "build_into", fake_build)
    first = obtain_binaries(VERSION, {}, cache, _quiet, source="build")
    second = obtain_binaries(VERSION, {}, cache, _quiet, source="build")
    assert (first.source, second.source) == ("build", "cache")
    assert first.directory == second.directory == cache / KUBERNETES_VERSION
    assert fake_build.calls == 1
    assert sorted(path.name for path in cache.iterdir()) == [
        f".{KUBERNETES_VERSION}.lock",
        KUBERNETES_VERSION,
    ]


def test_obtain_prefers_the_environment_to_a_build(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_build = FakeBuild()
    monkeypatch.setattr(build, "build_into", fake_build)
    assets = fake_set(tmp_path / "assets")
    found = obtain_binaries(VERSION, {"KUBEBUILDER_ASSETS": str(assets)}, cache, _quiet)
    assert found.source == "environment"
    assert fake_build.calls == 0


def test_concurrent_callers_share_one_build(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages: list[str] = []
    results: list[str] = []
    # the build lasts until both other callers are waiting for the lock
    fake_build = FakeBuild(
        until=lambda: sum("waiting for another process" in m for m in messages) == 2
    )
    monkeypatch.setattr(build, "build_into", fake_build)

    def obtain() -> None:
        results.append(
            obtain_binaries(VERSION, {}, cache, messages.append, source="build").source
        )

    threads = [threading.Thread(target=obtain) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fake_build.calls == 1
    assert sorted(results) == ["build", "cache", "cache"]


def test_a_failed_build_leaves_no_partial_set(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "build_into", FakeBuild(fail=True))
    with pytest.raises(EnvtestError, match="the build broke"):
        obtain_binaries(VERSION, {}, cache, _quiet, source="build")
    assert [path.name for path in cache.iterdir()] == [f".{KUBERNETES_VERSION}.lock"]


def test_a_cached_binary_of_the_wrong_version_is_reported(
    cache: Path, cached_set: Path
) -> None:
    fake_binary(cached_set / "kube-apiserver", "Kubernetes v0.0.0-master+$Format:%H$")
    with pytest.raises(EnvtestError, match="expected 'Kubernetes v1") as raised:
        obtain_binaries(VERSION, {}, cache, _quiet)
    assert "opgen envtest use" in str(raised.value)


def test_without_go_the_error_names_the_three_ways_out(
    tmp_path: Path, cache: Path
) -> None:
    empty_path = tmp_path / "empty-bin"
    empty_path.mkdir()
    with pytest.raises(EnvtestError) as raised:
        obtain_binaries(
            VERSION,
            {"PATH": str(empty_path), "HOME": str(tmp_path)},
            cache,
            _quiet,
            source="build",
        )
    message = str(raised.value)
    assert "Go is not installed" in message
    assert "KUBEBUILDER_ASSETS" in message
    assert "install Go" in message
    assert "USE_EXISTING_CLUSTER=true" in message
    assert not (cache / KUBERNETES_VERSION).exists()


def test_without_the_module_proxy_the_error_says_so(
    tmp_path: Path, cache: Path
) -> None:
    import os

    environ = {
        **os.environ,
        "GOPROXY": "off",
        "GOMODCACHE": str(tmp_path / "empty-module-cache"),
    }
    environ.pop("KUBEBUILDER_ASSETS", None)
    with pytest.raises(EnvtestError) as raised:
        obtain_binaries(VERSION, environ, cache, _quiet, source="build")
    message = str(raised.value)
    assert "go mod download" in message
    assert "GOPROXY" in message
    assert "USE_EXISTING_CLUSTER=true" in message


def test_an_etcd_older_than_3_5_13_is_refused(tmp_path: Path) -> None:
    old = fake_binary(tmp_path / "etcd", "etcd Version: 3.4.23\nGit SHA: x")
    with pytest.raises(
        EnvtestError, match=r"etcd 3\.4\.23; Kubernetes >= 1\.35 needs etcd >= 3\.5\.13"
    ):
        verify_etcd(old)
    assert verify_etcd(fake_binary(tmp_path / "new-etcd", "etcd Version: 3.6.8")) == (
        3,
        6,
        8,
    )
