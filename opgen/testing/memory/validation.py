"""A candidate object checked as the API server checks it: through its kind's model.

The models agree with the server on what they accept (tests/proof); their
CEL rules run through `opgen.engine.cel`, transition rules on an update
(`opgen.api.validate_update`). A refusal becomes the server's 422 causes:
CEL rules with the server's own fields and messages (`opgen.api.rule_causes`);
every other error with the field the server names and its reason
(`FieldValueRequired`, `FieldValueTypeInvalid`, ...), the message in the
server's wording where it is known.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from opgen.api import failed_rules, rule_causes, validate_update
from opgen.engine.values import json_type
from opgen.testing.memory.answers import Cause

__all__ = ["checked_object", "object_causes"]

_JSON_TYPES = {
    "int": "integer",
    "string": "string",
    "bool": "boolean",
    "float": "number",
    "dict": "object",
    "model": "object",
    "model_attributes": "object",
    "list": "array",
}


RULES_NOT_CHECKED = Cause(
    "<nil>",
    "FieldValueInvalid",
    "Invalid value: null: some validation rules were not checked because the object "
    "was invalid; correct the existing errors to complete validation",
)
"""What the server adds, instead of the CEL rules' causes, when the schema's
other checks already failed in one of the `_BLOCKING` ways."""

_BLOCKING = frozenset(
    {
        "FieldValueNotSupported",
        "FieldValueRequired",
        "FieldValueTooLong",
        "FieldValueTooMany",
        "FieldValueTypeInvalid",
    }
)


def object_causes(
    model: type[BaseModel],
    candidate: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    *,
    has_rules: bool,
) -> list[Cause]:
    """Why the server would refuse `candidate` (a create, or an update of `old`);
    empty when it accepts it. `has_rules`: the kind's schema has CEL rules."""
    return checked_object(model, candidate, old, has_rules=has_rules)[1]


def checked_object(
    model: type[BaseModel],
    candidate: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    *,
    has_rules: bool,
    old_model: Callable[[], BaseModel] | None = None,
) -> tuple[BaseModel | None, list[Cause]]:
    """`candidate` validated by `model` (None when refused) and `object_causes`;
    `old_model` gives `old` validated by `model` (a stored object's, kept)."""
    try:
        if old is None:
            return model.model_validate(candidate), []
        validated_old = old_model() if old_model else model.model_validate(old)
        return validate_update(validated_old, candidate), []
    except ValidationError as error:
        return None, _causes(error, model, candidate, old, has_rules)


def _causes(
    error: ValidationError,
    model: type[BaseModel],
    candidate: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    has_rules: bool,
) -> list[Cause]:
    causes: list[Cause] = []
    for item in error.errors():
        if item["type"] == "kubernetes_rule" or _scale_range(item):
            continue
        where = _field(tuple(item["loc"]), candidate, item["type"] == "missing")
        causes.append(_cause(where, item["type"], item.get("input"), item))
    unique: dict[tuple[str, str], Cause] = {}
    for cause in causes:
        unique.setdefault((cause.field, cause.reason), cause)
    # the server's schema validator walks properties in name order, depth first
    found = sorted(unique.values(), key=lambda cause: _path_order(cause.field))
    if has_rules and any(cause.reason in _BLOCKING for cause in found):
        return [*found, RULES_NOT_CHECKED]
    # the model's rules where Pydantic built the nodes; every rule when another
    # constraint failed (the server still runs them after a non-blocking error)
    rules = rule_causes(error) if not found else failed_rules(model, candidate, old)
    return found + [Cause(rule.field, rule.reason, rule.message) for rule in rules]


def _path_order(path: str) -> list[tuple[int, str]]:
    """A sort key for a field path: names in order, indices by number."""
    return [
        (int(part), "") if part.isdigit() else (-1, part)
        for part in re.split(r"[.\[\]]+", path)
        if part
    ]


def _scale_range(item: Any) -> bool:
    """The model's own check of the scale subresource's replicas range, which
    the server reports in its own words (`schema.scale_causes`)."""
    ctx = item.get("ctx") or {}
    return item["type"] == "kubernetes_constraint" and "path" in ctx and "limit" in ctx


def _field(loc: tuple[int | str, ...], candidate: Any, missing: bool) -> str:
    """The wire path of an error: the parts of `loc` that name keys and items of
    the candidate (a union's member tags name neither)."""
    path = ""
    value = candidate
    for position, part in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(part, int) and isinstance(value, list) and part < len(value):
            path += f"[{part}]"
            value = value[part]
        elif isinstance(value, dict) and part in value:
            path = f"{path}.{part}" if path else str(part)
            value = value[part]
        elif missing and last:
            path = f"{path}.{part}" if path else str(part)
    return path


def _constraint_cause(where: str, value: Any, ctx: Mapping[str, Any]) -> Cause:
    """An opgen marker's refusal (`op.MaxLength(8)`), as the server words the
    schema keyword it writes."""
    marker = str(ctx.get("marker", ""))
    limit = marker.partition("(")[2].rstrip(")")
    count = len(value) if isinstance(value, list | dict | str) else value
    if marker.startswith("op.MaxLength("):
        return Cause(
            where, "FieldValueTooLong", f"Too long: may not be more than {limit} bytes"
        )
    if marker.startswith(("op.MaxItems(", "op.MaxProperties(")):
        return Cause(
            where,
            "FieldValueTooMany",
            f"Too many: {count}: must have at most {limit} items",
        )
    if marker.startswith("op.Enum("):
        return Cause(
            where,
            "FieldValueNotSupported",
            f"Unsupported value: {_shown(value)}: supported values: {limit}",
        )
    problem = str(ctx.get("problem", "")).replace("must be", "should be", 1)
    return Cause(
        where,
        "FieldValueInvalid",
        f"Invalid value: {_shown(value)}: {where} in body {problem}",
    )


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return json_type(value)


def _shown(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _cause(where: str, kind: str, value: Any, item: Any) -> Cause:
    ctx = item.get("ctx") or {}
    if kind == "missing":
        return Cause(where, "FieldValueRequired", "Required value")
    base = kind.removesuffix("_type").removesuffix("_parsing")
    if kind.endswith(("_type", "_parsing")) and base in _JSON_TYPES:
        actual = _json_type(value)
        return Cause(
            where,
            "FieldValueTypeInvalid",
            f'Invalid value: "{actual}": {where} in body must be of type '
            f'{_JSON_TYPES[base]}: "{actual}"',
        )
    if kind in ("literal_error", "enum"):
        expected = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return Cause(
            where,
            "FieldValueNotSupported",
            f"Unsupported value: {_shown(value)}: supported values: "
            + ", ".join(_shown(choice) for choice in expected),
        )
    if kind == "kubernetes_constraint":
        return _constraint_cause(where, value, ctx)
    bounds = {
        "greater_than_equal": ("should be greater than or equal to", "ge"),
        "less_than_equal": ("should be less than or equal to", "le"),
        "greater_than": ("should be greater than", "gt"),
        "less_than": ("should be less than", "lt"),
        "string_too_short": ("should be at least {} chars long", "min_length"),
        "too_short": ("should have at least {} items", "min_length"),
        "string_pattern_mismatch": ("should match '{}'", "pattern"),
    }
    if kind in bounds:
        text, key = bounds[kind]
        limit = ctx.get(key)
        said = text.format(limit) if "{}" in text else f"{text} {limit}"
        return Cause(
            where,
            "FieldValueInvalid",
            f"Invalid value: {_shown(value)}: {where} in body {said}",
        )
    if kind == "string_too_long":
        return Cause(
            where,
            "FieldValueTooLong",
            f"Too long: may not be more than {ctx.get('max_length')} bytes",
        )
    if kind == "too_long":
        return Cause(
            where,
            "FieldValueTooMany",
            f"Too many: {len(value) if isinstance(value, list | dict) else value}: "
            f"must have at most {ctx.get('max_length')} items",
        )
    return Cause(
        where,
        "FieldValueInvalid",
        f"Invalid value: {_shown(value)}: {item.get('msg', '')}",
    )
