"""Rules with CEL's optional syntax and Kubernetes' sets library, and objects for them.

`EXTRAS_SCHEMA` is a spec with two nodes: `opt`, whose rules use `.?field`,
`[?index]`, `optional.of`, `.orValue`, `.hasValue` and `.value`, and `sets`,
whose rules use `sets.contains`, `sets.intersects` and `sets.equivalent`.
`SPECS` are objects that pass or break them. (The sets rules avoid
`.orValue([])`: its result has no size the server's cost estimator knows.) tests/cel/test_extras.py checks
opgen's verdicts on them; tests/proof/test_cel_extras.py holds those
verdicts to a real API server's.
"""

from __future__ import annotations

from typing import Any

__all__ = ["EXTRAS_SCHEMA", "SPECS", "crd_for_extras"]

_WORD = {"type": "string", "maxLength": 20}
_WORDS = {"type": "array", "maxItems": 10, "items": _WORD}

EXTRAS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "opt": {
            "type": "object",
            "properties": {
                "name": _WORD,
                "tags": _WORDS,
                "labels": {
                    "type": "object",
                    "maxProperties": 10,
                    "additionalProperties": _WORD,
                },
            },
            "x-kubernetes-validations": [
                {
                    "rule": "self.?name.orValue('') != 'forbidden'",
                    "message": "name must not be forbidden",
                },
                {
                    "rule": "!self.?labels.hasValue() || "
                    "self.?labels[?'team'].orValue('x') != ''",
                    "message": "a team label must not be empty",
                },
                {
                    "rule": "self.?tags[?0].orValue('a').startsWith('a')",
                    "message": "the first tag starts with a",
                },
                {
                    "rule": "optional.of(self.?name.orValue('n')).value() != 'bad'",
                    "message": "name must not be bad",
                },
                {
                    "rule": "self.?labels.team.hasValue() == has(self.labels) "
                    "&& 'team' in self.labels || !self.?labels.team.hasValue()",
                    "message": "optional chains agree with has()",
                },
            ],
        },
        "sets": {
            "type": "object",
            "properties": {
                "have": _WORDS,
                "need": _WORDS,
                "nums": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
            },
            "x-kubernetes-validations": [
                {
                    "rule": "sets.contains(has(self.have) ? self.have : [], "
                    "has(self.need) ? self.need : [])",
                    "message": "have holds every need",
                },
                {
                    "rule": "!has(self.have) || !sets.intersects(self.have, ['banned'])",
                    "message": "banned is not had",
                },
                {
                    "rule": "!has(self.nums) || !sets.equivalent(self.nums, [1, 2])",
                    "message": "nums are not the set {1, 2}",
                },
            ],
        },
    },
}

SPECS: list[dict[str, Any]] = [
    {},
    {"opt": {}, "sets": {}},
    {"opt": {"name": "ok", "tags": ["abc"], "labels": {"team": "x"}}},
    {"opt": {"name": "forbidden"}},
    {"opt": {"name": "bad"}},
    {"opt": {"labels": {"team": ""}}},
    {"opt": {"labels": {"other": ""}}},
    {"opt": {"tags": ["zeta", "alpha"]}},
    {"opt": {"tags": []}},
    {"opt": {"name": "forbidden", "tags": ["b"], "labels": {"team": ""}}},
    {"sets": {"have": ["a", "b"], "need": ["b"]}},
    {"sets": {"have": ["a"], "need": ["b", "a"]}},
    {"sets": {"need": ["a"]}},
    {"sets": {"have": ["banned"]}},
    {"sets": {"nums": [2, 1, 2]}},
    {"sets": {"nums": [1, 2, 3]}},
    {"sets": {"nums": []}},
    {"sets": {"have": ["banned", "x"], "need": ["y"], "nums": [1, 2]}},
]


def crd_for_extras() -> dict[str, Any]:
    """A CRD (extras.cases.opgen.dev) whose spec is `EXTRAS_SCHEMA`."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "extras.cases.opgen.dev"},
        "spec": {
            "group": "cases.opgen.dev",
            "names": {
                "kind": "Extra",
                "listKind": "ExtraList",
                "plural": "extras",
                "singular": "extra",
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": EXTRAS_SCHEMA},
                        }
                    },
                }
            ],
        },
    }
