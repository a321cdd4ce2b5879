"""Admission and conversion webhooks on the memory server, held to envtest.

The webhook tests' handlers (tests/webhook/handlers.py) are served to this
package's control plane over HTTPS, as the pytest plugin serves a project's,
and called in process by a memory server (`use_webhooks`); the scenarios of
`admission_scenarios.py` must get the same answers from both. The rest are
the memory server's alone: a webhook with no handler under each failure
policy, and a webhook for one version seeing a request in another.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.load.handlers import webhooks_of
from opgen.render.webhook import webhook_documents
from opgen.runtime.transport import Transport
from opgen.testing import Environment, WebhookInstallOptions, WebhookManager
from opgen.testing.memory import Kinds, MemoryApiServer
from tests.testing.memory.admission_scenarios import (
    ADMISSION_SCENARIOS,
    GIZMOS,
    LATCHES,
    LOCKS,
    OLD_GIZMOS,
    gizmo,
    note,
)
from tests.testing.memory.backends import (
    Api,
    assert_same_outcomes,
    create_namespace,
)
from tests.webhook import handlers, kinds_v1, kinds_v1alpha1


@pytest.fixture(scope="module")
def served(envtest: Environment) -> Iterator[Environment]:
    """This package's control plane calling the test handlers."""
    envtest.install_webhooks(
        WebhookInstallOptions(paths=handlers.generated_configurations())
    )
    envtest.install_crds(handlers.generated_crds())
    try:
        with WebhookManager(envtest, handlers.setup):
            yield envtest
    finally:
        envtest.uninstall_webhooks()


def memory_server(
    setup: Any = handlers.setup, configurations: list[dict[str, Any]] | None = None
) -> MemoryApiServer:
    kinds = Kinds()
    kinds.add_crds(
        handlers.generated_crds(),
        [kinds_v1.Pet, kinds_v1.Gizmo, kinds_v1alpha1.Gizmo],
    )
    server = MemoryApiServer(kinds)
    if configurations is None:
        configurations = handlers.generated_configurations()
    server.use_webhooks(configurations, setup)
    return server


@pytest.mark.envtest
@pytest.mark.parametrize("name", sorted(ADMISSION_SCENARIOS))
async def test_webhooks_answer_on_the_memory_server_as_on_envtest(
    served: Environment, namespace: str, name: str
) -> None:
    transport = Transport.from_kubeconfig(served.kube_config())
    try:
        real = Api(transport, namespace)
        await ADMISSION_SCENARIOS[name](real)
    finally:
        await transport.aclose()
    server = memory_server()
    try:
        await create_namespace(server.transport(), namespace)
        memory = Api(server.transport(), namespace)
        await ADMISSION_SCENARIOS[name](memory)
    finally:
        server.close()
    assert_same_outcomes(real, memory)


def _only_pets(manager: rt.Manager) -> None:
    """The handlers without Lock's and Latch's: their webhooks have nobody to call."""
    manager.webhooks.add(handlers.PetDefaulter())
    manager.webhooks.add(handlers.PetValidator())


async def test_a_webhook_without_a_handler_fails_or_is_ignored_by_its_policy() -> None:
    server = memory_server(_only_pets)
    try:
        api = Api(server.transport(), "default")
        refused = await api.send("POST", LOCKS, note("Lock", "closed"))
        admitted = await api.send("POST", LATCHES, note("Latch", "open"))
    finally:
        server.close()
    assert refused["code"] == 500
    assert refused["reason"] == "InternalError"
    assert refused["message"] == (
        'Internal error occurred: failed calling webhook "vlock-v1.webhook.opgen.dev":'
        " no handler is served at /validate-webhook-opgen-dev-v1-lock"
    )
    assert admitted["metadata"]["uid"]


@op.webhook(kinds_v1.Gizmo, mutating=True)
class GizmoDefaulter:
    """Labels an unlabelled Gizmo, as a v1 object."""

    seen: list[str] = []

    async def default(self, obj: kinds_v1.Gizmo) -> None:
        self.seen.append(obj.api_version)
        if obj.spec.label is None:
            obj.spec.label = f"{obj.spec.replicas} of them"


def _with_gizmo_defaulter(manager: rt.Manager) -> None:
    handlers.setup(manager)
    manager.webhooks.add(GizmoDefaulter())


def _gizmo_configurations(match_policy: str) -> list[dict[str, Any]]:
    documents = webhook_documents(webhooks_of([GizmoDefaulter]).admission)
    documents = copy.deepcopy(documents)
    for document in documents:
        for webhook in document["webhooks"]:
            webhook["matchPolicy"] = match_policy
    return documents


@pytest.mark.parametrize(
    ("match_policy", "label"), [("Equivalent", "3 of them"), ("Exact", None)]
)
async def test_a_webhook_for_v1_sees_a_v1alpha1_request_by_its_match_policy(
    match_policy: str, label: str | None
) -> None:
    GizmoDefaulter.seen.clear()
    server = memory_server(_with_gizmo_defaulter, _gizmo_configurations(match_policy))
    try:
        api = Api(server.transport(), "default")
        created = await api.send("POST", OLD_GIZMOS, gizmo("g", "v1alpha1", size=3))
        stored = await api.send("GET", GIZMOS + "/g")
    finally:
        server.close()
    assert created["apiVersion"] == "webhook.opgen.dev/v1alpha1"
    assert created["spec"].get("label") == label
    assert (stored["spec"]["replicas"], stored["spec"].get("label")) == (3, label)
    seen = ["webhook.opgen.dev/v1"] if label else []
    assert GizmoDefaulter.seen == seen


async def test_objects_are_stored_in_the_storage_version() -> None:
    server = memory_server()
    try:
        api = Api(server.transport(), "default")
        await api.send("POST", OLD_GIZMOS, gizmo("g", "v1alpha1", size=2))
    finally:
        server.close()
    stored = server.store.get(("webhook.opgen.dev", "v1", "gizmos"), "default", "g")
    assert stored is not None
    assert (stored["apiVersion"], stored["spec"]) == (
        "webhook.opgen.dev/v1",
        {"replicas": 2},
    )
    assert (
        server.store.get(("webhook.opgen.dev", "v1alpha1", "gizmos"), "default", "g")
        is None
    )
