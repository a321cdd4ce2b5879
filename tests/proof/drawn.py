"""The property test's loop: draw bodies for one kind version, compare verdicts.

`draw_and_compare(api, entry, version, namespace, examples=)` draws request
bodies from the version's schema with Hypothesis (`opgen.testing.drawing.ObjectMaker`, half
valid, half with constraints broken), within the CRD's supported subset
(`subset.outside_for`), sends each to the kind's model and to the server
(`verdicts.compare`) and returns every outcome. tests/proof's property test
and tests/imports' (on imported kinds) both run it; `scaled(n)` is how many
bodies each draws (`OPGEN_PROOF_EXAMPLES_SCALE`, docs/testing.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from opgen.testing.drawing import ObjectMaker, body_for, scale_replica_paths
from tests.proof.api import RawApi
from tests.proof.catalogue import ProofCrd
from tests.proof.subset import outside_for
from tests.proof.values import CEL_REPAIRS
from tests.proof.verdicts import Comparison, compare

__all__ = ["Drawn", "Outcome", "draw_and_compare", "scaled"]


def scaled(examples: int) -> int:
    """`examples` times OPGEN_PROOF_EXAMPLES_SCALE (1 by default), at least 1."""
    return max(
        1, int(examples * float(os.environ.get("OPGEN_PROOF_EXAMPLES_SCALE", "1")))
    )


@dataclass(frozen=True)
class Outcome:
    """One body: the verdicts, what was broken on purpose, and whether it was
    drawn to break something."""

    comparison: Comparison
    breaks: list[str]
    breaking: bool


@dataclass
class Drawn:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def mismatches(self) -> list[str]:
        return [
            f"{problem}\n  broken on purpose: {outcome.breaks}"
            for outcome in self.outcomes
            for problem in outcome.comparison.problems
        ]

    @property
    def accepted_valid(self) -> int:
        """Bodies drawn as valid that the server accepted."""
        return sum(
            1 for o in self.outcomes if not o.breaking and o.comparison.server_accepts
        )

    @property
    def refused(self) -> int:
        return sum(1 for o in self.outcomes if not o.comparison.server_accepts)

    def failure(self) -> str:
        mismatches = self.mismatches
        return f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:5])


def draw_and_compare(
    api: RawApi, entry: ProofCrd, version: str, namespace: str, *, examples: int
) -> Drawn:
    """`examples` bodies for `entry`'s `version`, each compared (deterministic)."""
    schema = entry.schema(version)
    outside = outside_for(entry.name, entry.model(version))
    # With /status on, the server ignores status on create: leave it out.
    skip = (
        frozenset({"status"}) if entry.has_status_subresource(version) else frozenset()
    )
    int32 = scale_replica_paths(entry.version(version))
    drawn = Drawn()

    @settings(
        max_examples=examples,
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
            repairs=CEL_REPAIRS,
            int32=int32,
        )
        body = body_for(
            maker,
            schema,
            api_version=f"{entry.group}/{version}",
            kind=entry.body["spec"]["names"]["kind"],
            name="proof",
            skip=skip,
        )
        comparison = compare(api, entry, version, namespace, body)
        drawn.outcomes.append(Outcome(comparison, maker.breaks, breaking))

    run()
    return drawn
