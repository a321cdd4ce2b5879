"""The relist probe of the runtime benchmark: one opgen informer relisting after a 410.

Run by bench.py with KUBECONFIG and BENCH_NAMESPACE. The conversation on
stdin/stdout, one line each:

1. syncs an informer of the namespace's Widgets; prints JSON
   {"synced_seconds", "rss_kib"};
2. on `stop`: stops the informer (it keeps its resourceVersion); prints `stopped`.
   The driver now deletes one Widget, creates another, restarts the API server
   and waits until its watch cache serves Widgets again, so the informer's
   resourceVersion is older than the new watch cache;
3. on `go` (followed by the deleted and the created name): resets the peak-RSS
   mark (/proc/self/clear_refs), runs the informer again and waits until the
   relist has emitted the missed delete and create; prints JSON
   {"relist_seconds", "peak_rss_kib", "rss_kib", "gone_restarts",
   "error_restarts", "objects"}.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from benchmarks.runtime._proc_status import peak_rss_kib, reset_peak_rss, rss_kib
from opgen import runtime as rt
from opgen.runtime.informer import Event, Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from tests.runtime.helpers import sample
from tests.runtime.kinds import Widget


async def read_line() -> str:
    line: str = await asyncio.to_thread(sys.stdin.readline)
    return line.strip()


async def main() -> None:
    rest = RestClient.from_kubeconfig(os.environ["KUBECONFIG"], rt.ClientOptions(qps=0))
    rtype = resource_type(Widget)
    informer = Informer(rest, rtype, namespaces=(os.environ["BENCH_NAMESPACE"],))
    seen: list[tuple[str, str]] = []

    def record(event: Event) -> None:
        seen.append((event.type, event.new.name))

    informer.add_handler(record)
    started = time.monotonic()
    task = asyncio.create_task(informer.run())
    await informer.wait_for_sync()
    synced = time.monotonic() - started
    print(json.dumps({"synced_seconds": synced, "rss_kib": rss_kib()}))
    sys.stdout.flush()

    if await read_line() != "stop":
        raise SystemExit("expected `stop`")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    print("stopped", flush=True)

    command, deleted, created = (await read_line()).split()
    if command != "go":
        raise SystemExit("expected `go DELETED CREATED`")
    seen.clear()
    wanted = {("DELETED", deleted), ("ADDED", created)}
    reset_peak_rss()
    started = time.monotonic()
    task = asyncio.create_task(informer.run())
    while not wanted <= set(seen):
        await asyncio.sleep(0.01)
    relisted = time.monotonic() - started
    result = {
        "relist_seconds": relisted,
        "peak_rss_kib": peak_rss_kib(),
        "rss_kib": rss_kib(),
        **{
            f"{reason}_restarts": sample(
                rest.metrics,
                "opgen_watch_restarts_total",
                kind=str(rtype),
                reason=reason,
            )
            for reason in ("gone", "error")
        },
        "objects": len(informer.store),
    }
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await rest.aclose()
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
