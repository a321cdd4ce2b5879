"""The memory server's deletes: one object or a collection, with preconditions,
finalizers (`deletionTimestamp`) and propagation; a Namespace turns Terminating."""

from __future__ import annotations

import dataclasses
from typing import Any

from opgen.testing.memory import answers
from opgen.testing.memory.collector import (
    check_options,
    deletion_finalizers,
    returns_deleted_object,
)
from opgen.testing.memory.kinds import Kind
from opgen.testing.memory.metadata import timestamp
from opgen.testing.memory.paths import Route
from opgen.testing.memory.reads import NAMESPACES, store_key
from opgen.testing.memory.store import json_copy
from opgen.testing.memory.writes import Writes

__all__ = ["Deletes"]

_PRECONDITIONS = (
    ("uid", "UID", "The object might have been deleted and then recreated"),
    ("resourceVersion", "ResourceVersion", "The object might have been modified"),
)
"""A delete's preconditions: field, how the server names it, what it suspects."""


class Deletes(Writes):
    """Deletion of one object or of a collection."""

    def _terminate(self, kind: Kind, namespace: dict[str, Any]) -> dict[str, Any]:
        """A deleted Namespace turns Terminating and stays: its `kubernetes`
        finalizer is the namespace controller's, which does not run here (nor in
        envtest without kube-controller-manager)."""
        if namespace["metadata"].get("deletionTimestamp"):
            return namespace
        marked = json_copy(namespace)
        marked["metadata"]["deletionTimestamp"] = timestamp(self.clock)
        marked["status"] = {**(marked.get("status") or {}), "phase": "Terminating"}
        return self._write(kind, marked, namespace)

    def _delete_collection(
        self, kind: Kind, route: Route, options: dict[str, Any]
    ) -> dict[str, Any]:
        """Delete every object a list with the same selectors returns; answers
        that list (the objects as they were before)."""
        selectors = {
            key: value
            for key, value in route.query.items()
            if key in ("labelSelector", "fieldSelector")
        }
        listed = self._list(kind, dataclasses.replace(route, query=selectors))
        for item in listed["items"]:
            meta = item["metadata"]
            one = Route(
                kind.group,
                kind.version,
                kind.plural,
                meta.get("namespace"),
                meta["name"],
            )
            self._delete(kind, one, options)
        return listed

    def _delete(
        self, kind: Kind, route: Route, options: dict[str, Any]
    ) -> dict[str, Any]:
        check_options(options)
        # only read: what a delete writes is a copy of it
        current = self._current(kind, route, copy=False)
        assert route.name is not None
        meta = current["metadata"]
        preconditions = options.get("preconditions") or {}
        for field, label, why in _PRECONDITIONS:
            wanted = preconditions.get(field)
            if wanted is not None and wanted != meta.get(field):
                raise answers.conflict(
                    kind,
                    route.name,
                    f"the {label} in the precondition ({wanted}) does not match the "
                    f"{label} in record ({meta.get(field)}). {why}",
                    kind.kind,
                )
        if self.admission is not None:
            request = self._admission(kind, None, current)
            self.admission.mutate(request)
            self.admission.validate(request)
        if store_key(kind) == NAMESPACES:
            return self._terminate(kind, current)
        before = list(meta.get("finalizers") or [])
        finalizers = deletion_finalizers(kind, before, options)
        if not finalizers:
            gone = self._remove(kind, current)
            return gone if returns_deleted_object(kind) else deleted_status(kind, gone)
        if meta.get("deletionTimestamp"):
            if finalizers == before:
                return current
            changed = json_copy(current)
            changed["metadata"]["finalizers"] = finalizers
            return self._write(kind, changed, current)
        marked = json_copy(current)
        marked["metadata"]["finalizers"] = finalizers
        marked["metadata"]["deletionTimestamp"] = timestamp(self.clock)
        marked["metadata"]["deletionGracePeriodSeconds"] = 0
        if kind.tracks_generation:
            marked["metadata"]["generation"] = meta.get("generation", 0) + 1
        return self._write(kind, marked, current)


def deleted_status(kind: Kind, gone: dict[str, Any]) -> dict[str, Any]:
    details: dict[str, Any] = {"name": gone["metadata"]["name"]}
    if kind.group:
        details["group"] = kind.group
    details["kind"] = kind.plural
    details["uid"] = gone["metadata"]["uid"]
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    }
