"""The control plane itself, proven against the real binaries."""

from __future__ import annotations

import asyncio
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import opgen.api as op
from opgen import runtime as rt
from opgen.errors import EnvtestError
from opgen.runtime.resources import resource_type
from opgen.testing import Environment, find_binaries
from opgen.testing.binaries import Binaries
from opgen.testing.binaries.versions import KUBERNETES_VERSION, KubernetesVersion
from opgen.testing.controlplane import localplane, processes
from tests.testing.crd_samples import (
    GROUP,
    Cog,
    SampleSpec,
    Sprocket,
    Widget,
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


async def test_the_session_control_plane_answers(envtest: Environment) -> None:
    assert envtest.server.startswith("https://127.0.0.1:")
    async with envtest.client() as client:
        names = {
            namespace.metadata.name for namespace in await client.list(op.k8s.Namespace)
        }
    assert {"default", "kube-system"} <= names


async def test_the_kubeconfig_file_works_with_the_runtime_client(
    envtest: Environment, namespace: str
) -> None:
    on_disk = yaml.safe_load(envtest.kubeconfig_path.read_text())
    assert on_disk == envtest.kubeconfig
    assert on_disk["users"][0]["user"]["client-certificate-data"]
    async with rt.Client.from_kubeconfig(envtest.kubeconfig_path) as client:
        await client.create(
            op.k8s.ConfigMap(
                metadata=op.ObjectMeta(name="probe", namespace=namespace),
                data={"k": "v"},
            )
        )
        read = await client.get(op.k8s.ConfigMap, "probe", namespace=namespace)
    assert read.data == {"k": "v"}


async def test_the_namespace_fixture_gives_a_fresh_namespace(
    client: rt.Client, namespace: str
) -> None:
    created = await client.get(op.k8s.Namespace, namespace)
    assert created.metadata.labels is not None
    assert created.metadata.labels["app.kubernetes.io/managed-by"] == "opgen-envtest"
    assert namespace.startswith("t-test-the-namespace-fixture")
    assert [
        cm
        for cm in await client.list(op.k8s.ConfigMap, namespace=namespace)
        if cm.metadata.name != "kube-root-ca.crt"
    ] == []


async def test_a_valid_crd_becomes_established_and_defaults_apply(
    envtest: Environment, client: rt.Client, tmp_path: Path
) -> None:
    crd_file = tmp_path / "widgets.yaml"
    crd_file.write_text(yaml.safe_dump(widget_crd()))
    await envtest.ainstall_crds([crd_file])
    crd = await client.get(op.k8s.CustomResourceDefinition, f"widgets.{GROUP}")
    assert crd.status is not None and crd.status.conditions is not None
    conditions = {
        condition.type: condition.status for condition in crd.status.conditions
    }
    assert conditions["Established"] == "True"
    await client.create(
        Widget(
            metadata=op.ObjectMeta(name="w", namespace="default"),
            spec=SampleSpec(color="red"),
        )
    )
    stored = await client.get(Widget, "w", namespace="default")
    assert stored.spec == SampleSpec(color="red", size=3)
    with pytest.raises(rt.ApiError) as rejected:
        await client.create(
            Widget(
                metadata=op.ObjectMeta(name="w0", namespace="default"),
                spec=SampleSpec(size=0),
            )
        )
    assert "spec.size" in rejected.value.message
    await client.delete(stored)


async def test_crds_from_a_directory_and_from_dicts(
    envtest: Environment, client: rt.Client, tmp_path: Path
) -> None:
    directory = tmp_path / "bases"
    directory.mkdir()
    (directory / "sprockets.yaml").write_text(
        yaml.safe_dump(widget_crd("Sprocket", "sprockets"))
    )
    (directory / "notes.txt").write_text("not a CRD file")
    await envtest.ainstall_crds([directory, widget_crd("Cog", "cogs")])
    for kind in (Sprocket, Cog):
        assert list(await client.list(kind, namespace="default")) == []
    await asyncio.to_thread(envtest.uninstall_crds, [widget_crd("Cog", "cogs")])
    with pytest.raises(rt.NotFound):
        await client.list(Cog, namespace="default")


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
    client: rt.Client,
    kind: type[op.k8s.ConfigMap] | type[op.k8s.Namespace],
    name: str,
    namespace: str | None,
) -> None:
    async def gone() -> bool:
        try:
            await client.get(kind, name, namespace=namespace)
        except rt.NotFound:
            return True
        return False

    await until_async(gone, f"{kind.__name__} {name} to be deleted")


async def _owner_and_child(client: rt.Client, namespace: str) -> None:
    owner = await client.create(
        op.k8s.ConfigMap(metadata=op.ObjectMeta(name="owner", namespace=namespace))
    )
    assert owner.metadata.uid is not None
    reference = op.OwnerReference(
        api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid
    )
    await client.create(
        op.k8s.ConfigMap(
            metadata=op.ObjectMeta(
                name="child", namespace=namespace, owner_references=[reference]
            )
        )
    )


async def test_garbage_collection_deletes_owned_children(
    envtest_controller_manager: Environment, client: rt.Client, namespace: str
) -> None:
    assert envtest_controller_manager.controller_manager_running
    await _owner_and_child(client, namespace)
    await client.delete(
        op.k8s.ConfigMap(metadata=op.ObjectMeta(name="owner", namespace=namespace))
    )
    await _wait_gone(client, op.k8s.ConfigMap, "child", namespace)


async def test_deleted_namespaces_go_away_with_the_controller_manager(
    envtest_controller_manager: Environment, client: rt.Client
) -> None:
    await client.create(op.k8s.Namespace(metadata=op.ObjectMeta(name="doomed")))
    await client.create(
        op.k8s.ConfigMap(metadata=op.ObjectMeta(name="content", namespace="doomed"))
    )
    await client.delete(op.k8s.Namespace(metadata=op.ObjectMeta(name="doomed")))
    await _wait_gone(client, op.k8s.Namespace, "doomed", None)


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
        async with environment.client() as client:
            await _owner_and_child(client, "default")
            await client.delete(
                op.k8s.ConfigMap(
                    metadata=op.ObjectMeta(name="owner", namespace="default")
                )
            )
            # Deleting the owner removes only the owner: the API server leaves
            # its dependents to a garbage collector, and none runs yet.
            with pytest.raises(rt.NotFound):
                await client.get(op.k8s.ConfigMap, "owner", namespace="default")
            child = await client.get(op.k8s.ConfigMap, "child", namespace="default")
            assert child.metadata.deletion_timestamp is None
            # The gate: the child goes once kube-controller-manager runs.
            await asyncio.to_thread(environment.start_controller_manager)
            assert environment.controller_manager_running
            await _wait_gone(client, op.k8s.ConfigMap, "child", "default")
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
        client = environment.client()
        watching = asyncio.Event()

        async def watch() -> None:
            async with client.rest.stream(
                resource_type(op.k8s.ConfigMap),
                namespace="default",
                params={},
                read_timeout=None,
            ) as lines:
                async for _ in lines:
                    watching.set()

        try:
            await client.create(
                op.k8s.ConfigMap(
                    metadata=op.ObjectMeta(name="kept", namespace="default"),
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
            await client.aclose()
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
        async with environment.client() as client:
            kept = await client.get(op.k8s.ConfigMap, "kept", namespace="default")
        assert kept.data == {"k": "v"}, "etcd kept the objects"
    assert processes_mentioning(str(work_dir)) == [], "the restarted server was stopped"
    assert environment.process_ids == {}


async def test_the_apiserver_stays_down_until_started_again(
    binaries: Binaries,
) -> None:
    async with (
        Environment(binaries=binaries) as environment,
        environment.client() as client,
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
    real_free_port = processes.free_port
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
