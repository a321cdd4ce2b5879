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
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from opgen.engine.cel.facts import uses_old_self

__all__ = [
    "ABSENT",
    "Violation",
    "cause_message",
    "check_rules",
    "rule_mode",
    "rules_deferred",
    "rules_skipped",
    "shown_value",
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
def rules_deferred() -> Iterator[None]:
    """Within the block, models leave their rules to whoever walks the whole
    object afterwards (a kind's own validation, the update check)."""
    token = _MODE.set("deferred")
    try:
        yield
    finally:
        _MODE.reset(token)


def rule_mode() -> str:
    """`create` (check the rules a create runs), `deferred` or `skip`."""
    return _MODE.get()


@dataclass(frozen=True)
class Violation:
    """One failed rule: `field` is relative to the node (`""` or `.a.b`)."""

    field: str
    message: str
    reason: str
    rule: str
    shown: str | None
    """The value as the cause's message shows it (None: left out)."""

    def cause_message(self) -> str:
        """The cause's message as the API server spells it."""
        return cause_message(self.reason, self.shown, self.message)


def cause_message(reason: str, shown: str | None, message: str) -> str:
    """The message the API server puts in a cause for a failed rule."""
    if reason == "FieldValueForbidden":
        return f"Forbidden: {message}"
    if reason == "FieldValueRequired":
        return f"Required value: {message}"
    if reason == "FieldValueDuplicate":
        return f"Duplicate value: {shown}" if shown is not None else "Duplicate value"
    if shown is None:
        return f"Invalid value: {message}"
    return f"Invalid value: {shown}: {message}"


def shown_value(value: Any) -> str | None:
    """A scalar as the server prints it in a cause (objects and lists are left out)."""
    if isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _message(rule: dict[str, Any]) -> str:
    expression = rule.get("messageExpression")
    if expression:
        from opgen.engine.cel import program as cel  # see check_rules

        try:
            spelt = cel.run(str(expression))
        except (cel.CelEvaluationError, cel.CelSyntaxError):
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
    # The CEL engine loads when a rule is first checked: an operator decodes its
    # objects without their rules (`rules_skipped`) and need not load it at all.
    from opgen.engine.cel import program as cel

    violations: list[Violation] = []
    bound = False
    for rule in rules:
        expression = str(rule["rule"])
        variables: dict[str, Any] = {}
        if not bound:
            variables["self"] = value
        if uses_old_self(expression):
            if not transitions:
                continue
            if old is ABSENT:
                if not rule.get("optionalOldSelf"):
                    continue
                variables["oldSelf"] = cel.NO_OLD_SELF
            else:
                variables["oldSelf"] = (
                    cel.OptionalOf(old) if rule.get("optionalOldSelf") else old
                )
        elif not plain:
            continue
        field = str(rule.get("fieldPath") or "")
        try:
            cel.bind(variables)
            bound = True
            passed = cel.run(expression)
        except cel.CelSyntaxError:
            continue  # optional list or map items the engine cannot build: the server's
        except cel.CelEvaluationError as error:
            violations.append(
                Violation(
                    "",
                    f"{error} evaluating rule: {expression}",
                    "FieldValueInvalid",
                    expression,
                    shown_value(value),
                )
            )
            continue
        if passed is True:
            continue
        violations.append(
            Violation(
                field,
                _message(rule),
                str(rule.get("reason") or "FieldValueInvalid"),
                expression,
                None if field else shown_value(value),
            )
        )
    return violations
