"""Helpers against the API server: events, create_or_update, retry_on_conflict, apply without claiming defaults."""

from __future__ import annotations

import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from opgen.api.k8s.events_v1 import Event
from opgen.runtime.rest import RestClient
from tests.runtime.kinds import Widget, WidgetSpec, widget

pytestmark = pytest.mark.envtest


async def test_event_recorder_dedups_and_rate_limits(
    rest: RestClient, namespace: str
) -> None:
    client = rt.Client(rest)
    obj = await client.create(widget("evented", namespace))
    recorder = rt.EventRecorder(
        client, reporting_controller="test.opgen.dev/widget", burst=3
    )
    for _ in range(2):
        await recorder.event(
            obj, type="Normal", reason="Synced", note="all good", action="Reconcile"
        )
    events = await client.uncached.list(Event, namespace)
    assert len(events) == 1
    event = events[0]
    assert (
        event.reason == "Synced"
        and event.type == "Normal"
        and event.action == "Reconcile"
    )
    assert event.regarding is not None and event.regarding.uid == obj.metadata.uid
    assert event.series is not None and event.series.count == 2
    for i in range(4):
        await recorder.event(
            obj,
            type="Warning",
            reason="Failed",
            note=f"attempt {i}",
            action="Reconcile",
        )
    assert (
        len(await client.uncached.list(Event, namespace)) == 3
    )  # burst 3: one + two, the rest dropped
    assert recorder.dropped == 2


async def test_create_or_update_writes_only_on_change(
    rest: RestClient, namespace: str
) -> None:
    client = rt.Client(rest)

    def mutate(cm: ConfigMap) -> None:
        cm.data = {"k": "v"}

    template = ConfigMap(metadata=ObjectMeta(name="cou", namespace=namespace))
    _, op1 = await rt.create_or_update(client, template, mutate)
    _, op2 = await rt.create_or_update(
        client, ConfigMap(metadata=ObjectMeta(name="cou", namespace=namespace)), mutate
    )
    writes = rest.writes

    def mutate2(cm: ConfigMap) -> None:
        cm.data = {"k": "w"}

    _, op3 = await rt.create_or_update(
        client, ConfigMap(metadata=ObjectMeta(name="cou", namespace=namespace)), mutate2
    )
    assert (op1, op2, op3) == (
        rt.Operation.CREATED,
        rt.Operation.UNCHANGED,
        rt.Operation.UPDATED,
    )
    assert rest.writes == writes + 1


async def test_create_or_update_without_a_name_says_what_to_set(
    rest: RestClient, namespace: str
) -> None:
    client = rt.Client(rest)
    unnamed = ConfigMap(metadata=ObjectMeta(generate_name="cou-", namespace=namespace))
    with pytest.raises(ValueError, match=r"ConfigMap's metadata\.name"):
        await rt.create_or_update(client, unnamed, lambda cm: None)
    assert rest.writes == 0


async def test_retry_on_conflict_rereads_and_succeeds(
    rest: RestClient, namespace: str
) -> None:
    client = rt.Client(rest)
    await client.create(widget("contended", namespace))
    stale = await client.uncached.get(Widget, "contended", namespace)
    await client.patch(
        widget("contended", namespace), {"spec": {"message": "someone else"}}
    )
    attempts: list[str | None] = []

    async def bump() -> Widget:
        current = (
            stale
            if not attempts
            else await client.uncached.get(Widget, "contended", namespace)
        )
        attempts.append(current.metadata.resource_version)
        current.spec.replicas += 1
        return await client.update(current)

    result = await rt.retry_on_conflict(bump)
    assert (
        len(attempts) == 2
        and result.spec.message == "someone else"
        and result.spec.replicas == 2
    )


async def test_apply_does_not_claim_unset_defaults(
    rest: RestClient, namespace: str
) -> None:
    client = rt.Client(rest)
    # The model has defaults for replicas/message; only `message` is set, so only it is applied.
    mine = Widget(
        metadata=op.ObjectMeta(name="ssa", namespace=namespace),
        spec=WidgetSpec(message="mine"),
    )
    await client.apply(mine, field_manager="opgen-test")
    server = await client.uncached.get(Widget, "ssa", namespace)
    # Another manager may now own spec.replicas without a conflict: opgen-test never claimed it.
    other = {
        "apiVersion": "test.opgen.dev/v1",
        "kind": "Widget",
        "metadata": {"name": "ssa"},
        "spec": {"replicas": 5},
    }
    updated = await client.patch(
        widget("ssa", namespace), other, patch_type="apply", field_manager="scaler"
    )
    assert (
        updated.spec.replicas == 5
        and updated.spec.message == "mine"
        and server.spec.replicas == 1
    )
    # whereas a field opgen-test did set conflicts for another manager unless forced
    with pytest.raises(rt.Conflict):
        await client.patch(
            widget("ssa", namespace),
            {**other, "spec": {"message": "theirs"}},
            patch_type="apply",
            field_manager="scaler",
        )
