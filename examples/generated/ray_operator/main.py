# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Entry point of the ray-operator manager: flags, controllers, run until SIGTERM.

`opgen create api` wires new controllers, and `opgen create webhook` new
webhooks, in between the `+opgen:scaffold` markers; the rest of this file is
yours. Set ENABLE_WEBHOOKS=false to run the manager without its webhooks.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from collections.abc import Sequence

from opgen import runtime as rt

# isort: off
# +opgen:scaffold:imports
from ray_operator.controller.raycluster_controller import RayClusterReconciler
from ray_operator.webhook.v1 import raycluster_webhook as raycluster_v1_webhook

# +opgen:scaffold:imports:end
# isort: on

log = logging.getLogger("ray_operator")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The manager's command line: Kubebuilder's flags and zap's (`rt.flags`)."""
    parser = argparse.ArgumentParser(prog="ray-operator", description=__doc__)
    rt.flags.add_manager_flags(parser)
    return parser.parse_args(argv)


def manager_options(args: argparse.Namespace) -> rt.ManagerOptions:
    """Manager settings from the flags."""
    return rt.ManagerOptions.from_flags(args, leader_election_id="f40ac7d3.io")


def setup_controllers(manager: rt.Manager) -> None:
    """Register every controller with the manager."""
    # +opgen:scaffold:controllers
    RayClusterReconciler(manager.client).setup(manager)
    # +opgen:scaffold:controllers:end


def setup_webhooks(manager: rt.Manager) -> None:
    """Register every webhook with the manager's webhook server (the tests call it too)."""
    # +opgen:scaffold:webhooks
    raycluster_v1_webhook.setup(manager)
    # +opgen:scaffold:webhooks:end


async def run(args: argparse.Namespace) -> None:
    """Build the manager, register the controllers and webhooks, and run until SIGTERM."""
    manager = rt.Manager.from_env(manager_options(args))
    await manager.check_cluster()
    setup_controllers(manager)
    if os.environ.get("ENABLE_WEBHOOKS") != "false":
        setup_webhooks(manager)
    log.info("starting manager")
    await manager.run()


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point."""
    args = parse_args(argv)
    rt.logs.configure(rt.logs.LogOptions.from_flags(args))
    try:
        asyncio.run(run(args))
    except rt.ConfigError as error:
        # No kubeconfig, an API server that does not answer (rt.NoCluster), or
        # credentials that cannot be used: one line, no traceback.
        raise SystemExit(f"error: {error}") from None
