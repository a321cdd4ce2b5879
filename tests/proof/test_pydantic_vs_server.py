"""Property test: for random objects, Pydantic and the API server give the same verdict.

For every served version of every CRD in the catalogue, Hypothesis draws
request bodies from the CRD's schema (`values.ObjectMaker`): half of them
valid, half with constraints broken at random (bounds, lengths, patterns,
enums, formats, item and property counts, duplicates in sets and map lists,
missing required fields, int32 ranges, one-of groups). Each body goes to the
kind's Pydantic model and, with `dryRun=All`, to the API server
(`verdicts.compare`). The run is deterministic (`derandomize`) and bounded;
the summary line is printed at the end of the session and the figure is
recorded in docs/testing.md. The supported subset, where the count of
mismatches must be 0, is defined in docs/testing.md and `subset.OUTSIDE`.
"""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.proof.api import RawApi
from tests.proof.catalogue import (
    ProofCrd,
    crd_by_name,
    served_kind_versions,
)
from tests.proof.subset import outside_for
from tests.proof.values import ObjectMaker, body_for
from tests.proof.verdicts import Tally, compare

TALLY = Tally()
"""Filled by the tests; printed by conftest's terminal summary."""

FOCUS = {
    "rayclusters.ray.io",
    "cronjobs.testdata.kubebuilder.io",
    "oneofs.testdata.kubebuilder.io",
    "minimumcases.cases.opgen.dev",
    "multipleofcases.cases.opgen.dev",
    "patterncases.cases.opgen.dev",
    "enumcases.cases.opgen.dev",
    "itemscases.cases.opgen.dev",
    "maxpropertiescases.cases.opgen.dev",
    "listmapkeycases.cases.opgen.dev",
    "quantitycases.cases.opgen.dev",
    "intorstringcases.cases.opgen.dev",
    "durationcases.cases.opgen.dev",
    "timecases.cases.opgen.dev",
    "defaultcases.cases.opgen.dev",
    "conditionscases.cases.opgen.dev",
}
"""Non-trivial models that get more examples than the rest."""

_SCALE = float(os.environ.get("OPGEN_PROOF_EXAMPLES_SCALE", "1"))
FOCUS_EXAMPLES = max(1, int(60 * _SCALE))
OTHER_EXAMPLES = max(1, int(12 * _SCALE))

CASES = served_kind_versions()


@pytest.mark.parametrize(("name", "version"), CASES)
def test_pydantic_and_the_server_agree(
    installed_crds: tuple[ProofCrd, ...],
    raw_api: RawApi,
    proof_namespace: str,
    name: str,
    version: str,
) -> None:
    entry = crd_by_name(name)
    schema = entry.schema(version)
    outside = outside_for(name, entry.model(version))
    # With /status on, the server ignores status on create: leave it out.
    skip = (
        frozenset({"status"}) if entry.has_status_subresource(version) else frozenset()
    )
    mismatches: list[str] = []
    accepted_valid: list[int] = []
    started = time.monotonic()

    @settings(
        max_examples=FOCUS_EXAMPLES if name in FOCUS else OTHER_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data(), breaking=st.booleans())
    def run(data: st.DataObject, breaking: bool) -> None:
        maker = ObjectMaker(
            data,
            breaking,
            omit=outside.omit,
            always=outside.always,
            keep=outside.keep,
            fixed=outside.fixed,
        )
        body = body_for(
            maker,
            schema,
            api_version=f"{entry.group}/{version}",
            kind=entry.body["spec"]["names"]["kind"],
            name="proof",
            skip=skip,
        )
        comparison = compare(raw_api, entry, version, proof_namespace, body)
        TALLY.add(f"{name}/{version}", comparison, maker.breaks)
        if not breaking and comparison.server_accepts:
            accepted_valid.append(1)
        for problem in comparison.problems:
            mismatches.append(f"{problem}\n  broken on purpose: {maker.breaks}")

    run()
    TALLY.seconds += time.monotonic() - started
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(
        mismatches[:5]
    )
    # The generator must produce valid objects, or the comparison proves little.
    assert accepted_valid, "the server refused every object drawn as valid"
