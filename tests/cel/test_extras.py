"""opgen runs CEL's optional syntax and Kubernetes' sets library, without a server.

The rules and objects are those of tests/cel/extras_cases.py;
tests/proof/test_cel_extras.py checks the same verdicts against a real API
server.
"""

from __future__ import annotations

from typing import Any

import pytest

from opgen.engine.cel.program import available, evaluate
from opgen.engine.cel.rules import check_rules
from opgen.schema.check import inspect_crd
from tests.cel.extras_cases import EXTRAS_SCHEMA, SPECS, crd_for_extras

pytestmark = pytest.mark.skipif(not available(), reason="the cel extra")


def opgen_causes(spec: dict[str, Any]) -> set[tuple[str, str]]:
    """The causes opgen finds in `spec`, as (field, message) the server spells."""
    causes = set()
    for name, node in EXTRAS_SCHEMA["properties"].items():
        if name not in spec:
            continue
        for violation in check_rules(node["x-kubernetes-validations"], spec[name]):
            causes.add((f"spec.{name}{violation.field}", violation.cause_message()))
    return causes


def test_the_rules_compile_without_warnings() -> None:
    report = inspect_crd(crd_for_extras(), {}, None)
    assert report.errors == [] and report.warnings == []


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("self.?a.orValue(0) == {'b': 2}", True),
        ("self.?z.orValue(7)", 7),
        ("self.?a.?b.value()", 2),
        ("self.?a.zz.hasValue()", False),
        ("self.l[?1].value()", 2),
        ("self.l[?5].hasValue()", False),
        ("self.a[?'b'].orValue(0)", 2),
        ("self.?__namespace__.orValue('')", "n"),
        ("(self.?a).?b.orValue(1) + 1", 3),
        ("optional.none().orValue(3)", 3),
        ("sets.contains([1, 2, 3], [3, 1])", True),
        ("sets.contains([1, 2], [4])", False),
        ("sets.contains([1.0], [1])", True),
        ("sets.equivalent([1, 2, 2], [2, 1])", True),
        ("sets.equivalent([1], [1, 2])", False),
        ("sets.intersects([[1]], [[1]])", True),
        ("sets.intersects([], [1])", False),
        ("'abc'.contains('b') && !'abc'.contains('z')", True),
    ],
)
def test_expressions(expression: str, expected: Any) -> None:
    value = {"a": {"b": 2}, "l": [1, 2], "namespace": "n"}
    assert evaluate(expression, {"self": value}) == expected


def test_the_verdicts_on_the_objects() -> None:
    verdicts = [sorted(opgen_causes(spec)) for spec in SPECS]
    refused = [m for causes in verdicts for _, m in causes]
    assert refused.count("Invalid value: name must not be forbidden") == 2
    assert "Invalid value: have holds every need" in refused
    assert "Invalid value: nums are not the set {1, 2}" in refused
    assert verdicts[0] == verdicts[1] == verdicts[2] == []
