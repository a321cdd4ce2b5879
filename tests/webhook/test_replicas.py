"""Every replica serves the webhooks, leader or not, and is ready only once it does.

Two managers compete for one Lease against envtest: the one that does not
lead still answers admission reviews, and its `/readyz` lists the webhook
server's check.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import ssl
import urllib.request

import pytest

from opgen import runtime as rt
from opgen.testing import Environment
from tests.waiting import until_async
from tests.webhook.handlers import PetDefaulter
from tests.webhook.test_server import MUTATE, pet_review

pytestmark = pytest.mark.envtest


def manager(envtest: Environment, namespace: str) -> rt.Manager:
    built = rt.Manager.from_kubeconfig(
        envtest.kubeconfig_path,
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="0"),
            probes=rt.ProbeOptions(bind_address="127.0.0.1:0"),
            webhook=rt.WebhookOptions(host="127.0.0.1", port=0),
            leader_election=rt.LeaderElectionConfig(
                name="webhook-replicas", namespace=namespace
            ),
        ),
    )
    built.webhooks.add(PetDefaulter())
    return built


def readyz(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def review(port: int) -> dict[str, object]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection(
        "127.0.0.1", port, context=context, timeout=30
    )
    try:
        body = pet_review("from-a-test")
        connection.request("POST", MUTATE, body, {"Content-Type": "application/json"})
        answered: dict[str, object] = json.loads(connection.getresponse().read())
        return answered
    finally:
        connection.close()


async def test_a_replica_that_does_not_lead_serves_the_webhooks(
    envtest: Environment, namespace: str
) -> None:
    leader, follower = manager(envtest, namespace), manager(envtest, namespace)
    leading = asyncio.create_task(leader.run(install_signal_handlers=False))
    try:

        async def elected() -> bool:
            return leader.elected.is_set()

        async def serving() -> tuple[str, int] | None:
            return follower.webhook_address

        await until_async(elected, "the first manager to lead")
        following = asyncio.create_task(follower.run(install_signal_handlers=False))
        try:
            address = await until_async(serving, "the follower's webhook server")
            probes = follower.probe_address
            assert probes is not None
            _, text = await until_async(
                lambda: _ready(probes[1]), "the follower to be ready"
            )
            assert "[+]webhook ok" in text
            assert not follower.elected.is_set()
            answered = await asyncio.to_thread(review, address[1])
            assert answered["response"] == {
                "uid": "from-a-test",
                "allowed": True,
                "patchType": "JSONPatch",
                "patch": answered["response"]["patch"],  # type: ignore[index]
            }
            assert not follower.elected.is_set()
        finally:
            follower.stop()
            await following
    finally:
        leader.stop()
        await leading


async def _ready(port: int) -> tuple[int, str] | None:
    status, text = await asyncio.to_thread(readyz, port)
    return (status, text) if status == 200 else None
