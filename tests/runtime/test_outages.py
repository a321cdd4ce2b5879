"""The runtime through faults, with the operator in a process of its own.

Each test runs `outage_operator.py` (the sample Widget operator with a
finalizer) as a separate process against a private control plane, so kills,
signals, logs, probes, metrics and memory are the real ones, and the API
server can be stopped and restarted (`Environment.stop_apiserver()`,
`start_apiserver()`, `restart_apiserver()`) without disturbing other tests.
What happens in between is paced by what the operator reports — lines it
prints, its metrics — never by sleeping: a gate (a file) holds a cleanup or a
write back until the test has seen what it waits for.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap, Namespace
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.kinds import Widget, widget
from tests.runtime.operator_process import OperatorProcess
from tests.runtime.outage_operator import FINALIZER
from tests.waiting import until_async

pytestmark = [pytest.mark.envtest, pytest.mark.slow]

T = TypeVar("T")


@pytest.fixture(scope="module")
def plane(envtest: Environment) -> Iterator[Environment]:
    """A private control plane (the session's `envtest` proves binaries exist)."""
    if envtest.is_existing_cluster:
        pytest.skip("stopping the API server needs a local control plane")
    with Environment(crd_paths=generated_crds()) as env:
        yield env


@pytest.fixture
async def client(plane: Environment) -> AsyncIterator[rt.Client]:
    options = rt.ClientOptions(qps=0)
    async with rt.Client.from_kubeconfig(plane.kube_config(), options=options) as c:
        yield c


@pytest.fixture
async def ns(client: rt.Client, request: pytest.FixtureRequest) -> str:
    name = f"o-{request.node.name.removeprefix('test_')[:40].replace('_', '-')}"
    await client.create(Namespace(metadata=ObjectMeta(name=name)))
    return name


@pytest.fixture
async def operators(
    plane: Environment, ns: str, tmp_path: Path
) -> AsyncIterator[Callable[..., Awaitable[OperatorProcess]]]:
    """Starts operator processes for the test's namespace; stops what is left."""
    started: list[OperatorProcess] = []

    async def start(**environment: str) -> OperatorProcess:
        log = tmp_path / f"operator-{len(started)}.log"
        process = OperatorProcess(plane.kubeconfig_path, ns, log, **environment)
        started.append(process)
        return await process.start()

    try:
        yield start
    finally:
        for process in started:
            await process.stop()
        if not plane.apiserver_running:
            await plane.astart_apiserver()


async def retrying(write: Callable[[], Awaitable[T]]) -> T:
    """A test-side write while the API server may be restarting: retried until answered."""
    while True:
        try:
            return await write()
        except rt.TransportError:
            pass
        except rt.ApiError as error:
            if error.code < 500 and error.code != 429:
                raise
        await asyncio.sleep(0.1)


def converged(obj: Widget, configs: dict[str, ConfigMap]) -> bool:
    """The operator's work on `obj` is done: finalizer, ConfigMap, status."""
    meta = obj.metadata
    config = configs.get(f"{meta.name}-config")
    status = obj.status
    return (
        FINALIZER in (meta.finalizers or [])
        and config is not None
        and config.data
        == {"message": obj.spec.message, "replicas": str(obj.spec.replicas)}
        and status is not None
        and status.observed_generation == meta.generation
        and rt.conditions.is_true(status.conditions, "Ready")
    )


async def state(
    client: rt.Client, ns: str
) -> tuple[list[Widget], dict[str, ConfigMap]]:
    widgets = list(await client.uncached.list(Widget, ns))
    configs = {
        str(c.metadata.name): c
        for c in await client.uncached.list(ConfigMap, ns)
        if c.metadata is not None and str(c.metadata.name).endswith("-config")
    }
    return widgets, configs


async def converged_count(client: rt.Client, ns: str) -> int:
    widgets, configs = await state(client, ns)
    return sum(converged(w, configs) for w in widgets)


def noise(log: str) -> list[str]:
    return [
        line
        for line in log.splitlines()
        if any(word in line for word in (" ERROR ", "CRITICAL", "Traceback"))
    ]


async def test_after_a_sigkill_midway_a_new_process_converges_the_rest(
    client: rt.Client, ns: str, operators: Callable[..., Awaitable[OperatorProcess]]
) -> None:
    """300 Widgets; the operator is killed (SIGKILL) once a third have converged.
    The next process converges the rest: one ConfigMap per Widget, none without
    its owner, and not a single write to what had converged already."""
    total = 300
    await asyncio.gather(
        *(client.create(widget(f"w{i:03}", ns, message=f"m{i}")) for i in range(total))
    )
    first = await operators()

    async def a_third() -> bool:
        return await converged_count(client, ns) >= total // 3

    await until_async(a_third, "a third of the Widgets to converge")
    first.kill()
    assert await first.stop() == -9
    widgets, configs = await state(client, ns)
    done = {
        str(w.metadata.name): (
            w.metadata.resource_version,
            configs[f"{w.metadata.name}-config"],
        )
        for w in widgets
        if converged(w, configs)
    }
    assert total // 3 <= len(done) < total, "killed midway"

    second = await operators()

    async def all_of_them() -> bool:
        return await converged_count(client, ns) == total

    await until_async(all_of_them, "every Widget to converge")
    widgets, configs = await state(client, ns)
    by_uid = {w.metadata.uid: str(w.metadata.name) for w in widgets}
    assert sorted(configs) == sorted(f"w{i:03}-config" for i in range(total))
    for name, config in configs.items():
        assert config.metadata is not None
        owners = config.metadata.owner_references or []
        assert [by_uid.get(o.uid) for o in owners] == [name.removesuffix("-config")]
    for w in widgets:
        name = str(w.metadata.name)
        if name in done:
            version, config = done[name]
            assert w.metadata.resource_version == version, f"{name} was written again"
            now = configs[f"{name}-config"]
            assert now.metadata is not None and config.metadata is not None
            assert now.metadata.resource_version == config.metadata.resource_version
    assert noise(second.log()) == []


async def test_an_api_server_restart_amid_creates_and_deletes_loses_no_delete(
    plane: Environment,
    client: rt.Client,
    ns: str,
    operators: Callable[..., Awaitable[OperatorProcess]],
) -> None:
    operator = await operators()
    for i in range(30):
        await client.create(widget(f"w{i:02}", ns))

    async def thirty() -> bool:
        return await converged_count(client, ns) == 30

    await until_async(thirty, "the first 30 Widgets to converge")
    doomed = [f"w{i:02}" for i in range(20)]

    async def writes() -> None:
        for i, name in enumerate(doomed[:10]):
            await retrying(lambda name=name: client.delete(widget(name, ns)))  # type: ignore[misc]
            await retrying(lambda i=i: client.create(widget(f"n{i:02}", ns)))  # type: ignore[misc]

    # creates and deletes while the API server restarts under them
    await asyncio.gather(writes(), plane.arestart_apiserver())
    for name in doomed[10:]:  # and right after, while the operator reconnects
        await retrying(lambda name=name: client.delete(widget(name, ns)))  # type: ignore[misc]

    async def settled() -> bool:
        widgets, configs = await state(client, ns)
        names = sorted(str(w.metadata.name) for w in widgets)
        return names == sorted(
            [f"w{i:02}" for i in range(20, 30)] + [f"n{i:02}" for i in range(10)]
        ) and all(converged(w, configs) for w in widgets)

    await until_async(settled, "deletes done, creates converged")
    cleaned = {line.split()[1] for line in operator.said("cleaned ")}
    assert cleaned == set(doomed), "every deleted Widget was cleaned up, once gone"
    assert noise(operator.log()) == []


async def test_conflicting_writers_are_retried_quietly(
    client: rt.Client, ns: str, operators: Callable[..., Awaitable[OperatorProcess]]
) -> None:
    """Another writer keeps changing the ConfigMaps the operator owns while their
    Widgets change: the operator's stale updates get 409s, which it retries without
    a word at ERROR, until everything converges."""
    operator = await operators(WORKERS="8")
    names = [f"w{i:02}" for i in range(20)]
    for name in names:
        await client.create(widget(name, ns, message="v0"))

    async def all_converged() -> bool:
        return await converged_count(client, ns) == len(names)

    await until_async(all_converged, "the Widgets to converge")
    for round_ in itertools.count(1):
        await asyncio.gather(
            *(
                client.patch(widget(n, ns), {"spec": {"message": f"v{round_}"}})
                for n in names
            ),
            *(
                client.patch(
                    ConfigMap(metadata=ObjectMeta(name=f"{n}-config", namespace=ns)),
                    {"data": {"message": f"other-{round_}"}},
                )
                for n in names
            ),
        )
        conflicts = await operator.metric(
            "controller_runtime_reconcile_total", controller="widget", result="requeue"
        )
        if conflicts >= 3:
            break
        assert round_ < 200, "no conflict provoked in 200 rounds"
    await until_async(all_converged, "convergence after the conflicts")
    assert noise(operator.log()) == []


async def test_a_cleanup_that_keeps_failing_backs_off_then_completes(
    client: rt.Client,
    ns: str,
    tmp_path: Path,
    operators: Callable[..., Awaitable[OperatorProcess]],
) -> None:
    gate = tmp_path / "external-resource-released"
    operator = await operators(CLEANUP_GATE=str(gate))
    await client.create(widget("stuck", ns))

    async def has_finalizer() -> bool:
        obj = await client.uncached.get(Widget, "stuck", ns)
        return FINALIZER in (obj.metadata.finalizers or [])

    await until_async(has_finalizer, "the finalizer")
    await client.delete(widget("stuck", ns))
    failures = 9
    await operator.wait_for("cleanup-failed stuck", failures)
    still = await client.uncached.get(Widget, "stuck", ns)
    assert still.metadata.deletion_timestamp is not None, "held back by the finalizer"
    times = [float(line.split()[2]) for line in operator.said("cleanup-failed stuck")]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # each retry waited at least its backoff, 5 ms doubling (lower bounds only)
    for i, gap in enumerate(gaps):
        assert gap >= 0.005 * 2**i * 0.9, f"retries back off: {gaps}"

    gate.touch()  # the external resource can be released now
    await operator.wait_for("cleaned stuck")

    async def gone() -> bool:
        try:
            await client.uncached.get(Widget, "stuck", ns)
        except rt.NotFound:
            return True
        return False

    await until_async(gone, "the Widget to go")


async def test_a_manager_started_while_the_api_server_is_down_waits_then_converges(
    plane: Environment,
    client: rt.Client,
    ns: str,
    operators: Callable[..., Awaitable[OperatorProcess]],
) -> None:
    for i in range(5):
        await client.create(widget(f"w{i}", ns))
    await plane.astop_apiserver()
    operator = await operators()
    assert (await operator.http(operator.probe_port, "/healthz"))[0] == 200

    async def failed_lists(count: int) -> bool:
        return (
            await operator.metric("rest_client_requests_total", code="<error>") >= count
        )

    await until_async(lambda: failed_lists(2), "two requests without an answer")
    status, body = await operator.http(operator.probe_port, "/readyz")
    assert status == 500 and "informers not synced" in body
    assert not operator.exited

    await plane.astart_apiserver()

    async def five() -> bool:
        return await converged_count(client, ns) == 5

    await until_async(five, "convergence once the API server is back")
    assert (await operator.http(operator.probe_port, "/readyz"))[0] == 200
    assert noise(operator.log()) == []


async def test_an_outage_is_one_line_per_failure_and_memory_stays_flat(
    plane: Environment,
    client: rt.Client,
    ns: str,
    tmp_path: Path,
    operators: Callable[..., Awaitable[OperatorProcess]],
) -> None:
    """Writes are pending when the API server goes away: every failed reconcile is
    one line without a traceback, each failed request is counted, memory stays
    flat while they retry, and all converges once the server is back."""
    hold = tmp_path / "hold"
    operator = await operators(HOLD_GATE=str(hold))
    names = [f"w{i:02}" for i in range(20)]
    for name in names:
        await client.create(widget(name, ns, message="v1"))

    async def all_converged() -> bool:
        return await converged_count(client, ns) == len(names)

    await until_async(all_converged, "the Widgets to converge")
    hold.touch()
    for name in names:
        await client.patch(widget(name, ns), {"spec": {"message": "v2"}})
    await operator.wait_for("holding ", 4)  # every worker holds a pending write
    await plane.astop_apiserver()
    hold.unlink()

    async def errors(count: int) -> bool:
        return (
            await operator.metric(
                "controller_runtime_reconcile_errors_total", controller="widget"
            )
            >= count
        )

    await until_async(lambda: errors(40), "40 failed reconciles")
    before = operator.rss_kib()
    await until_async(lambda: errors(240), "240 failed reconciles")
    after = operator.rss_kib()
    assert after - before < 10 * 1024, f"RSS grew from {before} to {after} KiB"

    await plane.astart_apiserver()
    await until_async(all_converged, "convergence once the API server is back")
    failed = await operator.metric(
        "controller_runtime_reconcile_errors_total", controller="widget"
    )
    log = operator.log()
    lines = [
        line
        for line in log.splitlines()
        if " opgen.runtime.controller reconcile " in line and " failed: " in line
    ]
    assert len(lines) == failed, "one line per failed reconcile"
    assert all(line.endswith("; retrying with backoff") for line in lines)
    assert any("cannot connect to the API server" in line for line in lines)
    assert "Traceback" not in log
    no_answer = await operator.metric("rest_client_requests_total", code="<error>")
    assert no_answer >= failed, "every request without an answer is counted"
