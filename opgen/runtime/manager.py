"""The manager: one process's cache, controllers, probes, metrics and leader election.

`run()` serves `/healthz` and `/readyz` (informers synced, watches fresh, the
webhook server answering), `/metrics` and the webhooks on every replica,
starts the informers of every kind the controllers watch, and — once this replica leads, when leader election is on
— the controllers and other leader-only runnables. SIGTERM (or `stop()`)
drains: controllers stop taking work, in-flight reconciles finish (up to
`graceful_shutdown_timeout`), the Lease is released, then everything stops.
Losing the Lease (the leader's, or a sharded replica's ring Lease) cancels the
reconciles in flight at once, without the graceful wait — another replica may
take their objects over as soon as the Lease expires — stops everything, and
makes `run()` raise `LeaderElectionLost` (or `ShardMembershipLost`), so the
process exits and restarts.
However `run()` ends, it closes the manager's client: a manager runs once.

Options come in groups, as controller-runtime's: `MetricsOptions`,
`ProbeOptions`, `WebhookOptions`, `LeaderElectionConfig`, `CacheOptions`,
`ClientOptions`, and opgen's `ShardingOptions`: with it every replica runs the
controllers on its shard of the objects and the elected leader assigns them
(`opgen.runtime.sharding`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from opgen.runtime import probes
from opgen.runtime.cache import Cache, CacheOptions
from opgen.runtime.client import Client
from opgen.runtime.controller import Controller
from opgen.runtime.errors import TransportError
from opgen.runtime.events import EventRecorder
from opgen.runtime.kubeconfig import FIX, ConfigError, NoCluster, describe_context
from opgen.runtime.leaderelection import LeaderElectionConfig, LeaderElector
from opgen.runtime.metrics import Metrics
from opgen.runtime.metricsauth import MetricsAuth
from opgen.runtime.rest import ClientOptions, RestClient
from opgen.runtime.seams import Transport as TransportProtocol
from opgen.runtime.sharding.protocol import ShardingOptions
from opgen.runtime.transport import ConfigSource, Transport, load_config
from opgen.runtime.webhook.options import WebhookOptions

if TYPE_CHECKING:
    import argparse

    from opgen.runtime import tls
    from opgen.runtime.sharding.replica import ShardedReplica
    from opgen.runtime.webhook.server import WebhookServer

__all__ = [
    "LeaderElectionLost",
    "Manager",
    "ManagerOptions",
    "MetricsOptions",
    "ProbeOptions",
    "ShardMembershipLost",
    "WebhookOptions",
]

log = logging.getLogger("opgen.runtime.manager")

Runnable = Callable[[], Awaitable[None]]


class LeaderElectionLost(RuntimeError):
    """This replica stopped being the leader while running."""


class ShardMembershipLost(RuntimeError):
    """This replica could not renew its Lease in the sharding ring while running."""


@dataclass(frozen=True)
class MetricsOptions:
    """The `/metrics` server (controller-runtime's metricsserver.Options)."""

    bind_address: str = ":8443"
    """Where `/metrics` is served; "0" disables, port 0 picks a free one. Default ":8443"."""
    secure: bool = True
    """Serve over HTTPS, only to callers whose bearer token the API server authenticates
    (TokenReview) and allows `get` on `/metrics` (SubjectAccessReview). Default True,
    as the generated manager's `--metrics-secure` (controller-runtime's own default
    is plain HTTP on :8080); False serves plain HTTP to anyone."""
    cert_path: str | None = None
    """Folder with the server's certificate and key (reloaded when they change);
    None: a self-signed certificate generated at start. Used when `secure`."""
    cert_name: str = "tls.crt"
    """Certificate file name in `cert_path`. Default "tls.crt"."""
    cert_key: str = "tls.key"
    """Key file name in `cert_path`. Default "tls.key"."""


@dataclass(frozen=True)
class ProbeOptions:
    """The health probe server: `/healthz` and `/readyz`."""

    bind_address: str = ":8081"
    """Where the probes are served; "0" disables, port 0 picks a free one. Default ":8081"."""


@dataclass(frozen=True)
class ManagerOptions:
    """Manager settings, grouped as controller-runtime's; each default is stated once,
    in its group's class."""

    metrics: MetricsOptions = field(default_factory=MetricsOptions)
    """The `/metrics` server."""
    probes: ProbeOptions = field(default_factory=ProbeOptions)
    """The `/healthz` and `/readyz` server."""
    webhook: WebhookOptions = field(default_factory=WebhookOptions)
    """The webhook server (started once `manager.webhooks` has a handler)."""
    leader_election: LeaderElectionConfig | None = None
    """Elect a leader on this Lease before starting controllers; None (default): no election."""
    cache: CacheOptions = field(default_factory=CacheOptions)
    """What the informers watch (namespaces, per-kind selectors), watch timings, sync timeout."""
    client: ClientOptions = field(default_factory=ClientOptions)
    """Client-side rate limit, field manager, request timeout."""
    graceful_shutdown_timeout: float = 30.0
    """Seconds in-flight reconciles get to finish on shutdown. Default 30."""
    sharding: ShardingOptions | None = None
    """Shard the reconciles across the replicas of a ring: every replica runs the
    controllers on its shard; the elected leader assigns. None (default): no sharding."""

    @classmethod
    def from_flags(
        cls,
        args: argparse.Namespace,
        *,
        leader_election_id: str,
        cache: CacheOptions | None = None,
    ) -> ManagerOptions:
        """The options the flags of `rt.flags.add_manager_flags` set; the Lease
        `--leader-elect` elects on is `leader_election_id` (Kubebuilder's
        LeaderElectionID)."""
        return cls(
            metrics=MetricsOptions(
                bind_address=args.metrics_bind_address,
                secure=args.metrics_secure,
                cert_path=args.metrics_cert_path or None,
                cert_name=args.metrics_cert_name,
                cert_key=args.metrics_cert_key,
            ),
            probes=ProbeOptions(bind_address=args.health_probe_bind_address),
            webhook=WebhookOptions(
                port=args.webhook_port,
                cert_path=args.webhook_cert_path or None,
                cert_name=args.webhook_cert_name,
                cert_key=args.webhook_cert_key,
            ),
            leader_election=(
                LeaderElectionConfig(name=leader_election_id)
                if args.leader_elect
                else None
            ),
            cache=cache or CacheOptions(),
        )


class Manager:
    """Runs caches, controllers and servers until stopped; closes its client when done."""

    def __init__(
        self,
        config: ConfigSource = None,
        options: ManagerOptions | None = None,
        *,
        transport: TransportProtocol | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        """`config`: the kubeconfig (see `transport.ConfigSource`); `transport`: what
        sends the requests instead of an HTTP client for `config` (`seams.Transport`:
        a test double, say); the manager closes it when `run()` returns. `metrics`:
        the collectors it updates and serves (default: a registry of its own)."""
        self.options = options or ManagerOptions()
        opts = self.options
        self.metrics = metrics if metrics is not None else Metrics()
        self._kubeconfig: tuple[Transport, str] | None = None
        """The transport made for a kubeconfig file's context, and that context."""
        if transport is None:
            single = load_config(config)
            made = Transport(single, timeout=opts.client.timeout)
            if single.fname is not None:
                self._kubeconfig = (made, describe_context(single))
            transport = made
        self.rest = RestClient(transport, opts.client, metrics=self.metrics)
        self.cache = Cache(self.rest, opts.cache)
        self.client = Client(self.rest, self.cache)
        self.controllers: list[Controller] = []
        self._runnables: list[tuple[Runnable, bool]] = []
        self._healthz: dict[str, probes.Check] = {"ping": _ok}
        self._readyz: dict[str, probes.Check] = {"informers": self._informers_ready}
        self._stop = asyncio.Event()
        self.elected = asyncio.Event()
        self.sharding: ShardedReplica | None = None
        """This replica's part of the ring, when `options.sharding` is set."""
        election = opts.leader_election
        if opts.sharding is not None:
            from opgen.runtime.sharding.replica import ShardedReplica

            self.sharding = ShardedReplica(
                self.rest, self.client.uncached, self.client, opts.sharding,
                self.metrics, namespaces=opts.cache.namespaces,
            )  # fmt: skip
            election = election or self.sharding.election()
        self.elector: LeaderElector | None = (
            LeaderElector(self.client.uncached, self.client, election)
            if election is not None
            else None
        )
        self._membership_lost = False
        self._failure: Exception | None = None
        """What stopped the manager from a background task (serving `/metrics`)."""
        self.health_server: probes.ProbeServer | None = None
        self.metrics_server: probes.ProbeServer | None = None
        self.metrics_certificate: tls.ServingCertificate | None = None
        self._webhooks: WebhookServer | None = None

    @classmethod
    def from_kubeconfig(
        cls,
        path: ConfigSource = None,
        *,
        context: str | None = None,
        options: ManagerOptions | None = None,
    ) -> Manager:
        """A manager for a kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)."""
        return cls(load_config(path, context=context), options)

    @classmethod
    def from_env(cls, options: ManagerOptions | None = None) -> Manager:
        """A manager for $KUBECONFIG, else in-cluster (service account), else ~/.kube/config."""
        return cls(load_config(), options)

    async def check_cluster(self) -> None:
        """Raise `NoCluster` at once, naming the server and the kubeconfig, when the
        API server of a kubeconfig file's context does not answer one request (any
        status is an answer). A generated `main()` calls it before `run()`, so
        `python -m <package>` with no cluster running says so in one line instead
        of retrying until the informers' sync timeout; credentials that cannot be
        used raise their `ConfigError` the same way. In a cluster (service
        account), or with a transport given, it does nothing: `run()` waits out an
        API server that is down, as for any outage."""
        if self._kubeconfig is None:
            return
        transport, context = self._kubeconfig
        try:
            await transport.send("GET", "/version")
        except TransportError as error:
            await self.rest.aclose()
            raise NoCluster(
                f"cannot reach the API server {transport.server} ({context}): "
                f"{error}; is the cluster running? {FIX[0].upper()}{FIX[1:]}"
            ) from None
        except ConfigError:
            # Credentials that cannot be used (an exec plugin that fails).
            await self.rest.aclose()
            raise

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """The host and port `/metrics` is served on — the real port when asked for
        port 0 — once `run()` serves it (while the caches sync); else None."""
        return _address(self.metrics_server)

    @property
    def probe_address(self) -> tuple[str, int] | None:
        """The host and port `/healthz` and `/readyz` are served on, as `metrics_address`."""
        return _address(self.health_server)

    @property
    def webhooks(self) -> WebhookServer:
        """Admission and conversion handlers: `manager.webhooks.add(handler)` before
        `run()`. Made, and the webhook modules loaded, on first use: a manager
        that serves no webhook never loads them."""
        if self._webhooks is None:
            from opgen.runtime.webhook.server import WebhookServer

            self._webhooks = WebhookServer(self.options.webhook, self.metrics)
        return self._webhooks

    @property
    def webhook_address(self) -> tuple[str, int] | None:
        """The host and port the webhooks are served on, as `metrics_address`; None
        also when no webhook is registered."""
        return None if self._webhooks is None else self._webhooks.address

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

    def _on_signal(self, sig: signal.Signals) -> None:
        if not self._stop.is_set():
            log.info("%s received: stopping the manager", sig.name)
        self.stop()

    async def _start_webhooks(self) -> None:
        webhooks = self._webhooks
        if webhooks is not None and webhooks.has_handlers:
            await webhooks.start()
            self._readyz["webhook"] = webhooks.check_ready

    async def _start_servers(self, background: list[asyncio.Task[Any]]) -> None:
        """The probe and metrics servers, started while the informers make their
        first lists. A self-signed metrics certificate is made in a child process
        (`tls.ServingCertificate.generated`): that server comes up once it is
        there, without holding back the controllers; `/readyz` waits for it."""
        health = probes.parse_bind_address(self.options.probes.bind_address)
        if health is not None:
            routes = {
                "/healthz": probes.checks_route(self._healthz),
                "/readyz": probes.checks_route(self._readyz),
            }
            self.health_server = probes.ProbeServer(*health, routes)
            await self.health_server.start()
        options = self.options.metrics
        address = probes.parse_bind_address(options.bind_address)
        if address is None:
            return
        if options.secure and not options.cert_path:
            self._readyz["metrics"] = self._metrics_served
            serving = self._serve_metrics_self_signed(address)
            background.append(asyncio.create_task(serving))
            return
        certificate = None
        if options.secure:
            from opgen.runtime import tls

            certificate = tls.ServingCertificate(
                options.cert_path,
                cert_name=options.cert_name,
                key_name=options.cert_key,
            )
            background.append(asyncio.create_task(certificate.watch()))
        await self._serve_metrics(address, certificate)

    async def _serve_metrics_self_signed(self, address: tuple[str, int]) -> None:
        """Serve `/metrics` with a generated certificate; a failure stops the manager
        and `run()` raises it."""
        from opgen.runtime import tls

        try:
            certificate = await tls.ServingCertificate.generated("opgen-metrics")
            await self._serve_metrics(address, certificate)
        except Exception as error:
            self._failure = error
            self.stop()

    async def _metrics_served(self) -> None:
        if self.metrics_address is None:
            raise RuntimeError("the metrics server's certificate is being made")

    async def _serve_metrics(
        self, address: tuple[str, int], certificate: tls.ServingCertificate | None
    ) -> None:
        async def scrape() -> probes.Response:
            return probes.Response(
                200,
                "text/plain; version=0.0.4; charset=utf-8",
                self.metrics.exposition(),
            )

        self.metrics_certificate = certificate
        self.metrics_server = probes.ProbeServer(
            *address,
            {"/metrics": scrape},
            ssl_context=None if certificate is None else certificate.context,
            guard=None if certificate is None else MetricsAuth(self.rest),
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
        """Run until `stop()` or SIGTERM/SIGINT; raises `LeaderElectionLost` if leadership
        is lost, `ShardMembershipLost` if this replica's ring Lease is."""
        # What exists now (modules, classes, the manager and its options) lives as
        # long as the process: frozen, the cyclic collector never walks it again,
        # which took about 40 ms of CPU until the caches synced (1000 objects).
        # Thawed on return, so a process that runs managers one after another
        # (tests) can collect them.
        gc.freeze()
        try:
            await self._run(install_signal_handlers)
        finally:
            gc.unfreeze()
        if self._failure is not None:
            raise self._failure
        if self._membership_lost:
            assert self.sharding is not None
            raise ShardMembershipLost(f"lost shard lease {self.sharding.member.name}")

    async def _run(self, install_signal_handlers: bool) -> None:
        loop = asyncio.get_running_loop()
        signals = (signal.SIGTERM, signal.SIGINT) if install_signal_handlers else ()
        for sig in signals:
            loop.add_signal_handler(sig, self._on_signal, sig)
        background: list[asyncio.Task[Any]] = [asyncio.create_task(self._loop_lag())]
        leader_tasks: list[asyncio.Task[Any]] = []
        lost = False
        try:
            # conversion webhooks first: the informers' lists may need them
            await self._start_webhooks()
            if self.sharding is not None:
                self.sharding.configure(self.controllers, self.cache)
            for controller in self.controllers:
                for kind in controller.kinds():
                    self.cache.informer_for(kind)
            await self.cache.start()
            stop_wait = asyncio.create_task(self._stop.wait())
            background.append(stop_wait)
            starting = self._serve_and_sync(background)
            if not await self._wait_or_stop(starting, stop_wait):
                return
            if self.sharding is not None:
                member = self.sharding.member
                if not await self._wait_or_stop(member.join(), stop_wait):
                    return
                background.append(
                    asyncio.create_task(self._keep_membership(leader_tasks))
                )
                following = self.sharding.follower(self.cache)
                background.append(asyncio.create_task(following.run()))
                self.elected.set()  # every replica's controllers run on its shard
            renewing: asyncio.Task[None] | None = None
            if self.elector is not None:
                self._start_group(leader_tasks, leader=False)
                if not await self._wait_or_stop(self.elector.acquire(), stop_wait):
                    return
                self.metrics.leader.labels(self.elector.config.name).set(1)
                renewing = asyncio.create_task(self._keep_leading(leader_tasks))
                background.append(renewing)
                if self.sharding is not None:
                    assigner = self.sharding.assigner()
                    background.append(asyncio.create_task(assigner.run()))
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
            assert self.elector is not None
            raise LeaderElectionLost(f"lost lease {self.elector.config.name}")

    async def _keep_membership(self, tasks: list[asyncio.Task[Any]]) -> None:
        """Renew this replica's ring Lease; once it is lost, cancel `tasks` (the
        controllers and runnables) and stop the manager."""
        assert self.sharding is not None
        await self.sharding.member.keep_renewing()
        self._membership_lost = True
        _cancel_at_once(tasks, f"shard lease {self.sharding.member.name} lost")
        self.stop()

    async def _keep_leading(self, tasks: list[asyncio.Task[Any]]) -> None:
        """Renew the leader's Lease; once it is lost, cancel `tasks` (`run()` then
        stops the manager)."""
        assert self.elector is not None
        await self.elector.keep_renewing()
        _cancel_at_once(tasks, f"lease {self.elector.config.name} lost")

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

    async def _serve_and_sync(self, background: list[asyncio.Task[Any]]) -> None:
        """Start the probe and metrics servers while the caches sync; the first
        failure of either is raised."""
        steps = [
            asyncio.create_task(self._start_servers(background)),
            asyncio.create_task(self._sync_caches()),
        ]
        try:
            done, _ = await asyncio.wait(steps, return_when=asyncio.FIRST_EXCEPTION)
            for step in done:
                step.result()
            await asyncio.gather(*steps)
        finally:
            for step in steps:
                step.cancel()
            await asyncio.gather(*steps, return_exceptions=True)

    async def _sync_caches(self) -> None:
        timeout = self.options.cache.sync_timeout
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
            # sharded, every replica reconciles its shard: the leader only assigns
            needs_leader = controller.need_leader_election and self.sharding is None
            if leader is None or needs_leader == leader:
                events = EventRecorder(
                    self.client, reporting_controller=controller.name
                )
                tasks.append(
                    asyncio.create_task(
                        controller.run(self.cache, self.metrics, events),
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
        # a lost Lease may be taken over once it expires: nothing waits for it
        graceful = release and not self._membership_lost
        timeout = self.options.graceful_shutdown_timeout
        if graceful:
            log.info(
                "shutting down: reconciles in flight get up to %.0f s to finish",
                timeout,
            )
        for controller in self.controllers:
            await controller.drain()
        if tasks:
            if graceful:
                _, pending = await asyncio.wait(tasks, timeout=timeout)
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
            if release and self.elector.config.release_on_stop:
                await self.elector.release()
            self.metrics.leader.labels(self.elector.config.name).set(0)
        if self.sharding is not None and not self._membership_lost:
            await self.sharding.member.leave()
        await self.cache.stop()
        if self._webhooks is not None:
            await self._webhooks.stop()
        for server in (self.health_server, self.metrics_server):
            if server is not None:
                await server.stop()
        await self.rest.aclose()
        self.elected.clear()
        log.info("manager stopped")


def _cancel_at_once(tasks: Sequence[asyncio.Task[Any]], why: str) -> None:
    """Cancel `tasks` now, in the step that noticed the loss: no reconcile of
    them runs another step (and sends another request) after it."""
    running = [task for task in tasks if not task.done()]
    log.warning("%s: cancelling the controllers and their reconciles in flight", why)
    for task in running:
        task.cancel()


async def _ok() -> None:
    return None


def _address(server: probes.ProbeServer | None) -> tuple[str, int] | None:
    return None if server is None or not server.serving else (server.host, server.port)
