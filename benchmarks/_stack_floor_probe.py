"""The mandated stack alone doing the benchmark operator's job, with no opgen code
(benchmarks/stack_floor.py runs it as an operator of benchmarks/runtime).

Imports aiohttp and Pydantic (what opgen's runtime must import), lists the
namespace's Widgets and ConfigMaps with aiohttp and decodes them with `json`,
prints `ready`, then watches both from the lists' resourceVersions and, for
every listed Widget, sends the two writes opgen's operator sends: the owned
ConfigMap (POST) and the status (a merge patch of /status), 32 at a time on a
pool of 32 connections, as opgen's transport does. Every watch event and write
answer is decoded with `json` and nothing else happens: no models, no queue, no
cache index. The store holds the objects as dicts (BENCH_FLOOR_STORE=dicts) or
as their JSON bytes (`json`, the smallest faithful form: opgen's store keeps
the JSON too); BENCH_FLOOR_CONNECTIONS sets the writes' pool (default 32, as
opgen's; the watches have one connection each); BENCH_FLOOR_TLS_BUFFER, when
set, the bytes asyncio's TLS layer reads at once and keeps per connection (its
`SSLProtocol.max_size`, 256 KiB by default; opgen's transport sets one record);
BENCH_FLOOR_STACK=1 loads the rest of the mandated stack before the imports'
reading (`load_the_rest_of_the_stack`). On SIGTERM it prints one JSON line: CPU and RSS after the
imports, at `ready`, in all, and the peak RSS (VmHWM), in the runtime
benchmark's keys.

The driver passes the API server's URL and the admin's certificate files
(BENCH_SERVER, BENCH_CERTS: ca.crt, client.crt, client.key), as an operator in
a pod reads a service account's files, so no kubeconfig (and no YAML) is read.
"""

from __future__ import annotations

import resource
import sys
import time


def usage() -> tuple[float, int]:
    """CPU seconds so far and the current RSS in KiB."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return ru.ru_utime + ru.ru_stime, pages * resource.getpagesize() // 1024


import asyncio  # noqa: E402  (after `usage`: these imports are what is measured)
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import ssl  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import aiohttp  # noqa: E402
from pydantic import BaseModel  # noqa: E402  (opgen's models need it loaded)

from benchmarks.runtime._proc_status import peak_rss_kib  # noqa: E402


def load_the_rest_of_the_stack() -> None:
    """What else any operator on this stack loads (BENCH_FLOOR_STACK=1): the
    metrics library, a Pydantic model built and one object validated (Pydantic
    loads its plugin machinery, `importlib.metadata`, at the first validator)
    and RE2 with one pattern compiled (patterns are judged as the API server
    judges them); msgspec, the CEL engine and opgen's own modules are not."""
    import prometheus_client
    import re2  # type: ignore[import-untyped]

    class Probe(BaseModel):
        name: str

    Probe.model_validate({"name": "probe"})
    re2.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    prometheus_client.Counter("probe_total", "A counter, as a manager's metrics hold.")


if os.environ.get("BENCH_FLOOR_STACK"):
    load_the_rest_of_the_stack()
IMPORTED = usage()
WIDGETS = "/apis/test.opgen.dev/v1/namespaces/{ns}/widgets"
CONFIGMAPS = "/api/v1/namespaces/{ns}/configmaps"
WORKERS = 32


class Floor:
    def __init__(
        self, server: str, certs: Path, namespace: str, store: str, connections: int
    ) -> None:
        self.server = server
        self.connections = connections
        self.namespace = namespace
        self.as_json = store == "json"
        self.context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
        self.context.load_cert_chain(certs / "client.crt", certs / "client.key")
        self.store: dict[tuple[str, str, str], Any] = {}
        self.events = 0
        self.rewatches = 0

    def session(self, limit: int) -> aiohttp.ClientSession:
        return aiohttp.ClientSession(
            base_url=self.server,
            connector=aiohttp.TCPConnector(limit=limit, ssl=self.context),
            headers={"Accept": "application/json"},
            cookie_jar=aiohttp.DummyCookieJar(),
        )

    def keep(self, kind: str, item: dict[str, Any], raw: bytes | None) -> None:
        meta = item["metadata"]
        key = (kind, meta["namespace"], meta["name"])
        if not self.as_json:
            self.store[key] = item
        else:
            self.store[key] = raw if raw is not None else json.dumps(item).encode()

    async def list(
        self, http: aiohttp.ClientSession, kind: str, path: str
    ) -> tuple[str, list[dict[str, Any]]]:
        """The list in pages of 500, as opgen's informer lists."""
        items: list[dict[str, Any]] = []
        params = {"limit": "500"}
        while True:
            async with http.get(path, params=params) as answer:
                answer.raise_for_status()
                page = json.loads(await answer.read())
            for item in page["items"]:
                self.keep(kind, item, None)
            items.extend(page["items"])
            if not page["metadata"].get("continue"):
                return page["metadata"]["resourceVersion"], items
            params = {"limit": "500", "continue": page["metadata"]["continue"]}

    async def watch(
        self, http: aiohttp.ClientSession, kind: str, path: str, version: str
    ) -> None:
        """Watch from `version`, again from the last version seen whenever the API
        server ends the watch (it drops a watcher that falls behind)."""
        endless = aiohttp.ClientTimeout(total=None, sock_read=None)
        while True:
            params = {
                "watch": "true",
                "allowWatchBookmarks": "true",
                "resourceVersion": version,
                "timeoutSeconds": "1800",
            }
            async with http.get(path, params=params, timeout=endless) as answer:
                answer.raise_for_status()
                async for line in answer.content:
                    event = json.loads(line)
                    item = event["object"]
                    version = item["metadata"]["resourceVersion"]
                    if event["type"] == "BOOKMARK":
                        continue
                    self.events += 1
                    if event["type"] == "DELETED":
                        meta = item["metadata"]
                        self.store.pop((kind, meta["namespace"], meta["name"]), None)
                    else:
                        self.keep(kind, item, line)
            self.rewatches += 1

    async def reconcile(
        self, http: aiohttp.ClientSession, gate: asyncio.Semaphore, w: dict[str, Any]
    ) -> None:
        meta, spec = w["metadata"], w["spec"]
        generation = meta.get("generation", 1)
        config = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": f"{meta['name']}-config",
                "namespace": self.namespace,
                "ownerReferences": [
                    {
                        "apiVersion": w["apiVersion"],
                        "kind": w["kind"],
                        "name": meta["name"],
                        "uid": meta["uid"],
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "data": {
                "message": spec.get("message", ""),
                "replicas": str(spec.get("replicas", 0)),
            },
        }
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        status = {
            "status": {
                "replicas": spec.get("replicas", 0),
                "observedGeneration": generation,
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "ConfigMapReady",
                        "message": "the ConfigMap is up to date",
                        "observedGeneration": generation,
                        "lastTransitionTime": now,
                    }
                ],
            }
        }
        async with gate:
            async with http.post(
                CONFIGMAPS.format(ns=self.namespace),
                data=json.dumps(config),
                headers={"Content-Type": "application/json"},
            ) as answer:
                json.loads(await answer.read())
            async with http.patch(
                WIDGETS.format(ns=self.namespace) + f"/{meta['name']}/status",
                data=json.dumps(status),
                headers={"Content-Type": "application/merge-patch+json"},
            ) as answer:
                json.loads(await answer.read())

    async def run(self, stop: asyncio.Event) -> dict[str, Any]:
        widgets = WIDGETS.format(ns=self.namespace)
        configs = CONFIGMAPS.format(ns=self.namespace)
        async with self.session(self.connections) as http, self.session(0) as streams:
            (widget_version, listed), (config_version, _) = await asyncio.gather(
                self.list(http, "Widget", widgets),
                self.list(http, "ConfigMap", configs),
            )
            ready = usage()
            print("ready", flush=True)
            watches = [
                asyncio.create_task(
                    self.watch(streams, "Widget", widgets, widget_version)
                ),
                asyncio.create_task(
                    self.watch(streams, "ConfigMap", configs, config_version)
                ),
            ]
            gate = asyncio.Semaphore(WORKERS)
            await asyncio.gather(*(self.reconcile(http, gate, w) for w in listed))
            await stop.wait()
            for task in watches:
                task.cancel()
            await asyncio.gather(*watches, return_exceptions=True)
        done = usage()
        return {
            "import_cpu_seconds": IMPORTED[0],
            "import_rss_kib": IMPORTED[1],
            "startup_cpu_seconds": ready[0],
            "ready_rss_kib": ready[1],
            "cpu_seconds": done[0],
            "peak_rss_kib": peak_rss_kib(),
            "objects": len(self.store),
            "events": self.events,
            "rewatches": self.rewatches,
        }


async def main() -> None:
    tls_buffer = os.environ.get("BENCH_FLOOR_TLS_BUFFER")
    if tls_buffer:
        # a class attribute asyncio's TLS protocol reads (3.11+), as opgen's transport sets it
        asyncio.sslproto.SSLProtocol.max_size = int(tls_buffer)  # type: ignore[attr-defined]
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    floor = Floor(
        os.environ["BENCH_SERVER"],
        Path(os.environ["BENCH_CERTS"]),
        os.environ["BENCH_NAMESPACE"],
        os.environ.get("BENCH_FLOOR_STORE", "dicts"),
        int(os.environ.get("BENCH_FLOOR_CONNECTIONS", str(WORKERS))),
    )
    stats = await floor.run(stop)
    print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
