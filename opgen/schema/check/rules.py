"""CEL rule metadata (`x-kubernetes-validations`), as the API server checks it.

Rules must be non-empty, messages one line (and present for multi-line rules),
reasons one of four, field paths valid, `optionalOldSelf` only with `oldSelf`,
and `oldSelf` only where old and new objects can be correlated (not inside
the items of a list that is not `x-kubernetes-list-type: map`). The
expressions themselves are compiled by the API server.
"""

from __future__ import annotations

import re
from typing import Any

from opgen.engine.cel import REASONS, uses_old_self
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
