"""An events.k8s.io/v1 Event recorder: explicit, deduplicated, rate-limited.

Nothing becomes an Event unless code calls `recorder.event(...)` — logs never
do. The manager's role needs `create` and `patch` on events.k8s.io `events`
(`RBAC_HINT`, which the scaffolded reconciler carries); without them each
Event is refused with 403, logged as a warning naming that marker, and
counted in `failed` (a 403 because the object's namespace is being deleted
is only logged at info: no marker would help). A repeat of the same event (same object, type, reason, action and note)
within `dedup_window` updates the existing Event's `series` instead of
creating a new one; each object may produce `burst` events, then one per
`refill_seconds` (client-go's spam filter numbers); the rest are dropped and
logged at debug level. Recording never raises: an Event is advisory. What the
recorder remembers per object is forgotten once it no longer matters (the
series after `dedup_window`, the rate limit once refilled), so a long-running
operator's memory does not grow with every object it ever saw.
"""

from __future__ import annotations

import datetime
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from opgen.runtime import metafields, ratelimit, resources
from opgen.runtime.client import Client
from opgen.runtime.errors import ApiError, TransportError

if TYPE_CHECKING:
    from opgen.api.k8s.events_v1 import Event

__all__ = ["RBAC_HINT", "EventRecorder"]

log = logging.getLogger("opgen.runtime.events")

EventType = Literal["Normal", "Warning"]

RBAC_HINT = '@op.rbac(groups=["events.k8s.io"], resources=["events"], verbs=["create", "patch"])'
"""The marker that grants a reconciler what its recorder writes (the scaffold has it)."""

_FORGET_EVERY = 60.0
"""Seconds between two sweeps of what the recorder remembers."""


def _namespace_terminating(error: ApiError) -> bool:
    """A 403 because the namespace is being deleted, not for want of RBAC."""
    details = error.status.get("details") or {}
    causes = details.get("causes") if isinstance(details, dict) else None
    return (
        any(
            isinstance(cause, dict) and cause.get("reason") == "NamespaceTerminating"
            for cause in causes or ()
        )
        or "because it is being terminated" in error.message
    )


def _micro_time(now: datetime.datetime) -> str:
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class _Series:
    event: Event
    count: int
    last_seen: float


class EventRecorder:
    """Records Events about objects for one controller."""

    def __init__(
        self,
        client: Client,
        *,
        reporting_controller: str,
        reporting_instance: str | None = None,
        burst: int = 25,
        refill_seconds: float = 300.0,
        dedup_window: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self._clock = clock
        self._next_forget = clock() + _FORGET_EVERY
        self.reporting_controller = reporting_controller
        self.reporting_instance = (
            reporting_instance or os.environ.get("HOSTNAME") or "opgen"
        )
        self._burst = burst
        self._refill = refill_seconds
        self._dedup_window = dedup_window
        self._buckets: dict[str, ratelimit.TokenBucket] = {}
        self._series: dict[tuple[str, str, str, str, str], _Series] = {}
        self.dropped = 0
        """Events left out by the per-object rate limit."""
        self.failed = 0
        """Events the API server did not take (each logged as a warning)."""

    async def event(
        self,
        regarding: object,
        *,
        type: EventType,
        reason: str,
        note: str,
        action: str,
        related: object | None = None,
    ) -> None:
        """Record an Event about `regarding` (reason/action are CamelCase words; note ≤ 1 kB)."""
        try:
            await self._record(regarding, type, reason, note[:1024], action, related)
        except ApiError as error:
            self.failed += 1
            if error.code == 403 and _namespace_terminating(error):
                log.info(
                    "not recording event %s: its namespace is being deleted", reason
                )
            elif error.code == 403:
                log.warning(
                    "could not record event %s: %s; the manager's role needs %s "
                    "(add it to the reconciler, then run opgen generate)",
                    reason,
                    error,
                    RBAC_HINT,
                )
            else:
                log.warning("could not record event %s: %s", reason, error)
        except TransportError as error:
            self.failed += 1
            log.warning("could not record event %s: %s", reason, error)
        except Exception:
            self.failed += 1
            log.warning("could not record event %s for %s", reason, type, exc_info=True)

    def remembered(self) -> int:
        """How many series and per-object rate limits the recorder holds."""
        return len(self._series) + len(self._buckets)

    def _forget_idle(self, now: float) -> None:
        """Drop what can no longer change an outcome: series past the dedup window
        (the next such event starts a new Event anyway) and refilled rate limits."""
        self._series = {
            key: series
            for key, series in self._series.items()
            if now - series.last_seen < self._dedup_window
        }
        self._buckets = {
            uid: bucket for uid, bucket in self._buckets.items() if not bucket.is_full()
        }

    def _reference(self, obj: object) -> dict[str, Any]:
        rtype = resources.resource_type(type(obj))
        ref = {
            "apiVersion": rtype.api_version,
            "kind": rtype.kind,
            **{
                field: metafields.get(obj, field)
                for field in ("name", "namespace", "uid", "resourceVersion")
            },
        }
        return {k: v for k, v in ref.items() if v}

    async def _record(
        self,
        regarding: object,
        type: str,
        reason: str,
        note: str,
        action: str,
        related: object | None,
    ) -> None:
        ref = self._reference(regarding)
        uid = str(ref.get("uid") or f"{ref.get('namespace')}/{ref.get('name')}")
        now = self._clock()
        if now >= self._next_forget:
            self._forget_idle(now)
            self._next_forget = now + _FORGET_EVERY
        wall = datetime.datetime.now(datetime.timezone.utc)
        key = (uid, type, reason, action, note)
        series = self._series.get(key)
        if series is not None and now - series.last_seen < self._dedup_window:
            series.count += 1
            series.last_seen = now
            await self.client.patch(
                series.event,
                {
                    "series": {
                        "count": series.count,
                        "lastObservedTime": _micro_time(wall),
                    }
                },
                refresh=False,
            )
            return
        bucket = self._buckets.get(uid)
        if bucket is None:
            bucket = self._buckets[uid] = ratelimit.TokenBucket(
                1.0 / self._refill, self._burst, clock=self._clock
            )
        if not bucket.try_take():
            self.dropped += 1
            log.debug(
                "event %s for %s dropped by the rate limit", reason, ref.get("name")
            )
            return
        namespace = str(ref.get("namespace") or "default")
        name = f"{ref.get('name')}.{secrets.token_hex(8)}"
        body: dict[str, Any] = {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "eventTime": _micro_time(wall),
            "reportingController": self.reporting_controller,
            "reportingInstance": self.reporting_instance,
            "action": action,
            "reason": reason,
            "note": note,
            "type": type,
            "regarding": ref,
        }
        if related is not None:
            body["related"] = self._reference(related)
        # the series patches it by name only: its answer need not be decoded
        # imported here: op.k8s's events module loads core/v1, which a
        # manager that records no Event need not pay for at start-up
        from opgen.api.k8s.events_v1 import Event

        event = await self.client.create(Event.model_validate(body), refresh=False)
        self._series[key] = _Series(event, 1, now)
