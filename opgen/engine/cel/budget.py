"""What each CEL rule of a CRD schema costs as the API server counts it against its budgets.

The server estimates each rule (`opgen.engine.cel.cost`) and multiplies the
estimate by how many times the rule's node can occur in one object: the
product of the `maxItems`/`maxProperties` of the lists and maps above it, or,
when one of them has no bound, as many of the node as fit in a request. A
`messageExpression` counts once. A rule over `STATIC_RULE_COST_LIMIT` is
refused, and so is a schema whose rules add up past `STATIC_CRD_COST_LIMIT`.
`rule_costs(schema)` lists every rule and messageExpression with that cost.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from opgen.engine.cel.check import CheckMemo, check_expression
from opgen.engine.cel.cost import MAX, decl_of, max_cardinality
from opgen.engine.cel.facts import uses_old_self

__all__ = ["RuleCost", "budget_factor", "rule_costs"]


@dataclass(frozen=True)
class RuleCost:
    steps: tuple[str | int, ...]
    """Where the node is: `properties`, a name, `items`, `additionalProperties`..."""
    position: int
    """The rule's index in the node's `x-kubernetes-validations`."""
    field: str
    """`rule` or `messageExpression`."""
    expression: str
    cost: int
    """The estimate times the node's cardinality (for a rule), as the server counts it."""
    approximate: bool
    """Whether the estimate counted a call opgen does not model as 1."""
    node: dict[str, Any]


def rule_costs(schema: dict[str, Any], memo: CheckMemo | None = None) -> list[RuleCost]:
    """Every rule and messageExpression of an openAPIV3Schema, with its cost
    (`memo`: the checks already made of this schema's rules, see `CheckMemo`)."""
    return list(_walk(schema, (), 1, root=True, memo=memo or CheckMemo()))


def _walk(
    node: Any,
    steps: tuple[str | int, ...],
    cardinality: int | None,
    *,
    root: bool,
    memo: CheckMemo,
) -> Iterator[RuleCost]:
    if not isinstance(node, dict):
        return
    yield from _node_costs(node, steps, cardinality, root, memo)
    kind = node.get("type")
    for name, prop in (node.get("properties") or {}).items():
        yield from _walk(
            prop,
            (*steps, "properties", name),
            _child_cardinality(node, cardinality),
            root=_embedded(prop),
            memo=memo,
        )
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        yield from _walk(
            extra,
            (*steps, "additionalProperties"),
            _child_cardinality(node, cardinality),
            root=_embedded(extra),
            memo=memo,
        )
    items = node.get("items")
    if kind == "array" and isinstance(items, dict):
        yield from _walk(
            items,
            (*steps, "items"),
            _child_cardinality(node, cardinality),
            root=_embedded(items),
            memo=memo,
        )


def _embedded(node: Any) -> bool:
    return isinstance(node, dict) and bool(node.get("x-kubernetes-embedded-resource"))


def _child_cardinality(parent: dict[str, Any], cardinality: int | None) -> int | None:
    """How many times a child of `parent` can occur (None: no bound)."""
    if cardinality is None:
        return None
    kind = parent.get("type")
    if kind == "object" and parent.get("additionalProperties") is not None:
        bound = parent.get("maxProperties")
    elif kind == "array":
        bound = parent.get("maxItems")
    else:
        return cardinality
    if not isinstance(bound, int):
        return None
    return min(cardinality * max(bound, 0), MAX)


def _node_costs(
    node: dict[str, Any],
    steps: tuple[str | int, ...],
    cardinality: int | None,
    root: bool,
    memo: CheckMemo,
) -> Iterator[RuleCost]:
    rules = node.get("x-kubernetes-validations")
    if not isinstance(rules, list) or not rules:
        return
    decl = decl_of(node, root, memo.decls)
    if decl is None:
        return
    times = cardinality if cardinality is not None else max_cardinality(decl)
    for position, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        text = str(rule.get("rule") or "")
        if not text.strip():
            continue
        old_self = uses_old_self(text)
        checked = check_expression(
            text,
            node,
            old_self=old_self,
            optional_old_self=bool(rule.get("optionalOldSelf")),
            root=root,
            memo=memo,
        )
        if checked.problems:
            continue  # refused for what it says; the server counts it as 0
        cost = 0 if checked.cost == 0 else min(checked.cost * times, MAX)
        yield RuleCost(steps, position, "rule", text, cost, checked.approximate, node)
        message = rule.get("messageExpression")
        if isinstance(message, str) and message.strip():
            spelt = check_expression(
                message,
                node,
                old_self=old_self,
                message_expression=True,
                root=root,
                memo=memo,
            )
            if not spelt.problems:
                yield RuleCost(
                    steps,
                    position,
                    "messageExpression",
                    message,
                    spelt.cost,
                    spelt.approximate,
                    node,
                )


def budget_factor(cost: int, limit: int) -> str:
    """By how much a cost exceeds its limit, spelt as the server spells it."""
    factor = cost / limit
    if factor > 100.0:
        return "more than 100x"
    if factor < 1.5:
        return f"{factor:f}x"
    return f"{factor:.1f}x"
