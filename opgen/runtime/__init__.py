"""opgen's controller runtime: controller-runtime's semantics in asyncio, on aiohttp.

Import it as `from opgen import runtime as rt`. Its surface is `__all__`, and
only `__all__`: the names reconcilers, `main.py` and tests use, and the
submodules among them (`rt.status`, `rt.webhook`, ...). tests/runtime/
test_surface.py pins it. Every other module is internal: its names may change
in any release, and nothing a project writes or opgen scaffolds imports it
(docs/runtime.md, "The surface").

Public submodules:

    conditions, finalizers, owner   helpers for reconcilers
    status        a custom resource's reconcile with its status kept: finalizer, cleanup,
                  observedGeneration, Ready/Progressing/Degraded, write only on change
    predicates    which events reconcile (generation-changed by default)
    typed         generic typed clients that generated per-kind clients subclass
    webhook       admission (defaulting, validation) and conversion webhooks over HTTPS
    flags, logs   a manager's command line: Kubebuilder's flags, zap's logging flags
    seams         protocols a test double provides: Transport, Reader, Writer

Internal modules, one concept each:

    reconcile     Request, Result, Reconciler, TerminalError: the contract
    resources     what the runtime knows about a kind (your kinds, op.k8s's built-in ones)
    kubeconfig    kubeconfig files, in-cluster config and credentials (exec plugins)
    transport     the HTTP client (aiohttp): keep-alive pool, TLS, proxies, 401 refresh
    rest          requests for kinds: URLs, QPS/burst, field manager, request counts
    errors        NotFound, Conflict, AlreadyExists, Invalid, Gone (typed API errors); TransportError
                  (NoCluster, no kubeconfig or no answer at start, and ConfigError, its base:
                  credentials that cannot be used, come from kubeconfig)
    decoding, construct   stored JSON → objects: validated once, copied on read; DecodeError
    store         cached objects (JSON bytes + metadata) and indexes
    informer      reflector: chunked list → watch with bookmarks → relist-and-diff on 410
    cache         informers by kind; cached get/list; per-kind selectors
    freshness     read-your-writes: cached reads wait (briefly) for this client's own writes
    timeouts      a deadline on a coroutine that never loses a cancellation (asyncio.wait_for can)
    workqueue, ratelimit   dedup, delaying heap, rate-limited retries; never two
                  workers on one key
    controller, hotloop   For/Owns/Watches → queue → bounded workers; hot loops noticed
    client, reader   cached reads, writes, apply, status; `client.uncached`; `Page`
    manager, leaderelection   runs it all: probes, metrics, Lease leader election,
                  graceful SIGTERM; its options grouped: MetricsOptions, ProbeOptions,
                  LeaderElectionConfig, CacheOptions, ClientOptions, ShardingOptions
    sharding      reconciles sharded across replicas: member Leases, objects in
                  slots, a leader-run assigner of slots, the handover by claims
    probes, serving, tls, metrics, metricsauth   its HTTP/1.1 servers (aiohttp); HTTPS
                  certificates; Prometheus metrics; who may read /metrics
    writes, applied, events, selectors   create-or-update, apply-if-changed,
                  retry-on-conflict; the events.k8s.io/v1 recorder; label selectors

Each name loads its module on first use (`rt.Client` imports the client, and
with it aiohttp). So a module that imports the runtime and uses it only in
functions, as a reconciler does, costs nothing until one runs: `opgen generate`
imports every reconciler and webhook handler for its markers, and loads none of
the HTTP stack, Prometheus or the web server. The `TYPE_CHECKING` imports below
are what type checkers and editors read; `_EXPORTS` is the same table for the
interpreter (tests/runtime/test_surface.py holds them equal).

The client's convention (`rt.Client` and the typed clients alike): reads take
the kind and name, writes take the object and refresh it in place, lists
return a `Page`, options are keyword-only. Every write is recorded under
`ClientOptions.field_manager`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from opgen.engine.importing import collector_paused

if TYPE_CHECKING:
    from opgen.runtime import (
        conditions,
        finalizers,
        flags,
        logs,
        owner,
        predicates,
        seams,
        status,
        typed,
        webhook,
    )
    from opgen.runtime.applied import apply_if_changed
    from opgen.runtime.cache import Cache, CacheOptions, KindSelection
    from opgen.runtime.client import Client, Preconditions
    from opgen.runtime.controller import (
        Controller,
        ControllerOptions,
        For,
        Owns,
        Watches,
    )
    from opgen.runtime.decoding import DecodeError, FieldProblem
    from opgen.runtime.errors import (
        AlreadyExists,
        ApiError,
        Conflict,
        Gone,
        Invalid,
        NotFound,
        TransportError,
    )
    from opgen.runtime.events import EventRecorder
    from opgen.runtime.kubeconfig import ConfigError, NoCluster
    from opgen.runtime.leaderelection import LeaderElectionConfig, LeaderElector
    from opgen.runtime.manager import (
        LeaderElectionLost,
        Manager,
        ManagerOptions,
        MetricsOptions,
        ProbeOptions,
        ShardMembershipLost,
        WebhookOptions,
    )
    from opgen.runtime.reader import Page
    from opgen.runtime.reconcile import (
        FuncReconciler,
        Reconciler,
        Request,
        Result,
        TerminalError,
    )
    from opgen.runtime.rest import ClientOptions
    from opgen.runtime.seams import Reader
    from opgen.runtime.sharding.protocol import ShardingOptions
    from opgen.runtime.writes import Operation, create_or_update, retry_on_conflict

_EXPORTS: dict[str, str] = {
    "apply_if_changed": "opgen.runtime.applied",
    "Cache": "opgen.runtime.cache",
    "CacheOptions": "opgen.runtime.cache",
    "KindSelection": "opgen.runtime.cache",
    "Client": "opgen.runtime.client",
    "Preconditions": "opgen.runtime.client",
    "Controller": "opgen.runtime.controller",
    "ControllerOptions": "opgen.runtime.controller",
    "For": "opgen.runtime.controller",
    "Owns": "opgen.runtime.controller",
    "Watches": "opgen.runtime.controller",
    "DecodeError": "opgen.runtime.decoding",
    "FieldProblem": "opgen.runtime.decoding",
    "AlreadyExists": "opgen.runtime.errors",
    "ApiError": "opgen.runtime.errors",
    "Conflict": "opgen.runtime.errors",
    "Gone": "opgen.runtime.errors",
    "Invalid": "opgen.runtime.errors",
    "NotFound": "opgen.runtime.errors",
    "TransportError": "opgen.runtime.errors",
    "EventRecorder": "opgen.runtime.events",
    "ConfigError": "opgen.runtime.kubeconfig",
    "NoCluster": "opgen.runtime.kubeconfig",
    "LeaderElectionConfig": "opgen.runtime.leaderelection",
    "LeaderElector": "opgen.runtime.leaderelection",
    "LeaderElectionLost": "opgen.runtime.manager",
    "Manager": "opgen.runtime.manager",
    "ManagerOptions": "opgen.runtime.manager",
    "MetricsOptions": "opgen.runtime.manager",
    "ProbeOptions": "opgen.runtime.manager",
    "ShardMembershipLost": "opgen.runtime.manager",
    "WebhookOptions": "opgen.runtime.manager",
    "Page": "opgen.runtime.reader",
    "Reader": "opgen.runtime.seams",
    "FuncReconciler": "opgen.runtime.reconcile",
    "Reconciler": "opgen.runtime.reconcile",
    "Request": "opgen.runtime.reconcile",
    "Result": "opgen.runtime.reconcile",
    "TerminalError": "opgen.runtime.reconcile",
    "ClientOptions": "opgen.runtime.rest",
    "ShardingOptions": "opgen.runtime.sharding.protocol",
    "Operation": "opgen.runtime.writes",
    "create_or_update": "opgen.runtime.writes",
    "retry_on_conflict": "opgen.runtime.writes",
}
"""Where each class and function of the surface is defined: loaded on first use."""

_SUBMODULES = frozenset(
    {
        "conditions",
        "finalizers",
        "flags",
        "logs",
        "owner",
        "predicates",
        "seams",
        "status",
        "typed",
        "webhook",
    }
)
"""The public submodules, loaded on first use like the names."""


if not TYPE_CHECKING:
    # Hidden from type checkers: they would take every name, a misspelt one
    # too, as Any. They read the imports above instead.

    def __getattr__(name: str) -> object:
        # The collector paused: a first name loads much of the runtime and
        # aiohttp, which it would walk midway (opgen.engine.importing).
        if name in _SUBMODULES:
            with collector_paused():
                return importlib.import_module(f"{__name__}.{name}")
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        with collector_paused():
            value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "AlreadyExists",
    "ApiError",
    "Cache",
    "CacheOptions",
    "Client",
    "ClientOptions",
    "ConfigError",
    "Conflict",
    "Controller",
    "ControllerOptions",
    "DecodeError",
    "EventRecorder",
    "FieldProblem",
    "For",
    "FuncReconciler",
    "Gone",
    "Invalid",
    "KindSelection",
    "LeaderElectionConfig",
    "LeaderElectionLost",
    "LeaderElector",
    "Manager",
    "ManagerOptions",
    "MetricsOptions",
    "NoCluster",
    "NotFound",
    "Operation",
    "Owns",
    "Page",
    "Preconditions",
    "ProbeOptions",
    "Reader",
    "Reconciler",
    "Request",
    "Result",
    "ShardMembershipLost",
    "ShardingOptions",
    "TerminalError",
    "TransportError",
    "Watches",
    "WebhookOptions",
    "apply_if_changed",
    "conditions",
    "create_or_update",
    "finalizers",
    "flags",
    "logs",
    "owner",
    "predicates",
    "retry_on_conflict",
    "seams",
    "status",
    "typed",
    "webhook",
]
