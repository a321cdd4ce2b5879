"""Defaulting and validation, called by a real API server over TLS on loopback.

The API server calls opgen's webhook server through the configurations opgen
generates for the test handlers (`handlers.py`), rewritten by
`opgen.testing` to a local URL with its own CA.
"""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import AsyncIterator

import pytest
import yaml

import opgen.api as op
from opgen import runtime as rt
from opgen.engine.reading import webhook_declarations
from opgen.model.webhooks import AdmissionWebhook
from opgen.testing import Environment
from tests.scaffold.cluster import kubectl_binary
from tests.webhook.conftest import Served
from tests.webhook.handlers import PetDefaulter, PetValidator
from tests.webhook.kinds_v1 import Pet, PetSpec

pytestmark = pytest.mark.envtest


def admission_path(handler: type) -> str:
    """The path of the first `@op.webhook` declared on `handler`."""
    declaration = webhook_declarations(handler)[0]
    assert isinstance(declaration, AdmissionWebhook)
    return declaration.path


DEFAULTING = admission_path(PetDefaulter)


@pytest.fixture
async def client(envtest: Environment, webhooks: Served) -> AsyncIterator[rt.Client]:
    async with rt.Client.from_kubeconfig(envtest.kubeconfig_path) as client:
        yield client


def pet(name: str, namespace: str, **spec: object) -> Pet:
    return Pet(
        metadata=op.ObjectMeta(name=name, namespace=namespace),
        spec=PetSpec.model_validate({"name": name, **spec}),
    )


async def test_an_object_created_without_a_field_is_stored_with_the_default(
    client: rt.Client, namespace: str, webhooks: Served
) -> None:
    created = await client.create(pet("rex", namespace, tags=["dog"]))
    assert created.spec.owner == "nobody"
    assert (created.metadata.labels or {}).get("pet") == "rex"
    stored = await client.uncached.get(Pet, "rex", namespace=namespace)
    assert stored.spec.owner == "nobody"
    (response,) = webhooks.responses(DEFAULTING, "rex")
    patch = json.loads(base64.b64decode(response["patch"]))
    assert response["patchType"] == "JSONPatch"
    assert {"op": "add", "path": "/spec/owner", "value": "nobody"} in patch


async def test_with_nothing_to_default_no_patch_is_sent(
    client: rt.Client, namespace: str, webhooks: Served
) -> None:
    obj = pet("tom", namespace, owner="jerry", tags=["cat"])
    obj.metadata.labels = {"pet": "tom"}
    created = await client.create(obj)
    assert created.spec.owner == "jerry"
    (response,) = webhooks.responses(DEFAULTING, "tom")
    assert response == {"uid": response["uid"], "allowed": True}


async def test_a_broken_rule_is_refused_with_the_validators_message_and_field(
    client: rt.Client, namespace: str
) -> None:
    with pytest.raises(rt.Invalid) as refused:
        await client.create(pet("methuselah", namespace, age=900, tags=["old"]))
    assert refused.value.code == 422
    assert "no pet lives that long" in refused.value.message
    assert [(c.field, c.reason) for c in refused.value.causes] == [
        ("spec.age", "FieldValueInvalid")
    ]
    assert "Invalid value: 900: no pet lives that long" in (
        refused.value.causes[0].message or ""
    )
    with pytest.raises(rt.NotFound):
        await client.uncached.get(Pet, "methuselah", namespace=namespace)


async def test_update_rules_see_the_old_object(
    client: rt.Client, namespace: str
) -> None:
    created = await client.create(pet("fido", namespace, owner="ann", tags=["dog"]))
    created.spec.owner = "bob"
    with pytest.raises(rt.Invalid) as refused:
        await client.update(created)
    assert "may not change from 'ann'" in refused.value.message
    assert [c.field for c in refused.value.causes] == ["spec.owner"]
    created.spec.owner = "ann"
    created.spec.age = 3
    updated = await client.update(created)
    assert updated.spec.age == 3


async def test_deletes_reach_a_validator_that_asks_for_them(
    client: rt.Client, namespace: str
) -> None:
    created = await client.create(pet("goldie", namespace, tags=["fish"]))
    await client.delete(created)
    assert "goldie" in PetValidator.deleted


def test_warnings_reach_the_client_and_kubectl_prints_them(
    envtest: Environment, namespace: str, webhooks: Served
) -> None:
    manifest = {
        "apiVersion": "webhook.opgen.dev/v1",
        "kind": "Pet",
        "metadata": {"name": "stray", "namespace": namespace},
        "spec": {"name": "stray"},
    }
    done = subprocess.run(
        [
            kubectl_binary(),
            "--kubeconfig",
            str(envtest.kubeconfig_path),
            "create",
            "-f",
            "-",
        ],
        input=yaml.safe_dump(manifest),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Warning: pet stray has no tags" in done.stderr
