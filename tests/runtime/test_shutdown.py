"""SIGTERM at any moment of a manager's life: exit 0, and no ERROR or traceback in its log.

The manager runs in its own process (`manager_process.py`, the sample operator
with a generated manager's logging), so the signal, the exit code and the log
are the real ones. Moments: right after `run()` installed its signal handlers
(while the servers start and the informers list), a few delays into the start,
once the controllers run, and while waiting for a Lease another replica holds.
The delays only vary the moment: no assertion depends on what was reached by then.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import signal
import sys
from pathlib import Path

import pytest

from opgen import api as op
from opgen import runtime as rt
from opgen.testing import Environment

pytestmark = [pytest.mark.envtest, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
EXIT_TIMEOUT = 30.0


async def _run_and_terminate(
    envtest: Environment, namespace: str, moment: float | str, lease: str = ""
) -> tuple[int | None, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.runtime.manager_process",
        cwd=ROOT,
        env={
            **os.environ,
            "KUBECONFIG": str(envtest.kubeconfig_path),
            "WIDGET_NAMESPACE": namespace,
            "LEASE_NAME": lease,
        },
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    stderr = asyncio.create_task(process.stderr.read())
    try:
        first = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)
        assert first == b"running\n", (first, await stderr)
        if isinstance(moment, str):  # a line the process prints: "elected", ...
            line = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)
            assert line == f"{moment}\n".encode(), (line, await stderr)
        else:
            assert isinstance(moment, float)
            await asyncio.sleep(moment)
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), EXIT_TIMEOUT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return code, (await stderr).decode(errors="replace")


def _noise(log: str) -> list[str]:
    return [
        line
        for line in log.splitlines()
        if any(word in line for word in ("ERROR", "CRITICAL", "Traceback"))
    ]


@pytest.mark.parametrize("moment", [0.0, 0.01, 0.05, 0.2, "elected"])
async def test_sigterm_at_any_moment_exits_0_quietly(
    envtest: Environment, namespace: str, moment: float | str
) -> None:
    code, log = await _run_and_terminate(envtest, namespace, moment)
    assert code == 0, log
    assert not _noise(log), log
    if moment == "elected":
        assert "starting 1 workers" in log
        # Shutdown says what it does, step by step, as startup does.
        for line in (
            "SIGTERM received: stopping the manager",
            "shutting down: reconciles in flight get up to 30 s to finish",
            "manager stopped",
        ):
            assert line in log, log


async def test_sigterm_while_waiting_for_the_lease_exits_0_quietly(
    envtest: Environment, namespace: str, client: rt.Client
) -> None:
    now = datetime.datetime.now(datetime.timezone.utc)
    await client.create(
        op.k8s.Lease(
            metadata=op.ObjectMeta(name="held", namespace=namespace),
            spec=op.k8s.LeaseSpec(
                holder_identity="another-replica",
                lease_duration_seconds=3600,
                acquire_time=now,
                renew_time=now,
            ),
        )
    )
    code, log = await _run_and_terminate(
        envtest, namespace, "campaigning", lease="held"
    )
    assert code == 0, log
    assert not _noise(log), log
    assert "trying to acquire lease" in log and "acquired lease" not in log
