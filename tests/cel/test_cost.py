"""opgen's estimate of a rule's cost is the API server's, and so are its budgets.

The figures in tests/cel/cost_cases.py were read from kube-apiserver 1.36's
refusals (tests/proof/test_cel_cost.py reads them again on every envtest
run); here opgen's estimator is held to them without a server, and the
budgets are checked on CRDs built around them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from opgen.engine.cel.budget import rule_costs
from opgen.engine.cel.check import check_expression
from opgen.engine.cel.cost import (
    MAX_REQUEST_BYTES,
    STATIC_RULE_COST_LIMIT,
    decl_of,
)
from opgen.schema.check import inspect_crd
from tests.cel.cost_cases import (
    COSTS,
    OVER_CRD_BUDGET,
    PROBE_SCHEMA,
    ROOT_COSTS,
    UNDER_CRD_BUDGET,
    crd_with_rules,
    probe_crd,
)
from tests.schema.base_crd import base_crd, root_schema


@pytest.mark.parametrize("rule", sorted(COSTS))
def test_the_estimate_is_the_servers(rule: str) -> None:
    checked = check_expression(rule, PROBE_SCHEMA)
    assert checked.problems == []
    assert checked.cost == COSTS[rule]
    assert not checked.approximate


@pytest.mark.parametrize("rule", sorted(ROOT_COSTS))
def test_a_resource_root_has_what_the_server_adds(rule: str) -> None:
    embedded = {**PROBE_SCHEMA, "x-kubernetes-embedded-resource": True}
    checked = check_expression(rule, embedded, root=True)
    assert checked.problems == []
    assert checked.cost == ROOT_COSTS[rule]


def test_sizes_follow_the_schema_bounds_and_the_request_limit() -> None:
    decl = decl_of(PROBE_SCHEMA)
    assert decl is not None
    assert decl.fields["name"].max_elements == 20 * 4  # four bytes a character
    assert decl.fields["mode"].max_elements == len("PathPrefix")  # the longest enum
    assert decl.fields["tags"].max_elements == 10
    # unbounded: what fits in a request, by the smallest serialized item
    assert decl.fields["free"].max_elements == (MAX_REQUEST_BYTES - 2) // (2 + 1)
    assert decl.fields["nums"].max_elements == (MAX_REQUEST_BYTES - 2) // (1 + 1)
    objs = decl.fields["objs"]
    assert objs.elem is not None and objs.elem.min_size == 2 + len("name") + 2 + 4
    anymap = decl.fields["anymap"]
    assert anymap.max_elements == (MAX_REQUEST_BYTES - 2) // (2 + 6)
    assert anymap.key is not None and anymap.key.max_elements == 0


def _spec_with_rules(
    rules: list[str], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    crd = base_crd()
    spec = copy.deepcopy(PROBE_SCHEMA)
    spec["x-kubernetes-validations"] = [{"rule": rule} for rule in rules]
    root_schema(crd)["properties"]["spec"] = {**spec, **(extra or {})}
    return crd


def test_a_rule_under_an_unbounded_list_counts_once_per_item_that_fits() -> None:
    crd = base_crd()
    item = {**copy.deepcopy(PROBE_SCHEMA), "x-kubernetes-validations": []}
    item["x-kubernetes-validations"].append({"rule": "self.name.startsWith('a')"})
    root_schema(crd)["properties"]["spec"] = {
        "type": "object",
        "properties": {"probe": {"type": "array", "items": item}},
    }
    schema = root_schema(crd)
    (found,) = rule_costs(schema)
    assert found.cost == COSTS["self.name.startsWith('app-')"] * (
        MAX_REQUEST_BYTES // (2 + 1)
    )


def test_a_rule_over_the_budget_is_refused_in_the_servers_words() -> None:
    rule = "self.free.all(f, f.matches('^a+$'))"
    errors = inspect_crd(_spec_with_rules([rule]), {}, None).errors
    # (the server also counts it against the CRD's total, which it passes too)
    (error,) = [e for e in errors if "estimated rule cost exceeds" in e.detail]
    assert error.path.endswith(
        "openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    )
    assert error.detail == (
        "Forbidden: estimated rule cost exceeds budget by factor of more than 100x "
        "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength "
        "where arrays, maps, and strings are declared)"
    )


def test_a_rule_just_under_the_budget_passes() -> None:
    crd = probe_crd("self.name.startsWith('app-')", STATIC_RULE_COST_LIMIT // 3)
    assert inspect_crd(crd, {}, None).errors == []
    over = probe_crd("self.name.startsWith('app-')", STATIC_RULE_COST_LIMIT // 3 + 1)
    (error,) = inspect_crd(over, {}, None).errors
    assert "factor of 1.000000x" in error.detail


def test_rules_adding_up_past_the_crd_budget_are_refused_naming_the_costliest() -> None:
    crd = crd_with_rules(OVER_CRD_BUDGET)
    costs = [c.cost for c in rule_costs(root_schema(crd))]
    assert sum(costs) == 102_397_181
    total, *named = inspect_crd(crd, {}, None).errors
    assert total.path == "spec.versions[0].schema.openAPIV3Schema"
    assert total.detail == (
        "Forbidden: x-kubernetes-validations estimated rule cost total for entire "
        "OpenAPIv3 schema exceeds budget by factor of 1.023972x (try simplifying the "
        "rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, "
        "and strings are declared)"
    )
    assert total.hint is not None and "CRD things.example.com" in total.hint
    assert "self.nums.all(n, n >= 0)" in total.hint
    # the four costliest rules, the most expensive first
    assert [n.path.rsplit(".", 2)[-2] for n in named] == [
        f"x-kubernetes-validations[{i}]" for i in (11, 10, 13, 14)
    ]
    assert all(
        n.detail == "Forbidden: contributed to estimated rule cost total exceeding "
        "cost limit for entire OpenAPIv3 schema"
        for n in named
    )


def test_rules_just_under_the_crd_budget_pass() -> None:
    crd = crd_with_rules(UNDER_CRD_BUDGET)
    assert sum(c.cost for c in rule_costs(root_schema(crd))) == 84_974_734
    assert inspect_crd(crd, {}, None).errors == []


@pytest.mark.parametrize("rule", sorted(ROOT_COSTS))
def test_rules_on_an_embedded_resource_root_compile(rule: str) -> None:
    assert inspect_crd(probe_crd(rule, 1, root=True), {}, None).errors == []
