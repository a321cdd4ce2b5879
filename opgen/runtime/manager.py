"""The manager: one process's cache, controllers, probes, metrics and leader election.

`run()` serves `/healthz` and `/readyz` (informers synced, watches fresh) and
`/metrics` on every replica, starts the informers of every kind the
controllers watch, and — once this replica leads, when leader election is on
— the controllers and other leader-only runnables. SIGTERM (or `stop()`)
drains: controllers stop taking work, in-flight reconciles finish (up to
`graceful_shutdown_timeout`), the Lease is released, then everything stops.
Losing the Lease stops the controllers and makes `run()` raise
`LeaderElectionLost`, so the process exits and restarts as a follower.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import lightkube

from opgen.runtime import probes, tls
from opgen.runtime.cache import Cache, CacheOptions
from opgen.runtime.client import DEFAULT_FIELD_MANAGER, Client
from opgen.runtime.controller import Controller
from opgen.runtime.leaderelection import (
    LeaderElectionConfig,
    LeaderElector,
    default_identity,
)
from opgen.runtime.metrics import Metrics
from opgen.runtime.metricsauth import MetricsAuth
from opgen.runtime.rest import RestClient, lightkube_client, quiet_request_logs

__all__ = ["LeaderElectionLost", "Manager", "ManagerOptions"]

log = logging.getLogger("opgen.runtime.manager")

_IN_CLUSTER_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")

Runnable = Callable[[], Awaitable[None]]


class LeaderElectionLost(RuntimeError):
    """This replica stopped being the leader while running."""


@dataclass(frozen=True)
class ManagerOptions:
    """Manager settings; defaults match controller-runtime's where it has one."""

    metrics_bind_address: str = ":8080"
    """Where `/metrics` is served; "0" disables. Default ":8080"."""
    metrics_secure: bool = False
    """Serve `/metrics` over HTTPS, only to callers whose bearer token the API server
    authenticates (TokenReview) and allows `get` on `/metrics` (SubjectAccessReview).
    Default False (the generated manager's `--metrics-secure` defaults to True)."""
    metrics_cert_path: str | None = None
    """Folder with the metrics server's certificate and key (reloaded when they change);
    None: a self-signed certificate generated at start. Used with metrics_secure."""
    metrics_cert_name: str = "tls.crt"
    """Certificate file name in metrics_cert_path. Default "tls.crt"."""
    metrics_cert_key: str = "tls.key"
    """Key file name in metrics_cert_path. Default "tls.key"."""
    health_probe_bind_address: str = ":8081"
    """Where `/healthz` and `/readyz` are served; "0" disables. Default ":8081"."""
    leader_election: bool = False
    """Elect a leader through a Lease before starting controllers. Default False."""
    leader_election_id: str = ""
    """The Lease's name (required with leader_election)."""
    leader_election_namespace: str | None = None
    """The Lease's namespace; default: the pod's namespace in-cluster, else the kubeconfig's."""
    lease_duration: float = 15.0
    """Seconds a follower waits after the last renewal before taking over. Default 15."""
    renew_deadline: float = 10.0
    """Seconds the leader keeps trying to renew before stepping down. Default 10."""
    retry_period: float = 2.0
    """Seconds between acquire/renew attempts. Default 2."""
    release_lease_on_stop: bool = True
    """Release the Lease on a clean shutdown so a successor takes over at once. Default True."""
    identity: str | None = None
    """This replica's holder identity; default `<hostname>_<uuid>`."""
    namespaces: Sequence[str] | None = None
    """Namespaces the cache watches (namespaced kinds); None: all. Default None."""
    cache: CacheOptions = field(default_factory=CacheOptions)
    """Per-kind selectors and watch timings (its `namespaces` is overridden by the field above when set)."""
    qps: float = 20.0
    """Client-side request rate limit (token bucket refill per second). Default 20."""
    burst: int = 30
    """Client-side burst. Default 30."""
    field_manager: str = DEFAULT_FIELD_MANAGER
    """Field manager for server-side apply and writes. Default "opgen"."""
    graceful_shutdown_timeout: float = 30.0
    """Seconds in-flight reconciles get to finish on shutdown. Default 30."""
    cache_sync_timeout: float = 120.0
    """Seconds to wait for the initial lists before giving up. Default 120."""


class Manager:
    """Runs caches, controllers and servers until stopped."""

    def __init__(
        self, client: lightkube.AsyncClient, options: ManagerOptions | None = None
    ) -> None:
        self.options = options or ManagerOptions()
        opts = self.options
        if opts.leader_election and not opts.leader_election_id:
            raise ValueError(
                "leader_election needs leader_election_id (the Lease name)"
            )
        quiet_request_logs()
        self.metrics = Metrics()
        self.rest = RestClient(
            client, qps=opts.qps, burst=opts.burst, metrics=self.metrics
        )
        cache_options = opts.cache
        if opts.namespaces is not None:
            cache_options = replace(cache_options, namespaces=tuple(opts.namespaces))
        self.cache = Cache(self.rest, cache_options)
        self.client = Client(self.rest, self.cache, field_manager=opts.field_manager)
        self.controllers: list[Controller] = []
        self._runnables: list[tuple[Runnable, bool]] = []
        self._healthz: dict[str, probes.Check] = {"ping": _ok}
        self._readyz: dict[str, probes.Check] = {"informers": self._informers_ready}
        self._stop = asyncio.Event()
        self.elected = asyncio.Event()
        self.elector: LeaderElector | None = None
        self.health_server: probes.ProbeServer | None = None
        self.metrics_server: probes.ProbeServer | None = None
        self.metrics_certificate: tls.ServingCertificate | None = None

    @classmethod
    def from_kubeconfig(
        cls,
        path: str | Path | None = None,
        *,
        context: str | None = None,
        options: ManagerOptions | None = None,
    ) -> Manager:
        """A manager for a kubeconfig file (default: in-cluster, $KUBECONFIG, ~/.kube/config)."""
        return cls(lightkube_client(path, context=context), options)

    @classmethod
    def from_env(cls, options: ManagerOptions | None = None) -> Manager:
        """A manager configured in-cluster (service account) or else from $KUBECONFIG/~/.kube/config."""
        return cls(lightkube_client(), options)

    def add_controller(self, controller: Controller) -> None:
        if any(c.name == controller.name for c in self.controllers):
            raise ValueError(f"a controller named {controller.name!r} is already added")
        self.controllers.append(controller)

    def add_runnable(
        self, runnable: Runnable, *, need_leader_election: bool = True
    ) -> None:
        """Run `runnable()` alongside the controllers (only on the leader unless told otherwise)."""
        self._runnables.append((runnable, need_leader_election))

    def add_healthz_check(self, name: str, check: probes.Check) -> None:
        self._healthz[name] = check

    def add_readyz_check(self, name: str, check: probes.Check) -> None:
        self._readyz[name] = check

    async def _informers_ready(self) -> None:
        pending = [
            str(i.rtype) for i in self.cache.informers.values() if not i.has_synced
        ]
        if pending:
            raise RuntimeError(f"informers not synced: {', '.join(pending)}")
        limit = 2 * self.cache.options.idle_timeout
        stale = [
            str(i.rtype) for i in self.cache.informers.values() if i.staleness() > limit
        ]
        if stale:
            raise RuntimeError(
                f"watches silent for over {limit:.0f}s: {', '.join(stale)}"
            )

    def stop(self) -> None:
        """Ask `run()` to drain and return."""
        self._stop.set()

    def _lease_namespace(self) -> str:
        if self.options.leader_election_namespace:
            return self.options.leader_election_namespace
        if _IN_CLUSTER_NAMESPACE.exists():
            return _IN_CLUSTER_NAMESPACE.read_text().strip()
        return self.rest.default_namespace

    async def _start_servers(self, background: list[asyncio.Task[Any]]) -> None:
        health = probes.parse_bind_address(self.options.health_probe_bind_address)
        if health is not None:
            routes = {
                "/healthz": probes.checks_route(self._healthz),
                "/readyz": probes.checks_route(self._readyz),
            }
            self.health_server = probes.ProbeServer(*health, routes)
            await self.health_server.start()
        metrics = probes.parse_bind_address(self.options.metrics_bind_address)
        if metrics is not None:

            async def scrape() -> probes.Response:
                return (
                    200,
                    "text/plain; version=0.0.4; charset=utf-8",
                    self.metrics.exposition(),
                )

            context = None
            guard = None
            if self.options.metrics_secure:
                self.metrics_certificate = tls.ServingCertificate(
                    self.options.metrics_cert_path,
                    cert_name=self.options.metrics_cert_name,
                    key_name=self.options.metrics_cert_key,
                    name="opgen-metrics",
                )
                context = self.metrics_certificate.context
                guard = MetricsAuth(self.rest)
                if not self.metrics_certificate.self_signed:
                    background.append(
                        asyncio.create_task(self.metrics_certificate.watch())
                    )
            self.metrics_server = probes.ProbeServer(
                *metrics, {"/metrics": scrape}, ssl_context=context, guard=guard
            )
            await self.metrics_server.start()

    async def _loop_lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            await asyncio.sleep(0.5)
            lag = max(0.0, loop.time() - started - 0.5)
            self.metrics.loop_lag.set(lag)
            if lag > 0.25:
                log.warning(
                    "event loop blocked for %.2fs: a reconciler is running blocking code",
                    lag,
                )

    async def run(self, *, install_signal_handlers: bool = True) -> None:
        """Run until `stop()` or SIGTERM/SIGINT; raises `LeaderElectionLost` if leadership is lost."""
        loop = asyncio.get_running_loop()
        signals = (signal.SIGTERM, signal.SIGINT) if install_signal_handlers else ()
        for sig in signals:
            loop.add_signal_handler(sig, self.stop)
        background: list[asyncio.Task[Any]] = [asyncio.create_task(self._loop_lag())]
        leader_tasks: list[asyncio.Task[Any]] = []
        lost = False
        try:
            await self._start_servers(background)
            for controller in self.controllers:
                for kind in controller.kinds():
                    self.cache.informer_for(kind)
            await self.cache.start()
            stop_wait = asyncio.create_task(self._stop.wait())
            background.append(stop_wait)
            if not await self._wait_or_stop(self._sync_caches(), stop_wait):
                return
            renewing: asyncio.Task[None] | None = None
            if self.options.leader_election:
                self.elector = LeaderElector(
                    self.rest,
                    LeaderElectionConfig(
                        name=self.options.leader_election_id,
                        namespace=self._lease_namespace(),
                        identity=self.options.identity or default_identity(),
                        lease_duration=self.options.lease_duration,
                        renew_deadline=self.options.renew_deadline,
                        retry_period=self.options.retry_period,
                    ),
                )
                self._start_group(leader_tasks, leader=False)
                if not await self._wait_or_stop(self.elector.acquire(), stop_wait):
                    return
                self.metrics.leader.labels(self.options.leader_election_id).set(1)
                renewing = asyncio.create_task(self.elector.keep_renewing())
                background.append(renewing)
                self._start_group(leader_tasks, leader=True)
            else:
                self._start_group(leader_tasks, leader=None)
            self.elected.set()
            lost = await self._until_stopped(stop_wait, renewing, leader_tasks)
        finally:
            await self._shutdown(leader_tasks, background, release=not lost)
            for sig in signals:
                loop.remove_signal_handler(sig)
        if lost:
            raise LeaderElectionLost(f"lost lease {self.options.leader_election_id}")

    @staticmethod
    async def _until_stopped(
        stop_wait: asyncio.Task[Any],
        renewing: asyncio.Task[None] | None,
        tasks: Sequence[asyncio.Task[Any]],
    ) -> bool:
        """Wait for a stop request or lost leadership (True); a task that fails is raised.

        A controller or runnable that returns is simply done: the manager goes on
        until it is stopped, as controller-runtime's does.
        """
        watched: set[asyncio.Task[Any]] = {stop_wait, *tasks}
        if renewing is not None:
            watched.add(renewing)
        while True:
            done, watched = await asyncio.wait(
                watched, return_when=asyncio.FIRST_COMPLETED
            )
            if renewing is not None and renewing in done:
                return True
            if stop_wait in done:
                return False
            for task in done:
                failure = None if task.cancelled() else task.exception()
                if failure is not None:
                    raise failure

    async def _sync_caches(self) -> None:
        timeout = self.options.cache_sync_timeout
        if not await self.cache.wait_for_sync(timeout):
            raise TimeoutError(f"informer caches did not sync within {timeout:.0f}s")

    @staticmethod
    async def _wait_or_stop(
        awaitable: Awaitable[None], stop_wait: asyncio.Task[Any]
    ) -> bool:
        """Await `awaitable` unless stop is requested first; False when stopped."""
        task = asyncio.ensure_future(awaitable)
        done, _ = await asyncio.wait(
            [task, stop_wait], return_when=asyncio.FIRST_COMPLETED
        )
        if task not in done:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return False
        task.result()
        return True

    def _start_group(
        self, tasks: list[asyncio.Task[Any]], *, leader: bool | None
    ) -> None:
        """Start controllers and runnables; leader=None starts all, else those whose need matches."""
        for controller in self.controllers:
            if leader is None or controller.need_leader_election == leader:
                tasks.append(
                    asyncio.create_task(
                        controller.run(self.cache, self.metrics),
                        name=f"controller {controller.name}",
                    )
                )
        for runnable, needs_leader in self._runnables:
            if leader is None or needs_leader == leader:
                tasks.append(asyncio.ensure_future(runnable()))

    async def _shutdown(
        self,
        tasks: list[asyncio.Task[Any]],
        background: list[asyncio.Task[Any]],
        *,
        release: bool,
    ) -> None:
        for controller in self.controllers:
            await controller.drain()
        if tasks:
            _, pending = await asyncio.wait(
                tasks, timeout=self.options.graceful_shutdown_timeout
            )
            if pending:
                log.warning(
                    "%d tasks did not finish within the graceful shutdown timeout",
                    len(pending),
                )
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        if self.elector is not None:
            if release and self.options.release_lease_on_stop:
                await self.elector.release()
            self.metrics.leader.labels(self.options.leader_election_id).set(0)
        await self.cache.stop()
        for server in (self.health_server, self.metrics_server):
            if server is not None:
                await server.stop()
        self.elected.clear()


async def _ok() -> None:
    return None
