"""The pytest plugin as a generated project sees it: whole pytest sessions in a subprocess."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

import opgen.api as op
from opgen import runtime as rt
from opgen.testing import Environment, find_binaries
from opgen.testing.binaries import BINARY_ENV, Binaries
from opgen.testing.binaries.versions import KUBERNETES_VERSION, KubernetesVersion
from tests.testing.crd_samples import widget_crd
from tests.testing.processes import processes_mentioning
from tests.waiting import until

PYTEST_INI = """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""


@pytest.fixture(scope="module")
def binaries(envtest: Environment) -> Binaries:
    return find_binaries(KubernetesVersion.parse(KUBERNETES_VERSION), os.environ)


def _environ(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no envtest variables from the outer session, a private TMPDIR."""
    environ = {
        key: value
        for key, value in os.environ.items()
        if key not in BINARY_ENV.values()
        and key
        not in {
            "KUBEBUILDER_ASSETS",
            "USE_EXISTING_CLUSTER",
            "KUBECONFIG",
            "OPGEN_REQUIRE_ENVTEST",
            "OPGEN_ENVTEST_CACHE",
            "PYTEST_ADDOPTS",
        }
    }
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    environ["TMPDIR"] = str(temp)
    environ.update(extra)
    return environ


def _with_binaries(tmp_path: Path, binaries: Binaries, **extra: str) -> dict[str, str]:
    assert binaries.kube_controller_manager is not None
    return _environ(
        tmp_path,
        TEST_ASSET_KUBE_APISERVER=str(binaries.kube_apiserver),
        TEST_ASSET_ETCD=str(binaries.etcd),
        TEST_ASSET_KUBE_CONTROLLER_MANAGER=str(binaries.kube_controller_manager),
        **extra,
    )


def _project(tmp_path: Path, tests: str, ini: str = PYTEST_INI) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text(ini)
    (project / "test_session.py").write_text(textwrap.dedent(tests))
    return project


def _pytest(
    project: Path, environ: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rsE", *args],
        cwd=project,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


NEEDS_ENVTEST = """\
def test_needs_the_api_server(envtest):
    assert envtest.server


def test_plain():
    pass
"""


def test_without_binaries_envtest_tests_skip_with_the_reason(tmp_path: Path) -> None:
    project = _project(tmp_path, NEEDS_ENVTEST)
    environ = _environ(tmp_path, OPGEN_ENVTEST_CACHE=str(tmp_path / "empty-cache"))
    done = _pytest(project, environ)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 skipped" in done.stdout
    assert "envtest binaries not found" in done.stdout
    assert "opgen envtest use" in done.stdout
    deselected = _pytest(project, environ, "-m", "not envtest")
    assert "1 passed, 1 deselected" in deselected.stdout, deselected.stdout


def test_without_binaries_and_opgen_require_envtest_they_fail(tmp_path: Path) -> None:
    project = _project(tmp_path, NEEDS_ENVTEST)
    environ = _environ(
        tmp_path,
        OPGEN_ENVTEST_CACHE=str(tmp_path / "empty-cache"),
        OPGEN_REQUIRE_ENVTEST="1",
    )
    done = _pytest(project, environ)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed, 1 error" in done.stdout
    assert "OPGEN_REQUIRE_ENVTEST is set" in done.stdout
    assert "no envtest binaries for Kubernetes" in done.stdout


NEEDS_KCM = """\
def test_needs_garbage_collection(envtest_controller_manager):
    assert envtest_controller_manager.controller_manager_running


def test_needs_the_api_server(envtest):
    assert envtest.server
"""


def test_without_kube_controller_manager_its_tests_skip_saying_how_to_get_it(
    tmp_path: Path, binaries: Binaries
) -> None:
    """A downloaded set has no kube-controller-manager: only the tests needing it skip."""
    project = _project(tmp_path, NEEDS_KCM)
    without_kcm = _environ(
        tmp_path,
        TEST_ASSET_KUBE_APISERVER=str(binaries.kube_apiserver),
        TEST_ASSET_ETCD=str(binaries.etcd),
    )
    done = _pytest(project, without_kcm)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 skipped" in done.stdout
    assert "kube-controller-manager is not among the envtest binaries" in done.stdout
    assert "opgen envtest use --controller-manager" in done.stdout
    required = _pytest(project, {**without_kcm, "OPGEN_REQUIRE_ENVTEST": "1"})
    assert required.returncode == 1, required.stdout + required.stderr
    assert "1 passed, 1 error" in required.stdout
    assert "OPGEN_REQUIRE_ENVTEST is set" in required.stdout


def test_a_session_installs_project_crds_runs_kcm_and_leaves_nothing_behind(
    tmp_path: Path, binaries: Binaries
) -> None:
    project = _project(
        tmp_path,
        """\
        import asyncio
        import time

        import opgen.api as op
        from opgen import runtime as rt


        class WidgetSpec(op.Model):
            size: int | None = None


        @op.kind(group="envtest.opgen.dev", version="v1")
        class Widget(op.CustomResource[WidgetSpec, None]):
            "The CRD in config/crd/bases."


        async def test_generated_project_layout(envtest, client, namespace):
            assert envtest.controller_manager_running
            assert envtest.work_dir is not None and envtest.work_dir.is_dir()
            owner = await client.create(
                Widget(metadata=op.ObjectMeta(name="w", namespace=namespace), spec=WidgetSpec())
            )
            assert owner.spec == WidgetSpec(size=3)
            reference = op.OwnerReference(
                api_version="envtest.opgen.dev/v1", kind="Widget", name="w", uid=owner.metadata.uid
            )
            await client.create(
                op.k8s.ConfigMap(
                    metadata=op.ObjectMeta(name="c", namespace=namespace, owner_references=[reference])
                )
            )
            await client.delete(owner)
            # The CRD was installed before kube-controller-manager started, so the
            # garbage collector knows Widgets and needs no 30 s rediscovery. The
            # limit only stops a hang (tests/waiting.py), it asks for no speed.
            began = time.monotonic()
            while time.monotonic() - began < 180:
                try:
                    await client.get(op.k8s.ConfigMap, "c", namespace=namespace)
                except rt.NotFound:
                    return
                await asyncio.sleep(0.2)
            raise AssertionError("the ConfigMap owned by a deleted Widget was not collected")
        """,
        ini=PYTEST_INI + "opgen_envtest_controller_manager = true\n",
    )
    bases = project / "config" / "crd" / "bases"
    bases.mkdir(parents=True)
    (bases / "envtest.opgen.dev_widgets.yaml").write_text(yaml.safe_dump(widget_crd()))
    environ = _with_binaries(tmp_path, binaries, OPGEN_REQUIRE_ENVTEST="1")
    done = _pytest(project, environ)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    temp = Path(environ["TMPDIR"])
    assert [
        path.name for path in temp.iterdir() if path.name.startswith("opgen-envtest-")
    ] == []
    assert processes_mentioning(str(temp)) == []


CRASHING_OWNER = """\
import sys, time
from opgen.testing import Environment

environment = Environment(controller_manager=True).start()
print(environment.work_dir, flush=True)
time.sleep(300)
"""


@pytest.mark.parametrize(
    "kill_with", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"]
)
def test_a_killed_owner_leaves_no_process_or_temp_dir(
    tmp_path: Path, binaries: Binaries, kill_with: signal.Signals
) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", CRASHING_OWNER],
        env=_with_binaries(tmp_path, binaries),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout is not None
    work_dir = Path(owner.stdout.readline().strip())
    try:
        assert work_dir.is_dir(), owner.stderr.read() if owner.stderr else ""
        running = processes_mentioning(str(work_dir))
        assert len(running) == 4, running  # etcd, kube-apiserver, KCM, watchdog
    finally:
        owner.send_signal(kill_with)
        owner.wait(timeout=30)
    until(
        lambda: not processes_mentioning(str(work_dir)) and not work_dir.exists(),
        "the watchdog to stop the processes and remove the work directory",
    )


def test_use_existing_cluster_runs_the_same_tests_against_a_kubeconfig(
    tmp_path: Path, envtest: Environment
) -> None:
    project = _project(
        tmp_path,
        """\
        import os

        import opgen.api as op


        async def test_against_the_existing_cluster(envtest, client, namespace):
            assert envtest.is_existing_cluster
            assert envtest.work_dir is None
            assert envtest.server == os.environ["EXPECTED_SERVER"]
            await client.create(
                op.k8s.ConfigMap(
                    metadata=op.ObjectMeta(name="from-a-subprocess", namespace="default")
                )
            )
        """,
    )
    environ = _environ(
        tmp_path,
        USE_EXISTING_CLUSTER="true",
        KUBECONFIG=str(envtest.kubeconfig_path),
        EXPECTED_SERVER=envtest.server,
        OPGEN_ENVTEST_CACHE=str(tmp_path / "empty-cache"),
        OPGEN_REQUIRE_ENVTEST="1",
    )
    done = _pytest(project, environ)
    assert done.returncode == 0, done.stdout + done.stderr

    async def created_and_deleted() -> None:
        async with envtest.client() as client:
            made = await client.get(
                op.k8s.ConfigMap, "from-a-subprocess", namespace="default"
            )
            assert made.metadata.name == "from-a-subprocess"
            await client.delete(made)
            with pytest.raises(rt.NotFound):
                await client.get(
                    op.k8s.ConfigMap, "from-a-subprocess", namespace="default"
                )

    asyncio.run(created_and_deleted())
    assert list(Path(environ["TMPDIR"]).iterdir()) == []
