"""The CEL repairs of the proof catalogue's CRDs, for `opgen.testing.drawing`.

`ObjectMaker` (opgen.testing.drawing) draws objects from a structural schema;
CEL rules that opgen's models do not evaluate in Python lie outside the subset
in which Pydantic and the API server must agree (docs/testing.md), so each
rule of the catalogue's CRDs is satisfied after the node is drawn by a repair
listed here (`CEL_REPAIRS`, passed as `ObjectMaker(repairs=...)`); one-of
rules are left alone, Python enforces them.
"""

from __future__ import annotations

from typing import Any

from opgen.testing.drawing import (
    UNCHECKED_FORMAT_SAMPLES,
    Node,
    Repair,
    apply_repairs,
)

__all__ = ["CEL_REPAIRS", "UNCHECKED_FORMAT_SAMPLES", "repair_cel"]


def _default(node: Node, name: str) -> Any:
    return (node.get("properties") or {}).get(name, {}).get("default")


def _swap_min_max(node: Node, value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    low = value.get("minReplicas", _default(node, "minReplicas"))
    high = value.get("maxReplicas", _default(node, "maxReplicas"))
    if isinstance(low, int) and isinstance(high, int) and low > high:
        value = {**value, "minReplicas": high, "maxReplicas": high}
    return value


def _cap_spec_replicas(node: Node, value: Any) -> Any:
    spec = value.get("spec") if isinstance(value, dict) else None
    if isinstance(spec, dict) and spec.get("replicas", 0) > 100:
        value = {**value, "spec": {**spec, "replicas": 100}}
    return value


def _not_both(first: str, second: str) -> Repair:
    def repair(node: Node, value: Any) -> Any:
        if isinstance(value, dict) and first in value and second in value:
            value = {k: v for k, v in value.items() if k != second}
        return value

    return repair


def _prefix(prefix: str) -> Repair:
    return lambda node, value: (
        value
        if not isinstance(value, str) or value.startswith(prefix)
        else prefix + value
    )


def _unique_by(key: str) -> Repair:
    def repair(node: Node, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        seen: set[Any] = set()
        kept = []
        for item in value:
            mark = item.get(key) if isinstance(item, dict) else None
            if mark not in seen:
                seen.add(mark)
                kept.append(item)
        return kept

    return repair


def _addresses_per_listener(node: Node, value: Any) -> Any:
    if not isinstance(value, dict) or not isinstance(value.get("addresses"), list):
        return value
    limit = 8 * len(value.get("listeners") or [])
    return {**value, "addresses": value["addresses"][:limit]}


def _https_has_tls(node: Node, value: Any) -> Any:
    if isinstance(value, dict) and value.get("protocol") == "HTTPS":
        return {**value, "tls": value.get("tls", {})}
    return value


def _passthrough_without_options(node: Node, value: Any) -> Any:
    if isinstance(value, dict) and value.get("mode") == "Passthrough":
        return {k: v for k, v in value.items() if k != "options"}
    return value


CEL_REPAIRS: dict[str, Repair] = {
    "self.minReplicas <= self.maxReplicas": _swap_min_max,
    "!has(self.spec) || self.spec.replicas <= 100": _cap_spec_replicas,
    "!(has(self.foo) && has(self.bar))": _not_both("foo", "bar"),
    "self >= 100 && self <= 1000": lambda n, v: (
        min(max(v, 100), 1000) if isinstance(v, int) else v
    ),
    "self.size() % 2 == 0": lambda n, v: (
        v + "x" if isinstance(v, str) and len(v) % 2 else v
    ),
    "self.size() <= 20": lambda n, v: v[:20] if isinstance(v, str) else v,
    "self.startsWith('app-')": _prefix("app-"),
    "self.startsWith('good-')": _prefix("good-"),
    "oldSelf.hasValue() || self == 0": lambda n, v: 0 if isinstance(v, int) else v,
    "true": lambda n, v: v,
    # tests/imports/crds.py's Gateway (imported, checked against the server too).
    "self.metadata.name.size() <= 63": lambda n, v: v,
    "!has(self.addresses) || size(self.addresses) <= 8 * size(self.listeners)": (
        _addresses_per_listener
    ),
    "self.all(l1, self.exists_one(l2, l1.name == l2.name))": _unique_by("name"),
    "self.protocol != 'HTTPS' || has(self.tls)": _https_has_tls,
    "self.mode == 'Terminate' || !has(self.options)": _passthrough_without_options,
    "!oldSelf.hasValue() || !has(oldSelf.value().labels) || has(self.labels) && "
    "self.labels.size() >= oldSelf.value().labels.size()": lambda n, v: v,
}
"""How to satisfy each CEL rule of the catalogue's CRDs (and of the CRDs
tests/imports checks on the server) that Python does not check."""


def repair_cel(node: Node, value: Any) -> Any:
    """`value` with each CEL rule of `node` satisfied (KeyError: a rule without a repair)."""
    return apply_repairs(CEL_REPAIRS, node, value)
