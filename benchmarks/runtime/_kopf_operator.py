"""The kopf side of the benchmark: the same Widget operator, written the kopf way.

Runs in a separate virtualenv with kopf and lightkube (kopf is not an opgen
dependency). One handler for create/update/resume creates the owned ConfigMap
(kopf.adopt) and sets the same status (replicas, observedGeneration, a Ready
condition) through kopf's patch. Event posting is off so that only the
reconcile work is compared. Prints `ready`, `reconciled` once BENCH_EXPECT
handler calls are done (when set), and on exit its peak RSS (VmHWM), CPU time and
handler call count.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import resource
import signal
import threading
from typing import Any

import _kopf_login  # noqa: F401  (registers the login handler; beside this file)
import _proc_status  # beside this file: the kopf virtualenv has no opgen
import kopf
import lightkube
from lightkube.config.kubeconfig import KubeConfig
from lightkube.core.exceptions import ApiError
from lightkube.resources.core_v1 import ConfigMap

NAMESPACE = os.environ["BENCH_NAMESPACE"]
EXPECT = int(os.environ.get("BENCH_EXPECT", "0"))
_client: lightkube.AsyncClient | None = None
_reconciles = 0


def client() -> lightkube.AsyncClient:
    global _client
    if _client is None:
        _client = lightkube.AsyncClient(KubeConfig.from_file(os.environ["KUBECONFIG"]))
    return _client


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    settings.posting.enabled = False
    settings.persistence.finalizer = "bench.opgen.dev/kopf"


@kopf.on.create("test.opgen.dev", "v1", "widgets")
@kopf.on.update("test.opgen.dev", "v1", "widgets")
@kopf.on.resume("test.opgen.dev", "v1", "widgets")
async def reconcile(
    spec: kopf.Spec,
    meta: kopf.Meta,
    name: str,
    namespace: str | None,
    body: kopf.Body,
    patch: kopf.Patch,
    **_: Any,
) -> None:
    data = {
        "message": spec.get("message", ""),
        "replicas": str(spec.get("replicas", 1)),
    }
    child = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{name}-config", "namespace": namespace},
        "data": data,
    }
    kopf.adopt(child, owner=body)
    try:
        await client().create(ConfigMap.from_dict(child))
    except ApiError as exc:
        if exc.status.code != 409:
            raise
        await client().patch(
            ConfigMap, f"{name}-config", {"data": data}, namespace=namespace
        )
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    patch.status["replicas"] = spec.get("replicas", 1)
    patch.status["observedGeneration"] = meta.get("generation")
    patch.status["conditions"] = [
        {
            "type": "Ready",
            "status": "True",
            "reason": "ConfigMapReady",
            "message": "the ConfigMap is up to date",
            "observedGeneration": meta.get("generation"),
            "lastTransitionTime": now,
        }
    ]
    global _reconciles
    _reconciles += 1
    if _reconciles == EXPECT:
        print("reconciled", flush=True)


def main() -> None:
    stop = threading.Event()

    def on_term(*_: object) -> None:
        stop.set()

    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(
            kopf.operator(
                standalone=True,
                namespaces=[NAMESPACE],
                stop_flag=stop,
                ready_flag=ready,
                clusterwide=False,
            )
        )

    signal.signal(signal.SIGTERM, on_term)
    thread = threading.Thread(target=run)
    thread.start()
    ready.wait()
    print("ready", flush=True)
    thread.join()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "peak_rss_kib": _proc_status.peak_rss_kib(),
                "cpu_seconds": usage.ru_utime + usage.ru_stime,
                "reconciles": _reconciles,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
