"""CEL rule metadata (`x-kubernetes-validations`), as the API server checks it.

Rules must be non-empty, messages one line (and present for multi-line rules),
reasons one of four, field paths valid, `optionalOldSelf` only with `oldSelf`,
and `oldSelf` only where old and new objects can be correlated (not inside
the items of a list that is not `x-kubernetes-list-type: map`).

Each `rule` and `messageExpression` is compiled and type-checked against the
node's schema (`opgen.engine.cel.check`): syntax errors, undeclared names and
functions the server does not offer, undefined fields and wrong types are
errors naming the rule and the line and column in it, as the server's
`compilation failed` refusal does.

`check_rule_costs` holds the schema's rules to the server's cost budgets
(`opgen.engine.cel.budget`): a rule over the per-rule limit, and rules adding
up past the per-CRD limit, are refused in the server's words.
"""

from __future__ import annotations

import re
from typing import Any

from opgen.engine.cel import REASONS, uses_old_self
from opgen.engine.cel.budget import RuleCost, budget_factor, rule_costs
from opgen.engine.cel.check import check_expression
from opgen.engine.cel.cost import STATIC_CRD_COST_LIMIT, STATIC_RULE_COST_LIMIT
from opgen.schema.check.paths import resolve_field_path
from opgen.schema.check.report import Report, child, index, key

__all__ = ["check_rule_costs", "check_rules"]

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
    report: Report,
    node: dict[str, Any],
    path: str,
    uncorrelatable: str | None,
    root: bool = False,
) -> None:
    """Check the `x-kubernetes-validations` of one node (`root`: a resource's
    root, where `apiVersion`, `kind` and `metadata.name` are always there)."""
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
            _compile(report, node, rule_path, rule, uncorrelatable is None, root)
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
    root: bool,
) -> None:
    """Compile and type-check the rule and its messageExpression against `node`."""
    text = str(rule["rule"])
    old_self = correlatable and uses_old_self(text)
    checked = check_expression(
        text,
        node,
        old_self=old_self,
        optional_old_self=bool(rule.get("optionalOldSelf")),
        root=root,
        memo=report.cel,
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
            f"{text!r} uses CEL that opgen's engine cannot run (optional list or "
            "map items [?x] and {?k: v}, optMap, optFlatMap): the models skip this "
            "rule and leave it to the API server",
            node,
        )
    expression = rule.get("messageExpression")
    if isinstance(expression, str) and expression.strip():
        spelt = check_expression(
            expression,
            node,
            old_self=old_self,
            message_expression=True,
            root=root,
            memo=report.cel,
        )
        for problem in spelt.problems[:1]:
            line, column = _position(expression, problem.position)
            report.error(
                child(rule_path, "messageExpression"),
                f"Invalid value: {expression!r}: messageExpression compilation failed: "
                f"ERROR: <input>:{line}:{column}: {problem.message}",
                node,
            )


_TRY = (
    "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength "
    "where arrays, maps, and strings are declared)"
)
_BOUND_HINT = (
    "bound the lists, maps and strings the rule walks (op.MaxItems, "
    "op.MaxProperties, op.MaxLength), or simplify the rule"
)


def _rule_path(schema_path: str, found: RuleCost) -> str:
    path = schema_path
    steps = list(found.steps)
    while steps:
        step = steps.pop(0)
        if step == "properties" and steps:
            path = key(child(path, "properties"), str(steps.pop(0)))
        else:
            path = child(path, str(step))
    rules = index(child(path, "x-kubernetes-validations"), found.position)
    return child(rules, found.field)


def check_rule_costs(
    report: Report, schema: dict[str, Any], schema_path: str, crd_name: str
) -> None:
    """Hold the rules of one version's openAPIV3Schema to the server's budgets."""
    costs = rule_costs(schema, report.cel)
    for found in costs:
        if found.cost <= STATIC_RULE_COST_LIMIT:
            continue
        what = "rule" if found.field == "rule" else "messageExpression"
        detail = (
            f"estimated {what} cost exceeds budget by factor of "
            f"{budget_factor(found.cost, STATIC_RULE_COST_LIMIT)} {_TRY}"
        )
        if found.approximate:
            report.warn(
                _rule_path(schema_path, found),
                f"{found.expression!r}: the API server may refuse this rule: {detail} "
                "(opgen's estimate counts a function it does not model as 1)",
                found.node,
                hint=_BOUND_HINT,
            )
        else:
            report.error(
                _rule_path(schema_path, found),
                f"Forbidden: {detail}",
                found.node,
                hint=f"{found.expression!r}: {_BOUND_HINT}",
            )
    total = min(sum(found.cost for found in costs), 2**64 - 1)
    if total <= STATIC_CRD_COST_LIMIT:
        return
    expensive = sorted(
        (f for f in costs if f.cost >= STATIC_CRD_COST_LIMIT // 100),
        key=lambda f: -f.cost,
    )[:4]
    named = "; ".join(
        f"{f.expression!r} at {_rule_path(schema_path, f)} (cost {f.cost:,})"
        for f in expensive
    )
    detail = (
        "Forbidden: x-kubernetes-validations estimated rule cost total for entire "
        "OpenAPIv3 schema exceeds budget by factor of "
        f"{budget_factor(total, STATIC_CRD_COST_LIMIT)} {_TRY}"
    )
    hint = (
        f"CRD {crd_name}: its rules add up to {total:,}, past the API server's "
        f"per-CRD budget ({STATIC_CRD_COST_LIMIT:,}); the most expensive: {named}; "
        + _BOUND_HINT
    )
    if any(f.approximate for f in costs):
        report.warn(
            schema_path,
            f"the API server may refuse this CRD: {detail[len('Forbidden: ') :]} "
            "(opgen's estimate counts a function it does not model as 1)",
            schema,
            hint=hint,
        )
        return
    report.error(schema_path, detail, schema, hint=hint)
    for found in expensive:
        report.error(
            _rule_path(schema_path, found),
            "Forbidden: contributed to estimated rule cost total exceeding cost "
            "limit for entire OpenAPIv3 schema",
            found.node,
            hint=hint,
        )
