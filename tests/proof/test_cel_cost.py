"""A real API server's cost estimate of CEL rules, against opgen's.

kube-apiserver refuses a rule whose estimated cost, times the number of times
its node can occur, passes the per-rule budget, and says by which factor. Each
rule of tests/cel/cost_cases.py is put on the items of a list whose `maxItems`
is just large enough for opgen's estimate to pass the budget: the server must
refuse it with the very factor opgen reports (six decimals below 1.5x, so an
estimate off by more than a few units shows). CRDs whose rules add up past the
per-CRD budget are refused by both with the same causes; just under it, both
accept.
"""

from __future__ import annotations

import pytest

from opgen.engine.cel.check import check_expression
from opgen.engine.cel.cost import STATIC_RULE_COST_LIMIT
from opgen.schema.check import inspect_crd
from tests.cel.cost_cases import (
    COSTS,
    LARGE,
    OVER_CRD_BUDGET,
    PROBE_SCHEMA,
    ROOT_COSTS,
    UNDER_CRD_BUDGET,
    crd_with_rules,
    probe_crd,
)
from tests.proof.api import CRD_PATH, RawApi

_COST_WORDS = ("cost exceeds budget", "cost total")


def _cost_causes_of_server(raw_api: RawApi, crd: dict[str, object]) -> set[str]:
    verdict = raw_api.create(CRD_PATH, crd, dry_run=True, strict=True)
    assert not verdict.accepted, "the server accepted the CRD"
    return {
        f"{c.field.split('openAPIV3Schema', 1)[1]}: {c.message}"
        for c in verdict.causes
        if any(word in c.message for word in _COST_WORDS)
    }


def _cost_causes_of_opgen(crd: dict[str, object]) -> set[str]:
    return {
        f"{p.path.split('openAPIV3Schema', 1)[1]}: {p.detail}"
        for p in inspect_crd(crd, {}, None).errors
        if any(word in p.detail for word in _COST_WORDS)
    }


def _just_over(rule: str, *, root: bool) -> dict[str, object]:
    node = (
        {**PROBE_SCHEMA, "x-kubernetes-embedded-resource": True}
        if root
        else PROBE_SCHEMA
    )
    cost = check_expression(rule, node, root=root).cost
    return probe_crd(rule, STATIC_RULE_COST_LIMIT // cost + 1, root=root)


@pytest.mark.parametrize("rule", sorted([*COSTS, *LARGE]))
def test_the_server_refuses_a_rule_over_budget_by_the_factor_opgen_reports(
    raw_api: RawApi, rule: str
) -> None:
    crd = _just_over(rule, root=False)
    server = _cost_causes_of_server(raw_api, crd)
    assert server, "the server gave no cost cause"
    assert _cost_causes_of_opgen(crd) == server


@pytest.mark.parametrize("rule", sorted(ROOT_COSTS))
def test_the_same_on_the_root_of_an_embedded_resource(
    raw_api: RawApi, rule: str
) -> None:
    crd = _just_over(rule, root=True)
    assert _cost_causes_of_opgen(crd) == _cost_causes_of_server(raw_api, crd)


def test_rules_adding_up_past_the_crd_budget_are_refused_alike(
    raw_api: RawApi,
) -> None:
    crd = crd_with_rules(OVER_CRD_BUDGET)
    server = _cost_causes_of_server(raw_api, crd)
    assert len(server) == 5  # the total, and the four costliest rules
    assert _cost_causes_of_opgen(crd) == server


def test_rules_just_under_the_crd_budget_are_accepted_by_both(
    raw_api: RawApi,
) -> None:
    crd = crd_with_rules(UNDER_CRD_BUDGET)
    verdict = raw_api.create(CRD_PATH, crd, dry_run=True, strict=True)
    assert verdict.accepted, verdict.message
    assert inspect_crd(crd, {}, None).errors == []
