"""CEL rules, Immutable and one-of groups, as a real API server enforces them.

Each refusal is checked for the field path and the message the marker
declares, and the models refuse the same objects with the same causes
(`op.rule_causes`: field, message and reason as the server spells them);
`op.validate_update` refuses the same updates.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

import opgen.api as op
from tests.proof.api import RawApi, Verdict
from tests.proof.catalogue import ProofCrd, crd_by_name, resource_path

RULES = "rulecases.cases.opgen.dev"
IMMUTABLE = "immutablecases.cases.opgen.dev"
RAY = "rayclusters.ray.io"


def _body(entry: ProofCrd, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"{entry.group}/{entry.storage_version}",
        "kind": entry.body["spec"]["names"]["kind"],
        "metadata": {"name": name},
        "spec": spec,
    }


def _create(
    api: RawApi, namespace: str, crd: str, spec: dict[str, Any], *, dry_run: bool = True
) -> Verdict:
    entry = crd_by_name(crd)
    path = resource_path(entry, entry.storage_version, namespace)
    return api.create(path, _body(entry, "cel", spec), dry_run=dry_run)


def _model_causes(crd: str, spec: dict[str, Any]) -> set[tuple[str, str, str]]:
    entry = crd_by_name(crd)
    try:
        entry.model(entry.storage_version).model_validate(_body(entry, "cel", spec))
    except ValidationError as error:
        return {(c.field, c.message, c.reason) for c in op.rule_causes(error)}
    return set()


def _server_causes(verdict: Verdict) -> set[tuple[str, str, str]]:
    return {(c.field, c.message, c.reason) for c in verdict.causes}


def _pydantic_accepts(crd: str, spec: dict[str, Any]) -> bool:
    entry = crd_by_name(crd)
    try:
        entry.model(entry.storage_version).model_validate(_body(entry, "cel", spec))
    except ValidationError:
        return False
    return True


RULE_CASES: dict[str, tuple[str, dict[str, Any], str, str]] = {
    # name: (crd, spec, field, message)
    "field rule": (
        RULES,
        {"name": "web", "scaling": {}},
        "spec.name",
        "must start with app-",
    ),
    "messageExpression": (
        RULES,
        {"name": "app-" + "x" * 20, "scaling": {}},
        "spec.name",
        f"name app-{'x' * 20} is longer than 20 characters",
    ),
    "type rule on a nested model": (
        RULES,
        {"name": "app-a", "scaling": {"minReplicas": 5, "maxReplicas": 1}},
        "spec.scaling",
        "minReplicas must not exceed maxReplicas",
    ),
    "optionalOldSelf on create": (
        RULES,
        {"name": "app-a", "scaling": {}, "replicas": 3},
        "spec.replicas",
        "must be 0 on creation",
    ),
    "kind rule with a fieldPath": (
        RULES,
        {"name": "app-a", "scaling": {}, "replicas": 101},
        "spec.replicas",
        "too many replicas",
    ),
    "rule with a fieldPath inside a map list": (
        RAY,
        {
            "rayVersion": "2.9.0",
            "head": {"image": "ray"},
            "workerGroups": [{"groupName": "a", "minReplicas": 5, "maxReplicas": 1}],
        },
        "spec.workerGroups[0].minReplicas",
        "minReplicas must not exceed maxReplicas",
    ),
}


@pytest.mark.parametrize("case", sorted(RULE_CASES))
def test_rules_are_refused_with_their_path_and_message(
    installed_crds: tuple[ProofCrd, ...],
    raw_api: RawApi,
    proof_namespace: str,
    case: str,
) -> None:
    crd, spec, field, message = RULE_CASES[case]
    verdict = _create(raw_api, proof_namespace, crd, spec)
    assert not verdict.accepted
    assert verdict.has_cause(field, message), [str(c) for c in verdict.causes]
    assert _model_causes(crd, spec) == _server_causes(verdict)


def test_the_valid_object_passes_every_rule(
    installed_crds: tuple[ProofCrd, ...], raw_api: RawApi, proof_namespace: str
) -> None:
    spec = {"name": "app-a", "scaling": {"minReplicas": 1, "maxReplicas": 2}}
    assert _create(raw_api, proof_namespace, RULES, spec).accepted
    assert _pydantic_accepts(RULES, spec)


ONE_OF_CASES: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "exactly one, none set": (
        "exactlyoneofcases.cases.opgen.dev",
        {"source": {}},
        "spec.source",
        "exactly one of the fields in [configMap secret] must be set",
    ),
    "exactly one, both set": (
        "exactlyoneofcases.cases.opgen.dev",
        {"source": {"configMap": "a", "secret": "b"}},
        "spec.source",
        "exactly one of the fields in [configMap secret] must be set",
    ),
    "at most one": (
        "atmostoneofcases.cases.opgen.dev",
        {"cpu": 1, "gpu": 1},
        "spec",
        "at most one of the fields in [cpu gpu] may be set",
    ),
    "at least one": (
        "atleastoneofcases.cases.opgen.dev",
        {},
        "spec",
        "at least one of the fields in [email slack] must be set",
    ),
    "RayCluster head image": (
        RAY,
        {"rayVersion": "2.9.0", "head": {"image": "ray", "imageFrom": {"name": "cm"}}},
        "spec.head",
        "exactly one of the fields in [image imageFrom] must be set",
    ),
}


@pytest.mark.parametrize("case", sorted(ONE_OF_CASES))
def test_one_of_groups_are_refused_by_both(
    installed_crds: tuple[ProofCrd, ...],
    raw_api: RawApi,
    proof_namespace: str,
    case: str,
) -> None:
    crd, spec, field, message = ONE_OF_CASES[case]
    verdict = _create(raw_api, proof_namespace, crd, spec)
    assert not verdict.accepted
    assert verdict.has_cause(field, message), [str(c) for c in verdict.causes]
    entry = crd_by_name(crd)
    with pytest.raises(ValidationError, match=message.replace("[", r"\[")):
        entry.model(entry.storage_version).model_validate(_body(entry, "cel", spec))


def _update(
    api: RawApi, namespace: str, stored: dict[str, Any], spec: dict[str, Any]
) -> Verdict:
    entry = crd_by_name(IMMUTABLE)
    body = {**stored, "spec": spec}
    path = resource_path(
        entry, entry.storage_version, namespace, stored["metadata"]["name"]
    )
    return api.replace(path, body)


def test_immutable_fields_refuse_changes_on_update(
    installed_crds: tuple[ProofCrd, ...], raw_api: RawApi, proof_namespace: str
) -> None:
    entry = crd_by_name(IMMUTABLE)
    original = {"storageClass": "fast", "volumeName": "data"}
    body = _body(entry, "immutable", original)
    collection = resource_path(entry, entry.storage_version, proof_namespace)
    created = raw_api.create(collection, body, dry_run=False)
    assert created.accepted, created
    stored = created.body

    changed = _update(
        raw_api, proof_namespace, stored, {**original, "storageClass": "slow"}
    )
    assert changed.has_cause("spec.storageClass", "field is immutable"), changed

    renamed = _update(
        raw_api, proof_namespace, stored, {**original, "volumeName": "other"}
    )
    assert renamed.has_cause("spec.volumeName", "field is immutable"), renamed

    removed = _update(raw_api, proof_namespace, stored, {"storageClass": "fast"})
    assert removed.has_cause("spec", "field volumeName is immutable once set"), removed

    unchanged = _update(raw_api, proof_namespace, stored, original)
    assert unchanged.accepted, unchanged
    # The model alone cannot see the old object; op.validate_update can.
    model = entry.model(entry.storage_version)
    model.model_validate({**stored, "spec": {"storageClass": "slow"}})
    old = model.model_validate(stored)
    for refused, spec in (
        (changed, {**original, "storageClass": "slow"}),
        (renamed, {**original, "volumeName": "other"}),
        (removed, {"storageClass": "fast"}),
    ):
        with pytest.raises(ValidationError) as caught:
            op.validate_update(old, {**stored, "spec": spec})
        found = {(c.field, c.message, c.reason) for c in op.rule_causes(caught.value)}
        assert found == _server_causes(refused)
    op.validate_update(old, {**stored, "spec": original})


def test_transition_rules_allow_changes_after_creation(
    installed_crds: tuple[ProofCrd, ...], raw_api: RawApi, proof_namespace: str
) -> None:
    entry = crd_by_name(RULES)
    collection = resource_path(entry, entry.storage_version, proof_namespace)
    created = raw_api.create(
        collection,
        _body(entry, "transition", {"name": "app-a", "scaling": {}}),
        dry_run=False,
    )
    assert created.accepted, created
    stored = created.body
    path = resource_path(entry, entry.storage_version, proof_namespace, "transition")
    updated = raw_api.replace(
        path, {**stored, "spec": {**stored["spec"], "replicas": 5}}
    )
    assert updated.accepted, updated  # "must be 0 on creation" only
    model = entry.model(entry.storage_version)
    op.validate_update(
        model.model_validate(stored),
        {**stored, "spec": {**stored["spec"], "replicas": 5}},
    )
