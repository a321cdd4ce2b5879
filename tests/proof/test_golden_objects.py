"""For each golden model: what Pydantic accepts the server accepts, defaults match,
and every constraint is refused by both, at the path and with the message the CRD declares.

Per CRD and served version:
- the smallest valid object (`minimal.minimal`) is accepted by Pydantic; it is
  created for real, read back, and the server's defaults equal Pydantic's
  (every CRD `default` is filled in, and the stored object parses to the
  same model as Pydantic built);
- for every constraint in the schema (`minimal.violations`) an object that
  breaks it is refused by the server (`dryRun=All`) with a cause naming the
  field and the constraint, and refused by Pydantic at that field (or the
  model holding it).
CEL rules, `Immutable` on update and one-of groups have their own tests below.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.proof.api import RawApi
from tests.proof.catalogue import (
    ProofCrd,
    catalogue,
    crd_by_name,
    resource_path,
    served_kind_versions,
)
from tests.proof.minimal import minimal, violations
from tests.proof.subset import Outside, outside_for
from tests.proof.values import repair_cel
from tests.proof.verdicts import wire

CASES = served_kind_versions()


def _node_at(schema: dict[str, Any], path: str) -> dict[str, Any] | None:
    node: dict[str, Any] | None = schema
    for part in path.split("."):
        node = (node or {}).get("properties", {}).get(part)
    return node


def _set_path(body: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node = body
    for name in parents:
        node = node.setdefault(name, {})
    node[last] = value


def base_object(entry: ProofCrd, version: str, name: str) -> dict[str, Any]:
    """The smallest valid object of a kind version, as a request body."""
    schema = entry.schema(version)
    body: dict[str, Any] = minimal(
        {k: v for k, v in schema.items() if k != "x-kubernetes-validations"}
    )
    if "spec" in schema.get("properties", {}):
        body.setdefault("spec", minimal(schema["properties"]["spec"]))
    outside = outside_for(entry.name, entry.model(version))
    for path in sorted(outside.always):
        node = _node_at(schema, path)
        if node is not None:
            _set_path(body, path, minimal(node))
    for path, value in sorted(outside.fixed.items()):
        if _node_at(schema, path) is not None:
            _set_path(body, path, value)
    body.update(
        apiVersion=f"{entry.group}/{version}",
        kind=entry.body["spec"]["names"]["kind"],
        metadata={"name": name},
    )
    repaired: dict[str, Any] = repair_cel(schema, body)
    return repaired


def _defaults_missing(
    node: dict[str, Any], sent: Any, stored: Any, path: str
) -> list[str]:
    """CRD defaults the server should have filled in but did not."""
    if not isinstance(stored, dict):
        return []
    missing: list[str] = []
    sent = sent if isinstance(sent, dict) else {}
    for name, child in (node.get("properties") or {}).items():
        child_path = f"{path}.{name}"
        if (
            "default" in child
            and name not in sent
            and not _contains(stored.get(name), child["default"])
        ):
            missing.append(
                f"{child_path}: stored {stored.get(name)!r}, default {child['default']!r}"
            )
        if name in stored:
            missing.extend(
                _defaults_missing(child, sent.get(name), stored[name], child_path)
            )
    return missing


def _contains(value: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(value, dict) and all(
            _contains(value.get(k), v) for k, v in expected.items()
        )
    return bool(value == expected)


@pytest.mark.parametrize(("name", "version"), CASES)
def test_minimal_object_is_accepted_and_defaulted_like_pydantic(
    installed_crds: tuple[ProofCrd, ...],
    raw_api: RawApi,
    proof_namespace: str,
    name: str,
    version: str,
) -> None:
    entry = crd_by_name(name)
    model = entry.model(version)
    body = base_object(entry, version, f"defaults-{version}")
    built = model.model_validate(body)
    dumped = wire(built)
    namespace = proof_namespace if entry.namespaced else None
    collection = resource_path(entry, version, namespace)
    assert raw_api.create(collection, dumped).accepted
    created = raw_api.create(collection, body, dry_run=False)
    assert created.accepted, created
    try:
        stored = raw_api.get(
            resource_path(entry, version, namespace, body["metadata"]["name"])
        )
        assert stored.accepted, stored
        schema = entry.schema(version)
        assert _defaults_missing(schema, body, stored.body, "") == []
        read_back = wire(model.model_validate(stored.body))
        for key in ("apiVersion", "kind", "metadata"):
            read_back.pop(key), dumped.pop(key)
        assert read_back == dumped
    finally:
        if not entry.namespaced:
            raw_api.delete(
                resource_path(entry, version, None, body["metadata"]["name"])
            )


def _pydantic_refuses_at(
    model: type[Any], body: dict[str, Any], path: str
) -> str | None:
    """None when Pydantic refuses `body` at `path` or a parent of it; else why not."""
    try:
        model.model_validate(body)
    except ValidationError as error:
        locations = [
            "".join(
                f"[{part}]" if isinstance(part, int) else f".{part}"
                for part in e["loc"]
            ).lstrip(".")
            for e in error.errors()
        ]
        if any(
            path == loc
            or path.startswith(f"{loc}.")
            or path.startswith(f"{loc}[")
            or not loc
            for loc in locations
        ):
            return None
        return f"Pydantic refused elsewhere: {locations}"
    return "Pydantic accepted it"


@pytest.mark.parametrize(("name", "version"), CASES)
def test_every_constraint_is_refused_with_its_path_and_message(
    installed_crds: tuple[ProofCrd, ...],
    raw_api: RawApi,
    proof_namespace: str,
    name: str,
    version: str,
) -> None:
    entry = crd_by_name(name)
    model = entry.model(version)
    outside: Outside = outside_for(name, model)
    skip = set(outside.omit)
    if entry.has_status_subresource(version):
        skip.add("status")
    base = base_object(entry, version, "violation")
    collection = resource_path(
        entry, version, proof_namespace if entry.namespaced else None
    )
    found = violations(entry.schema(version), base, frozenset(skip))
    failures: list[str] = []
    for violation in found:
        verdict = raw_api.create(collection, violation.body)
        where = violation.field or violation.path
        if verdict.accepted or not verdict.has_cause(where, violation.fragment):
            failures.append(
                f"{violation}: server said {verdict}; causes {list(map(str, verdict.causes))}"
            )
        listed = violation.path.rsplit("[", 1)[0]
        if violation.constraint.endswith("duplicate") and (
            f"{listed}: duplicate" in outside.keep
        ):
            continue  # a Python set drops duplicates (outside the subset)
        problem = _pydantic_refuses_at(model, violation.body, violation.path)
        if problem is not None:
            failures.append(f"{violation}: {problem}")
    assert not failures, "\n".join(failures)


def test_the_derived_violations_cover_every_kind_of_constraint() -> None:
    kinds: set[str] = set()
    total = 0
    for entry in catalogue():
        for version in entry.served_versions():
            found = violations(
                entry.schema(version), base_object(entry, version, "count")
            )
            total += len(found)
            kinds.update(v.constraint for v in found)
    assert total >= 250
    assert kinds >= {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "enum",
        "format",
        "int32",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "required",
        "set duplicate",
        "map duplicate",
    }
