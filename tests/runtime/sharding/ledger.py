"""The sharding tests' reconciler and its ledger of who reconciled what, when.

`LedgerReconciler` gives each Widget one owned ConfigMap `<name>-child` (made
with `rt.owner.set_controller_reference`, so it carries its owner's slot
label) and writes nothing else. Around each reconcile of a Widget it holds it
tells its `Ledger` `start` and `end`, with the replica and a time; a test may
hold a reconcile at `gates[name]` to keep it in flight.

`check_exclusive` is what the tests assert on the ledger: no two replicas ever
had a reconcile of one object in flight at the same time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import ConfigMap
from tests.runtime.kinds import Widget


@dataclass(frozen=True)
class Interval:
    name: str
    replica: str
    start: float
    end: float


@dataclass
class Ledger:
    """Reconciles as they start and end; `path`: also appended to a file, a line each."""

    replica: str
    clock: Callable[[], float]
    path: Path | None = None
    lines: list[tuple[str, str, float]] = field(default_factory=list)

    def note(self, what: str, name: str) -> None:
        now = self.clock()
        self.lines.append((what, name, now))
        if self.path is not None:
            with self.path.open("a") as file:
                file.write(f"{what} {name} {self.replica} {now:.6f}\n")

    def intervals(self, *, until: float) -> list[Interval]:
        return intervals(self.replica, self.lines, until=until)


def intervals(
    replica: str, lines: Iterable[tuple[str, str, float]], *, until: float
) -> list[Interval]:
    """Each reconcile's interval; one that never ended (its replica was killed)
    lasts `until`."""
    open_: dict[str, float] = {}
    found: list[Interval] = []
    for what, name, at in lines:
        if what == "start":
            open_[name] = at
        else:
            found.append(Interval(name, replica, open_.pop(name), at))
    found.extend(Interval(name, replica, at, until) for name, at in open_.items())
    return found


def read_ledger(path: Path, *, until: float) -> list[Interval]:
    lines: list[tuple[str, str, float]] = []
    replica = ""
    for line in path.read_text().splitlines():
        what, name, replica, at = line.split()
        lines.append((what, name, float(at)))
    return intervals(replica, lines, until=until)


def overlaps(found: Iterable[Interval]) -> list[tuple[Interval, Interval]]:
    """Pairs of reconciles of one object by two replicas whose intervals overlap."""
    by_name: dict[str, list[Interval]] = {}
    for interval in found:
        by_name.setdefault(interval.name, []).append(interval)
    clashes = []
    for runs in by_name.values():
        runs.sort(key=lambda i: i.start)
        for i, first in enumerate(runs):
            for second in runs[i + 1 :]:
                if second.start >= first.end:
                    break
                if second.replica != first.replica:
                    clashes.append((first, second))
    return clashes


class LedgerReconciler:
    def __init__(self, client: rt.Client, ledger: Ledger) -> None:
        self.client = client
        self.ledger = ledger
        self.gates: dict[str, asyncio.Event] = {}

    async def reconcile(self, request: rt.Request) -> rt.Result:
        try:
            widget = await self.client.get(Widget, request.name, request.namespace)
        except rt.NotFound:
            return rt.Result()
        self.ledger.note("start", request.name)
        try:
            gate = self.gates.get(request.name)
            if gate is not None:
                await gate.wait()
            name = f"{request.name}-child"
            try:
                await self.client.get(ConfigMap, name, request.namespace)
            except rt.NotFound:
                child = ConfigMap(
                    metadata=ObjectMeta(name=name, namespace=request.namespace),
                    data={"owner": request.name},
                )
                rt.owner.set_controller_reference(widget, child)
                with contextlib.suppress(rt.AlreadyExists):
                    await self.client.create(child, refresh=False)
        finally:
            self.ledger.note("end", request.name)
        return rt.Result()

    def setup(self, manager: rt.Manager, *, workers: int = 4) -> None:
        manager.add_controller(
            rt.Controller(
                "widget",
                for_=rt.For(Widget),
                owns=[rt.Owns(ConfigMap)],
                reconciler=self,
                options=rt.ControllerOptions(max_concurrent_reconciles=workers),
            )
        )
