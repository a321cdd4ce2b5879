"""Rules whose cost the API server's estimate was measured for, on one schema.

`COSTS` maps a rule on `PROBE_SCHEMA` to the cost kube-apiserver 1.36
estimates for it (before the cardinality factor). tests/proof/test_cel_cost.py
measures each again on a real API server: it puts the rule on the items of a
list with `maxItems` N chosen so that cost x N passes the per-rule budget, and
reads the cost back from the factor the server reports in its refusal.
tests/cel/test_cost.py holds opgen's estimate to the same figures without a
server.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.schema.base_crd import base_crd, root_schema

__all__ = [
    "COSTS",
    "LARGE",
    "OVER_CRD_BUDGET",
    "PROBE_SCHEMA",
    "ROOT_COSTS",
    "UNDER_CRD_BUDGET",
    "crd_with_rules",
    "probe_crd",
]

_TEXT = {"type": "string"}
PROBE_SCHEMA: dict[str, Any] = {
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
        "memory": {"x-kubernetes-int-or-string": True, "maxLength": 8},
        "since": {"type": "string", "format": "date-time"},
        "ttl": {"type": "string", "format": "duration"},
        "data": {"type": "string", "format": "byte", "maxLength": 16},
        "mode": {"type": "string", "enum": ["Exact", "PathPrefix"]},
        "link": {"type": "string", "maxLength": 100},
        "free": {"type": "array", "items": _TEXT},
        "nums": {"type": "array", "items": {"type": "integer"}},
        "objs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": _TEXT, "flag": {"type": "boolean"}},
            },
        },
        "anymap": {"type": "object", "additionalProperties": _TEXT},
    },
}

COSTS: dict[str, int] = {
    "self.?name.optMap(n, n.size()).orValue(0) <= 20": 21,
    "self.?name.optFlatMap(n, n == '' ? optional.none() : optional.of(n))"
    ".hasValue() || true": 20,
    "self.?replicas.optMap(r, r + 1).orValue(0) > 0": 21,
    "self.?tags.orValue([]).size() < 3": 15,
    "self.?name.orValue('').startsWith('a')": 4,
    "sets.contains(has(self.tags) ? self.tags : [], ['a'])": 32,
    "self.name.startsWith('app-')": 3,
    "!has(self.replicas) || self.replicas >= 0": 5,
    "self.tags.all(t, t.size() <= 10)": 63,
    "self.labels.all(k, self.labels[k] != '')": 73,
    "self.groups.exists_one(g, g.n == 'head')": 54,
    "type(self.size) == int ? self.size > 0 : self.size != ''": 7,
    "!has(self.memory) || isQuantity(string(self.memory))": 12,
    "self.name.lowerAscii().split('-').size() <= 5": 28,
    "self.name.matches('^[a-z-]+$') && self.name.find('[0-9]+') == ''": 49,
    "!has(self.since) || self.since > timestamp('2000-01-01T00:00:00Z')": 6,
    "self.tags.isSorted() && self.groups.map(g, g.size).sum() >= 0": 216,
    "strings.quote(self.name) != ''": 10,
    "self.objs.all(o, o.name != '')": 1209893,
    "self.mode == 'Exact' || self.name.contains(self.mode)": 15,
    "self.tags.filter(t, t.startsWith('a')).size() < 5": 165,
    "self.tags.map(t, t + '-x').exists(t, t == 'a-x')": 244,
    "self.tags.join(',').size() < 100": 45,
    "self.name.replace('-', '_') != self.name": 28,
    "self.name in self.tags": 14,
    "self.name in self.labels": 5,
    "self.name in ['a', 'b', 'c']": 15,
    "sets.contains(self.tags, ['a'])": 23,
    "sets.equivalent(self.tags, self.groups.map(g, g.n))": 356,
    "'%s-%d'.format([self.name, self.replicas]) != ''": 15,
    "url(self.link).getHost() != ''": 43,
    "isIP(self.name) || isCIDR(self.name)": 20,
    "self.name + self.mode != ''": 13,
    "self.tags[0] == 'a'": 4,
    "self.labels['x'] == 'y'": 4,
    "size(self.data) < 10": 4,
    "self.ttl > duration('1s')": 4,
    "self.?name.orValue('') != 'x'": 4,
    "self.labels.exists(k, k.startsWith('x') && self.labels[k].endsWith('y'))": 113,
    "self.name.indexOf('a') >= 0 && self.tags.indexOf('a') >= 0": 64,
    "self.tags.all(a, self.tags.all(b, a == b))": 963,
    "dyn(self.replicas) == 1": 3,
    "self.name.substring(1) != '' && self.name.trim() != '' && self.name.upperAscii() != ''": 30,
    "quantity(string(self.memory)).isGreaterThan(quantity('1Gi'))": 12,
    "self.free.size() < 10": 4,
    "self.tags.exists(t, t.matches('^' + self.name + '$'))": 1303,
    "[1, 2, 3].all(x, x > 0)": 26,
    "int(self.size) > 2 || double(self.replicas) > 1.5": 8,
    "self.groups.all(g, !has(g.size) || g.size < 10) && self.groups[0].n != ''": 87,
    "cidr(self.link).containsIP('10.0.0.1') || ip(self.name).family() == 4": 59,
    "self.name.lastIndexOf('-') < 5": 11,
    "self.name.charAt(0) != 'x'": 4,
}
"""Rule -> the cost kube-apiserver 1.36 estimates for it, read from its refusals."""

LARGE: tuple[str, ...] = (
    "self.?tags.optMap(t, t.all(x, x != 'a')).orValue(true)",
    # orValue's result has no size the estimator knows: a list of any length
    "sets.contains(self.?tags.orValue([]), ['a'])",
    "self.free.exists(f, f == 'x')",
    "self.nums.all(n, n >= 0)",
    "self.anymap.all(k, !k.contains('*'))",
    "sets.intersects(self.nums, [1, 2])",
    "self.objs.exists(o, o.name.startsWith(self.name))",
    "self.nums.map(n, n * 2).all(n, n < 100)",
    "self.objs.filter(o, has(o.flag) && o.flag).size() <= 3",
    "self.free.all(f, f.matches('^a+$'))",
)
"""Rules too costly to read their exact cost from a refusal (a list of one or two
items already passes the budget): only the factor the server reports is compared."""

ROOT_COSTS: dict[str, int] = {
    "self.metadata.name.startsWith('a')": 4,
    "self.kind == 'Thing' && self.apiVersion != ''": 5,
    "self.metadata.name.matches('^[a-z]+$')": 629149,
    "self.metadata.generateName.size() < 5 || self.name != ''": 7,
}
"""Rules on an embedded resource's root, where the server adds `kind`,
`apiVersion` and `metadata.name`/`generateName` (strings without a bound)."""


def probe_crd(rule: str, items: int, *, root: bool = False) -> dict[str, Any]:
    """A CRD whose spec.probe is a list of at most `items` `PROBE_SCHEMA`
    objects (embedded resources if `root`), each carrying `rule`."""
    node = copy.deepcopy(PROBE_SCHEMA)
    if root:
        node["x-kubernetes-embedded-resource"] = True
    node["x-kubernetes-validations"] = [{"rule": rule}]
    crd = base_crd()
    root_schema(crd)["properties"]["spec"] = {
        "type": "object",
        "properties": {"probe": {"type": "array", "maxItems": items, "items": node}},
    }
    return crd


def _objects(extra: int) -> str:
    return "self.objs.all(o, o.name != ''" + " || o.name == 'x'" * extra + ")"


UNDER_CRD_BUDGET: tuple[str, ...] = (
    *(_objects(extra) for extra in range(12)),
    "self.free.exists(f, f == 'x')",
    "self.free.exists(f, f == 'x' || f == 'y')",
    "self.nums.all(n, n >= 0)",
)
"""Rules of one node, each under the per-rule budget, adding up to 84,974,734."""
OVER_CRD_BUDGET: tuple[str, ...] = (
    *UNDER_CRD_BUDGET,
    "self.free.exists(f, f == 'z')",
    _objects(7),
    _objects(5),
)
"""... and three more, past the per-CRD budget (102,397,181); the four costliest
(9,195,167, 8,469,233, 8,388,603, 7,864,318) cost different amounts, so the
server's choice of the rules it names does not depend on a sort order."""


def crd_with_rules(rules: tuple[str, ...]) -> dict[str, Any]:
    """A CRD whose spec is `PROBE_SCHEMA` carrying `rules`."""
    crd = base_crd()
    spec = copy.deepcopy(PROBE_SCHEMA)
    spec["x-kubernetes-validations"] = [{"rule": rule} for rule in rules]
    root_schema(crd)["properties"]["spec"] = spec
    return crd
