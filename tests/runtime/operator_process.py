"""Running `outage_operator.py` in its own process, and watching it from outside.

`OperatorProcess` starts the operator with a kubeconfig and a namespace, reads
what it prints (`lines`, `wait_for`), reads its `/metrics`, `/healthz` and
`/readyz` over HTTP, its RSS from /proc, and its log (stderr, kept in a file);
`kill()` is SIGKILL, `stop()` SIGTERM and wait.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from tests.waiting import GUARD

ROOT = Path(__file__).resolve().parents[2]


class OperatorProcess:
    def __init__(
        self,
        kubeconfig: Path,
        namespace: str,
        log: Path,
        **environment: str,
    ) -> None:
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.log_path = log
        self.environment = environment
        self.lines: list[str] = []
        self._changed = asyncio.Condition()
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self.probe_port = 0
        self.metrics_port = 0

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    async def start(self) -> OperatorProcess:
        """Start the process and wait until it serves its probes and metrics."""
        with self.log_path.open("ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.runtime.outage_operator",
                cwd=ROOT,
                env={
                    **os.environ,
                    "KUBECONFIG": str(self.kubeconfig),
                    "WIDGET_NAMESPACE": self.namespace,
                    **self.environment,
                },
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
        self._reader = asyncio.create_task(self._read())
        self.probe_port = int((await self.wait_for("probes ")).split()[1])
        self.metrics_port = int((await self.wait_for("metrics ")).split()[1])
        return self

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        async for raw in self._process.stdout:
            async with self._changed:
                self.lines.append(raw.decode().rstrip("\n"))
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()

    def said(self, prefix: str) -> list[str]:
        """Every line printed so far that starts with `prefix`."""
        return [line for line in self.lines if line.startswith(prefix)]

    async def wait_for(
        self, prefix: str, count: int = 1, *, check: Callable[[], bool] | None = None
    ) -> str:
        """The `count`th line starting with `prefix` (waiting for it)."""

        def ready() -> bool:
            return len(self.said(prefix)) >= count or self.exited

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(ready), GUARD)
        found = self.said(prefix)
        assert len(found) >= count, f"the operator exited:\n{self.log()[-3000:]}"
        return found[count - 1]

    @property
    def exited(self) -> bool:
        return self._process is None or self._process.returncode is not None

    async def http(self, port: int, path: str) -> tuple[int, str]:
        async with (
            aiohttp.ClientSession() as client,
            client.get(f"http://127.0.0.1:{port}{path}") as answer,
        ):
            return answer.status, await answer.text()

    async def metric(self, name: str, **labels: str) -> float:
        """The sum of the samples of `name` whose labels include `labels`."""
        _, text = await self.http(self.metrics_port, "/metrics")
        total = 0.0
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == name and all(
                    sample.labels.get(k) == v for k, v in labels.items()
                ):
                    total += sample.value
        return total

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.pid}/status").read_text()
        (line,) = [x for x in status.splitlines() if x.startswith("VmRSS:")]
        return int(line.split()[1])

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no shutdown at all."""
        assert self._process is not None
        self._process.send_signal(signal.SIGKILL)

    async def stop(self) -> int | None:
        """SIGTERM, then wait for the exit (SIGKILL after the guard); the exit code."""
        process = self._process
        if process is None:
            return None
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), GUARD)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()
        if self._reader is not None:
            await self._reader
        return process.returncode
