"""The one switch: `--api-server=memory` puts the memory server behind the
plugin's `client` and `namespace` fixtures, in a whole pytest session of a
project (a subprocess), with no envtest binaries anywhere."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.testing.crd_samples import widget_crd
from tests.testing.memory.sessions import run_session

PYTEST_INI = """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""

TESTS = """\
import json

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap


async def test_writes_through_the_client(client: rt.Client, namespace: str) -> None:
    made = await client.create(
        ConfigMap(metadata=ObjectMeta(name="c", namespace=namespace), data={"a": "1"})
    )
    assert made.metadata.uid
    applied = await client.apply(
        ConfigMap(metadata=ObjectMeta(name="c", namespace=namespace), data={"b": "2"}),
        field_manager="tester",
    )
    assert applied.data == {"a": "1", "b": "2"}
    managers = {e["manager"] for e in applied.metadata.managed_fields or []}
    assert "tester" in managers
    widget = {
        "apiVersion": "envtest.opgen.dev/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {},
    }
    made = await client.rest.transport.send(
        "POST",
        f"/apis/envtest.opgen.dev/v1/namespaces/{namespace}/widgets",
        body=json.dumps(widget).encode(),
        content_type="application/json",
    )
    assert made.status == 201
    assert json.loads(made.body)["spec"] == {"size": 3}  # the CRD's default
"""


def _session(
    tmp_path: Path, ini: str, *args: str, tests: str = TESTS
) -> subprocess.CompletedProcess[str]:
    return run_session(tmp_path, *args, ini=ini, tests=tests, crds=[widget_crd()])


def test_the_option_runs_client_tests_on_the_memory_server(tmp_path: Path) -> None:
    done = _session(tmp_path, PYTEST_INI, "--api-server=memory", "-m", "not envtest")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_ini_option_chooses_it_for_a_project(tmp_path: Path) -> None:
    done = _session(tmp_path, PYTEST_INI + "opgen_api_server = memory\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_by_default_the_same_tests_need_envtest(tmp_path: Path) -> None:
    done = _session(tmp_path, PYTEST_INI)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "OPGEN_REQUIRE_ENVTEST is set" in done.stdout


def test_an_unknown_server_is_a_usage_error(tmp_path: Path) -> None:
    done = _session(tmp_path, PYTEST_INI + "opgen_api_server = kind\n")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "opgen_api_server = 'kind': choose one of envtest, memory" in done.stderr


COLLECTION_TESTS = """\
from opgen import runtime as rt
from opgen.api import ObjectMeta, OwnerReference
from opgen.api.k8s import ConfigMap


async def test_a_child_of_a_deleted_owner(client: rt.Client, namespace: str) -> None:
    owner = await client.create(
        ConfigMap(metadata=ObjectMeta(name="owner", namespace=namespace))
    )
    reference = OwnerReference(
        api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid
    )
    await client.create(
        ConfigMap(
            metadata=ObjectMeta(
                name="child", namespace=namespace, owner_references=[reference]
            )
        )
    )
    await client.delete(owner)
    children = await client.list(ConfigMap, namespace)
    print("children:", [c.metadata.name for c in children])
"""


def test_the_memory_server_collects_garbage_when_envtest_would(
    tmp_path: Path,
) -> None:
    quiet = _session(
        tmp_path, PYTEST_INI, "--api-server=memory", "-s", tests=COLLECTION_TESTS
    )
    assert "children: ['child']" in quiet.stdout, quiet.stdout + quiet.stderr
    ini = PYTEST_INI + "opgen_envtest_controller_manager = true\n"
    collecting = _session(
        tmp_path, ini, "--api-server=memory", "-s", tests=COLLECTION_TESTS
    )
    assert "children: []" in collecting.stdout, collecting.stdout + collecting.stderr


FROZEN_TESTS = """\
import gc


def test_start_up_is_out_of_the_collectors_way(memory_session) -> None:
    kinds, _ = memory_session
    walked = {id(o) for o in gc.get_objects()}
    print("frozen:", gc.get_freeze_count() > 0, "kinds walked:", id(kinds) in walked)
"""


def test_the_memory_backends_start_up_is_frozen_for_the_session(
    tmp_path: Path,
) -> None:
    """What start-up made lives as long as the session: the cyclic collector
    no longer walks it during the tests (`gc.freeze`)."""
    done = _session(
        tmp_path, PYTEST_INI, "--api-server=memory", "-s", tests=FROZEN_TESTS
    )
    assert "frozen: True kinds walked: False" in done.stdout, done.stdout + done.stderr


PREPARED_TESTS = """\
from opgen.api.k8s import PodDisruptionBudget


def test_a_class_the_module_names_is_built_before_it_is_used(memory_session) -> None:
    print("built at start-up:", PodDisruptionBudget.__pydantic_complete__)
"""


def test_the_memory_backends_start_up_builds_the_models_the_tests_name(
    tmp_path: Path,
) -> None:
    """Pydantic builds an `op.k8s` class's validator at its first use: the
    backend's start-up builds those the test modules name, not their first test."""
    done = _session(
        tmp_path, PYTEST_INI, "--api-server=memory", "-s", tests=PREPARED_TESTS
    )
    assert "built at start-up: True" in done.stdout, done.stdout + done.stderr
