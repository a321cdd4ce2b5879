"""`opgen generate` compiles and type-checks every rule against its node's schema."""

from __future__ import annotations

import pytest

from opgen.engine.cel.check import STATIC_RULE_COST_LIMIT, check_expression
from opgen.schema.check import inspect_crd
from tests.cel.rule_cases import BROKEN, SCHEMA, VALID, crd_with_rule

RULE_PATH = (
    "spec.versions[0].schema.openAPIV3Schema.properties[spec]"
    ".x-kubernetes-validations[0]"
)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_rules_are_refused_at_the_rule(name: str) -> None:
    rule, message_expression = BROKEN[name]
    errors = inspect_crd(crd_with_rule(rule, message_expression), {}, None).errors
    assert errors, f"{rule!r} passed"
    where = "messageExpression" if message_expression else "rule"
    assert errors[0].path == f"{RULE_PATH}.{where}"
    assert "compilation failed: ERROR: <input>:1:" in errors[0].detail


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_rules_compile(name: str) -> None:
    rule, message_expression = VALID[name]
    report = inspect_crd(crd_with_rule(rule, message_expression), {}, None)
    assert [str(p) for p in report.errors] == []
    assert [str(p) for p in report.warnings if "cost" in p.detail] == []


def test_the_error_names_line_and_column() -> None:
    errors = inspect_crd(
        crd_with_rule("self.replicas > 0 &&\n  self.nam == 'x'", None), {}, None
    ).errors
    # a multi-line rule also needs a message; the compile error comes with it
    compile_errors = [p for p in errors if "compilation failed" in p.detail]
    assert "<input>:2:" in compile_errors[0].detail
    assert "undefined field 'nam'" in compile_errors[0].detail


def test_costly_rules_are_warned_about() -> None:
    unbounded = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "string"}}},
    }
    checked = check_expression("self.items.all(i, i.matches('^a+$'))", unbounded)
    assert checked.problems == [] and checked.cost > STATIC_RULE_COST_LIMIT
    bounded = check_expression("self.tags.all(t, t.matches('^a+$'))", SCHEMA)
    assert bounded.cost < STATIC_RULE_COST_LIMIT


def test_optional_selection_is_checked_and_run() -> None:
    report = inspect_crd(crd_with_rule("self.?name.orValue('') != 'x'", None), {}, None)
    assert report.errors == [] and report.warnings == []


def test_what_the_engine_cannot_run_is_left_to_the_server_with_a_warning() -> None:
    for rule in (
        "[?self.?name].size() <= 1",
        "{?'a': self.?name}.size() <= 1",
        "self.?name.optMap(n, n.size()).orValue(0) <= 20",
    ):
        report = inspect_crd(crd_with_rule(rule, None), {}, None)
        assert report.errors == [], rule
        assert any("cannot run" in p.detail for p in report.warnings), rule
