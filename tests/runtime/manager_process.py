"""A manager process for the shutdown test: the sample Widget operator, run until SIGTERM.

Run as `python -m tests.runtime.manager_process` with `KUBECONFIG` and
`WIDGET_NAMESPACE` set (and `LEASE_NAME` to elect a leader on that Lease).
Logs go to stderr as a generated manager's do (`logging.basicConfig`); stdout
says `running` once `Manager.run()` has installed its signal handlers,
`campaigning` when it starts to wait for the Lease (with `LEASE_NAME`), and
`elected` once the controllers run.
"""

from __future__ import annotations

import asyncio
import logging
import os

from opgen import runtime as rt
from tests.runtime.sample import WidgetReconciler


def _say(line: str) -> None:
    print(line, flush=True)


async def main() -> None:
    lease = os.environ.get("LEASE_NAME", "")
    namespace = os.environ["WIDGET_NAMESPACE"]
    manager = rt.Manager.from_kubeconfig(
        os.environ["KUBECONFIG"],
        options=rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="127.0.0.1:0", secure=False),
            probes=rt.ProbeOptions(bind_address="127.0.0.1:0"),
            leader_election=(
                rt.LeaderElectionConfig(name=lease, namespace=namespace)
                if lease
                else None
            ),
            cache=rt.CacheOptions(namespaces=[namespace]),
        ),
    )
    WidgetReconciler(manager.client).setup(manager)

    async def announce_elected() -> None:
        await manager.elected.wait()
        _say("elected")

    manager.add_runnable(announce_elected)
    if lease:

        async def announce_campaign() -> None:
            _say("campaigning")  # started just before the manager asks for the Lease

        manager.add_runnable(announce_campaign, need_leader_election=False)
    # Runs once run() first yields, i.e. after it installed its signal handlers.
    asyncio.get_running_loop().call_soon(_say, "running")
    await manager.run()


if __name__ == "__main__":
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    asyncio.run(main())
