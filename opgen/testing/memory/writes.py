"""The memory server's writes: create, update, patch (merge, JSON, strategic),
server-side apply and the scale subresource, each through admission, the
schema's pruning and defaults, validation and `managedFields`."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Mapping
from typing import Any

import yaml

from opgen.testing.memory import answers
from opgen.testing.memory.admission import Admission, Request
from opgen.testing.memory.answers import Cause
from opgen.testing.memory.bodies import json_document, json_or_yaml, patched
from opgen.testing.memory.fields import numeric_problem
from opgen.testing.memory.kinds import Kind
from opgen.testing.memory.managed import (
    Entry,
    Write,
    apply,
    read_entries,
    record_update,
    write_entries,
)
from opgen.testing.memory.metadata import (
    SERVER_OWNED,
    Clock,
    generated_name,
    label_causes,
    name_causes,
    new_uid,
    timestamp,
)
from opgen.testing.memory.patches import JSON_PATCH, MERGE_PATCH
from opgen.testing.memory.paths import Route
from opgen.testing.memory.reads import NAMESPACES, Reads, store_key
from opgen.testing.memory.scale import to_scale, with_replicas
from opgen.testing.memory.schema import prune_and_default, scale_causes
from opgen.testing.memory.store import json_copy
from opgen.testing.memory.strategic import STRATEGIC_PATCH, strategic_patched
from opgen.testing.memory.validation import checked_object

__all__ = ["DEFAULT_MANAGER", "Writes"]

DEFAULT_MANAGER = "opgen-runtime"
"""The manager of a write without `fieldManager`: the server takes the client's
User-Agent up to its first `/`, and the runtime's transport says `opgen-runtime`."""


class Writes(Reads):
    """Writes over the server's store, through admission and validation."""

    clock: Clock
    admission: Admission | None
    _local: threading.local

    @property
    def _dry_run(self) -> bool:
        return bool(getattr(self._local, "dry_run", False))

    @_dry_run.setter
    def _dry_run(self, value: bool) -> None:
        self._local.dry_run = value

    def _writer(self, kind: Kind, route: Route) -> Write:
        """Who a request writes as, for `managedFields`."""
        return Write(
            manager=route.query.get("fieldManager") or DEFAULT_MANAGER,
            api_version=kind.api_version,
            schema=kind.shape,
            subresource=route.subresource or "",
            status_subresource=kind.status_subresource,
            time=timestamp(self.clock),
        )

    def _create(
        self,
        kind: Kind,
        route: Route,
        obj: dict[str, Any],
        entries: list[Entry] | None = None,
    ) -> dict[str, Any]:
        """Create `obj`; `entries` are its managedFields when an apply creates it."""
        meta = dict(obj.get("metadata") or {})
        type_causes = type_meta_causes(kind, obj)
        if kind.namespaced:
            assert route.namespace is not None
            if meta.get("namespace") and meta["namespace"] != route.namespace:
                raise answers.bad_request(
                    "the namespace of the provided object does not match the "
                    "namespace sent on the request"
                )
            meta["namespace"] = route.namespace
            namespace = self.store.peek(NAMESPACES, "", route.namespace)
            if namespace is None:
                raise answers.namespace_not_found(route.namespace)
            if namespace["metadata"].get("deletionTimestamp"):
                raise answers.namespace_terminating(
                    kind, meta.get("name", ""), route.namespace
                )
        else:
            meta.pop("namespace", None)
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = generated_name(meta["generateName"])
        for owned in (*SERVER_OWNED, "resourceVersion", "selfLink", "managedFields"):
            meta.pop(owned, None)
        meta["uid"] = new_uid()
        meta["creationTimestamp"] = timestamp(self.clock)
        if kind.tracks_generation:
            meta["generation"] = 1
        candidate = {**obj, "apiVersion": kind.api_version, "kind": kind.kind}
        candidate["metadata"] = meta
        if kind.status_subresource:
            candidate.pop("status", None)
        if kind.builtin and kind.status_subresource:
            candidate["status"] = {}  # a Go struct: never omitted
        if store_key(kind) == NAMESPACES:
            meta["labels"] = {
                **(meta.get("labels") or {}),
                "kubernetes.io/metadata.name": meta.get("name", ""),
            }
            candidate["spec"] = {"finalizers": ["kubernetes"]}
            candidate["status"] = {"phase": "Active"}
        name_problems = name_causes(meta, dns_label=kind.kind == "Namespace")
        name_problems += label_causes(meta)
        stored = self._admit(kind, candidate, None, type_causes + name_problems)
        if entries is None:
            nothing: dict[str, Any] = {"metadata": {}}
            if store_key(kind) == NAMESPACES:  # the spec is the server's
                nothing["spec"] = stored.get("spec")
            entries = record_update(
                [], nothing, self._requested(stored), self._writer(kind, route)
            )
        set_managed_fields(stored, entries)
        existing = self.store.peek(
            store_key(kind), meta.get("namespace", ""), meta["name"]
        )
        if existing is not None:
            deleting = bool(existing["metadata"].get("deletionTimestamp"))
            raise answers.already_exists(kind, meta["name"], deleting=deleting)
        return self._write(kind, stored, None)

    def _write(
        self, kind: Kind, obj: dict[str, Any], previous: dict[str, Any] | None
    ) -> dict[str, Any]:
        """Store `obj`; a dry run answers it as it would be stored (a create
        without a resourceVersion, an update at the stored one)."""
        if not self._dry_run:
            if kind.stored_as == kind.version:
                written = self.store.write(store_key(kind), obj, previous)
                if kind.schema is not None:
                    # what `_admit` made of it: its schema's pruning and defaults
                    self.store.kept(written, _PRUNED_BY, lambda _: kind.schema)
                self._keep_model(kind, written)
                return written
            meta = obj["metadata"]
            raw = self.store.peek(
                store_key(kind), meta.get("namespace", ""), meta["name"]
            )
            stored = self.versions.to_storage(kind, obj)
            return self.versions.to_served(
                kind, self.store.write(store_key(kind), stored, previous and raw)
            )
        answer = json_copy(obj)
        if previous is None:
            answer["metadata"].pop("resourceVersion", None)
        else:
            answer["metadata"]["resourceVersion"] = previous["metadata"][
                "resourceVersion"
            ]
        return answer

    def _keep_model(self, kind: Kind, written: dict[str, Any]) -> None:
        """A built-in's validated model, which `_admit` dumped to make `written`,
        kept as the stored object's (the next update's old model, `_admit`):
        validating it again gives the same but for the metadata the write then
        set (resourceVersion, generation, managedFields), which no rule of a
        built-in reads."""
        made = getattr(self._local, "validated", None)
        self._local.validated = None
        if made is None or made[0] is not written or kind.model is None:
            return
        model = made[1]
        self.store.kept(written, kind.model, lambda _: model)

    def _remove(self, kind: Kind, obj: dict[str, Any]) -> dict[str, Any]:
        if self._dry_run:
            return json_copy(obj)
        meta = obj["metadata"]
        raw = self.store.peek(store_key(kind), meta.get("namespace", ""), meta["name"])
        return self.versions.to_served(
            kind, self.store.remove(store_key(kind), raw or obj)
        )

    def _entries(self, current: dict[str, Any]) -> list[Entry]:
        """The `managedFields` of `current`, read once while it is stored (only to
        read: a write makes its own list)."""
        return self.store.kept(current, read_entries, _read_entries)

    def _requested(self, stored: dict[str, Any]) -> dict[str, Any]:
        """What a write asked for, before mutating webhooks changed it: the fields
        `managedFields` give its manager (the server records them before admission)."""
        unmutated = getattr(self._local, "unmutated", None)
        return stored if unmutated is None else dict(unmutated)

    def _admission(
        self, kind: Kind, obj: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> Request:
        operation = "DELETE" if obj is None else "CREATE" if old is None else "UPDATE"
        subresource = getattr(self._local, "subresource", None)
        return Request(kind, operation, obj, old, subresource, self._dry_run)

    def _pruned(
        self, schema: Mapping[str, Any], old: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """`old` when it is a stored object `schema` pruned and defaulted (as
        `_write` stored it, in the version it is served in), else None."""
        if old is None:
            return None
        made_by = self.store.kept(old, _PRUNED_BY, _not_known)
        return old if made_by is schema else None

    def _admit(
        self,
        kind: Kind,
        candidate: dict[str, Any],
        old: dict[str, Any] | None,
        causes: list[Cause] | None = None,
    ) -> dict[str, Any]:
        """`candidate` as it would be stored: pruned and defaulted by the CRD schema,
        validated by the kind's model (a `Refusal` with the server's causes)."""
        # ObjectMeta's fields are all omitempty: empty ones are not stored
        meta = {
            k: v
            for k, v in candidate["metadata"].items()
            if v not in ("", [], {}, None)
        }
        candidate["metadata"] = meta
        pruned = None
        if kind.schema is not None:
            pruned = self._pruned(kind.schema, old)
            candidate = prune_and_default(kind.schema, candidate, pruned)
        self._local.unmutated = None
        if self.admission is not None:
            mutated = self.admission.mutate(self._admission(kind, candidate, old))
            if mutated is not candidate and mutated is not None:
                self._local.unmutated = candidate
                candidate = mutated
                if kind.schema is not None:
                    candidate = prune_and_default(kind.schema, candidate, pruned)
                meta = {
                    k: v
                    for k, v in candidate["metadata"].items()
                    if v not in ("", [], {}, None)
                }
        problems = list(causes or [])
        validated = None
        if kind.model is not None:
            model = kind.model
            validated, refused = checked_object(
                model,
                candidate,
                old,
                has_rules=kind.has_rules,
                # the stored object's validation, once while it is stored
                old_model=lambda: self.store.kept(old, model, model.model_validate),
            )
            problems += refused
        problems += scale_causes(kind, candidate)
        undecodable = [c for c in problems if c.reason == "FieldValueTypeInvalid"]
        if kind.builtin and undecodable:
            # a built-in's body is decoded into Go structs before any validation
            raise answers.undecodable(
                kind, undecodable[0], go_parent(kind, undecodable[0])
            )
        if problems:
            named = str(candidate.get("kind") or kind.kind)
            raise answers.invalid(kind, meta.get("name", ""), problems, named)
        self._local.validated = None
        if kind.schema is None and validated is not None:
            # the model's own reading of what it validated above
            pruned = validated.model_dump(
                mode="json", by_alias=True, exclude_unset=True, exclude_none=True
            )
            candidate = {**pruned, "metadata": meta}
            self._local.validated = (candidate, validated)
        candidate["metadata"] = meta
        if self.admission is not None:
            self.admission.validate(self._admission(kind, candidate, old))
        return candidate

    def _update(
        self,
        kind: Kind,
        route: Route,
        obj: dict[str, Any],
        status_only: bool,
        *,
        patched: bool = False,
        entries: list[Entry] | None = None,
    ) -> dict[str, Any]:
        """Replace the object (or its status); `entries` are its managedFields
        when an apply writes it."""
        # only read: the candidate is built anew (`_admit`) and stored as a copy
        current = self._current(kind, route, copy=False)
        assert route.name is not None
        meta = dict(obj.get("metadata") or {})
        if meta.get("name", route.name) != route.name:
            raise answers.bad_request(
                f"the name of the object ({meta['name']}) does not match the name "
                f"on the URL ({route.name})"
            )
        type_causes = [] if patched else type_meta_causes(kind, obj)
        version = meta.get("resourceVersion")
        if not version and not kind.builtin and not patched:
            raise answers.invalid(
                kind,
                route.name,
                [
                    Cause(
                        "metadata.resourceVersion",
                        "FieldValueInvalid",
                        "Invalid value: 0: must be specified for an update",
                    )
                ],
                kind.plural,
            )
        if version and version != current["metadata"]["resourceVersion"]:
            raise answers.conflict(kind, route.name, answers.STALE)
        if status_only:
            # only its top level and metadata change: `_admit` builds the
            # stored object anew (the schema's walk, or the model's dump)
            candidate = {**current, "metadata": dict(current["metadata"])}
            if "status" in obj:
                candidate["status"] = obj["status"]
            else:
                candidate.pop("status", None)
        else:
            candidate = {**obj, "apiVersion": kind.api_version, "kind": kind.kind}
            for owned in (*SERVER_OWNED, "namespace", "name", "resourceVersion"):
                if owned in current["metadata"]:
                    meta[owned] = current["metadata"][owned]
                else:
                    meta.pop(owned, None)
            meta.pop("managedFields", None)
            candidate["metadata"] = meta
            if kind.status_subresource:
                if "status" in current:
                    candidate["status"] = current["status"]
                else:
                    candidate.pop("status", None)
        causes = type_causes + self._finalizer_causes(current, candidate)
        # an update checks labels several times over, and says so each time:
        # three for a custom resource, four for a ConfigMap (measured by the
        # agreement tests; other built-ins are taken to repeat as a ConfigMap)
        causes += label_causes(candidate["metadata"]) * (4 if kind.builtin else 3)
        stored = self._admit(kind, candidate, current, causes)
        if kind.tracks_generation and spec_changed(kind, current, stored):
            stored["metadata"]["generation"] = (
                current["metadata"].get("generation", 0) + 1
            )
        if entries is None:
            managed = self._entries(current)
            if managed:
                entries = record_update(
                    managed, current, self._requested(stored), self._writer(kind, route)
                )
            else:
                entries = []  # an object nobody manages stays so until an apply
        set_managed_fields(stored, entries)
        if current["metadata"].get("deletionTimestamp") and not stored["metadata"].get(
            "finalizers"
        ):
            self._remove(kind, current)
            return stored
        if stored == current:
            return current
        return self._write(kind, stored, current)

    @staticmethod
    def _finalizer_causes(
        current: dict[str, Any], candidate: dict[str, Any]
    ) -> list[Cause]:
        if not current["metadata"].get("deletionTimestamp"):
            return []
        before = set(current["metadata"].get("finalizers") or [])
        added = [
            f for f in candidate["metadata"].get("finalizers") or [] if f not in before
        ]
        if not added:
            return []
        listed = ", ".join(f'"{f}"' for f in added)
        forbidden = Cause(
            "metadata.finalizers",
            "FieldValueForbidden",
            "Forbidden: no new finalizers can be added if the object is being "
            f"deleted, found new finalizers []string{{{listed}}}",
        )
        return [forbidden, forbidden]  # the server checks it twice, and says so twice

    def _patch(
        self,
        kind: Kind,
        route: Route,
        body: bytes | None,
        content_type: str | None,
        status_only: bool,
    ) -> dict[str, Any]:
        if content_type == STRATEGIC_PATCH:
            strategic_patched(kind, body, None)  # a custom resource: 415 first
            result = strategic_patched(kind, body, self._current(kind, route))
        elif content_type not in (MERGE_PATCH, JSON_PATCH):
            raise answers.unsupported_media_type(content_type)
        else:
            # merge and JSON patches leave the document they patch as it is
            result = patched(content_type, body, self._current(kind, route, copy=False))
        return self._update(kind, route, result, status_only, patched=True)

    def _apply(
        self, kind: Kind, route: Route, body: bytes | None, status_only: bool
    ) -> tuple[int, dict[str, Any]]:
        """Server-side apply: 201 when it creates the object, 200 otherwise."""
        assert route.name is not None
        if not route.query.get("fieldManager"):
            raise answers.status(
                422,
                "Invalid",
                'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required '
                "value: is required for apply patch",
                {
                    "group": "meta.k8s.io",
                    "kind": "PatchOptions",
                    "causes": [
                        Cause(
                            "fieldManager",
                            "FieldValueRequired",
                            "Required value: is required for apply patch",
                        ).body()
                    ],
                },
            )
        try:
            # the runtime sends its configurations as JSON, a subset of YAML
            # that the json module reads a hundred times as fast
            config = json_or_yaml(body or b"")
        except yaml.YAMLError as error:
            raise answers.bad_request(f"error decoding YAML: {error}") from error
        if not isinstance(config, dict):
            raise answers.bad_request("the apply configuration is not an object")
        if not config.get("kind") or not config.get("apiVersion"):
            group, _, version = str(config.get("apiVersion") or "").rpartition("/")
            raise answers.bad_request(
                f"invalid object type: {group}/{version}, Kind={config.get('kind') or ''}"
            )
        type_causes = type_meta_causes(kind, config)
        if type_causes:
            raise answers.invalid(kind, route.name, type_causes, kind.kind)
        meta = config.get("metadata") or {}
        if meta.get("name", route.name) != route.name:
            raise answers.bad_request(
                f"the name of the object ({meta['name']}) does not match the name "
                f"on the URL ({route.name})"
            )
        problem = numeric_problem(kind.schema, config)
        if problem is not None:
            raise answers.Refusal(
                500,
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": "failed to create typed patch object "
                    f"({meta.get('namespace', '')}/{route.name}; {kind.api_version}, "
                    f"Kind={kind.kind}): {problem}",
                    "code": 500,
                },
            )
        force = route.query.get("force") == "true"
        write = self._writer(kind, route)
        # only read: `live` is its copy
        current = self.store.peek(store_key(kind), route.namespace or "", route.name)
        if current is not None:
            current = self.versions.to_served(kind, current)
        if current is None:
            if status_only:
                raise answers.not_found(kind, route.name)
            live: dict[str, Any] = {
                "apiVersion": kind.api_version,
                "kind": kind.kind,
                "metadata": {"name": route.name},
            }
            merged, entries = apply([], live, config, write, force)
            return 201, self._create(kind, route, merged, entries)
        live = json_copy(current)
        live["metadata"].pop("managedFields", None)
        merged, entries = apply(self._entries(current), live, config, write, force)
        if "resourceVersion" not in meta:
            merged["metadata"].pop("resourceVersion", None)
        written = self._update(
            kind, route, merged, status_only, patched=True, entries=entries
        )
        return 200, written

    def _scale(
        self,
        method: str,
        kind: Kind,
        route: Route,
        body: bytes | None,
        content_type: str | None,
    ) -> dict[str, Any]:
        """The scale subresource: read, replaced (PUT) or patched as a Scale."""
        assert kind.scale is not None and route.name is not None
        current = self._current(kind, route)
        if method == "GET":
            return to_scale(kind.scale, current)
        if method == "PUT":
            wanted = json_document(body)
        elif method == "PATCH":
            wanted = patched(content_type, body, to_scale(kind.scale, current))
        else:
            raise answers.method_not_allowed(method)
        version = (wanted.get("metadata") or {}).get("resourceVersion")
        if version and version != current["metadata"]["resourceVersion"]:
            raise answers.conflict(kind, route.name, answers.STALE)
        replicas = (wanted.get("spec") or {}).get("replicas")
        scaled = with_replicas(kind.scale, current, replicas)
        whole = dataclasses.replace(route, subresource="scale")
        written = self._update(kind, whole, scaled, False, patched=True)
        return to_scale(kind.scale, written)


def go_parent(kind: Kind, cause: Cause) -> str:
    """The Go type holding the field a cause names (`DeploymentSpec` for
    `spec.replicas`): `op.k8s` classes are named after their Go types."""
    model: Any = kind.model
    for part in cause.field.split(".")[:-1]:
        fields = getattr(model, "model_fields", {})
        found = next(
            (f for name, f in fields.items() if (f.alias or name) == part), None
        )
        if found is None:
            break
        annotation = found.annotation
        model = next(
            (
                a
                for a in (annotation, *getattr(annotation, "__args__", ()))
                if isinstance(a, type) and hasattr(a, "model_fields")
            ),
            None,
        )
    return model.__name__ if isinstance(model, type) else kind.kind


def set_managed_fields(obj: dict[str, Any], entries: list[Entry]) -> None:
    if entries:
        obj["metadata"]["managedFields"] = write_entries(entries)
    else:
        obj["metadata"].pop("managedFields", None)


def type_meta_causes(kind: Kind, obj: dict[str, Any]) -> list[Cause]:
    """A custom resource's body names its apiVersion and kind, and they are its
    own (400 for a missing kind or another version, a cause for another kind)."""
    if kind.builtin:
        return []
    if not obj.get("kind") or not obj.get("apiVersion"):
        missing = "Kind" if not obj.get("kind") else "Version"
        raise answers.bad_request(
            f"the object provided is unrecognized (must be of type {kind.kind}): "
            f"Object '{missing}' is missing in '{json.dumps(obj)}'"
        )
    if obj["apiVersion"] != kind.api_version:
        raise answers.bad_request(
            f"the API version in the data ({obj['apiVersion']}) does not match the "
            f"expected API version ({kind.api_version})"
        )
    if obj["kind"] != kind.kind:
        return [
            Cause(
                "kind",
                "FieldValueInvalid",
                f'Invalid value: "{obj["kind"]}": must be {kind.kind}',
            )
        ]
    return []


def spec_changed(kind: Kind, old: dict[str, Any], new: dict[str, Any]) -> bool:
    ignored = ("metadata", "status") if kind.status_subresource else ("metadata",)
    return {k: v for k, v in old.items() if k not in ignored} != {
        k: v for k, v in new.items() if k not in ignored
    }


_PRUNED_BY = "pruned by"
"""`Store.kept`'s key for the schema that pruned and defaulted a stored object."""


def _not_known(obj: dict[str, Any]) -> None:
    return None


def _read_entries(obj: dict[str, Any]) -> list[Entry]:
    return read_entries(obj["metadata"])
