"""The deliberate differences between Pydantic and the API server, shown to be real.

docs/testing.md lists what lies outside the supported subset of the property
test. Each entry is demonstrated here with one object, so the documentation
cannot drift from the behaviour: if opgen closes a gap, its test fails and the
docs must change with it.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.proof.api import RawApi
from tests.proof.catalogue import ProofCrd, crd_by_name, resource_path


def _verdicts(
    api: RawApi, namespace: str, crd: str, spec: dict[str, Any]
) -> tuple[bool, bool]:
    """(Pydantic accepts, the server accepts) for one spec."""
    entry = crd_by_name(crd)
    version = entry.storage_version
    body = {
        "apiVersion": f"{entry.group}/{version}",
        "kind": entry.body["spec"]["names"]["kind"],
        "metadata": {"name": "difference"},
        "spec": spec,
    }
    try:
        entry.model(version).model_validate(body)
        pydantic = True
    except ValidationError:
        pydantic = False
    verdict = api.create(resource_path(entry, version, namespace), body)
    return pydantic, verdict.accepted


DIFFERENCES: dict[str, tuple[str, dict[str, Any], tuple[bool, bool]]] = {
    # name: (crd, spec, (Pydantic accepts, server accepts))
    "Field(pattern=) matches Unicode with \\w, Go does not": (
        "patterncases.cases.opgen.dev",
        {"image": "ray:ok", "imagePydantic": "ray:é"},
        (True, False),
    ),
    "op.Pattern follows Go (the same value, refused by both)": (
        "patterncases.cases.opgen.dev",
        {"image": "ray:é", "imagePydantic": "ray:ok"},
        (False, False),
    ),
    "a Python set drops duplicates the server refuses": (
        "uniqueitemscases.cases.opgen.dev",
        {"tagSet": ["a", "a"]},
        (True, False),
    ),
    "op.Optional() makes only the server lax": (
        "optionalcases.cases.opgen.dev",
        {},
        (False, True),
    ),
    "plain int fields are unbounded in Python, int64 on the server": (
        "minimumcases.cases.opgen.dev",
        {"replicas": 1, "replicasGe": 1, "offset": 2**63},
        (True, False),
    ),
    "formats Python does not check (uri)": (
        "formatcases.cases.opgen.dev",
        {"endpoint": "not a uri", "replicas": 1},
        (True, False),
    ),
}


@pytest.mark.parametrize("name", sorted(DIFFERENCES))
def test_documented_difference(
    installed_crds: tuple[ProofCrd, ...],
    raw_api: RawApi,
    proof_namespace: str,
    name: str,
) -> None:
    crd, spec, expected = DIFFERENCES[name]
    assert _verdicts(raw_api, proof_namespace, crd, spec) == expected
