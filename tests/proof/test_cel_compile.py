"""opgen refuses the CEL rules a real API server refuses at CRD install, at the same rule.

`tests/cel/rule_cases.py` holds the rules: each broken one is sent in a CRD
(dry run) and must be refused by the server at that rule, and by opgen's
checker at the same path, with the position in the rule the server names.
The valid ones pass both.
"""

from __future__ import annotations

import re

import pytest

from opgen.schema.check import inspect_crd
from tests.cel.rule_cases import BROKEN, COSTLY, VALID, crd_with_rule
from tests.proof.api import CRD_PATH, RawApi

RULE_PATH = "openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"
_POSITION = re.compile(r"<input>:(\d+):(\d+):")


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_rules_are_refused_by_both_at_the_same_rule(
    raw_api: RawApi, name: str
) -> None:
    rule, message_expression = BROKEN[name]
    crd = crd_with_rule(rule, message_expression)
    verdict = raw_api.create(CRD_PATH, crd, dry_run=True, strict=True)
    assert not verdict.accepted, f"the server accepted {rule!r}"
    where = "messageExpression" if message_expression else "rule"
    assert f"{RULE_PATH}.{where}" in verdict.message, verdict.message
    errors = inspect_crd(crd, {}, None).errors
    assert errors, f"opgen accepted {rule!r}; the server said {verdict.message}"
    assert errors[0].path.endswith(f"{RULE_PATH}.{where}"), str(errors[0])
    server_at = _POSITION.search(verdict.message)
    opgen_at = _POSITION.search(errors[0].detail)
    assert opgen_at is not None
    if server_at is not None:  # a rule of the wrong type is refused without one
        assert opgen_at.groups() == server_at.groups(), (
            errors[0].detail,
            verdict.message,
        )


@pytest.mark.parametrize("name", sorted(COSTLY))
def test_costly_rules_are_refused_by_both_in_the_same_words(
    raw_api: RawApi, name: str
) -> None:
    rule, message_expression = COSTLY[name]
    crd = crd_with_rule(rule, message_expression)
    verdict = raw_api.create(CRD_PATH, crd, dry_run=True, strict=True)
    where = "messageExpression" if message_expression else "rule"
    assert not verdict.accepted
    assert f"{RULE_PATH}.{where}: Forbidden: estimated" in verdict.message, verdict
    errors = [str(p) for p in inspect_crd(crd, {}, None).errors]
    found = [e for e in errors if f"{RULE_PATH}.{where}: Forbidden: estimated" in e]
    assert found, errors
    assert found[0].split("openAPIV3Schema", 1)[1] in verdict.message


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_rules_are_accepted_by_both(raw_api: RawApi, name: str) -> None:
    rule, message_expression = VALID[name]
    crd = crd_with_rule(rule, message_expression)
    verdict = raw_api.create(CRD_PATH, crd, dry_run=True, strict=True)
    assert verdict.accepted, verdict.message
    assert [str(p) for p in inspect_crd(crd, {}, None).errors] == []
