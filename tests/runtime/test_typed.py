"""The typed-client base against the API server: every method, namespaced and cluster-scoped."""

from __future__ import annotations

import asyncio
import secrets

import lightkube
import pytest

import opgen.api as op
from opgen import runtime as rt
from opgen.runtime.rest import RestClient
from opgen.runtime.typed import (
    ClusterClient,
    ClusterScale,
    ClusterStatus,
    NamespacedClient,
    NamespacedScale,
    NamespacedStatus,
)
from tests.runtime.kinds import Gadget, Widget, WidgetSpec, WidgetStatus, widget

pytestmark = pytest.mark.envtest


class WidgetClient(
    NamespacedClient[Widget], NamespacedStatus[Widget], NamespacedScale[Widget]
):
    model = Widget


class GadgetClient(ClusterClient[Gadget], ClusterStatus[Gadget], ClusterScale[Gadget]):
    model = Gadget


def _client(kube_client: lightkube.AsyncClient) -> rt.Client:
    return rt.Client(RestClient(kube_client, qps=0))


async def test_namespaced_kind_every_method(
    kube_client: lightkube.AsyncClient, namespace: str
) -> None:
    widgets = WidgetClient(_client(kube_client))
    created = await widgets.create(widget("a", namespace, replicas=2, message="hi"))
    assert created.metadata.uid and created.metadata.resource_version
    assert created.spec.replicas == 2
    await widgets.create(widget("b", namespace, message="other"))
    with pytest.raises(rt.AlreadyExists):
        await widgets.create(widget("a", namespace))

    got = await widgets.get("a", namespace=namespace)
    assert got.spec.message == "hi"
    with pytest.raises(rt.NotFound):
        await widgets.get("missing", namespace=namespace)

    first = await widgets.list(namespace=namespace, limit=1)
    assert len(first.items) == 1 and first.continue_
    second = await widgets.list(namespace=namespace, limit=1, continue_=first.continue_)
    assert [w.metadata.name for w in first.items + second.items] == ["a", "b"]
    assert second.continue_ is None

    got.spec.message = "updated"
    updated = await widgets.update(got)
    assert updated.spec.message == "updated"
    stale = got.model_copy(deep=True)
    stale.metadata.resource_version = created.metadata.resource_version
    with pytest.raises(rt.Conflict):
        await widgets.update(stale)

    merged = await widgets.patch(
        "a", {"spec": {"message": "merged"}}, namespace=namespace
    )
    assert merged.spec.message == "merged"
    jsoned = await widgets.patch(
        "a",
        [{"op": "replace", "path": "/spec/message", "value": "json"}],
        namespace=namespace,
        patch_type="json",
    )
    assert jsoned.spec.message == "json"
    applied = await widgets.apply(
        Widget(
            metadata=op.ObjectMeta(name="a", namespace=namespace),
            spec=WidgetSpec(message="ssa"),
        ),
        field_manager="tester",
        force=True,
    )
    assert applied.spec.message == "ssa"
    with pytest.raises(rt.Invalid) as invalid:
        await widgets.patch("a", {"spec": {"replicas": "many"}}, namespace=namespace)
    assert invalid.value.causes and invalid.value.causes[0].field

    # status
    with_status = await widgets.get("a", namespace=namespace)
    with_status.status = WidgetStatus(replicas=3, selector="app=a")
    await widgets.update_status(with_status)
    assert (await widgets.get_status("a", namespace=namespace)).status.replicas == 3  # type: ignore[union-attr]
    patched = await widgets.patch_status(
        "a", {"status": {"ready": True}}, namespace=namespace
    )
    assert patched.status is not None and patched.status.ready is True
    ssa_status = await widgets.apply_status(
        Widget(
            metadata=op.ObjectMeta(name="a", namespace=namespace),
            spec=WidgetSpec(),
            status=WidgetStatus(replicas=4),
        ),
        field_manager="status-writer",
        force=True,
    )
    assert ssa_status.status is not None and ssa_status.status.replicas == 4
    assert ssa_status.spec.message == "ssa"  # the status apply did not touch spec

    # scale: through /scale, reflected in spec.replicas
    scale = await widgets.get_scale("a", namespace=namespace)
    assert (
        scale.replicas == 2 and scale.status_replicas == 4 and scale.selector == "app=a"
    )
    scaled = await widgets.update_scale("a", 7, namespace=namespace)
    assert scaled.replicas == 7
    assert (await widgets.get("a", namespace=namespace)).spec.replicas == 7

    # watch: typed events
    seen: list[tuple[str, str | None, str]] = []

    async def watch() -> None:
        async for event in widgets.watch(
            namespace=namespace, resource_version="0", timeout_seconds=5
        ):
            seen.append(
                (event.type, event.object.metadata.name, event.object.spec.message)
            )
            if event.type == "DELETED":
                return

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.3)
    await widgets.patch("b", {"spec": {"message": "watched"}}, namespace=namespace)

    # delete with preconditions, propagation policy
    current = await widgets.get("b", namespace=namespace)
    with pytest.raises(rt.Conflict):
        await widgets.delete(
            "b", namespace=namespace, preconditions=rt.Preconditions(uid="not-the-uid")
        )
    await widgets.delete(
        "b",
        namespace=namespace,
        propagation_policy="Background",
        preconditions=rt.Preconditions(
            uid=current.metadata.uid, resource_version=current.metadata.resource_version
        ),
    )
    await asyncio.wait_for(watcher, 10)
    assert ("MODIFIED", "b", "watched") in seen
    assert seen[-1][0] == "DELETED"
    assert all(isinstance(name, str) for _, name, _ in seen)

    await widgets.delete_collection(namespace=namespace)
    for _ in range(50):
        if not (await widgets.list(namespace=namespace)).items:
            break
        await asyncio.sleep(0.1)
    assert (await widgets.list(namespace=namespace)).items == []


async def test_cluster_scoped_kind_every_method(
    kube_client: lightkube.AsyncClient,
) -> None:
    gadgets = GadgetClient(_client(kube_client))
    label = secrets.token_hex(4)
    name = f"g-{label}"
    created = await gadgets.create(
        Gadget(
            metadata=op.ObjectMeta(name=name, labels={"run": label}),
            spec=WidgetSpec(replicas=1),
        )
    )
    assert created.metadata.namespace is None and created.metadata.uid
    await gadgets.create(
        Gadget(
            metadata=op.ObjectMeta(name=f"{name}-2", labels={"run": label}),
            spec=WidgetSpec(),
        )
    )
    assert (await gadgets.get(name)).spec.replicas == 1
    listed = await gadgets.list(labels={"run": label})
    assert sorted(g.metadata.name or "" for g in listed.items) == [name, f"{name}-2"]
    assert [
        g.metadata.name
        for g in (await gadgets.list(fields={"metadata.name": name})).items
    ] == [name]

    got = await gadgets.get(name)
    got.spec.message = "u"
    assert (await gadgets.update(got)).spec.message == "u"
    assert (await gadgets.patch(name, {"spec": {"message": "m"}})).spec.message == "m"
    assert (
        await gadgets.patch(
            name,
            [{"op": "replace", "path": "/spec/message", "value": "j"}],
            patch_type="json",
        )
    ).spec.message == "j"
    applied = await gadgets.apply(
        Gadget(metadata=op.ObjectMeta(name=name), spec=WidgetSpec(message="a")),
        field_manager="t",
        force=True,
    )
    assert applied.spec.message == "a"

    got = await gadgets.get(name)
    got.status = WidgetStatus(replicas=2, selector="x=y")
    await gadgets.update_status(got)
    assert (await gadgets.get_status(name)).status.replicas == 2  # type: ignore[union-attr]
    assert (await gadgets.patch_status(name, {"status": {"ready": False}})).status.ready is False  # type: ignore[union-attr]
    applied_status = await gadgets.apply_status(
        Gadget(
            metadata=op.ObjectMeta(name=name),
            spec=WidgetSpec(),
            status=WidgetStatus(replicas=5),
        ),
        field_manager="s",
        force=True,
    )
    assert applied_status.status is not None and applied_status.status.replicas == 5

    assert (await gadgets.get_scale(name)).replicas == 1
    assert (await gadgets.update_scale(name, 3)).replicas == 3
    assert (await gadgets.get(name)).spec.replicas == 3

    events: list[str] = []

    async def watch() -> None:
        async for event in gadgets.watch(labels={"run": label}, timeout_seconds=5):
            events.append(event.type)
            if event.type == "DELETED":
                return

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.3)
    await gadgets.delete(name, propagation_policy="Background")
    await asyncio.wait_for(watcher, 10)
    assert events.count("ADDED") == 2 and events[-1] == "DELETED"

    await gadgets.delete_collection(labels={"run": label})
    for _ in range(50):
        if not (await gadgets.list(labels={"run": label})).items:
            break
        await asyncio.sleep(0.1)
    assert (await gadgets.list(labels={"run": label})).items == []


async def test_wrong_model_is_refused_at_run_time_too(
    kube_client: lightkube.AsyncClient,
) -> None:
    widgets = WidgetClient(_client(kube_client))
    with pytest.raises(TypeError):
        await widgets.create(Gadget(metadata=op.ObjectMeta(name="x"), spec=WidgetSpec()))  # type: ignore[arg-type]
