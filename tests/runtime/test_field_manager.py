"""Every write is recorded under the configured field manager.

Each write below goes through a client whose `ClientOptions.field_manager` names
that write, and changes a field of its own; the object's
`metadata.managedFields[*].manager` read back from the API server must name every
write — creates, updates, merge/JSON/strategic patches, server-side apply, the
status and scale subresources, the finalizer, create_or_update and event helpers,
and the Lease writes of leader election.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap, Lease
from opgen.api.k8s.events_v1 import Event
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from tests.runtime.kinds import Widget, WidgetSpec, WidgetStatus, widget

pytestmark = pytest.mark.envtest

Managed = set[tuple[str, str, str]]
"""(manager, operation, subresource) of each managedFields entry."""


async def managed(rest: RestClient, kind: type, name: str, namespace: str) -> Managed:
    raw = await rest.request("get", resource_type(kind), name=name, namespace=namespace)
    fields = msgspec.json.decode(raw)["metadata"].get("managedFields") or []
    return {(f["manager"], f["operation"], f.get("subresource", "")) for f in fields}


async def test_every_write_carries_the_field_manager(
    rest: RestClient, namespace: str
) -> None:
    def as_(manager: str) -> rt.Client:
        options = rt.ClientOptions(qps=0, field_manager=manager)
        return rt.Client(RestClient(rest.transport, options))

    obj = widget("w", namespace)
    obj.metadata.labels = {"create": "1"}
    await as_("fm-create").create(obj)
    obj.metadata.labels["update"] = "1"
    await as_("fm-update").update(obj)
    await as_("fm-merge").patch(obj, {"metadata": {"labels": {"merge": "1"}}})
    await as_("fm-json").patch(
        obj,
        [{"op": "add", "path": "/metadata/labels/json", "value": "1"}],
        patch_type="json",
    )
    await as_("fm-apply").apply(
        Widget(
            metadata=op.ObjectMeta(
                name="w", namespace=namespace, labels={"apply": "1"}
            ),
            spec=WidgetSpec(),
        )
    )
    obj = await rt.Client(rest).uncached.get(Widget, "w", namespace)  # after the apply
    await rt.finalizers.ensure(as_("fm-finalizer"), obj, "test.opgen.dev/f")
    obj.status = WidgetStatus(replicas=3)
    await as_("fm-update-status").update_status(obj)
    assert obj.status is not None
    obj.status.ready = True
    await as_("fm-patch-status").patch_status(obj)
    await as_("fm-apply-status").apply_status(
        Widget(
            metadata=op.ObjectMeta(name="w", namespace=namespace),
            spec=WidgetSpec(),
            status=WidgetStatus(selector="app=w"),
        )
    )
    scaler = as_("fm-scale").rest
    await scaler.request(
        "patch",
        resource_type(Widget),
        name="w",
        namespace=namespace,
        subresource="scale",
        body=b'{"spec": {"replicas": 4}}',
        content_type="application/merge-patch+json",
    )
    assert await managed(rest, Widget, "w", namespace) == {
        ("fm-create", "Update", ""),
        ("fm-update", "Update", ""),
        ("fm-merge", "Update", ""),
        ("fm-json", "Update", ""),
        ("fm-apply", "Apply", ""),
        ("fm-finalizer", "Update", ""),
        ("fm-update-status", "Update", "status"),
        ("fm-patch-status", "Update", "status"),
        ("fm-apply-status", "Apply", "status"),
        ("fm-scale", "Update", "scale"),
    }
    obj = await rt.Client(rest).uncached.get(Widget, "w", namespace)
    await rt.finalizers.remove(as_("fm-finalizer"), obj, "test.opgen.dev/f")

    def mutate(data: dict[str, str]) -> Any:
        def set_data(cm: ConfigMap) -> None:
            cm.data = data

        return set_data

    config = ConfigMap(metadata=ObjectMeta(name="cm", namespace=namespace))
    _, created = await rt.create_or_update(as_("fm-cou"), config, mutate({"a": "1"}))
    config = ConfigMap(metadata=ObjectMeta(name="cm", namespace=namespace))
    _, updated = await rt.create_or_update(
        as_("fm-cou-again"), config, mutate({"a": "1", "b": "2"})
    )
    assert (created, updated) == (rt.Operation.CREATED, rt.Operation.UPDATED)
    await as_("fm-strategic").patch(
        config, {"metadata": {"labels": {"s": "1"}}}, patch_type="strategic"
    )
    assert await managed(rest, ConfigMap, "cm", namespace) == {
        ("fm-cou", "Update", ""),
        ("fm-cou-again", "Update", ""),
        ("fm-strategic", "Update", ""),
    }

    recorder = rt.EventRecorder(as_("fm-events"), reporting_controller="test/fm")
    for _ in range(2):  # the second one patches the first one's series
        await recorder.event(
            obj, type="Normal", reason="Tested", note="n", action="Test"
        )
    (event,) = await rt.Client(rest).uncached.list(Event, namespace)
    assert event.metadata is not None and event.metadata.name
    assert {
        m for m, _, _ in await managed(rest, Event, event.metadata.name, namespace)
    } == {"fm-events"}

    lease_writer = as_("fm-lease")
    elector = rt.LeaderElector(
        lease_writer.uncached,
        lease_writer,
        rt.LeaderElectionConfig(name="fm-lease", namespace=namespace, identity="me"),
    )
    assert await elector.try_acquire_or_renew()  # creates the Lease
    assert await elector.try_acquire_or_renew()  # renews it: an update
    assert {m for m, _, _ in await managed(rest, Lease, "fm-lease", namespace)} == {
        "fm-lease"
    }
