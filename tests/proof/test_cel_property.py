"""The models' CEL verdicts against a real API server's, on many generated objects.

Two kinds (tests/proof/cel/kinds_types.py) carry the example's rules and
rules over lists, maps, strings, quantities and int-or-string values, with
has() guards, messageExpression and transition rules. Objects are drawn with
a seeded generator near the rules' edges (`OPGEN_PROOF_EXAMPLES_SCALE`
scales the count); each goes to `Kind.model_validate` and to the server
(dry-run create, several requests at a time). They must agree on the
verdict and, when both refuse, on the causes (field, message, reason). For
updates, a few objects are really created and each drawn change is a dry-run
replace, judged by `op.validate_update` too.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

import opgen.api as op
from opgen.load import load_kinds
from opgen.pipeline import crds
from opgen.testing import Environment
from tests.proof.api import RawApi, Verdict
from tests.proof.drawn import scaled

KINDS = Path(__file__).parent / "cel" / "kinds_types.py"
CREATES = 10_000
UPDATES = 1_000
WORKERS = 4

Causes = set[tuple[str, str, str]]


@pytest.fixture(scope="module")
def cel_kinds(envtest: Environment) -> dict[str, type[Any]]:
    loaded = load_kinds([KINDS])
    files, _ = crds(loaded, PurePosixPath("."))
    envtest.install_crds([yaml.safe_load(file.content) for file in files])
    return {
        kind.names.kind: loaded.models[kind.key(kind.versions[0])]
        for kind in loaded.kinds
    }


_PLURALS = {"Cluster": "clusters", "Values": "values"}


def _path(kind: str, namespace: str, name: str | None = None) -> str:
    path = f"/apis/celproof.opgen.dev/v1/namespaces/{namespace}/{_PLURALS[kind]}"
    return f"{path}/{name}" if name else path


def _words(rng: random.Random, choices: list[str], most: int) -> list[str]:
    return [rng.choice(choices) for _ in range(rng.randint(0, most))]


def _cluster(rng: random.Random) -> dict[str, Any]:
    def container() -> dict[str, Any]:
        found: dict[str, Any] = {"name": "c"}
        if rng.random() < 0.7:
            found["image"] = "ray"
        return found

    def template() -> dict[str, Any]:
        if rng.random() < 0.2:
            return {}
        return {"spec": {"containers": [container() for _ in range(rng.randint(0, 2))]}}

    groups = []
    for name in rng.sample(["a", "b", "c", "d"], rng.randint(0, 3)):
        group: dict[str, Any] = {"groupName": name}
        for field in ("replicas", "minReplicas", "maxReplicas"):
            if rng.random() < 0.8:
                group[field] = rng.randint(0, 6)
        if rng.random() < 0.7:
            group["template"] = template()
        groups.append(group)
    spec: dict[str, Any] = {}
    if rng.random() < 0.5:
        spec["image"] = "ray:2"
    if rng.random() < 0.6:
        spec["headGroup"] = {"template": template()} if rng.random() < 0.9 else {}
    if groups or rng.random() < 0.3:
        spec["workerGroups"] = groups
    if rng.random() < 0.6:
        spec["workerReplicas"] = rng.randint(0, 12)
    if rng.random() < 0.5:
        spec["rayVersion"] = rng.choice(["2.9.0", "2.10.0"])
    # valid object names (the server checks those first), some breaking the rule
    name = rng.choice(["demo", "ray-1", "ray.x", "9lives", "x" * 12, "y" * 13, "ok-9"])
    return {"metadata": {"name": name}, "spec": spec}


def _values(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": rng.choice(["web", "web-app", "a-b-c", "Web", "web--x", "x"]),
    }
    if rng.random() < 0.8:
        spec["tags"] = _words(rng, ["a", "b", "bad", "one", "z"], 4)
    if rng.random() < 0.7:
        keys = rng.sample(["x-a", "x-b", "y-c", "forbidden", "x-d"], rng.randint(0, 3))
        spec["labels"] = {key: rng.choice(["v", ""]) for key in keys}
    if rng.random() < 0.6:
        spec["ports"] = [
            {
                "name": name,
                "number": rng.choice([80, 0, 70000, "http", "HTTP", "a1", 443]),
            }
            for name in rng.sample(["p", "q", "r"], rng.randint(0, 2))
        ]
    if rng.random() < 0.6:
        spec["memory"] = rng.choice(["1Gi", "8Gi", "9Gi", "512Mi", 1024, "100"])
    if rng.random() < 0.6:
        spec["minSize"] = rng.choice(["a", "m", "z"])
    if rng.random() < 0.6:
        spec["maxSize"] = rng.choice(["a", "m", "z"])
    if rng.random() < 0.7:
        spec["replicas"] = rng.randint(0, 6)
    if rng.random() < 0.5:
        spec["owner"] = rng.choice(["ann", "bob"])
    return {"metadata": {"name": "v"}, "spec": spec}


DRAW: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "Cluster": _cluster,
    "Values": _values,
}


def _typed(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "celproof.opgen.dev/v1", "kind": kind, **body}


def _model_verdict(judge: Callable[[], Any]) -> tuple[bool, Causes]:
    try:
        judge()
    except ValidationError as error:
        causes = {(c.field, c.message, c.reason) for c in op.rule_causes(error)}
        return False, causes
    return True, set()


def _server_causes(verdict: Verdict) -> Causes:
    return {(c.field, c.message, c.reason) for c in verdict.causes}


def _disagreement(
    body: dict[str, Any], model: tuple[bool, Causes], verdict: Verdict
) -> str | None:
    accepted, causes = model
    if accepted != verdict.accepted:
        return f"model {'accepts' if accepted else 'refuses'} {causes}, server: {verdict}\n  {body}"
    if not accepted and causes != _server_causes(verdict):
        return (
            f"causes differ: model {causes}, server {_server_causes(verdict)}\n  {body}"
        )
    return None


def _bodies(kind: str, count: int, seed: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for _ in range(count):
        yield _typed(kind, DRAW[kind](rng))


def test_models_and_server_agree_on_created_objects(
    cel_kinds: dict[str, type[Any]], raw_api: RawApi, proof_namespace: str
) -> None:
    total = scaled(CREATES)
    problems: list[str] = []
    refused = 0
    with ThreadPoolExecutor(WORKERS) as pool:
        for kind, model in sorted(cel_kinds.items()):
            bodies = list(_bodies(kind, total // len(cel_kinds), seed=len(kind)))
            verdicts = pool.map(
                lambda body, kind=kind: raw_api.create(
                    _path(kind, proof_namespace), body
                ),
                bodies,
            )
            for body, verdict in zip(bodies, verdicts, strict=True):
                judged = _model_verdict(functools.partial(model.model_validate, body))
                refused += not verdict.accepted
                problem = _disagreement(body, judged, verdict)
                if problem:
                    problems.append(problem)
    print(
        f"CEL rules: {total} objects, {refused} refused by the server, {len(problems)} mismatches"
    )
    assert refused and refused < total  # the draw reaches both sides of the rules
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:5])


def test_models_and_server_agree_on_updates(
    cel_kinds: dict[str, type[Any]], raw_api: RawApi, proof_namespace: str
) -> None:
    rng = random.Random(7)
    model = cel_kinds["Values"]
    stored_objects = []
    for position in range(5):
        spec = {"name": "web", "replicas": rng.randint(0, 3), "owner": "ann"}
        if position % 2:
            spec.pop("owner")
        created = raw_api.create(
            _path("Values", proof_namespace),
            _typed("Values", {"metadata": {"name": f"u{position}"}, "spec": spec}),
            dry_run=False,
        )
        assert created.accepted, created
        stored_objects.append(created.body)
    problems: list[str] = []
    refused = 0
    total = scaled(UPDATES)
    changes = []
    for _ in range(total):
        stored = rng.choice(stored_objects)
        drawn = _values(rng)["spec"]
        changes.append((stored, {**stored, "spec": drawn}))

    def ask(change: tuple[dict[str, Any], dict[str, Any]]) -> Verdict:
        stored, body = change
        return raw_api.replace(
            _path("Values", proof_namespace, stored["metadata"]["name"]),
            body,
            dry_run=True,
        )

    with ThreadPoolExecutor(WORKERS) as pool:
        for (stored, body), verdict in zip(
            changes, pool.map(ask, changes), strict=True
        ):
            old = model.model_validate(stored)
            judged = _model_verdict(functools.partial(op.validate_update, old, body))
            refused += not verdict.accepted
            problem = _disagreement(body, judged, verdict)
            if problem:
                problems.append(problem)
    print(
        f"CEL rules on update: {total} updates, {refused} refused, {len(problems)} mismatches"
    )
    assert refused and refused < total
    assert not problems, f"{len(problems)} mismatches:\n" + "\n".join(problems[:5])
