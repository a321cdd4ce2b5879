"""Stored objects that no longer fit the operator's model, against the API server.

The CRD says `replicas: int`; objects are written under it, one with
`replicas: 0`. The operator then runs with `tests/runtime/strict_kinds.py`,
whose model says `replicas >= 1` — an API upgrade, as the operator's author
would ship one. The API server keeps the old object as it is. Each test proves
one promise: the bad object is an outcome of its own (one log line, an Event, a
metric, no retry until it changes), deletion still works on its metadata, a
reconciler can reach it (a partial decode, a status condition), and it never
blocks others — its owner, other objects of its kind, Watches mappings.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s.events_v1 import Event as EventResource
from opgen.runtime.workqueue import WorkQueue
from opgen.testing import Environment
from tests.runtime import kinds, strict_kinds
from tests.runtime.helpers import eventually, manager_for, running, sample
from tests.waiting import until_async

pytestmark = pytest.mark.envtest

FINALIZER = "test.opgen.dev/cleanup"
WIDGET = "Widget.v1.test.opgen.dev"


async def create_loose(
    client: rt.Client, name: str, namespace: str, replicas: int, **meta: Any
) -> kinds.Widget:
    """A Widget written under the old rules (the installed CRD's)."""
    obj = kinds.widget(name, namespace, replicas=replicas, message=name)
    for key, value in meta.items():
        setattr(obj.metadata, key, value)
    return await client.create(obj)


def is_ready(status: kinds.WidgetStatus | None) -> bool:
    return status is not None and rt.conditions.is_true(status.conditions, "Ready")


class StrictReconciler:
    """Reconciles strict Widgets as the scaffolded reconciler does: cached read,
    status with a Ready condition, a finalizer whose cleanup acts on metadata."""

    def __init__(self, client: rt.Client, *, reach_invalid: bool) -> None:
        self.client = client
        self.reach_invalid = reach_invalid
        self.calls: list[str] = []
        self.cleaned: list[str] = []

    async def reconcile(self, request: rt.Request) -> rt.Result:
        self.calls.append(request.name)
        try:
            obj = await self.client.get(
                strict_kinds.Widget, request.name, request.namespace
            )
        except rt.NotFound:
            return rt.Result()
        except rt.DecodeError as invalid:
            if not self.reach_invalid:
                raise
            return await self.reconcile_invalid(invalid)
        if rt.finalizers.is_deleting(obj):
            return await self.finalize(obj)
        await rt.finalizers.ensure(self.client, obj, FINALIZER)
        await self.report(obj, ready=True, reason="Reconciled", message="")
        return rt.Result()

    async def report(
        self, obj: strict_kinds.Widget, *, ready: bool, reason: str, message: str
    ) -> None:
        """Set the Ready condition; write the status (only) when it changed."""
        status = obj.status or kinds.WidgetStatus()
        if rt.conditions.set_condition(
            status.conditions,
            type="Ready",
            status="True" if ready else "False",
            reason=reason,
            message=message,
            observed_generation=obj.metadata.generation,
        ):
            obj.status = status
            await self.client.patch_status(obj)

    async def finalize(self, obj: strict_kinds.Widget) -> rt.Result:
        """The deletion path: metadata alone, so it works for a partial object too."""
        if rt.finalizers.has(obj, FINALIZER):
            self.cleaned.append(str(obj.metadata.name))
            await rt.finalizers.remove(self.client, obj, FINALIZER)
        return rt.Result()

    async def reconcile_invalid(self, invalid: rt.DecodeError) -> rt.Result:
        obj = invalid.partial(strict_kinds.Widget)
        if rt.finalizers.is_deleting(obj):
            return await self.finalize(obj)
        problems = "; ".join(str(p) for p in invalid.problems)
        await self.report(obj, ready=False, reason="InvalidSpec", message=problems)
        return rt.Result()  # the spec must change first: nothing to retry


def idle(queue: WorkQueue[rt.Request] | None, request: rt.Request) -> bool:
    """The queue holds nothing for `request`: no retry and no requeue is due."""
    assert queue is not None
    return (
        queue.num_requeues(request) == 0
        and request not in queue.processing()
        and len(queue) == 0
        and queue.waiting() == 0
    )


async def test_an_object_that_no_longer_fits_is_an_outcome_of_its_own(
    envtest: Environment, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    manager = manager_for(envtest, namespace)
    reconciler = StrictReconciler(manager.client, reach_invalid=False)
    controller = rt.Controller(
        "widget", for_=rt.For(strict_kinds.Widget), reconciler=reconciler
    )
    manager.add_controller(controller)
    writer = rt.Client(manager.rest)
    await create_loose(writer, "good", namespace, replicas=2)
    await create_loose(writer, "bad", namespace, replicas=0)
    bad = rt.Request(namespace, "bad")
    with caplog.at_level(logging.INFO, logger="opgen"):
        async with running(manager):

            def decode_errors() -> float:
                return sample(
                    manager.metrics,
                    "opgen_reconcile_decode_errors_total",
                    controller="widget",
                    kind="Widget",
                )

            await eventually(lambda: decode_errors() == 1)
            await eventually(lambda: idle(controller.queue, bad))

            async def good_converged() -> bool:
                good = await writer.get(kinds.Widget, "good", namespace)
                return is_ready(good.status)

            # one worker: the good object may still be in its reconcile
            await eventually(good_converged, message="the good object converged")
            assert reconciler.calls.count("bad") == 1
            assert (
                sample(manager.metrics, "opgen_cache_undecodable_objects", kind=WIDGET)
                == 1
            )
            assert (
                sample(
                    manager.metrics,
                    "controller_runtime_terminal_reconcile_errors_total",
                    controller="widget",
                )
                == 1
            )

            lines = [r for r in caplog.records if f"{namespace}/bad" in r.getMessage()]
            assert len(lines) == 1, [r.getMessage() for r in lines]
            (line,) = lines
            assert line.levelno == logging.ERROR and line.exc_info is None
            assert line.getMessage() == (
                f"reconcile {namespace}/bad: Widget {namespace}/bad (resourceVersion "
                f"{_version(manager, namespace, 'bad')}) does not fit "
                "tests.runtime.strict_kinds.Widget: spec.replicas: must be greater "
                "than or equal to 1 (op.Minimum(1); got 0); not retried until the "
                "object changes"
            )

            events = [
                e
                for e in await writer.list(EventResource, namespace)
                if e.regarding is not None and e.regarding.name == "bad"
            ]
            assert [(e.type, e.reason, e.reporting_controller) for e in events] == [
                ("Warning", "DecodeFailed", "widget")
            ]
            assert events[0].note is not None and "spec.replicas" in events[0].note

            # fixed: the object changes, fits again, and converges
            await writer.patch(
                kinds.widget("bad", namespace), {"spec": {"replicas": 1}}
            )

            async def converged() -> bool:
                fixed = await writer.get(kinds.Widget, "bad", namespace)
                return is_ready(fixed.status)

            await until_async(converged, "the fixed object to converge")
            assert (
                sample(manager.metrics, "opgen_cache_undecodable_objects", kind=WIDGET)
                == 0
            )
    assert not [r for r in caplog.records if r.exc_info], "no tracebacks"


async def test_a_reconciler_reaches_it_and_deletion_works_on_metadata_alone(
    envtest: Environment, namespace: str
) -> None:
    manager = manager_for(envtest, namespace)
    reconciler = StrictReconciler(manager.client, reach_invalid=True)
    manager.add_controller(
        rt.Controller("widget", for_=rt.For(strict_kinds.Widget), reconciler=reconciler)
    )
    writer = rt.Client(manager.rest)
    await create_loose(writer, "bad", namespace, replicas=0, finalizers=[FINALIZER])
    async with running(manager):

        async def flagged() -> bool:
            obj = await writer.get(kinds.Widget, "bad", namespace)
            condition = rt.conditions.find(
                obj.status.conditions if obj.status else [], "Ready"
            )
            return condition is not None and condition.reason == "InvalidSpec"

        await until_async(flagged, "an InvalidSpec condition")
        stored = await writer.get(kinds.Widget, "bad", namespace)
        assert stored.status is not None
        condition = rt.conditions.find(stored.status.conditions, "Ready")
        assert condition is not None and condition.status == "False"
        assert "spec.replicas: must be greater than or equal to 1" in condition.message
        assert stored.spec.replicas == 0, "the status write left the spec alone"

        await writer.delete(kinds.widget("bad", namespace))

        async def gone() -> bool:
            try:
                await writer.get(kinds.Widget, "bad", namespace)
            except rt.NotFound:
                return True
            return False

        await until_async(gone, "the deleted object to go")
    assert reconciler.cleaned == ["bad"], "cleanup ran once, from the metadata"


async def test_an_undecodable_child_never_blocks_its_owner(
    envtest: Environment, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The owner (a Gadget) lists its children (strict Widgets): the one that does
    not fit is left out and named, the owner's status is written, and the child's
    events still reach the owner through Owns (which reads metadata only)."""
    manager = manager_for(envtest, None)
    client = manager.client
    listed: list[tuple[int, int]] = []

    async def reconcile(request: rt.Request) -> rt.Result:
        owner = await client.get(kinds.Gadget, request.name)
        page = await client.list(
            strict_kinds.Widget, namespace, labels={"gadget": request.name}
        )
        listed.append((len(page), len(page.undecodable)))
        status = owner.status or kinds.WidgetStatus()
        message = ", ".join(e.object_name for e in page.undecodable) or "none"
        changed = rt.conditions.set_condition(
            status.conditions,
            type="ChildrenValid",
            status="False" if page.undecodable else "True",
            reason="Listed",
            message=f"undecodable: {message}",
        )
        if changed or status.replicas != len(page):
            status.replicas = len(page)
            owner.status = status
            await client.patch_status(owner)
        return rt.Result()

    manager.add_controller(
        rt.Controller(
            "gadget",
            for_=rt.For(kinds.Gadget),
            owns=[rt.Owns(strict_kinds.Widget)],
            reconciler=rt.FuncReconciler(reconcile),
        )
    )
    writer = rt.Client(manager.rest)
    gadget_name = f"g-{namespace}"
    owner = await writer.create(
        kinds.Gadget(metadata=ObjectMeta(name=gadget_name), spec=kinds.WidgetSpec())
    )
    for name, replicas in (("fits", 1), ("unfit", 0)):
        child = kinds.widget(name, namespace, replicas=replicas)
        child.metadata.labels = {"gadget": gadget_name}
        rt.owner.set_controller_reference(owner, child)
        await writer.create(child)
    try:
        with caplog.at_level(logging.INFO, logger="opgen"):
            async with running(manager):
                await eventually(lambda: (1, 1) in listed)

                async def owner_status(replicas: int, valid: str) -> bool:
                    got = await writer.get(kinds.Gadget, gadget_name)
                    condition = rt.conditions.find(
                        got.status.conditions if got.status else [], "ChildrenValid"
                    )
                    return (
                        got.status is not None
                        and got.status.replicas == replicas
                        and condition is not None
                        and condition.status == valid
                    )

                await until_async(lambda: owner_status(1, "False"), "1 child, 1 unfit")
                # the unfit child changes (still unfit): Owns brings the owner back
                seen = len(listed)
                await writer.patch(
                    kinds.widget("unfit", namespace),
                    {"metadata": {"annotations": {"touched": "yes"}}},
                )
                await eventually(lambda: len(listed) > seen)
                # fixed: both children count
                await writer.patch(
                    kinds.widget("unfit", namespace), {"spec": {"replicas": 3}}
                )
                await until_async(
                    lambda: owner_status(2, "True"), "2 children, all fit"
                )
        skipped = [r for r in caplog.records if "left out" in r.getMessage()]
        assert len(skipped) == 2, "logged once per stored version of the unfit child"
        assert all(r.levelno == logging.WARNING and not r.exc_info for r in skipped)
        assert f"Widget {namespace}/unfit" in skipped[0].getMessage()
    finally:
        async with rt.Client.from_kubeconfig(envtest.kube_config()) as cleanup:
            await cleanup.delete(owner)


async def test_watches_skips_an_undecodable_object_and_maps_the_rest(
    envtest: Environment, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    manager = manager_for(envtest, namespace)
    reconciled: list[str] = []

    async def reconcile(request: rt.Request) -> rt.Result:
        reconciled.append(request.name)
        return rt.Result()

    def to_target(obj: strict_kinds.Widget) -> list[rt.Request]:
        return [rt.Request(namespace, f"{obj.spec.message}-target")]

    manager.add_controller(
        rt.Controller(
            "mapper",
            for_=rt.For(kinds.Gadget),  # nothing of that kind in this test
            watches=[rt.Watches(strict_kinds.Widget, to_target)],
            reconciler=rt.FuncReconciler(reconcile),
        )
    )
    writer = rt.Client(manager.rest)
    await create_loose(writer, "unfit", namespace, replicas=0)
    await create_loose(writer, "fits", namespace, replicas=1)
    with caplog.at_level(logging.INFO, logger="opgen"):
        async with running(manager):
            await eventually(lambda: "fits-target" in reconciled)
            await create_loose(writer, "later", namespace, replicas=2)
            await eventually(lambda: "later-target" in reconciled)
    assert "unfit-target" not in reconciled
    unmapped = [r for r in caplog.records if "cannot call map_fn" in r.getMessage()]
    assert len(unmapped) == 1 and not unmapped[0].exc_info
    assert f"{namespace}/unfit" in unmapped[0].getMessage()


async def test_uncached_reads_raise_or_leave_it_out_too(
    envtest: Environment, namespace: str
) -> None:
    async with rt.Client.from_kubeconfig(envtest.kube_config()) as client:
        await create_loose(client, "unfit", namespace, replicas=0)
        await create_loose(client, "fits", namespace, replicas=1)
        with pytest.raises(rt.DecodeError) as caught:
            await client.uncached.get(strict_kinds.Widget, "unfit", namespace)
        assert caught.value.problems[0].path == "spec.replicas"
        page = await client.uncached.list(strict_kinds.Widget, namespace)
        assert [w.metadata.name for w in page] == ["fits"]
        assert [e.name for e in page.undecodable] == ["unfit"]
        # create_or_update will not overwrite what it cannot read
        desired = strict_kinds.Widget(
            metadata=ObjectMeta(name="unfit", namespace=namespace),
            spec=strict_kinds.StrictSpec(replicas=2),
        )
        with pytest.raises(rt.DecodeError):
            await rt.create_or_update(client, desired, lambda w: None, cached=False)


def _version(manager: rt.Manager, namespace: str, name: str) -> str:
    entry = manager.cache.informer_for(strict_kinds.Widget).store.get((namespace, name))
    assert entry is not None
    return entry.resource_version
