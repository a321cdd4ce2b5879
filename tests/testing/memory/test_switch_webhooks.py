"""`--api-server=memory` in a project with webhooks: a whole pytest session (a
subprocess) with no envtest binaries, its client's writes defaulted, validated
and converted by the project's handlers in process; a test asking for
`envtest` itself keeps the marker and stays on envtest."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.testing.memory.sessions import run_session
from tests.webhook import handlers

ROOT = Path(__file__).resolve().parents[3]

PYTEST_INI = """\
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
opgen_webhook_setup = tests.webhook.handlers:setup
"""

TESTS = """\
import json

import pytest

from opgen import runtime as rt
from opgen.testing import Environment

PETS = "/apis/webhook.opgen.dev/v1/namespaces/{ns}/pets"
GIZMOS = "/apis/webhook.opgen.dev/{version}/namespaces/{ns}/gizmos"


async def send(client, method, path, body=None):
    answer = await client.rest.transport.send(
        method,
        path,
        body=None if body is None else json.dumps(body).encode(),
        content_type="application/json",
    )
    return answer.status, json.loads(answer.body)


async def test_webhooks_run_in_process(client: rt.Client, namespace: str) -> None:
    pet = {
        "apiVersion": "webhook.opgen.dev/v1",
        "kind": "Pet",
        "metadata": {"name": "rex"},
        "spec": {"name": "rex", "tags": ["dog"]},
    }
    status, made = await send(client, "POST", PETS.format(ns=namespace), pet)
    assert status == 201, made
    assert made["spec"]["owner"] == "nobody"  # the defaulter's
    pet["metadata"]["name"] = "old"
    pet["spec"]["age"] = 900
    status, refused = await send(client, "POST", PETS.format(ns=namespace), pet)
    assert status == 422, refused
    assert refused["message"].startswith(
        'admission webhook "vpet-v1.webhook.opgen.dev" denied the request'
    )
    gizmo = {
        "apiVersion": "webhook.opgen.dev/v1alpha1",
        "kind": "Gizmo",
        "metadata": {"name": "g"},
        "spec": {"size": 4},
    }
    old = GIZMOS.format(version="v1alpha1", ns=namespace)
    status, made = await send(client, "POST", old, gizmo)
    assert status == 201, made
    hub = GIZMOS.format(version="v1", ns=namespace)
    status, read = await send(client, "GET", hub + "/g")
    assert (status, read["spec"]["replicas"]) == (200, 4)


async def test_asking_for_envtest_stays_there(envtest: Environment) -> None:
    assert envtest.kubeconfig_path
"""


def test_a_project_with_webhooks_runs_them_on_the_memory_server(
    tmp_path: Path,
) -> None:
    done = run_session(
        tmp_path,
        "--api-server=memory",
        "-m",
        "not envtest",
        ini=PYTEST_INI,
        tests=TESTS,
        crds=handlers.generated_crds(),
        files={
            "config/webhook/manifests.yaml": yaml.safe_dump_all(
                handlers.generated_configurations()
            )
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 deselected" in done.stdout
