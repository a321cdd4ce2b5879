"""Every CRD opgen's tests produce is accepted, Established and kept as written.

Also: opgen's checker agrees with the server on each of them (it finds
nothing where the server accepts).
"""

from __future__ import annotations

from typing import Any

import pytest

from opgen.schema.check import inspect_crd
from tests.proof.api import CRD_PATH, RawApi
from tests.proof.catalogue import ProofCrd, catalogue, crd_by_name

NAMES = [entry.name for entry in catalogue()]


def _conditions(crd: dict[str, Any]) -> dict[str, str]:
    return {
        str(c["type"]): str(c["status"])
        for c in crd.get("status", {}).get("conditions", [])
    }


def test_the_catalogue_covers_golden_cronjob_and_example() -> None:
    origins = {entry.origin for entry in catalogue()}
    assert sum(o.startswith("cases.opgen.dev_") for o in origins) >= 57
    assert sum(o.startswith("cronjob/") for o in origins) == 3
    assert "raycluster_types.py" in origins


@pytest.mark.parametrize("name", NAMES)
def test_crd_is_established_and_kept_as_written(
    installed_crds: tuple[ProofCrd, ...], raw_api: RawApi, name: str
) -> None:
    entry = crd_by_name(name)
    verdict = raw_api.get(f"{CRD_PATH}/{name}")
    assert verdict.accepted, verdict
    stored = verdict.body
    conditions = _conditions(stored)
    assert conditions.get("Established") == "True", conditions
    assert conditions.get("NamesAccepted") == "True", conditions
    # The server dropped nothing: every version (schema, columns, subresources,
    # selectable fields) reads back as sent, so no key was silently pruned.
    sent = {v["name"]: v for v in entry.body["spec"]["versions"]}
    kept = {v["name"]: v for v in stored["spec"]["versions"]}
    assert kept == sent
    for key in ("group", "names", "scope"):
        assert stored["spec"][key] == entry.body["spec"][key]


@pytest.mark.parametrize("name", NAMES)
def test_checker_finds_nothing_where_the_server_accepts(name: str) -> None:
    entry = crd_by_name(name)
    report = inspect_crd(entry.body, {}, None)
    assert [str(problem) for problem in report.errors] == []
