"""Benchmark: client CPU per GET against a real kube-apiserver, the hand-written
HTTP/1.1 client that opgen used to carry beside the aiohttp transport.

    python -m benchmarks http_client [-- --gets 3000 --concurrency 16 --runs 3]

Starts one envtest control plane and creates a ConfigMap. Each run sends
`--gets` GETs of it, `--concurrency` at a time over keep-alive connections
(TLS, the admin's client certificate), with each client in turn: the
hand-written client (`opgen/runtime/http1.py` as of `OLD_COMMIT`, the last
commit that had it, loaded from git) and `opgen.runtime.transport.Transport`
(aiohttp). A client's cost is the process CPU time (user + system) of its
GETs divided by their number; the API server and etcd run in processes of
their own and are not counted. Each run warms each client with one round
first. Figures: median (min-max) over the runs, in microseconds per GET.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType

from opgen.runtime import kubeconfig
from opgen.runtime.transport import MAX_CONNECTIONS, Transport
from opgen.testing import Environment

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "f481899"
"""The last commit with the hand-written client (opgen/runtime/http1.py)."""
NAMESPACE = "default"
NAME = "bench"

Get = Callable[[], Awaitable[int]]


def old_client() -> ModuleType:
    """opgen/runtime/http1.py as of OLD_COMMIT, imported as a module of its own."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:opgen/runtime/http1.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_http1.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_http1", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_http1"] = module
    spec.loader.exec_module(module)
    return module


async def hammer(get: Get, gets: int, concurrency: int) -> float:
    """CPU seconds per GET for `gets` GETs, `concurrency` at a time."""
    remaining = gets

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            status = await get()
            assert status == 200, status

    started = time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return (time.process_time() - started) / gets


async def measure(
    env: Environment, gets: int, concurrency: int, runs: int
) -> dict[str, list[float]]:
    config = env.kube_config()
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps/{NAME}"
    transport = Transport.from_kubeconfig(config)
    body = {"metadata": {"name": NAME}, "data": {"key": "value"}}
    created = await transport.send(
        "POST",
        f"/api/v1/namespaces/{NAMESPACE}/configmaps",
        body=json.dumps(body).encode(),
    )
    assert created.status in (201, 409), created.body

    http1 = old_client()
    connection = kubeconfig.connection(kubeconfig.load_config(config))
    server = connection.server.removeprefix("https://")
    host, _, port = server.partition(":")
    pool = http1.Pool(
        http1.Origin("https", host, int(port)),
        connection.ssl_context,
        max_connections=MAX_CONNECTIONS,
        timeout=30.0,
    )
    headers = b"Accept: application/json\r\nUser-Agent: opgen-runtime\r\n"

    async def old_get() -> int:
        status, _ = await pool.request("GET", path, headers)
        return int(status)

    async def new_get() -> int:
        return (await transport.send("GET", path)).status

    clients: dict[str, Get] = {
        "hand-written HTTP/1.1 client": old_get,
        "aiohttp (opgen.runtime.transport)": new_get,
    }
    results: dict[str, list[float]] = {name: [] for name in clients}
    try:
        for _ in range(runs):
            for name, get in clients.items():
                await hammer(get, concurrency * 10, concurrency)  # warm the pool
                results[name].append(await hammer(get, gets, concurrency))
    finally:
        await pool.aclose()
        await transport.aclose()
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks.http_client")
    parser.add_argument("--gets", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv or [])
    with Environment() as env:
        results = asyncio.run(measure(env, args.gets, args.concurrency, args.runs))
    print(
        f"client CPU per GET: {args.gets} GETs, {args.concurrency} concurrent, "
        f"{args.runs} runs side by side; median (min-max)"
    )
    print()
    print("| client | CPU per GET |")
    print("|---|---|")
    for name, seconds in results.items():
        micro = [s * 1e6 for s in seconds]
        print(
            f"| {name} | {statistics.median(micro):,.0f} µs "
            f"({min(micro):,.0f}-{max(micro):,.0f}) |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
