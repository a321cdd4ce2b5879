"""Rules the API server refuses at CRD install, and rules it accepts, on one schema.

`BROKEN` maps a name to a rule (and optionally a messageExpression) that the
server's CEL compiler refuses on `SCHEMA`; `VALID` rules compile. tests/cel
checks that opgen refuses each broken rule at that rule; tests/proof asks a
real API server the same questions.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.schema.base_crd import base_crd, root_schema

__all__ = ["BROKEN", "COSTLY", "SCHEMA", "VALID", "crd_with_rule"]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "replicas": {"type": "integer"},
        "tags": {
            "type": "array",
            "maxItems": 10,
            "items": {"type": "string", "maxLength": 10},
        },
        "labels": {
            "type": "object",
            "maxProperties": 10,
            "additionalProperties": {"type": "string", "maxLength": 10},
        },
        "groups": {
            "type": "array",
            "maxItems": 10,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["n"],
            "items": {
                "type": "object",
                "required": ["n"],
                "properties": {
                    "n": {"type": "string", "maxLength": 10},
                    "size": {"type": "integer"},
                },
            },
        },
        "size": {"x-kubernetes-int-or-string": True},
        "memory": {
            "x-kubernetes-int-or-string": True,
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": "^[0-9]+(Mi|Gi)?$",
        },
        "since": {"type": "string", "format": "date-time"},
        "free": {"type": "array", "items": {"type": "string"}},
    },
}

BROKEN: dict[str, tuple[str, str | None]] = {
    "unfinished comparison": ("self.name ==", None),
    "unterminated string": ("self.name == 'a", None),
    "two dots": ("self..name == 'a'", None),
    "assignment": ("self.name = 'a'", None),
    "unclosed parenthesis": ("(self.replicas > 1", None),
    "stray token": ("self.replicas > 1 1", None),
    "undefined field": ("self.nam == 'x'", None),
    "undefined field in a list item": ("self.groups.all(g, g.missing > 0)", None),
    "undefined field in has()": ("has(self.nope)", None),
    "unknown method": ("self.name.frobnicate()", None),
    "unknown function": ("frobnicate(self.name)", None),
    "unknown variable": ("other.name == 'a'", None),
    "string plus int": ("self.name + 1 == 'a1'", None),
    "int compared with a string": ("self.replicas > 'a'", None),
    "string method on an int": ("self.replicas.startsWith('a')", None),
    "size of an int": ("size(self.replicas) > 0", None),
    "not on a string": ("!self.name", None),
    "and on an int": ("self.replicas && true", None),
    "rule that is an int": ("self.replicas", None),
    "rule that is a string": ("self.name", None),
    "rule that is a list": ("self.tags", None),
    "field of an int": ("self.replicas.name == 'a'", None),
    "list items compared with an int": ("self.tags.all(t, t > 1)", None),
    "field of a string item": ("self.tags.exists(t, t.size == 1)", None),
    "int modulo double": ("self.replicas % 2.0 == 0", None),
    "string times int": ("self.name * 2 == 'aa'", None),
    "map keys plus int": ("self.labels.all(k, k + 1 > 0)", None),
    "mapped strings compared with an int": (
        "self.groups.map(g, g.n).all(n, n > 0)",
        None,
    ),
    "list item plus int": ("self.tags[0] + 1 == 2", None),
    "list indexed by a string": ("self.tags['a'] == 'b'", None),
    "string equals int": ("self.name.lowerAscii() == 1", None),
    "in a string": ("self.replicas in self.name", None),
    "timestamp plus timestamp": ("self.since + self.since > self.since", None),
    "comprehension over an int": ("self.replicas.all(x, x > 0)", None),
    "messageExpression that is an int": ("self.replicas > 0", "self.replicas"),
    "messageExpression with an undefined field": (
        "self.replicas > 0",
        "'bad ' + self.nme",
    ),
}

COSTLY: dict[str, tuple[str, str | None]] = {
    "sorting strings a macro made": ("self.groups.map(g, g.n).isSorted()", None),
    "string() of an int in a message": (
        "self.replicas < 100",
        "'replicas is ' + string(self.replicas)",
    ),
    "matches over an unbounded list": ("self.free.all(f, f.matches('^a+$'))", None),
    "comparing optionals, of no known size": (
        "self.tags[?0] != optional.none()",
        None,
    ),
}
"""Rules that compile but cost more than the server allows: it refuses them,
opgen warns at the rule."""

VALID: dict[str, tuple[str, str | None]] = {
    "field rule": ("self.name.startsWith('app-')", None),
    "has guard": ("!has(self.replicas) || self.replicas >= 0", None),
    "list macro": ("self.tags.all(t, t.size() <= 10)", None),
    "map macro": ("self.labels.all(k, self.labels[k] != '')", None),
    "map list": ("self.groups.exists_one(g, g.n == 'head')", None),
    "int-or-string": ("type(self.size) == int ? self.size > 0 : self.size != ''", None),
    "quantity": ("!has(self.memory) || isQuantity(string(self.memory))", None),
    "strings library": ("self.name.lowerAscii().split('-').size() <= 5", None),
    "regex": ("self.name.matches('^[a-z-]+$') && self.name.find('[0-9]+') == ''", None),
    "timestamp": (
        "!has(self.since) || self.since > timestamp('2000-01-01T00:00:00Z')",
        None,
    ),
    "list functions": (
        "self.tags.isSorted() && self.groups.map(g, g.size).sum() >= 0",
        None,
    ),
    "messageExpression": (
        "self.replicas < 100",
        "'name ' + self.name + ' has too many'",
    ),
    "namespaced function": ("strings.quote(self.name) != ''", None),
    "optional selection": ("self.?name.orValue('') != 'x'", None),
    "optMap": ("self.?name.optMap(n, n.size()).orValue(0) <= 20", None),
    "optFlatMap": (
        "self.?name.optFlatMap(n, n == '' ? optional.none() : optional.of(n))"
        ".hasValue() || true",
        None,
    ),
    "optional list item": ("[?self.?name].size() <= 1", None),
    "optional map entry": ("{?'a': self.?name}.size() <= 1", None),
    "sets": (
        "sets.contains(self.tags, ['a']) || !sets.intersects(self.tags, ['b'])",
        None,
    ),
}


def crd_with_rule(rule: str, message_expression: str | None) -> dict[str, Any]:
    """The small valid CRD of tests/schema, its spec carrying `SCHEMA` and the rule."""
    validation: dict[str, Any] = {"rule": rule}
    if message_expression is not None:
        validation["messageExpression"] = message_expression
    crd = base_crd()
    root_schema(crd)["properties"]["spec"] = copy.deepcopy(
        {**SCHEMA, "x-kubernetes-validations": [validation]}
    )
    return crd
