"""Garbage collection by owner references, as kube-controller-manager's collector does it.

Two halves, as in Kubernetes:

- the API server's: `deletion_finalizers` decides which of the collector's
  finalizers a delete leaves on the object (`orphan` for `Orphan`,
  `foregroundDeletion` for `Foreground`, none for `Background`), from the
  request's `propagationPolicy` (or the deprecated `orphanDependents`), the
  finalizers the object already has, and the kind's default (`Orphan` for
  batch/v1 Jobs and v1 ReplicationControllers, none at all for Events,
  `Background` for every other kind, custom resources included);
- the controller's: `plan` reads every stored object and says what the
  collector does next (`Action`s): delete a dependent whose owners are all
  gone (a dangling reference: no object with the owner's uid) or deleting
  theirs in the foreground; drop references to missing owners from a
  dependent that still has a live one; take an orphaning owner's references
  off its dependents, then its `orphan` finalizer; take a foreground
  owner's `foregroundDeletion` finalizer once no dependent that blocks it
  (`blockOwnerDeletion: true`) is left. `Collector` carries the actions out
  through the server's own requests (as `kube-controller-manager`, with the
  uid and resourceVersion preconditions the real collector sends) until
  nothing is left to do.

The timing is the difference: the real collector watches and acts seconds
later, concurrently with the client; the memory server collects at the end
of every write, before answering it, so a test sees the settled result of
its delete in its next request (and watchers see the collector's writes
right after the write that caused them).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from opgen.testing.memory import answers
from opgen.testing.memory.answers import Cause
from opgen.testing.memory.kinds import Kind

if TYPE_CHECKING:
    from opgen.testing.memory.server import MemoryApiServer

__all__ = [
    "FOREGROUND",
    "MANAGER",
    "ORPHAN",
    "Action",
    "Collector",
    "Stored",
    "deletion_finalizers",
    "plan",
]

ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"
MANAGER = "kube-controller-manager"
"""The field manager of the collector's writes (its client's User-Agent)."""
_POLICIES = ("Foreground", "Background", "Orphan")
_DEFAULT_ORPHAN = {("batch", "Job"), ("", "ReplicationController")}
"""Kinds whose deletes orphan by default (batch/v1 and v1, for compatibility)."""
_UNSUPPORTED = {("", "Event"), ("events.k8s.io", "Event")}
"""Kinds whose deletes never get the collector's finalizers."""
_RETURNS_DELETED = (
    {
        ("", plural)
        for plural in (
            "namespaces",
            "persistentvolumeclaims",
            "persistentvolumes",
            "pods",
            "podtemplates",
            "resourcequotas",
            "serviceaccounts",
            "services",
        )
    }
    | {
        ("storage.k8s.io", plural)
        for plural in (
            "csidrivers",
            "csinodes",
            "storageclasses",
            "volumeattachments",
            "volumeattributesclasses",
        )
    }
    | {
        ("resource.k8s.io", plural)
        for plural in (
            "deviceclasses",
            "devicetaintrules",
            "resourceclaims",
            "resourceclaimtemplates",
            "resourcepoolstatusrequests",
            "resourceslices",
        )
    }
)
"""Kinds whose delete answers the deleted object (their registries'
`ReturnDeletedObject`); every other kind answers a `Status`."""
_MAX_PASSES = 1000
"""A bound on collection passes, far above any test's need: a cycle of owners
the model cannot settle raises instead of spinning."""


def _options_causes(options: Mapping[str, Any]) -> list[Cause]:
    policy = options.get("propagationPolicy")
    causes = []
    if policy is not None and options.get("orphanDependents") is not None:
        causes.append(
            Cause(
                "propagationPolicy",
                "FieldValueInvalid",
                f'Invalid value: "{policy}": orphanDependents and '
                "deletionPropagation cannot be both set",
            )
        )
    if policy is not None and policy not in _POLICIES:
        causes.append(
            Cause(
                "propagationPolicy",
                "FieldValueNotSupported",
                f'Unsupported value: "{policy}": supported values: '
                + ", ".join(f'"{p}"' for p in (*_POLICIES, "nil")),
            )
        )
    return causes


def check_options(options: Mapping[str, Any]) -> None:
    """A delete's options are valid (the server's 422 on `DeleteOptions` otherwise)."""
    causes = _options_causes(options)
    if not causes:
        return
    listed = [f"{c.field}: {c.message}" for c in causes]
    summary = listed[0] if len(listed) == 1 else f"[{', '.join(listed)}]"
    raise answers.status(
        422,
        "Invalid",
        f'DeleteOptions.meta.k8s.io "" is invalid: {summary}',
        {
            "group": "meta.k8s.io",
            "kind": "DeleteOptions",
            "causes": [c.body() for c in causes],
        },
    )


def deletion_finalizers(
    kind: Kind, finalizers: list[str], options: Mapping[str, Any]
) -> list[str]:
    """The finalizers a delete with `options` leaves on an object of `kind`
    that has `finalizers` (the same list when nothing changes)."""
    if (kind.group, kind.kind) in _UNSUPPORTED:
        return finalizers
    orphan_default = (kind.group, kind.kind) in _DEFAULT_ORPHAN
    orphan_option = options.get("orphanDependents")
    policy = options.get("propagationPolicy")
    if orphan_option is not None:
        orphan, foreground = bool(orphan_option), False
    elif policy in _POLICIES:
        orphan, foreground = policy == "Orphan", policy == "Foreground"
    elif ORPHAN in finalizers or FOREGROUND in finalizers:
        first = next(f for f in finalizers if f in (ORPHAN, FOREGROUND))
        orphan, foreground = first == ORPHAN, first == FOREGROUND
    else:
        orphan, foreground = orphan_default, False
    kept = [f for f in finalizers if f not in (ORPHAN, FOREGROUND)]
    wanted = kept + [ORPHAN] * orphan + [FOREGROUND] * foreground
    return finalizers if set(wanted) == set(finalizers) else wanted


def returns_deleted_object(kind: Kind) -> bool:
    """Whether a delete that removes an object of `kind` answers the object
    (else a `Status` of success)."""
    return kind.builtin and (kind.group, kind.plural) in _RETURNS_DELETED


@dataclass(frozen=True)
class Stored:
    """One stored object and the kind it is stored as."""

    kind: Kind
    obj: Mapping[str, Any]

    @property
    def meta(self) -> Mapping[str, Any]:
        return self.obj.get("metadata") or {}

    @property
    def uid(self) -> str:
        return str(self.meta.get("uid", ""))

    @property
    def finalizers(self) -> list[str]:
        return list(self.meta.get("finalizers") or [])

    @property
    def deleting(self) -> bool:
        return bool(self.meta.get("deletionTimestamp"))

    @property
    def deleting_dependents(self) -> bool:
        return self.deleting and FOREGROUND in self.finalizers

    @property
    def references(self) -> list[Mapping[str, Any]]:
        return list(self.meta.get("ownerReferences") or [])


@dataclass(frozen=True)
class Action:
    """One request the collector sends: a DELETE with its options, or a merge PATCH."""

    method: str
    kind: Kind
    namespace: str | None
    name: str
    body: Mapping[str, Any]
    why: str = field(compare=False, default="")

    @property
    def path(self) -> str:
        base = (
            f"/apis/{self.kind.group}/{self.kind.version}"
            if self.kind.group
            else (f"/api/{self.kind.version}")
        )
        if self.namespace:
            base += f"/namespaces/{self.namespace}"
        path = f"{base}/{self.kind.plural}/{self.name}"
        return path if self.method == "DELETE" else f"{path}?fieldManager={MANAGER}"


Resolve = Callable[[str, str], "Kind | None"]
"""The kind an owner reference's apiVersion and kind name, None for one not served."""


class _Graph:
    """The stored objects indexed as the collector's graph: by uid, by name,
    and each owner uid's dependents."""

    def __init__(self, objects: Iterable[Stored], resolve: Resolve) -> None:
        self.objects = sorted(
            objects,
            key=lambda s: (
                s.kind.group,
                s.kind.kind,
                s.meta.get("namespace", ""),
                s.meta.get("name", ""),
            ),
        )
        self.resolve = resolve
        self.by_name = {
            (s.kind.group, s.kind.kind, s.meta.get("namespace", ""), s.meta["name"]): s
            for s in self.objects
        }
        self.dependents: dict[str, list[tuple[Stored, Mapping[str, Any]]]] = {}
        for stored in self.objects:
            for reference in stored.references:
                self.dependents.setdefault(str(reference.get("uid")), []).append(
                    (stored, reference)
                )

    def owner(
        self, dependent: Stored, reference: Mapping[str, Any]
    ) -> tuple[bool, Stored | None]:
        """(whether the reference resolves, the live owner it names or None)."""
        group = str(reference.get("apiVersion", "")).rpartition("/")[0]
        kind = self.resolve(
            str(reference.get("apiVersion", "")), str(reference.get("kind", ""))
        )
        if kind is None:
            return False, None
        if kind.namespaced and not dependent.kind.namespaced:
            return (
                False,
                None,
            )  # a cluster-scoped dependent cannot name a namespaced owner
        namespace = dependent.meta.get("namespace", "") if kind.namespaced else ""
        found = self.by_name.get(
            (group, kind.kind, namespace, str(reference.get("name")))
        )
        if found is None or found.uid != reference.get("uid"):
            return True, None
        return True, found


def _without_references(stored: Stored, uids: set[str], why: str) -> Action:
    kept = [r for r in stored.references if r.get("uid") not in uids]
    return _patch(stored, {"ownerReferences": kept or None}, why)


def _patch(stored: Stored, meta: dict[str, Any], why: str) -> Action:
    meta = {**meta, "resourceVersion": stored.meta.get("resourceVersion")}
    return Action(
        "PATCH",
        stored.kind,
        stored.meta.get("namespace"),
        str(stored.meta["name"]),
        {"metadata": meta},
        why,
    )


def _delete(stored: Stored, policy: str, why: str) -> Action:
    options = {"propagationPolicy": policy, "preconditions": {"uid": stored.uid}}
    return Action(
        "DELETE",
        stored.kind,
        stored.meta.get("namespace"),
        str(stored.meta["name"]),
        options,
        why,
    )


def _without_finalizer(stored: Stored, finalizer: str, why: str) -> Action:
    kept = [f for f in stored.finalizers if f != finalizer]
    return _patch(stored, {"finalizers": kept or None}, why)


def _owner_actions(graph: _Graph, owner: Stored) -> list[Action]:
    """What the collector does for an object being deleted with one of its finalizers."""
    name = owner.meta.get("name")
    dependents = graph.dependents.get(owner.uid, [])
    if ORPHAN in owner.finalizers:
        if dependents:
            return [
                _without_references(d, {owner.uid}, f"orphaned by {name}")
                for d, _ in dependents
            ]
        return [_without_finalizer(owner, ORPHAN, "its dependents are orphaned")]
    if FOREGROUND in owner.finalizers:
        blocking = [d for d, r in dependents if r.get("blockOwnerDeletion")]
        if not blocking:
            return [_without_finalizer(owner, FOREGROUND, "no dependent blocks it")]
    return []


def _dependent_actions(graph: _Graph, dependent: Stored) -> list[Action]:
    """What the collector does for an object with owners that is not being deleted."""
    solid, dangling, waiting = [], [], []
    for reference in dependent.references:
        resolved, owner = graph.owner(dependent, reference)
        if not resolved:
            return []  # the real collector retries an unresolvable owner forever
        if owner is None:
            dangling.append(reference)
        elif owner.deleting_dependents:
            waiting.append(reference)
        else:
            solid.append(reference)
    if solid:
        if not dangling and not waiting:
            return []
        uids = {str(r.get("uid")) for r in dangling + waiting}
        return [_without_references(dependent, uids, "its other owners are gone")]
    own_dependents = graph.dependents.get(dependent.uid, [])
    if waiting and own_dependents:
        actions = []
        if any(d.deleting_dependents for d, _ in own_dependents):
            unblocked = [
                (
                    {**r, "blockOwnerDeletion": False}
                    if r.get("blockOwnerDeletion")
                    else dict(r)
                )
                for r in dependent.references
            ]
            actions.append(_patch(dependent, {"ownerReferences": unblocked}, "a cycle"))
        return [*actions, _delete(dependent, "Foreground", "its owner waits for it")]
    if ORPHAN in dependent.finalizers:
        policy = "Orphan"
    elif FOREGROUND in dependent.finalizers:
        policy = "Foreground"
    else:
        policy = "Background"
    return [_delete(dependent, policy, "its owners are gone")]


def plan(objects: Iterable[Stored], resolve: Resolve) -> list[Action]:
    """What the collector does next for `objects` (every stored object); none
    once garbage collection has settled."""
    graph = _Graph(objects, resolve)
    actions: list[Action] = []
    for stored in graph.objects:
        if stored.deleting:
            actions += _owner_actions(graph, stored)
        elif stored.references:
            actions += _dependent_actions(graph, stored)
    return actions


class Collector:
    """Runs `plan`'s actions on a memory server until none is left; `enabled`
    False leaves dependents alone (as envtest without kube-controller-manager)."""

    def __init__(self, server: MemoryApiServer, *, enabled: bool = True) -> None:
        self.server = server
        self.enabled = enabled
        self._collecting = False

    def resolve(self, api_version: str, kind_name: str) -> Kind | None:
        group, _, version = api_version.rpartition("/")
        return self.server.kinds.find(group, version, kind_name)

    def stored(self) -> list[Stored]:
        found = []
        for key, obj in self.server.store.everything():
            kind = self.server.kinds.lookup(*key)
            if kind is not None:
                found.append(Stored(kind, obj))
        return found

    def _may_have_work(self) -> bool:
        """Whether any object has owners or one of the collector's finalizers
        (else `plan` has nothing to do, and is not asked)."""
        for _, obj in self.server.store.everything():
            meta = obj.get("metadata") or {}
            if meta.get("ownerReferences"):
                return True
            if {ORPHAN, FOREGROUND} & set(meta.get("finalizers") or ()):
                return True
        return False

    def collect(self) -> None:
        """Collect until settled (a no-op when disabled or already collecting:
        the collector's own requests do not start another round)."""
        if not self.enabled or self._collecting or not self._may_have_work():
            return
        self._collecting = True
        try:
            for _ in range(_MAX_PASSES):
                done = 0
                for action in plan(self.stored(), self.resolve):
                    # a 404 or a 409 (the object changed since the plan) is
                    # answered as the real collector's: the next pass looks again
                    code, _ = self.server.handle(
                        action.method,
                        action.path,
                        json.dumps(action.body).encode(),
                        "application/merge-patch+json",
                    )
                    done += code < 300
                if not done:
                    return  # settled, or nothing it tries is accepted
            raise RuntimeError("garbage collection did not settle (a cycle of owners?)")
        finally:
            self._collecting = False
