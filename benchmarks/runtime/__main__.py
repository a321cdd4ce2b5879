"""Benchmark: opgen's runtime against kopf on the same API server.

    python -m benchmarks.runtime [--objects 1000] [--skip-kopf]

Starts one etcd + kube-apiserver (envtest binaries), then for each operator
(in its own process, in its own namespace): creates N Widgets, waits until
every Widget has its owned ConfigMap and a status with observedGeneration and
a Ready condition, and reports wall time to convergence, the operator's API
requests and writes (from the API server's own `apiserver_request_total`,
minus the driver's requests), and the operator's peak RSS. kopf runs from a
separate virtualenv (`KOPF_PYTHON`, default /tmp/kopfvenv/bin/python, with
kopf and lightkube installed); it is never an opgen dependency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2

from opgen import runtime as rt
from opgen.runtime.informer import Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from tests.runtime import conftest
from tests.runtime._controlplane import ControlPlane
from tests.runtime.kinds import Widget, widget

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
WRITE_VERBS = {"POST", "PUT", "PATCH", "DELETE", "APPLY"}


def server_requests(plane: ControlPlane) -> Counter[str]:
    """apiserver_request_total summed by verb, resource requests only."""
    text = httpx2.get(
        f"{plane.server}/metrics",
        headers={"Authorization": f"Bearer {plane.token}"},
        verify=False,
        timeout=10,
    ).text
    counts: Counter[str] = Counter()
    for line in text.splitlines():
        if not line.startswith("apiserver_request_total{"):
            continue
        labels, value = line.rsplit(" ", 1)
        if ',resource=""' in labels or '{resource=""' in labels:
            continue
        verb = labels.split('verb="', 1)[1].split('"', 1)[0]
        counts[verb] += int(float(value))
    return counts


def converged(widgets: Informer, configs: Informer, n: int) -> bool:
    if len(widgets.store) < n or len(configs.store) < n:
        return False
    for entry in widgets.store:
        status = entry.to_dict().get("status") or {}
        if status.get("observedGeneration") != entry.generation or not status.get(
            "conditions"
        ):
            return False
    return True


async def run_one(
    plane: ControlPlane, label: str, command: list[str], n: int
) -> dict[str, Any]:
    namespace = f"bench-{label}-{secrets.token_hex(3)}"
    lk = conftest.make_client(plane)
    rest = RestClient(lk, qps=0)
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap, Namespace

    await lk.create(Namespace(metadata=ObjectMeta(name=namespace)))
    env = {
        **os.environ,
        "KUBECONFIG": str(plane.kubeconfig_path),
        "BENCH_NAMESPACE": namespace,
        "PYTHONPATH": str(ROOT),
    }
    proc = await asyncio.create_subprocess_exec(
        *command,
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    if line.strip() != b"ready":
        raise RuntimeError(f"{label} operator did not start: {line!r}")
    await asyncio.sleep(1.0)
    widgets = Informer(rest, resource_type(Widget), namespaces=(namespace,))
    configs = Informer(rest, resource_type(ConfigMap), namespaces=(namespace,))
    tasks = [asyncio.create_task(widgets.run()), asyncio.create_task(configs.run())]
    await widgets.wait_for_sync()
    await configs.wait_for_sync()
    before = server_requests(plane)
    driver_before = Counter(rest.counts)
    client = rt.Client(rest)
    started = time.monotonic()
    semaphore = asyncio.Semaphore(32)

    async def create(i: int) -> None:
        async with semaphore:
            await client.create(
                widget(f"w{i:05}", namespace, message=f"message {i}", replicas=i % 5)
            )

    await asyncio.gather(*(create(i) for i in range(n)))
    while not converged(widgets, configs, n):
        await asyncio.sleep(0.05)
    elapsed = time.monotonic() - started
    await asyncio.sleep(3.0)  # let trailing writes (if any) land before counting
    after = server_requests(plane)
    driver = Counter(rest.counts) - driver_before
    proc.terminate()
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    stats = json.loads(out.decode().strip().splitlines()[-1])
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    delta = after - before
    total = sum(delta.values()) - sum(v for k, v in driver.items() if k != "watch")
    writes = sum(v for k, v in delta.items() if k in WRITE_VERBS) - driver["create"]
    await lk.close()
    return {
        "label": label,
        "seconds": elapsed,
        "throughput": n / elapsed,
        "requests": total,
        "writes": writes,
        "writes_per_object": writes / n,
        "peak_rss_mib": stats["peak_rss_kib"] / 1024,
        "by_verb": dict(delta),
    }


def report(results: list[dict[str, Any]], n: int) -> None:
    print(f"\n{n} Widgets -> one owned ConfigMap + status each, same kube-apiserver\n")
    print(
        f"{'':28}"
        + "".join(f"{r['label']:>14}" for r in results)
        + ("       ratio" if len(results) == 2 else "")
    )
    rows = [
        ("wall time to convergence (s)", "seconds", "{:14.2f}", False),
        ("throughput (objects/s)", "throughput", "{:14.1f}", True),
        ("API requests", "requests", "{:14d}", False),
        ("writes", "writes", "{:14d}", False),
        ("writes per object", "writes_per_object", "{:14.2f}", False),
        ("peak RSS (MiB)", "peak_rss_mib", "{:14.1f}", False),
    ]
    for title, key, fmt, higher_better in rows:
        line = f"{title:28}" + "".join(fmt.format(r[key]) for r in results)
        if len(results) == 2 and results[1][key]:
            ratio = results[0][key] / results[1][key]
            line += f"   {ratio:7.2f}x" + (
                " (higher is better)" if higher_better else " (lower is better)"
            )
        print(line)
    for r in results:
        print(f"  {r['label']} requests by verb: {dict(sorted(r['by_verb'].items()))}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--skip-kopf", action="store_true")
    args = parser.parse_args()
    kopf_python = os.environ.get("KOPF_PYTHON", "/tmp/kopfvenv/bin/python")
    plane = ControlPlane().start()
    try:
        plane.install_crds([ROOT / "tests/runtime/crds/test.opgen.dev.yaml"])
        results = [
            await run_one(
                plane,
                "opgen",
                [sys.executable, str(HERE / "opgen_operator.py")],
                args.objects,
            )
        ]
        if not args.skip_kopf:
            if not Path(kopf_python).exists():
                print(f"kopf comparison skipped: {kopf_python} not found (python -m venv /tmp/kopfvenv && "
                      "/tmp/kopfvenv/bin/pip install kopf lightkube)")  # fmt: skip
            else:
                results.append(
                    await run_one(
                        plane,
                        "kopf",
                        [kopf_python, str(HERE / "kopf_operator.py")],
                        args.objects,
                    )
                )
        report(results, args.objects)
    finally:
        plane.stop()


if __name__ == "__main__":
    asyncio.run(main())
