"""The control plane itself, proven against the real binaries."""

from __future__ import annotations

import asyncio
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
import yaml
from lightkube import ApiError, AsyncClient, KubeConfig
from lightkube.generic_resource import create_namespaced_resource
from lightkube.models.meta_v1 import ObjectMeta, OwnerReference
from lightkube.resources.apiextensions_v1 import CustomResourceDefinition
from lightkube.resources.core_v1 import ConfigMap, Namespace

import opgen.api as op
from opgen import runtime as rt
from opgen.errors import EnvtestError
from opgen.testing import Environment, find_binaries
from opgen.testing.binaries import Binaries
from opgen.testing.binaries.versions import KUBERNETES_VERSION, KubernetesVersion
from opgen.testing.controlplane import localplane
from tests.testing.crd_samples import (
    GROUP,
    misnamed_crd,
    non_structural_crd,
    widget_crd,
)
from tests.testing.fakes import fake_binary
from tests.testing.processes import processes_mentioning
from tests.waiting import until_async


@pytest.fixture(scope="module")
def binaries(envtest: Environment) -> Binaries:
    """The binaries the session uses (requesting `envtest` skips/fails consistently)."""
    import os

    return find_binaries(KubernetesVersion.parse(KUBERNETES_VERSION), os.environ)


def test_the_session_control_plane_answers(envtest: Environment) -> None:
    assert envtest.server.startswith("https://127.0.0.1:")
    client = envtest.client()
    try:
        names = {namespace.metadata.name for namespace in client.list(Namespace)}
    finally:
        client.close()
    assert {"default", "kube-system"} <= names


async def test_the_kubeconfig_file_works_with_lightkube(
    envtest: Environment, namespace: str
) -> None:
    on_disk = yaml.safe_load(envtest.kubeconfig_path.read_text())
    assert on_disk == envtest.kubeconfig
    assert on_disk["users"][0]["user"]["client-certificate-data"]
    client = AsyncClient(config=KubeConfig.from_file(envtest.kubeconfig_path))
    try:
        await client.create(
            ConfigMap(
                metadata=ObjectMeta(name="probe", namespace=namespace), data={"k": "v"}
            )
        )
        read = await client.get(ConfigMap, "probe", namespace=namespace)
    finally:
        await client.close()
    assert read.data == {"k": "v"}


async def test_the_namespace_fixture_gives_a_fresh_namespace(
    kube_client: AsyncClient, namespace: str
) -> None:
    created = await kube_client.get(Namespace, namespace)
    assert created.metadata is not None and created.metadata.labels is not None
    assert created.metadata.labels["app.kubernetes.io/managed-by"] == "opgen-envtest"
    assert namespace.startswith("t-test-the-namespace-fixture")
    assert [
        cm
        async for cm in kube_client.list(ConfigMap, namespace=namespace)
        if cm.metadata.name != "kube-root-ca.crt"
    ] == []


def test_a_valid_crd_becomes_established_and_defaults_apply(
    envtest: Environment, tmp_path: Path
) -> None:
    crd_file = tmp_path / "widgets.yaml"
    crd_file.write_text(yaml.safe_dump(widget_crd()))
    envtest.install_crds([crd_file])
    client = envtest.client()
    try:
        crd = client.get(CustomResourceDefinition, f"widgets.{GROUP}")
        assert crd.status is not None and crd.status.conditions is not None
        conditions = {
            condition.type: condition.status for condition in crd.status.conditions
        }
        assert conditions["Established"] == "True"
        widget = create_namespaced_resource(GROUP, "v1", "Widget", "widgets")
        client.create(
            widget(
                metadata=ObjectMeta(name="w", namespace="default"),
                spec={"color": "red"},
            )
        )
        stored = client.get(widget, "w", namespace="default")
        assert stored["spec"] == {"color": "red", "size": 3}
        with pytest.raises(ApiError) as rejected:
            client.create(
                widget(
                    metadata=ObjectMeta(name="w0", namespace="default"),
                    spec={"size": 0},
                )
            )
        assert "spec.size" in rejected.value.status.message
        client.delete(widget, "w", namespace="default")
    finally:
        client.close()


def test_crds_from_a_directory_and_from_dicts(
    envtest: Environment, tmp_path: Path
) -> None:
    directory = tmp_path / "bases"
    directory.mkdir()
    (directory / "sprockets.yaml").write_text(
        yaml.safe_dump(widget_crd("Sprocket", "sprockets"))
    )
    (directory / "notes.txt").write_text("not a CRD file")
    envtest.install_crds([directory, widget_crd("Cog", "cogs")])
    client = envtest.client()
    try:
        for kind, plural in (("Sprocket", "sprockets"), ("Cog", "cogs")):
            resource = create_namespaced_resource(GROUP, "v1", kind, plural)
            assert list(client.list(resource, namespace="default")) == []
    finally:
        client.close()
    envtest.uninstall_crds([widget_crd("Cog", "cogs")])
    client = envtest.client()
    try:
        with pytest.raises(httpx2.HTTPStatusError) as gone:
            list(client.list(create_namespaced_resource(GROUP, "v1", "Cog", "cogs")))
        assert gone.value.response.status_code == 404
    finally:
        client.close()


@pytest.mark.parametrize(
    ("crd", "server_says"),
    [
        (
            misnamed_crd(),
            'metadata.name: Invalid value: "not-gadgets.envtest.opgen.dev": '
            'must be spec.names.plural+"."+spec.group',
        ),
        (
            non_structural_crd(),
            "spec.validation.openAPIV3Schema.properties[spec].properties[untyped].type: "
            "Required value: must not be empty for specified object fields",
        ),
    ],
    ids=["misnamed", "non-structural"],
)
def test_a_rejected_crd_surfaces_the_servers_message(
    envtest: Environment, crd: dict[str, object], server_says: str
) -> None:
    with pytest.raises(EnvtestError) as raised:
        envtest.install_crds([crd])
    message = str(raised.value)
    assert "the API server rejected CRD" in message
    assert 'CustomResourceDefinition.apiextensions.k8s.io "' in message
    assert server_says in message


async def _wait_gone(
    client: AsyncClient,
    kind: type[ConfigMap] | type[Namespace],
    name: str,
    namespace: str | None,
) -> None:
    async def gone() -> bool:
        try:
            if namespace is None:
                await client.get(kind, name)  # type: ignore[arg-type]
            else:
                await client.get(kind, name, namespace=namespace)  # type: ignore[arg-type]
        except ApiError as error:
            assert error.status.code == 404
            return True
        return False

    await until_async(gone, f"{kind.__name__} {name} to be deleted")


async def _owner_and_child(client: AsyncClient, namespace: str) -> None:
    owner = await client.create(
        ConfigMap(metadata=ObjectMeta(name="owner", namespace=namespace))
    )
    assert owner.metadata is not None and owner.metadata.uid is not None
    reference = OwnerReference(
        apiVersion="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid
    )
    await client.create(
        ConfigMap(
            metadata=ObjectMeta(
                name="child", namespace=namespace, ownerReferences=[reference]
            )
        )
    )


async def test_garbage_collection_deletes_owned_children(
    envtest_controller_manager: Environment, kube_client: AsyncClient, namespace: str
) -> None:
    assert envtest_controller_manager.controller_manager_running
    await _owner_and_child(kube_client, namespace)
    await kube_client.delete(ConfigMap, "owner", namespace=namespace)
    await _wait_gone(kube_client, ConfigMap, "child", namespace)


async def test_deleted_namespaces_go_away_with_the_controller_manager(
    envtest_controller_manager: Environment, kube_client: AsyncClient
) -> None:
    await kube_client.create(Namespace(metadata=ObjectMeta(name="doomed")))
    await kube_client.create(
        ConfigMap(metadata=ObjectMeta(name="content", namespace="doomed"))
    )
    await kube_client.delete(Namespace, "doomed")
    await _wait_gone(kube_client, Namespace, "doomed", None)


async def test_an_environment_starts_and_stops_and_collects_only_with_kcm(
    binaries: Binaries,
) -> None:
    async with Environment(binaries=binaries) as environment:
        work_dir = environment.work_dir
        assert work_dir is not None and work_dir.is_dir()
        assert (
            len(processes_mentioning(str(work_dir))) >= 3
        )  # etcd, kube-apiserver, watchdog
        assert not environment.controller_manager_running
        assert set(environment.timings) >= {"etcd", "kube-apiserver"}
        client = environment.async_client()
        try:
            await _owner_and_child(client, "default")
            await client.delete(ConfigMap, "owner", namespace="default")
            # Deleting the owner removes only the owner: the API server leaves
            # its dependents to a garbage collector, and none runs yet.
            with pytest.raises(ApiError):
                await client.get(ConfigMap, "owner", namespace="default")
            child = await client.get(ConfigMap, "child", namespace="default")
            assert child.metadata is not None
            assert child.metadata.deletionTimestamp is None
            # The gate: the child goes once kube-controller-manager runs.
            await asyncio.to_thread(environment.start_controller_manager)
            assert environment.controller_manager_running
            await _wait_gone(client, ConfigMap, "child", "default")
        finally:
            await client.close()
    assert not work_dir.exists()
    assert processes_mentioning(str(work_dir)) == []
    assert not environment.started
    with pytest.raises(EnvtestError, match="not started"):
        _ = environment.server


async def test_restart_apiserver_keeps_the_address_and_the_objects(
    binaries: Binaries, caplog: pytest.LogCaptureFixture
) -> None:
    async with Environment(binaries=binaries) as environment:
        work_dir = environment.work_dir
        assert work_dir is not None
        server, kubeconfig = environment.server, environment.kubeconfig
        before = environment.process_ids
        assert set(before) == {"etcd", "kube-apiserver"}
        assert all(
            any(
                line.startswith(f"{pid}: ")
                for line in processes_mentioning(str(work_dir))
            )
            for pid in before.values()
        ), "the ids are the running processes'"
        client = environment.async_client()
        watching = asyncio.Event()

        async def watch() -> None:
            async for _ in client.watch(ConfigMap, namespace="default"):
                watching.set()

        try:
            await client.create(
                ConfigMap(
                    metadata=ObjectMeta(name="kept", namespace="default"),
                    data={"k": "v"},
                )
            )
            # an open watch used to hold kube-apiserver up until the stop timeout
            watcher = asyncio.create_task(watch())
            await watching.wait()
            with caplog.at_level("WARNING", logger="opgen.testing"):
                await environment.arestart_apiserver()
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        finally:
            await client.close()
        assert not [
            r for r in caplog.records if "was killed" in r.getMessage()
        ], "kube-apiserver exited on SIGTERM despite the open watch"

        after = environment.process_ids
        assert after["etcd"] == before["etcd"], "etcd kept running"
        assert after["kube-apiserver"] != before["kube-apiserver"], "a new process"
        assert (environment.server, environment.kubeconfig) == (server, kubeconfig)
        timings = environment.timings
        assert timings["kube-apiserver restart"] >= max(
            timings["kube-apiserver stop"], timings["kube-apiserver start"]
        ), "the restart's figure covers the stop too"
        client = environment.async_client()
        try:
            kept = await client.get(ConfigMap, "kept", namespace="default")
        finally:
            await client.close()
        assert kept.data == {"k": "v"}, "etcd kept the objects"
    assert processes_mentioning(str(work_dir)) == [], "the restarted server was stopped"
    assert environment.process_ids == {}


async def test_the_apiserver_stays_down_until_started_again(
    binaries: Binaries,
) -> None:
    async with (
        Environment(binaries=binaries) as environment,
        rt.Client.from_kubeconfig(environment.lightkube_config()) as client,
    ):
        await client.create(
            op.k8s.ConfigMap(metadata=op.ObjectMeta(name="kept", namespace="default"))
        )
        await environment.astop_apiserver()
        await environment.astop_apiserver()  # idempotent
        assert not environment.apiserver_running
        assert set(environment.process_ids) == {"etcd"}
        for _ in range(3):  # down for as long as the test wants
            with pytest.raises(rt.TransportError) as down:
                await client.uncached.get(op.k8s.ConfigMap, "kept", "default")
            assert down.value.failure in ("connect", "disconnected")
        await environment.astart_apiserver()
        await environment.astart_apiserver()  # idempotent
        assert environment.apiserver_running
        assert set(environment.process_ids) == {"etcd", "kube-apiserver"}
        kept = await client.uncached.get(op.k8s.ConfigMap, "kept", "default")
        assert kept.metadata.name == "kept"


def test_restart_apiserver_needs_a_started_local_control_plane(
    envtest: Environment,
) -> None:
    with pytest.raises(EnvtestError, match="not started"):
        Environment().restart_apiserver()
    existing = Environment(
        use_existing_cluster=True,
        environ={"KUBECONFIG": str(envtest.kubeconfig_path)},
    ).start()
    try:
        for action in (
            existing.restart_apiserver,
            existing.stop_apiserver,
            existing.start_apiserver,
        ):
            with pytest.raises(EnvtestError, match="existing cluster"):
                action()
        assert existing.apiserver_running
    finally:
        existing.stop()


def test_a_start_failure_quotes_the_log_and_cleans_up(
    binaries: Binaries, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp_root))
    broken = tmp_path / "kube-apiserver"
    broken.write_text(
        "#!/bin/sh\necho 'E0101 bad flag: --etcd-servers is wrong on purpose' >&2\nexit 1\n"
    )
    broken.chmod(0o755)
    environment = Environment(
        binaries=Binaries(
            kube_apiserver=broken,
            etcd=binaries.etcd,
            kube_controller_manager=None,
            directory=tmp_path,
            source="environment",
        )
    )
    with pytest.raises(EnvtestError) as raised:
        environment.start()
    message = str(raised.value)
    assert "kube-apiserver did not start: it exited with code 1" in message
    assert "bad flag: --etcd-servers is wrong on purpose" in message
    assert list(temp_root.iterdir()) == []
    assert processes_mentioning(str(temp_root)) == []


def test_a_missing_controller_manager_is_a_clear_error(
    binaries: Binaries, tmp_path: Path
) -> None:
    without = Binaries(
        kube_apiserver=binaries.kube_apiserver,
        etcd=binaries.etcd,
        kube_controller_manager=None,
        directory=tmp_path,
        source="environment",
    )
    with pytest.raises(
        EnvtestError, match="kube-controller-manager is not among the envtest binaries"
    ):
        Environment(binaries=without, controller_manager=True).start()


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def test_a_port_race_is_retried_with_new_ports(
    binaries: Binaries, busy_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_free_port = localplane.free_port
    handed_out: list[int] = []

    def first_one_taken() -> int:
        port = busy_port if not handed_out else real_free_port()
        handed_out.append(port)
        return port

    monkeypatch.setattr(localplane, "free_port", first_one_taken)
    with Environment(binaries=binaries) as environment:
        assert environment.work_dir is not None
        logs = sorted(path.name for path in (environment.work_dir / "logs").iterdir())
        assert logs == ["etcd.log", "etcd.retry-2.log", "kube-apiserver.log"]
        assert (
            "address already in use"
            in (environment.work_dir / "logs" / "etcd.log").read_text()
        )
    assert handed_out[0] == busy_port


def test_etcd_that_is_too_old_is_refused_before_anything_starts(
    binaries: Binaries, tmp_path: Path
) -> None:
    old_etcd = fake_binary(tmp_path / "etcd", "etcd Version: 3.4.23")
    environment = Environment(
        binaries=Binaries(
            kube_apiserver=binaries.kube_apiserver,
            etcd=old_etcd,
            kube_controller_manager=None,
            directory=tmp_path,
            source="environment",
        )
    )
    with pytest.raises(EnvtestError, match=r"needs etcd >= 3\.5\.13"):
        environment.start()
    assert environment.work_dir is None
