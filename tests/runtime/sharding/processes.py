"""Replicas of the sharded operator (`operator.py`) in processes of their own, and
what the envtest proof and the benchmark read of the cluster."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.rest import RestClient
from tests.runtime.kinds import Widget

ROOT = Path(__file__).resolve().parents[3]
WIDGETS = resource_type(Widget)


class ReplicaProcess:
    def __init__(
        self,
        shard: str,
        kubeconfig: Path,
        namespace: str,
        folder: Path,
        *,
        env: dict[str, str] | None = None,
        root: Path = ROOT,
    ) -> None:
        self.shard = shard
        self.env = env or {}
        """More environment variables for the process (`operator.py` reads some)."""
        self.root = root
        """The source tree it runs (`opgen` and `tests` are imported from there)."""
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.ledger = folder / f"ledger-{shard}"
        self.log = folder / f"log-{shard}"
        self.process: asyncio.subprocess.Process | None = None
        self.killed_at: float | None = None
        self.metrics_port = 0

    async def start(self, *, wait: bool = True) -> ReplicaProcess:
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.runtime.sharding.operator", cwd=self.root,
                env={**os.environ, **self.env, "KUBECONFIG": str(self.kubeconfig),
                     "WIDGET_NAMESPACE": self.namespace, "SHARD": self.shard,
                     "LEDGER": str(self.ledger)},
                stdout=asyncio.subprocess.PIPE, stderr=log,
            )  # fmt: skip
        self.metrics_port = int((await self._line("metrics ")).split()[1])
        if wait:
            await self._line("ready")
        return self

    async def _line(self, prefix: str) -> str:
        assert self.process is not None and self.process.stdout is not None
        async for raw in self.process.stdout:
            line = raw.decode().strip()
            if line.startswith(prefix):
                return line
        raise AssertionError(f"{self.shard} exited:\n{self.log.read_text()[-3000:]}")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.pid}/status").read_text()
        (line,) = [x for x in status.splitlines() if x.startswith("VmRSS:")]
        return int(line.split()[1])

    def kill(self, now: float) -> None:
        assert self.process is not None
        self.killed_at = now
        self.process.send_signal(signal.SIGKILL)

    async def stop(self) -> int | None:
        process = self.process
        if process is None or process.returncode is not None:
            return None if process is None else process.returncode
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 180.0)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
        return process.returncode


async def create_widgets(
    rest: RestClient, namespace: str, count: int, *, first: int = 0
) -> None:
    """Widgets `w<first>`, `w<first + 1>`, ...: `count` of them, 50 at a time."""

    async def one(i: int) -> None:
        body = {"apiVersion": WIDGETS.api_version, "kind": "Widget",
                "metadata": {"name": f"w{i:05d}", "namespace": namespace},
                "spec": {"message": f"widget {i}"}}  # fmt: skip
        await rest.request(
            "create", WIDGETS, namespace=namespace, body=json.dumps(body).encode()
        )

    last = first + count
    for start in range(first, last, 50):
        await asyncio.gather(*(one(i) for i in range(start, min(last, start + 50))))


async def list_all(rest: RestClient, cls: type, namespace: str) -> list[dict[str, Any]]:
    rtype: ResourceType[Any] = resource_type(cls)
    params: dict[str, Any] = {"limit": 500}
    found: list[dict[str, Any]] = []
    while True:
        page = json.loads(
            await rest.request("list", rtype, namespace=namespace, params=params)
        )
        found.extend(page.get("items") or ())
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return found
        params["continue"] = token
