"""`rt.status.reconcile`: the flow of a custom resource's reconcile, against the API server.

The status helper reads the object, keeps the finalizer, runs cleanup on
deletion, hands the status to `reconcile_spec`, records its outcome as
observedGeneration and the Ready/Progressing/Degraded conditions, and writes
the status only when it changed. Ready, progressing and requeueing are
independent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

import opgen.api as op
from opgen import runtime as rt
from opgen.testing import Environment
from tests.runtime import strict_kinds
from tests.runtime.kinds import Widget, WidgetStatus, widget

FINALIZER = "test.opgen.dev/status-helper"


@pytest_asyncio.fixture
async def client(envtest: Environment) -> AsyncIterator[rt.Client]:
    async with rt.Client.from_kubeconfig(envtest.kubeconfig_path) as client:
        yield client


class Steps:
    """A reconciler whose `reconcile_spec` returns (or raises) what the test says."""

    def __init__(self, client: rt.Client, outcome: rt.status.Outcome) -> None:
        self.client = client
        self.outcome = outcome
        self.error: Exception | None = None
        self.cleanups: list[str] = []
        self.specs = 0

    async def reconcile(self, request: rt.Request) -> rt.Result:
        return await rt.status.reconcile(
            self.client,
            Widget,
            request,
            reconcile_spec=self.reconcile_spec,
            cleanup=self.cleanup,
            finalizer=FINALIZER,
        )

    async def reconcile_spec(
        self, obj: Widget, status: WidgetStatus
    ) -> rt.status.Outcome:
        self.specs += 1
        status.replicas = obj.spec.replicas
        if self.error is not None:
            raise self.error
        return self.outcome

    async def cleanup(self, obj: Widget) -> None:
        assert obj.metadata.name is not None
        self.cleanups.append(obj.metadata.name)


def states(obj: Widget) -> dict[str, str]:
    assert obj.status is not None
    return {c.type: c.status for c in obj.status.conditions}


async def created(client: rt.Client, name: str, namespace: str) -> rt.Request:
    await client.create(widget(name, namespace, replicas=2))
    return rt.Request(namespace, name)


@pytest.mark.envtest
async def test_ready_sets_finalizer_generation_and_conditions_then_writes_nothing(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "ready", namespace)
    steps = Steps(client, rt.status.ready())

    assert await steps.reconcile(request) == rt.Result()

    obj = await client.uncached.get(Widget, "ready", namespace)
    assert obj.metadata.finalizers == [FINALIZER]
    assert obj.status is not None
    assert obj.status.replicas == 2  # what reconcile_spec set on the status
    assert obj.status.observed_generation == obj.metadata.generation
    assert states(obj) == {"Ready": "True", "Progressing": "False", "Degraded": "False"}
    ready = rt.conditions.find(obj.status.conditions, "Ready")
    assert ready is not None
    assert (ready.reason, ready.message) == (
        "Reconciled",
        "The Widget matches its spec.",
    )
    assert ready.observed_generation == obj.metadata.generation

    # Converged: the next reconcile writes nothing at all.
    version = obj.metadata.resource_version
    assert await steps.reconcile(request) == rt.Result()
    again = await client.uncached.get(Widget, "ready", namespace)
    assert again.metadata.resource_version == version
    assert steps.specs == 2


@pytest.mark.envtest
async def test_ready_and_polling_are_kept_apart(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "polled", namespace)
    steps = Steps(client, rt.status.ready(requeue_after=30))

    assert await steps.reconcile(request) == rt.Result(requeue_after=30)
    obj = await client.uncached.get(Widget, "polled", namespace)
    assert states(obj) == {"Ready": "True", "Progressing": "False", "Degraded": "False"}


@pytest.mark.envtest
async def test_progressing_then_ready_moves_only_the_flipped_transition_times(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "steps", namespace)
    steps = Steps(client, rt.status.progressing("1 of 2 replicas ready"))
    assert await steps.reconcile(request) == rt.Result()
    first = await client.uncached.get(Widget, "steps", namespace)
    assert states(first) == {
        "Ready": "False",
        "Progressing": "True",
        "Degraded": "False",
    }
    assert first.status is not None
    progressing = rt.conditions.find(first.status.conditions, "Progressing")
    assert progressing is not None
    assert (progressing.reason, progressing.message) == (
        "Progressing",
        "1 of 2 replicas ready",
    )

    steps.outcome = rt.status.ready(reason="AllReplicasReady")
    await steps.reconcile(request)
    second = await client.uncached.get(Widget, "steps", namespace)
    assert states(second) == {
        "Ready": "True",
        "Progressing": "False",
        "Degraded": "False",
    }
    assert second.status is not None
    degraded_before = rt.conditions.find(first.status.conditions, "Degraded")
    degraded_after = rt.conditions.find(second.status.conditions, "Degraded")
    assert degraded_before is not None and degraded_after is not None
    # Degraded stayed False, so its transition time stayed.
    assert degraded_after.last_transition_time == degraded_before.last_transition_time


@pytest.mark.envtest
async def test_an_error_is_recorded_as_degraded_and_raised(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "failing", namespace)
    steps = Steps(client, rt.status.ready())
    steps.error = RuntimeError("the image registry is down")

    with pytest.raises(RuntimeError, match="registry is down"):
        await steps.reconcile(request)
    obj = await client.uncached.get(Widget, "failing", namespace)
    assert states(obj) == {"Ready": "False", "Progressing": "False", "Degraded": "True"}
    assert obj.status is not None
    assert obj.status.replicas == 2  # what it observed before failing is kept
    degraded = rt.conditions.find(obj.status.conditions, "Degraded")
    assert degraded is not None
    assert (degraded.reason, degraded.message) == (
        "ReconcileFailed",
        "RuntimeError: the image registry is down",
    )

    steps.error = rt.TerminalError("spec.image is not a valid reference")
    with pytest.raises(rt.TerminalError):
        await steps.reconcile(request)
    obj = await client.uncached.get(Widget, "failing", namespace)
    assert obj.status is not None
    degraded = rt.conditions.find(obj.status.conditions, "Degraded")
    assert degraded is not None and degraded.reason == "TerminalError"


@pytest.mark.envtest
async def test_degraded_is_an_outcome_too_without_raising(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "waiting", namespace)
    outcome = rt.status.degraded(
        "Secret tls is missing", reason="SecretMissing", requeue_after=60
    )
    steps = Steps(client, outcome)
    assert await steps.reconcile(request) == rt.Result(requeue_after=60)
    obj = await client.uncached.get(Widget, "waiting", namespace)
    assert states(obj) == {"Ready": "False", "Progressing": "False", "Degraded": "True"}


@pytest.mark.envtest
async def test_a_conflict_passes_through_without_a_status_write(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "stale", namespace)
    steps = Steps(client, rt.status.ready())
    await steps.reconcile(request)
    version = (
        await client.uncached.get(Widget, "stale", namespace)
    ).metadata.resource_version
    steps.error = rt.Conflict(409, "the object has been modified", reason="Conflict")

    with pytest.raises(rt.Conflict):
        await steps.reconcile(request)
    obj = await client.uncached.get(Widget, "stale", namespace)
    assert obj.metadata.resource_version == version


@pytest.mark.envtest
async def test_deletion_runs_cleanup_once_then_releases_the_finalizer(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "doomed", namespace)
    steps = Steps(client, rt.status.ready())
    await steps.reconcile(request)
    await client.delete(widget("doomed", namespace))

    assert await steps.reconcile(request) == rt.Result()
    with pytest.raises(rt.NotFound):
        await client.uncached.get(Widget, "doomed", namespace)
    assert steps.cleanups == ["doomed"]
    assert steps.specs == 1
    # Gone: another call has nothing to do.
    assert await steps.reconcile(request) == rt.Result()
    assert steps.cleanups == ["doomed"]


@pytest.mark.envtest
async def test_an_object_holding_only_other_finalizers_is_left_alone_on_deletion(
    client: rt.Client, namespace: str
) -> None:
    obj = widget("foreign", namespace)
    obj.metadata.finalizers = ["example.com/someone-else"]
    await client.create(obj)
    await client.delete(widget("foreign", namespace))
    steps = Steps(client, rt.status.ready())

    assert await steps.reconcile(rt.Request(namespace, "foreign")) == rt.Result()
    assert steps.cleanups == []
    assert steps.specs == 0
    still = await client.uncached.get(Widget, "foreign", namespace)
    assert still.metadata.finalizers == ["example.com/someone-else"]
    await client.patch(still, {"metadata": {"finalizers": None}})


@pytest.mark.envtest
async def test_an_object_that_no_longer_fits_is_flagged_and_still_released(
    client: rt.Client, namespace: str
) -> None:
    """Stored under the old rules (`replicas: 0`), read with the upgraded model
    (`strict_kinds`, `replicas >= 1`): `reconcile_spec` never runs, Degraded says
    why, and the `DecodeError` is raised for the controller's decode outcome.
    Deleted while it holds the finalizer, `cleanup` gets the partial object (its
    metadata) and the finalizer is released."""
    unfit = widget("unfit", namespace, replicas=0)
    unfit.metadata.finalizers = [FINALIZER]  # as the previous operator left it
    await client.create(unfit)
    request = rt.Request(namespace, "unfit")
    specs: list[str] = []
    cleaned: list[tuple[str | None, str | None]] = []

    async def reconcile_spec(
        obj: strict_kinds.Widget, status: WidgetStatus
    ) -> rt.status.Outcome:
        specs.append(str(obj.metadata.name))
        return rt.status.ready()

    async def cleanup(obj: strict_kinds.Widget) -> None:
        cleaned.append((obj.metadata.namespace, obj.metadata.name))

    async def reconcile() -> rt.Result:
        return await rt.status.reconcile(
            client,
            strict_kinds.Widget,
            request,
            reconcile_spec=reconcile_spec,
            cleanup=cleanup,
            finalizer=FINALIZER,
        )

    with pytest.raises(rt.DecodeError) as caught:
        await reconcile()
    assert [p.path for p in caught.value.problems] == ["spec.replicas"]
    stored = await client.uncached.get(Widget, "unfit", namespace)
    assert states(stored) == {
        "Ready": "False",
        "Progressing": "False",
        "Degraded": "True",
    }
    assert stored.status is not None
    degraded = rt.conditions.find(stored.status.conditions, "Degraded")
    assert degraded is not None and degraded.reason == "DecodeFailed"
    assert degraded.message == (
        "The object does not fit the operator's model: spec.replicas: must be "
        "greater than or equal to 1 (op.Minimum(1); got 0)"
    )
    assert stored.status.observed_generation == stored.metadata.generation
    assert stored.spec.replicas == 0, "the status write left the spec alone"

    with pytest.raises(rt.DecodeError):  # again: the same status, so no write
        await reconcile()
    again = await client.uncached.get(Widget, "unfit", namespace)
    assert again.metadata.resource_version == stored.metadata.resource_version

    await client.delete(widget("unfit", namespace))
    assert await reconcile() == rt.Result()
    with pytest.raises(rt.NotFound):
        await client.uncached.get(Widget, "unfit", namespace)
    assert cleaned == [(namespace, "unfit")]
    assert specs == []


@pytest.mark.envtest
async def test_a_child_that_does_not_fit_is_recorded_as_decode_failed(
    client: rt.Client, namespace: str
) -> None:
    request = await created(client, "parent", namespace)
    await client.create(widget("child", namespace, replicas=0))

    async def reconcile_spec(obj: Widget, status: WidgetStatus) -> rt.status.Outcome:
        await client.get(strict_kinds.Widget, "child", namespace)
        return rt.status.ready()

    with pytest.raises(rt.DecodeError):
        await rt.status.reconcile(
            client, Widget, request, reconcile_spec=reconcile_spec
        )
    parent = await client.uncached.get(Widget, "parent", namespace)
    assert parent.status is not None
    degraded = rt.conditions.find(parent.status.conditions, "Degraded")
    assert degraded is not None and degraded.status == "True"
    assert degraded.reason == "DecodeFailed"
    assert degraded.message.startswith(f"DecodeError: Widget {namespace}/child")


# -- without an API server --------------------------------------------------


def test_record_sets_only_the_fields_the_status_model_has() -> None:
    class Bare(op.Model):
        phase: str = ""

    status = Bare()
    rt.status.record(status, rt.status.ready(), generation=3)
    assert status == Bare()

    full = WidgetStatus()
    rt.status.record(full, rt.status.progressing(), generation=3, kind="Widget")
    assert full.observed_generation == 3
    assert [(c.type, c.status, c.message) for c in full.conditions] == [
        ("Ready", "False", "Working towards the spec."),
        ("Progressing", "True", "Working towards the spec."),
        ("Degraded", "False", "Working towards the spec."),
    ]


def test_suspended_sets_none_of_the_three_conditions() -> None:
    status = WidgetStatus()
    rt.status.record(status, rt.status.ready(), generation=1)
    rt.status.record(status, rt.status.suspended(), generation=2, kind="Widget")
    assert status.observed_generation == 2
    assert [(c.type, c.status, c.reason, c.message) for c in status.conditions] == [
        ("Ready", "False", "Suspended", "Suspended: nothing runs."),
        ("Progressing", "False", "Suspended", "Suspended: nothing runs."),
        ("Degraded", "False", "Suspended", "Suspended: nothing runs."),
    ]


def test_reasons_are_checked_when_the_outcome_is_made() -> None:
    with pytest.raises(ValueError, match="a reason is one CamelCase word"):
        rt.status.progressing("x", reason="pods starting")


async def test_a_kind_without_a_status_subresource_is_refused() -> None:
    @op.kind(group="test.opgen.dev", version="v1")
    class Plain(op.CustomResource[op.Model, WidgetStatus]):
        pass

    async def spec(obj: Plain, status: WidgetStatus) -> rt.status.Outcome:
        return rt.status.ready()

    with pytest.raises(TypeError, match=r"add @op.subresource_status\(\) to it"):
        await rt.status.reconcile(
            None,  # type: ignore[arg-type]
            Plain,
            rt.Request("ns", "x"),
            reconcile_spec=spec,
        )
