"""Kubernetes' CEL libraries on the CEL engine, as the API server offers them."""

from __future__ import annotations

import pytest

from opgen.engine.cel.program import CelEvaluationError, CelSyntaxError, evaluate
from opgen.engine.cel.rules import check_rules

TRUE_EXPRESSIONS = [
    # standard macros and functions
    "[1, 2, 3].all(x, x > 0)",
    "[1, 2, 3].exists(x, x == 2)",
    "[1, 2, 3].exists_one(x, x == 2)",
    "[1, 2, 3].map(x, x * 2).filter(y, y > 2) == [4, 6]",
    "has(self.a) && !has(self.b)",
    "self.a.startsWith('x') && self.a.endsWith('z') && self.a.contains('y')",
    "self.a.matches('^x[a-z]+$')",
    "size(self.a) == 3 && self.a.size() == 3",
    "int('12') + 1 == 13 && double(1) == 1.0 && uint(2) == 2u",
    "timestamp('2024-01-01T00:00:00Z') + duration('1h')"
    " > timestamp('2024-01-01T00:30:00Z')",
    # lists
    "[1, 2, 3].isSorted() && ![2, 1].isSorted()",
    "[1, 2, 3].sum() == 6 && [3, 1, 2].min() == 1 && [3, 1, 2].max() == 3",
    "[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2",
    # strings
    "'abc'.charAt(1) == 'b' && 'abc'.charAt(3) == ''",
    "'abcabc'.indexOf('c') == 2 && 'abcabc'.lastIndexOf('c') == 5",
    "'AbC'.lowerAscii() == 'abc' && 'aBc'.upperAscii() == 'ABC'",
    "'a-b-c'.replace('-', '+') == 'a+b+c' && 'a-b-c'.replace('-', '+', 1) == 'a+b-c'",
    "'a,b,c'.split(',') == ['a', 'b', 'c'] && 'a,b,c'.split(',', 2) == ['a', 'b,c']",
    "'hello'.substring(1) == 'ello' && 'hello'.substring(1, 3) == 'el'",
    "'  x  '.trim() == 'x' && ['a', 'b'].join('-') == 'a-b' && ['a'].join() == 'a'",
    "'%s has %d items (%.2f)'.format(['x', 3, 1.5]) == 'x has 3 items (1.50)'",
    "strings.quote('a\"b') == '\"a\\\\\"b\"'",
    # regex
    "'abc123def45'.find('[0-9]+') == '123'",
    "'abc123def45'.findAll('[0-9]+') == ['123', '45']",
    # quantity
    "quantity('1Gi').isGreaterThan(quantity('1000Mi'))",
    "quantity('500m').asApproximateFloat() == 0.5 && quantity('2k').asInteger() == 2000",
    "isQuantity('1.5Gi') && !isQuantity('1x')",
    "quantity('1').add(quantity('500m')).isLessThan(quantity('2'))",
    # semver
    "semver('1.2.3').major() == 1 && semver('1.2.3').isLessThan(semver('1.10.0'))",
    "isSemver('v1.2', true) && !isSemver('v1.2')",
    # url
    "url('https://example.com:8443/a?b=c').getHostname() == 'example.com'",
    "url('https://example.com:8443/a').getPort() == '8443' && isURL('/relative')",
    # ip and cidr
    "ip('10.0.0.1').family() == 4 && ip('::1').isLoopback() && isIP('::1')",
    "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3')) && cidr('10.0.0.0/8').prefixLength() == 8",
    "ip.isCanonical('10.0.0.1') && !isCIDR('10.0.0.1')",
]


@pytest.mark.parametrize("expression", TRUE_EXPRESSIONS)
def test_the_kubernetes_libraries_answer_as_the_server(expression: str) -> None:
    assert evaluate(expression, {"self": {"a": "xyz"}}) is True


@pytest.mark.parametrize(
    "expression",
    [
        "self.missing == 1",
        "'abc'.charAt(4) == ''",
        "[1, 2][5] == 1",
        "9223372036854775807 + 1 > 0",
        "quantity('1x') == quantity('1')",
        "[].min() == 0",
    ],
)
def test_evaluation_errors_are_errors(expression: str) -> None:
    with pytest.raises(CelEvaluationError):
        evaluate(expression, {"self": {"a": "xyz"}})


def test_a_syntax_error_names_its_position() -> None:
    with pytest.raises(CelSyntaxError) as caught:
        evaluate("self.a +", {"self": {}})
    assert (caught.value.line, caught.value.column) == (1, 9)


def test_failed_rules_give_the_servers_message_field_and_reason() -> None:
    rules = [
        {
            "rule": "self.a <= self.b",
            "message": "a must not exceed b",
            "fieldPath": ".a",
        },
        {"rule": "self.a < 10", "messageExpression": "'a is ' + string(self.a)"},
        {"rule": "self.b > 5", "reason": "FieldValueForbidden"},
        {"rule": "self.c == 1"},
    ]
    found = check_rules(rules, {"a": 3, "b": 2})
    assert [(v.field, v.cause_message(), v.reason) for v in found] == [
        (".a", "Invalid value: a must not exceed b", "FieldValueInvalid"),
        ("", "Forbidden: failed rule: self.b > 5", "FieldValueForbidden"),
        (
            "",
            "Invalid value: no such key: c evaluating rule: self.c == 1",
            "FieldValueInvalid",
        ),
    ]
    assert check_rules(rules[1:2], {"a": 12, "b": 2})[0].message == "a is 12"


def test_transition_rules_need_an_old_value_unless_optional() -> None:
    immutable = [{"rule": "self == oldSelf", "message": "immutable"}]
    assert check_rules(immutable, 1) == []
    assert check_rules(immutable, 1, old=1) == []
    assert [v.message for v in check_rules(immutable, 2, old=1)] == ["immutable"]
    optional = [
        {
            "rule": "oldSelf.hasValue() || self == 0",
            "optionalOldSelf": True,
            "message": "must be 0 on creation",
        }
    ]
    assert [v.message for v in check_rules(optional, 3)] == ["must be 0 on creation"]
    assert check_rules(optional, 3, old=0) == []


def test_size_counts_a_strings_code_points_as_the_server_does() -> None:
    # The engine's own size() counts UTF-8 bytes; "é" and "ß" are one character.
    assert evaluate("self.size() == 2 && size(self) == 2", {"self": "aé"}) is True
    assert evaluate("self.all(x, x.size() == 1)", {"self": ["ß", "x"]}) is True
    assert evaluate("'size(' + self == 'size(ß'", {"self": "ß"}) is True
