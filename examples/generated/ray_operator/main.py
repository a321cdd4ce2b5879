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
    """The manager's command-line flags (Kubebuilder's names and defaults)."""
    parser = argparse.ArgumentParser(prog="ray-operator", description=__doc__)
    parser.add_argument(
        "--metrics-bind-address",
        default="0",
        help="Address the metrics endpoint binds to: ':8443' for HTTPS, ':8080' "
        "for HTTP, or '0' (the default) to disable it.",
    )
    parser.add_argument(
        "--metrics-secure",
        action=rt.flags.BoolFlag,
        default=True,
        help="Serve metrics over HTTPS, only to callers whose token the API server "
        "authenticates and allows to get /metrics (--metrics-secure=false: plain HTTP).",
    )
    parser.add_argument(
        "--health-probe-bind-address",
        default=":8081",
        help="Address the /healthz and /readyz probes bind to.",
    )
    parser.add_argument(
        "--leader-elect",
        action=rt.flags.BoolFlag,
        default=False,
        help="Elect a leader, so that only one replica of the manager is active.",
    )
    parser.add_argument(
        "--metrics-cert-path",
        default="",
        help="Folder holding the metrics server's certificate and key, reloaded when "
        "they change; without it the server generates a self-signed certificate.",
    )
    parser.add_argument(
        "--metrics-cert-name",
        default="tls.crt",
        help="Certificate file name in --metrics-cert-path.",
    )
    parser.add_argument(
        "--metrics-cert-key",
        default="tls.key",
        help="Key file name in --metrics-cert-path.",
    )
    parser.add_argument(
        "--webhook-port",
        type=int,
        default=9443,
        help="Port the webhook server listens on.",
    )
    parser.add_argument(
        "--webhook-cert-path",
        default="",
        help="Folder holding the webhook server's certificate and key, reloaded when "
        "they change; default: /tmp/k8s-webhook-server/serving-certs when it holds "
        "them, else a self-signed certificate the API server does not trust.",
    )
    parser.add_argument(
        "--webhook-cert-name",
        default="tls.crt",
        help="Certificate file name in --webhook-cert-path.",
    )
    parser.add_argument(
        "--webhook-cert-key",
        default="tls.key",
        help="Key file name in --webhook-cert-path.",
    )
    parser.add_argument(
        "--enable-http2",
        action=rt.flags.BoolFlag,
        default=False,
        help="Kubebuilder's flag, off as there (HTTP/2 Rapid Reset, CVE-2023-44487): "
        "the metrics, probe and webhook servers speak HTTP/1.1 only.",
    )
    rt.logs.add_flags(parser)
    args = parser.parse_args(argv)
    if args.enable_http2:
        parser.error("--enable-http2: opgen's servers speak HTTP/1.1 only")
    return args


def manager_options(args: argparse.Namespace) -> rt.ManagerOptions:
    """Manager settings from the flags."""
    return rt.ManagerOptions(
        metrics=rt.MetricsOptions(
            bind_address=args.metrics_bind_address,
            secure=args.metrics_secure,
            cert_path=args.metrics_cert_path or None,
            cert_name=args.metrics_cert_name,
            cert_key=args.metrics_cert_key,
        ),
        probes=rt.ProbeOptions(bind_address=args.health_probe_bind_address),
        webhook=rt.WebhookOptions(
            port=args.webhook_port,
            cert_path=args.webhook_cert_path or None,
            cert_name=args.webhook_cert_name,
            cert_key=args.webhook_cert_key,
        ),
        leader_election=(
            rt.LeaderElectionConfig(name="f40ac7d3.io") if args.leader_elect else None
        ),
    )


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
    except rt.NoCluster as error:
        # No kubeconfig, or its API server does not answer: one line, no traceback.
        raise SystemExit(f"error: {error}") from None
