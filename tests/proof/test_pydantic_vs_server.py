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

import time

import pytest

from tests.proof.api import RawApi
from tests.proof.catalogue import (
    ProofCrd,
    crd_by_name,
    served_kind_versions,
)
from tests.proof.drawn import draw_and_compare, scaled
from tests.proof.verdicts import Tally

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

FOCUS_EXAMPLES = scaled(60)
OTHER_EXAMPLES = scaled(12)

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
    started = time.monotonic()
    examples = FOCUS_EXAMPLES if name in FOCUS else OTHER_EXAMPLES
    drawn = draw_and_compare(
        raw_api, entry, version, proof_namespace, examples=examples
    )
    for outcome in drawn.outcomes:
        TALLY.add(f"{name}/{version}", outcome.comparison, outcome.breaks)
    TALLY.seconds += time.monotonic() - started
    assert not drawn.mismatches, drawn.failure()
    # The generator must produce valid objects, or the comparison proves little.
    assert drawn.accepted_valid, "the server refused every object drawn as valid"
