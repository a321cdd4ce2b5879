"""Shared helpers for runtime tests that run a manager against the API server."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, TypedDict

from opgen import api as op
from opgen import runtime as rt
from opgen import testing
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import resource_type
from opgen.runtime.transport import Transport
from opgen.testing import Environment, running_manager


async def eventually(
    check: Callable[[], object], timeout: float = 10.0, message: str = ""
) -> None:
    """`opgen.testing.eventually` (a sync or async `check`), polled every 20 ms."""
    await testing.eventually(
        check, timeout=timeout, interval=0.02, message=message or "the condition"
    )


def closed(manager: rt.Manager) -> bool:
    """Whether the manager's transport, the HTTP one a kubeconfig gives, is closed."""
    transport = manager.rest.transport
    assert isinstance(transport, Transport)
    return transport.closed


def sample(metrics: Metrics, name: str, **labels: str) -> float:
    """The current value of one metric sample (0 when it was never set)."""
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


async def token_for(client: rt.Client, name: str, namespace: str) -> str:
    """A token of a new service account `name` (a TokenRequest on its `token` subresource)."""
    await client.create(
        op.k8s.ServiceAccount(metadata=op.ObjectMeta(name=name, namespace=namespace))
    )
    request = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"audiences": []},
    }
    answer = await client.rest.request(
        "create",
        resource_type(op.k8s.ServiceAccount),
        name=name,
        namespace=namespace,
        subresource="token",
        body=json.dumps(request).encode(),
    )
    token: str = json.loads(answer)["status"]["token"]
    return token


def kubeconfig_for(envtest: Environment, user: dict[str, Any]) -> dict[str, Any]:
    """The envtest kubeconfig (server, CA) with other credentials: `user` is a
    kubeconfig `user` entry, e.g. {"token": ...}, {"tokenFile": ...}, {"exec": ...}."""
    config = copy.deepcopy(envtest.kubeconfig)
    for entry in config["users"]:
        entry["user"] = user
    return config


class LeaseTimings(TypedDict):
    """A `LeaderElectionConfig`'s timings, to spread into one (`**timings`)."""

    lease_duration: float
    renew_deadline: float
    retry_period: float


LOCAL_METRICS = rt.MetricsOptions(bind_address="127.0.0.1:0", secure=False)
LOCAL_PROBES = rt.ProbeOptions(bind_address="127.0.0.1:0")
TEST_CLIENT = rt.ClientOptions(qps=200.0, burst=400)


def manager_for(
    envtest: Environment,
    namespace: str | None,
    *,
    leader_election: rt.LeaderElectionConfig | None = None,
    metrics: rt.MetricsOptions = LOCAL_METRICS,
) -> rt.Manager:
    """A manager on the test's control plane: servers on free loopback ports, plain
    HTTP metrics, a generous client-side rate limit, the cache on `namespace`."""
    cache = rt.CacheOptions(namespaces=[namespace] if namespace is not None else None)
    options = rt.ManagerOptions(
        metrics=metrics,
        probes=LOCAL_PROBES,
        leader_election=leader_election,
        cache=cache,
        client=TEST_CLIENT,
    )
    return rt.Manager(envtest.kube_config(), options)


running = running_manager
"""Run a manager for a block of a test (`opgen.testing.running_manager`)."""
