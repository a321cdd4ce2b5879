"""CEL rule metadata (`x-kubernetes-validations`), as the API server checks it.

Rules must be non-empty, messages one line (and present for multi-line rules),
reasons one of four, field paths valid, `optionalOldSelf` only with `oldSelf`,
and `oldSelf` only where old and new objects can be correlated (not inside
the items of a list that is not `x-kubernetes-list-type: map`).

Each `rule` and `messageExpression` is compiled and type-checked against the
node's schema (`opgen.engine.cel.check`): syntax errors, undeclared names and
functions the server does not offer, undefined fields and wrong types are
errors naming the rule and the line and column in it, as the server's
`compilation failed` refusal does; a rule whose estimated cost passes the
server's per-rule limit is a warning (the estimate is approximate).
"""

from __future__ import annotations

import re
from typing import Any

from opgen.engine.cel import REASONS, uses_old_self
from opgen.engine.cel.check import STATIC_RULE_COST_LIMIT, check_expression
from opgen.schema.check.paths import resolve_field_path
from opgen.schema.check.report import Report, child, index

__all__ = ["check_rules"]

_NEWLINE = re.compile(r"[\n\r]")
_RULE_KEYS = (
    "rule",
    "message",
    "messageExpression",
    "reason",
    "fieldPath",
    "optionalOldSelf",
)


def check_rules(
    report: Report, node: dict[str, Any], path: str, uncorrelatable: str | None
) -> None:
    """Check the `x-kubernetes-validations` of one node."""
    rules = node.get("x-kubernetes-validations")
    if rules is None:
        return
    if not isinstance(rules, list):
        report.error(
            child(path, "x-kubernetes-validations"),
            "Invalid value: must be a list",
            node,
        )
        return
    for position, rule in enumerate(rules):
        rule_path = index(child(path, "x-kubernetes-validations"), position)
        if not isinstance(rule, dict):
            report.error(rule_path, "Invalid value: must be an object", node)
            continue
        for name in rule:
            if name not in _RULE_KEYS:
                report.error(
                    child(rule_path, name),
                    "Forbidden: not a field of a validation rule",
                    node,
                )
        text = str(rule.get("rule") or "")
        message = rule.get("message")
        trimmed_message = str(message or "").strip()
        if not text.strip():
            report.error(
                child(rule_path, "rule"),
                "Required value: rule is not specified",
                node,
            )
        elif message is not None and message != "" and not trimmed_message:
            report.error(
                child(rule_path, "message"),
                "Invalid value: must be non-empty if specified",
                node,
            )
        elif _NEWLINE.search(trimmed_message):
            report.error(
                child(rule_path, "message"),
                "Invalid value: must not contain line breaks",
                node,
            )
        elif _NEWLINE.search(text.strip()) and not trimmed_message:
            report.error(
                child(rule_path, "message"),
                "Required value: message must be specified if rule contains line breaks",
                node,
            )
        expression = rule.get("messageExpression")
        if expression is not None and expression != "" and not str(expression).strip():
            report.error(
                child(rule_path, "messageExpression"),
                "Required value: messageExpression must be non-empty if specified",
                node,
            )
        reason = rule.get("reason")
        if reason is not None and reason not in REASONS:
            report.error(
                child(rule_path, "reason"),
                f"Unsupported value: {reason!r}: supported values: "
                + ", ".join(f'"{r}"' for r in sorted(REASONS)),
                node,
            )
        field_path = rule.get("fieldPath")
        if field_path is not None and field_path != "":
            if not str(field_path).strip() or _NEWLINE.search(str(field_path)):
                report.error(
                    child(rule_path, "fieldPath"),
                    f"Invalid value: {field_path!r}: must be non-empty and one line",
                    node,
                )
            elif resolve_field_path(str(field_path), node) is None:
                report.error(
                    child(rule_path, "fieldPath"),
                    f"Invalid value: {field_path!r}: must be a valid path",
                    node,
                )
        if text.strip():
            _compile(report, node, rule_path, rule, uncorrelatable is None)
        if uses_old_self(text):
            if uncorrelatable is not None:
                report.error(
                    child(rule_path, "rule"),
                    f"Invalid value: {text!r}: oldSelf cannot be used on the uncorrelatable "
                    f"portion of the schema within {uncorrelatable}",
                    node,
                    hint="items of a list are only correlated between updates when the list "
                    "is op.ListType('map')",
                )
        elif rule.get("optionalOldSelf") is not None:
            report.error(
                child(rule_path, "optionalOldSelf"),
                "Invalid value: may not be set if oldSelf is not used in rule",
                node,
            )


def _position(expression: str, offset: int) -> tuple[int, int]:
    before = expression[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _compile(
    report: Report,
    node: dict[str, Any],
    rule_path: str,
    rule: dict[str, Any],
    correlatable: bool,
) -> None:
    """Compile and type-check the rule and its messageExpression against `node`."""
    text = str(rule["rule"])
    old_self = correlatable and uses_old_self(text)
    checked = check_expression(
        text,
        node,
        old_self=old_self,
        optional_old_self=bool(rule.get("optionalOldSelf")),
    )
    for problem in checked.problems[:1]:
        line, column = _position(text, problem.position)
        report.error(
            child(rule_path, "rule"),
            f"Invalid value: {text!r}: compilation failed: ERROR: <input>:{line}:{column}: "
            f"{problem.message}",
            node,
            hint="fix the CEL expression (docs/markers.md lists the functions the "
            "server offers)",
        )
    if not checked.problems and not checked.runnable:
        report.warn(
            child(rule_path, "rule"),
            f"{text!r} uses optional syntax (.? or [?) that opgen's CEL engine cannot "
            "run: the models skip this rule and leave it to the API server",
            node,
        )
    if not checked.problems and checked.cost > STATIC_RULE_COST_LIMIT:
        report.warn(
            child(rule_path, "rule"),
            f"{text!r}: estimated cost {checked.cost:,} likely exceeds the API server's "
            f"per-rule budget ({STATIC_RULE_COST_LIMIT:,}); the server would refuse "
            "the CRD",
            node,
            hint="bound the lists, maps and strings the rule walks (op.MaxItems, "
            "op.MaxProperties, op.MaxLength)",
        )
    expression = rule.get("messageExpression")
    if isinstance(expression, str) and expression.strip():
        spelt = check_expression(
            expression, node, old_self=old_self, message_expression=True
        )
        for problem in spelt.problems[:1]:
            line, column = _position(expression, problem.position)
            report.error(
                child(rule_path, "messageExpression"),
                f"Invalid value: {expression!r}: messageExpression compilation failed: "
                f"ERROR: <input>:{line}:{column}: {problem.message}",
                node,
            )
        if not spelt.problems and spelt.cost > STATIC_RULE_COST_LIMIT:
            report.warn(
                child(rule_path, "messageExpression"),
                f"{expression!r}: estimated cost {spelt.cost:,} likely exceeds the API "
                f"server's per-rule budget ({STATIC_RULE_COST_LIMIT:,})",
                node,
            )
