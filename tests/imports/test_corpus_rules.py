"""Every CEL rule of the published CRDs compiles under opgen's rule checker.

The 36 CRDs of tests/imports/corpus.py carry the rules real projects ship
(Gateway API's, Karpenter's, cert-manager's, ...), all accepted by the API
server. `opgen.schema.check` (what `opgen generate` runs) compiles and
type-checks each `x-kubernetes-validations` rule and messageExpression
against its node's schema: none may be refused. It also holds them to the
server's cost budgets (per rule, and per CRD): the server accepts every one of
these CRDs, so opgen may neither refuse one for its cost nor warn that the
server might (before opgen followed the server's estimator, 25 rules of
Gateway API, Karpenter, Istio and Argo were wrongly warned about). The test's
output lists each CRD's total estimated cost against the per-CRD budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from opgen.engine.cel.budget import rule_costs
from opgen.engine.cel.cost import STATIC_CRD_COST_LIMIT
from opgen.schema.check import inspect_crd
from tests.imports.corpus import CORPUS, Published, published_crds

RULES = "x-kubernetes-validations"


def _rules(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        for rule in node.get(RULES) or ():
            if isinstance(rule, dict):
                yield rule
        for key, value in node.items():
            if key != RULES:
                yield from _rules(value)
    elif isinstance(node, list):
        for item in node:
            yield from _rules(item)


def test_every_published_rule_compiles(capsys: pytest.CaptureFixture[str]) -> None:
    checked: dict[str, int] = {}
    refused: list[str] = []
    warned: list[str] = []
    totals: list[str] = []
    entry: Published
    for entry in CORPUS:
        for crd in published_crds(entry):
            name = crd["metadata"]["name"]
            count = sum(
                1
                for version in crd["spec"]["versions"]
                for _ in _rules(version.get("schema", {}))
            )
            if count:
                checked[name] = count
            report = inspect_crd(crd, {}, None)
            refused += [
                f"{entry.project} {name}: {p}"
                for p in report.errors
                if RULES in p.path or "cost" in p.detail
            ]
            warned += [
                f"{entry.project} {name}: {p}"
                for p in report.warnings
                if RULES in p.path or "cost" in p.detail
            ]
            for version in crd["spec"]["versions"]:
                schema = (version.get("schema") or {}).get("openAPIV3Schema") or {}
                total = sum(found.cost for found in rule_costs(schema))
                if total:
                    totals.append(
                        f"  {name} {version['name']}: {total:,} "
                        f"({total / STATIC_CRD_COST_LIMIT:.0%} of the CRD budget)"
                    )
    with capsys.disabled():
        print(
            f"\n{sum(checked.values())} CEL rules in {len(checked)} published CRDs "
            f"checked; {len(warned)} warnings:"
        )
        for line in warned:
            print(f"  {line}")
        print("estimated cost of each CRD's rules:")
        for line in totals:
            print(line)
    assert sum(checked.values()) >= 100
    assert not refused, "\n".join(refused)
    assert not warned, "\n".join(warned)
