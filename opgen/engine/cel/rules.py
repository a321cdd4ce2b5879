"""Checking a node's `x-kubernetes-validations` against a value, as the API server does.

`check_rules(rules, value, old=...)` evaluates each rule with `self` (and
`oldSelf` for transition rules) and returns a `Violation` per failed rule:
the field it names (the node, or the rule's `fieldPath`), the message (the
`messageExpression`'s result, else `message`, else `failed rule: <rule>`),
and the reason (`FieldValueInvalid` unless the rule says otherwise).

Transition rules (those using `oldSelf`) run only when there is an old
value, except with `optionalOldSelf`, where `oldSelf` is `optional.none()`
on a create. `rules_skipped()` turns every check off for the objects decoded
from the API server, which has judged them already.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from opgen.engine.cel.facts import uses_old_self
from opgen.engine.cel.program import (
    NO_OLD_SELF,
    CelEvaluationError,
    CelSyntaxError,
    OptionalOf,
    evaluate,
)

__all__ = [
    "ABSENT",
    "Violation",
    "cause_message",
    "check_rules",
    "json_type",
    "rule_mode",
    "rules_skipped",
    "transition_rules_deferred",
]

ABSENT: Any = object()
"""No old value (a create, or a node the update did not have before)."""

_MODE: contextvars.ContextVar[str] = contextvars.ContextVar(
    "opgen_cel_mode", default="create"
)


@contextlib.contextmanager
def rules_skipped() -> Iterator[None]:
    """Within the block, models do not evaluate CEL rules (decoding stored objects)."""
    token = _MODE.set("skip")
    try:
        yield
    finally:
        _MODE.reset(token)


@contextlib.contextmanager
def transition_rules_deferred() -> Iterator[None]:
    """Within the block, models evaluate only the rules without `oldSelf` (the
    update check evaluates the others once it has paired old and new nodes)."""
    token = _MODE.set("update")
    try:
        yield
    finally:
        _MODE.reset(token)


def rule_mode() -> str:
    """ "create" (every rule a create runs), "update" (no transition rules) or "skip"."""
    return _MODE.get()


@dataclass(frozen=True)
class Violation:
    """One failed rule: `field` is relative to the node (`""` or `.a.b`)."""

    field: str
    message: str
    reason: str
    rule: str
    value_type: str

    def cause_message(self) -> str:
        """The cause's message as the API server spells it."""
        return cause_message(self.reason, self.value_type, self.message)


def cause_message(reason: str, value_type: str, message: str) -> str:
    """The message the API server puts in a cause for a failed rule."""
    if reason == "FieldValueForbidden":
        return f"Forbidden: {message}"
    if reason == "FieldValueRequired":
        return f"Required value: {message}"
    if reason == "FieldValueDuplicate":
        return f'Duplicate value: "{value_type}"'
    return f'Invalid value: "{value_type}": {message}'


def json_type(value: Any) -> str:
    """The schema type the server names in a cause's message."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def _message(rule: dict[str, Any], variables: dict[str, Any]) -> str:
    expression = rule.get("messageExpression")
    if expression:
        try:
            spelt = evaluate(str(expression), variables)
        except CelEvaluationError:
            spelt = None
        if isinstance(spelt, str) and spelt.strip() and "\n" not in spelt:
            return spelt
    message = rule.get("message")
    if message:
        return str(message)
    return f"failed rule: {rule['rule']}"


def check_rules(
    rules: Sequence[dict[str, Any]],
    value: Any,
    *,
    old: Any = ABSENT,
    transitions: bool = True,
    plain: bool = True,
) -> list[Violation]:
    """The rules of one node that `value` (and `old`, on an update) breaks:
    the rules without `oldSelf` if `plain`, the transition rules if
    `transitions` (with `old`, or with `optional.none()` when the rule allows)."""
    violations: list[Violation] = []
    for rule in rules:
        expression = str(rule["rule"])
        variables: dict[str, Any] = {"self": value}
        if uses_old_self(expression):
            if not transitions:
                continue
            if old is ABSENT:
                if not rule.get("optionalOldSelf"):
                    continue
                variables["oldSelf"] = NO_OLD_SELF
            else:
                variables["oldSelf"] = (
                    OptionalOf(old) if rule.get("optionalOldSelf") else old
                )
        elif not plain:
            continue
        field = str(rule.get("fieldPath") or "")
        try:
            passed = evaluate(expression, variables)
        except CelSyntaxError:
            continue  # optional syntax (`.?`) the engine cannot parse: the server's
        except CelEvaluationError as error:
            violations.append(
                Violation(
                    "",
                    f"{error} evaluating rule: {expression}",
                    "FieldValueInvalid",
                    expression,
                    json_type(value),
                )
            )
            continue
        if passed is True:
            continue
        violations.append(
            Violation(
                field,
                _message(rule, variables),
                str(rule.get("reason") or "FieldValueInvalid"),
                expression,
                json_type(value),
            )
        )
    return violations
