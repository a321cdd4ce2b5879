"""Where the benchmark operator's resident memory goes before its first object.

    python -m benchmarks.runtime._import_rss               # per stage
    python -m benchmarks.runtime._import_rss --modules 40  # and per module

Run it as a fresh interpreter (each stage's figure is the growth of `VmRSS`
after the stages above it; the first row holds this script's own imports): the stack (`asyncio` and `ssl`, Pydantic),
`opgen.api`, the runtime's lazy names, the sample's kinds, the sample
reconciler (which names `op.k8s.ConfigMap`: core/v1), then
`Manager.from_kubeconfig` with the benchmark's options and the controller set
up. No API server is needed: nothing connects before `run()`.

`--modules N` also lists the N modules whose import grew the resident set
most, each with its own growth (what its body did, without the modules it
imported), the growth with those, and the module that first imported it. A
figure under about 100 KiB is within a page or two of noise, and a module's
own growth includes what its body built and freed again (pymalloc keeps
touched arenas), so read them as where to look, not as a budget.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import os
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.runtime._proc_status import rss_kib

KUBECONFIG = """\
{"apiVersion": "v1", "kind": "Config", "current-context": "bench",
 "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1",
   "insecure-skip-tls-verify": true}}],
 "users": [{"name": "u", "user": {"token": "t"}}],
 "contexts": [{"name": "bench", "context": {"cluster": "c", "user": "u"}}]}
"""
"""A kubeconfig nothing will connect to; JSON, as a pod's would not load PyYAML."""


@dataclass
class Imported:
    """A module's import: its own resident growth, and with what it imported."""

    name: str
    parent: str | None
    own_kib: int = 0
    total_kib: int = 0
    nested_kib: int = field(default=0, repr=False)


class _Loader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader, record: Imported, tracker: Tracker):
        self.inner = inner
        self.record = record
        self.tracker = tracker

    def create_module(
        self, spec: importlib.machinery.ModuleSpec
    ) -> types.ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.tracker.run(self.record, lambda: self.inner.exec_module(module))


class Tracker(importlib.abc.MetaPathFinder):
    """Wraps every module loader found after it is installed, to time its body in KiB."""

    def __init__(self) -> None:
        self.records: list[Imported] = []
        self._running: list[Imported] = []

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: importlib.machinery.ModuleSpec | None = finder.find_spec(
                fullname, path, target
            )
            if spec is None:
                continue
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                parent = self._running[-1].name if self._running else None
                record = Imported(fullname, parent)
                spec.loader = _Loader(spec.loader, record, self)
            return spec
        return None

    def run(self, record: Imported, body: Callable[[], None]) -> None:
        before = rss_kib()
        self._running.append(record)
        try:
            body()
        finally:
            self._running.pop()
            record.total_kib = rss_kib() - before
            record.own_kib = record.total_kib - record.nested_kib
            if self._running:
                self._running[-1].nested_kib += record.total_kib
            self.records.append(record)


def stages(kubeconfig: Path) -> list[tuple[str, int, int]]:
    """(stage, VmRSS in KiB after it, modules loaded) for each stage, in order."""
    rows: list[tuple[str, int, int]] = [
        ("the interpreter", rss_kib(), len(sys.modules))
    ]

    def stage(name: str) -> None:
        rows.append((name, rss_kib(), len(sys.modules)))

    import asyncio
    import ssl  # noqa: F401

    stage("asyncio, ssl")
    import pydantic.main  # noqa: F401

    stage("pydantic (imported)")
    import opgen.api  # noqa: F401

    stage("opgen.api (and Pydantic's first model)")
    from opgen import runtime as rt

    stage("opgen.runtime (its names load on first use)")
    import tests.runtime.kinds  # noqa: F401

    stage("the sample's kinds")
    from tests.runtime.sample import WidgetReconciler

    stage("the sample reconciler (op.k8s.ConfigMap: core/v1)")

    async def build() -> None:
        manager = rt.Manager.from_kubeconfig(
            str(kubeconfig),
            options=rt.ManagerOptions(
                metrics=rt.MetricsOptions(bind_address="0"),
                probes=rt.ProbeOptions(bind_address="0"),
                cache=rt.CacheOptions(namespaces=["bench"]),
                client=rt.ClientOptions(qps=1000.0, burst=2000),
            ),
        )
        stage("Manager.from_kubeconfig")
        WidgetReconciler(manager.client).setup(manager, max_concurrent_reconciles=32)
        stage("the controller set up")
        await manager.rest.aclose()

    asyncio.run(build())
    return rows


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.runtime._import_rss")
    parser.add_argument(
        "--modules", type=int, default=0, help="also list the N largest imports"
    )
    args = parser.parse_args(argv)
    tracker = Tracker()
    if args.modules:
        sys.meta_path.insert(0, tracker)
    # not `tempfile`: it imports modules the stages below would otherwise load
    kubeconfig = Path(f"/tmp/opgen-import-rss-{os.getpid()}.json")
    kubeconfig.write_text(KUBECONFIG)
    try:
        rows = stages(kubeconfig)
    finally:
        kubeconfig.unlink()
    previous = rows[0][1]
    print(f"{'stage':52} {'VmRSS':>9} {'growth':>9} {'modules':>8}")
    for name, kib, modules in rows:
        print(
            f"{name:52} {kib / 1024:8.1f}M {(kib - previous) / 1024:+8.2f}M {modules:8}"
        )
        previous = kib
    if args.modules:
        print(f"\n{'own KiB':>8} {'with imports':>13}  module  <- first imported by")
        largest = sorted(tracker.records, key=lambda r: -r.own_kib)[: args.modules]
        for record in largest:
            print(
                f"{record.own_kib:8} {record.total_kib:13}  {record.name}"
                f"  <- {record.parent or '(a stage)'}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
