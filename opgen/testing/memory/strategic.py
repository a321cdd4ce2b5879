"""Strategic merge patch (`application/strategic-merge-patch+json`) for built-in kinds.

A strategic merge patch is a merge patch that knows, field by field, how a
built-in kind's lists merge: the patch-merge key and strategy Kubernetes
declares on its Go types and publishes in its OpenAPI
(`x-kubernetes-patch-merge-key`, `x-kubernetes-patch-strategy`), which
`opgen.api.k8s.patch_strategies` carries as data (loaded on the first such
patch). Maps merge key by key and `null` removes a key, as in a merge patch;
a list with strategy `merge` merges item by item by its merge key (a list of
primitives as a union), any other list is replaced; `replace` replaces a
map whole, and `retainKeys` keeps only the keys the patch's `$retainKeys`
lists. The directives: `$patch: replace` or `delete` in a map or a list
item, `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>`,
`$retainKeys`. The order of merged lists, and the errors (400 for a
malformed directive, 422 for lists of lists, 500 for the rest), follow
apimachinery's `strategicpatch`, whose behaviour this reproduces (read from
its source as facts). Custom resources refuse it (415), as the server does.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Any

from opgen.testing.memory import answers
from opgen.testing.memory.kinds import Kind
from opgen.testing.memory.store import decode, json_copy

__all__ = [
    "STRATEGIC_PATCH",
    "StrategicError",
    "root_type",
    "strategic_merge",
    "strategic_patched",
]

_DIRECTIVE = "$patch"
_RETAIN_KEYS = "$retainKeys"
_SET_ORDER = "$setElementOrder"
_DELETE_PRIMITIVES = "$deleteFromPrimitiveList"
_NO_FIELD: tuple[list[str], str, str | None] = ([], "", None)

Types = Mapping[str, Mapping[str, tuple[str, str, str]]]


class StrategicError(Exception):
    """A patch the server cannot apply: the status code and message it answers."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _bad_request(message: str) -> StrategicError:
    return StrategicError(400, message)


_BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
_BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
_BAD_ORDER_LIST = "invalid patch format of setElementOrder list"


@functools.cache
def _data() -> tuple[Mapping[str, str], Types]:
    module = importlib.import_module("opgen.api.k8s.patch_strategies")
    return module.KINDS, module.TYPES


def root_type(group: str, version: str, kind: str) -> str | None:
    """The OpenAPI type of a built-in kind (None for one it does not know)."""
    kinds, _ = _data()
    return kinds.get(f"{group}/{version}/{kind}" if group else f"{version}/{kind}")


def _go(value: Any) -> str:
    """`value` as Go's `%v` prints a decoded JSON value (in error messages)."""
    if isinstance(value, dict):
        inner = " ".join(f"{k}:{_go(v)}" for k, v in sorted(value.items()))
        return f"map[{inner}]"
    if isinstance(value, list):
        return "[" + " ".join(_go(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _no_merge_key(item: Any, key: str) -> StrategicError:
    return StrategicError(
        500, f"map: {_go(item)} does not contain declared merge key: {key}"
    )


def _not_a_map(value: Any) -> StrategicError:
    return StrategicError(
        500, f"expected a map[string]interface {{}}, but received a {_go_type(value)}"
    )


def _keyed(item: Any, merge_key: str) -> dict[str, Any]:
    """`item` as a map holding `merge_key`, or the server's 500 for it."""
    if not isinstance(item, dict):
        raise _not_a_map(item)
    if merge_key not in item:
        raise _no_merge_key(item, merge_key)
    return item


def _go_type(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "<nil>"


def _lookup(schema: str | None, key: str) -> tuple[list[str], str, str | None]:
    """A field's patch strategies, merge key and the type of its value (or items)."""
    if schema is None:
        return _NO_FIELD
    if schema.startswith("map:"):
        # the server looks a map's items up as a struct's fields, and fails
        raise StrategicError(
            500,
            "merging an object in json but data type is not struct, instead is: map",
        )
    _, types = _data()
    found = types.get(schema, {}).get(key)
    if found is None:
        return _NO_FIELD
    strategy, merge_key, target = found
    return [s for s in strategy.split(",") if s], merge_key, target or None


def _strategy(strategies: list[str]) -> str:
    """The strategy besides `retainKeys` (apimachinery's `extractRetainKeysPatchStrategy`)."""
    others = [s for s in strategies if s != "retainKeys"]
    if len(strategies) > 2 or (len(strategies) == 2 and len(others) != 1):
        raise StrategicError(
            500, f"unexpected patch strategy: [{' '.join(strategies)}]"
        )
    return others[0] if others else ""


def _key_after(name: str, prefix: str) -> str:
    head, slash, rest = name.partition("/")
    if not slash or head != prefix:
        raise _bad_request(
            _BAD_PRIMITIVE_LIST if prefix == _DELETE_PRIMITIVES else _BAD_ORDER_LIST
        )
    return rest


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _without_directives(value: Any) -> tuple[Any, bool]:
    """`value` without directives, and whether to keep it at all (a map with
    `$patch` in it is not kept)."""
    if isinstance(value, dict):
        if _DIRECTIVE in value:
            return None, False
        kept = {}
        for key, item in value.items():
            cleaned, keep = _without_directives(item)
            if keep:
                kept[key] = cleaned
        return kept, True
    if isinstance(value, list):
        items = [_without_directives(item) for item in value]
        return [item for item, keep in items if keep], True
    return value, True


def strategic_merge(
    original: dict[str, Any], patch: dict[str, Any], schema: str | None
) -> dict[str, Any]:
    """`original` with the strategic merge `patch` applied, the object's type
    being `schema` (`root_type`); neither argument is changed."""
    return _merge_map(json_copy(original), json_copy(patch), schema)


def _merge_map(
    original: dict[str, Any] | None, patch: dict[str, Any], schema: str | None
) -> dict[str, Any]:
    if _DIRECTIVE in patch:
        directive = patch[_DIRECTIVE]
        if directive == "replace":
            del patch[_DIRECTIVE]
            return patch
        if directive == "delete":
            return {}
        raise StrategicError(
            500, f"unknown patch type: {_go(directive)} in map: {_go(patch)}"
        )
    merged = original if original is not None else {}
    _retain_keys(merged, patch)
    _set_element_orders(merged, patch, schema)
    for name, value in list(patch.items()):
        key, deleting = name, False
        if name.startswith(_DELETE_PRIMITIVES):
            key, deleting = _key_after(name, _DELETE_PRIMITIVES), True
        if value is None:
            merged.pop(key, None)
            continue
        if key not in merged or type(merged[key]) is not type(value):
            if not deleting:
                cleaned, keep = _without_directives(_without_nulls(value))
                if keep:
                    merged[key] = cleaned
                else:
                    merged.pop(key, None)
            continue
        current = merged[key]
        if isinstance(current, dict):
            strategies, _, sub = _lookup(schema, key)
            if _strategy(strategies) == "replace":
                merged[key] = value
            else:
                merged[key] = _merge_map(current, value, sub)
        elif isinstance(current, list):
            strategies, merge_key, sub = _lookup(schema, key)
            merged[key] = _merge_list_field(
                current, value, sub, _strategy(strategies), merge_key, deleting
            )
        else:
            cleaned, keep = _without_directives(value)
            if keep:
                merged[key] = cleaned
            else:
                merged.pop(key, None)
    return merged


def _retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    if _RETAIN_KEYS not in patch:
        return
    retained = patch.pop(_RETAIN_KEYS)
    if not isinstance(retained, list):
        raise _bad_request(_BAD_RETAIN_KEYS)
    for key, value in patch.items():
        if value is None or key.startswith((_DELETE_PRIMITIVES, _SET_ORDER)):
            continue
        if key not in retained:
            raise _bad_request(_BAD_RETAIN_KEYS)
    for key in list(original):
        if key not in retained:
            del original[key]


def _set_element_orders(
    original: dict[str, Any], patch: dict[str, Any], schema: str | None
) -> None:
    for name in [n for n in patch if n.startswith(_SET_ORDER)]:
        order = patch.pop(name)
        if not isinstance(order, list):
            raise StrategicError(
                500,
                f"expected a []interface {{}}, but received a {_go_type(order)}",
            )
        key = _key_after(name, _SET_ORDER)
        found_original, found_patch = key in original, key in patch
        before: list[Any] = []
        patched: list[Any] = []
        for found, value, into in (
            (found_original, original.get(key), before),
            (found_patch, patch.get(key), patched),
        ):
            if found:
                if not isinstance(value, list):
                    raise StrategicError(
                        500,
                        f"expected a []interface {{}}, but received a {_go_type(value)}",
                    )
                into.extend(value)
        strategies, merge_key, sub = _lookup(schema, key)
        strategy = _strategy(strategies)
        _check_order(patched, order, merge_key)
        if found_original and not found_patch:
            merged = before
        elif found_patch and not found_original:
            merged, _ = _without_directives(patched)
        elif found_original and found_patch:
            merged = _merge_list_field(
                list(before), list(patched), sub, strategy, merge_key, False
            )
        else:
            continue
        kind = _element_kind(before, patched)
        if merge_key:
            chosen, rest = _partition_maps(merged, order, merge_key)
        else:
            chosen = [v for v in merged if v in order]
            rest = [v for v in merged if v not in order]
        original[key] = _normalized(chosen, rest, order, before, merge_key, kind)
        patch.pop(key, None)


def _check_order(patched: list[Any], order: list[Any], merge_key: str) -> None:
    """The patch list's items come in the order `$setElementOrder` gives."""
    if not order or not patched:
        return
    items = patched
    if merge_key:
        items = [
            i
            for i in patched
            if not (isinstance(i, dict) and i.get(_DIRECTIVE) == "delete")
        ]
        if any(not isinstance(i, dict) for i in patched):
            raise _not_a_map(next(i for i in patched if not isinstance(i, dict)))
    p = o = 0
    while p < len(items) and o < len(order):
        if isinstance(items[p], dict) and _DIRECTIVE in items[p]:
            p += 1
            continue
        if _key_equal(items[p], order[o], merge_key):
            p += 1
        o += 1
    if p < len(items) and o >= len(order):
        raise StrategicError(
            500,
            f"The order in patch list:\n{_go(patched)}\n doesn't match "
            f"{_SET_ORDER} list:\n{_go(order)}\n",
        )


def _key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return bool(left == right)
    return bool(
        _keyed(left, merge_key)[merge_key] == _keyed(right, merge_key)[merge_key]
    )


def _merge_list_field(
    original: list[Any],
    patch: list[Any],
    schema: str | None,
    strategy: str,
    merge_key: str,
    deleting: bool,
) -> list[Any]:
    if strategy == "merge" or deleting:
        return _merge_list(original, patch, schema, merge_key, deleting)
    return patch


def _element_kind(*lists: list[Any]) -> str:
    """`map` or `scalar`: what every item of `lists` is (lists of lists and
    mixed items are errors, as is no item at all)."""
    kinds = {type(item) for items in lists for item in items}
    if not kinds:
        raise StrategicError(500, "no elements in any of the given slices")
    first = next(type(item) for items in lists for item in items)
    if first is list:
        raise StrategicError(422, "lists of lists are not supported")
    if len(kinds) > 1:
        shown = "[" + " ".join(_go(items) for items in lists) + "]"
        raise StrategicError(500, f"list element types are not identical: {shown}")
    return "map" if first is dict else "scalar"


def _merge_list(
    original: list[Any],
    patch: list[Any],
    schema: str | None,
    merge_key: str,
    deleting: bool,
) -> list[Any]:
    if not original and not patch:
        return original
    kind = _element_kind(original, patch)
    if kind == "scalar":
        if deleting:
            return [item for item in original if item not in patch]
        merged = _deduplicated(original + patch)
        order: list[Any] | None = patch
    else:
        if not merge_key:
            raise StrategicError(500, "cannot merge lists without merge key for slice")
        original, special_free = _special_items(original, patch, merge_key)
        merged = _merge_items(list(original), special_free or [], merge_key, schema)
        order = special_free
    if merge_key:
        chosen, rest = _partition_maps(merged, order or [], merge_key)
    else:
        chosen = [v for v in merged if v in (order or [])]
        rest = [v for v in merged if v not in (order or [])]
    return _normalized(chosen, rest, order or [], original, merge_key, kind)


def _deduplicated(items: list[Any]) -> list[Any]:
    """apimachinery's deduplication, whose order a merged list keeps: a
    duplicate is overwritten by the last item."""
    items = list(items)
    length = len(items) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if items[i] == items[j]:
                items[j] = items[length]
                items = items[:length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return items


def _special_items(
    original: list[Any], patch: list[Any], merge_key: str
) -> tuple[list[Any], list[Any] | None]:
    """`original` after the patch's `$patch: delete` items, and the patch's
    other items (None with `$patch: replace`: the patch's items replace the list)."""
    plain = []
    replace = False
    for item in patch:
        directive = item.get(_DIRECTIVE, None) if _DIRECTIVE in item else None
        if _DIRECTIVE not in item:
            plain.append(item)
        elif directive == "delete":
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            original = [
                o for o in original if not _has_key_value(o, merge_key, item[merge_key])
            ]
        elif directive == "replace":
            replace = True
        elif directive == "merge":
            raise StrategicError(
                500, "merging lists cannot yet be specified in the patch"
            )
        else:
            raise StrategicError(
                500, f"unknown patch type: {_go(directive)} in map: {_go(item)}"
            )
    if replace:
        return plain, None
    return original, plain


def _has_key_value(item: Any, merge_key: str, value: Any) -> bool:
    if not isinstance(item, dict):
        raise StrategicError(500, "value for key is not a map")
    return merge_key in item and bool(item[merge_key] == value)


def _merge_items(
    original: list[Any], patch: list[Any], merge_key: str, schema: str | None
) -> list[Any]:
    for item in patch:
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        position = next(
            (
                i
                for i, o in enumerate(original)
                if _has_key_value(o, merge_key, item[merge_key])
            ),
            None,
        )
        if position is None:
            original.append(item)
        else:
            original[position] = _merge_map(original[position], item, schema)
    return original


def _partition_maps(
    merged: list[Any], by: list[Any], merge_key: str
) -> tuple[list[Any], list[Any]]:
    chosen: list[Any] = []
    rest: list[Any] = []
    for item in merged:
        _keyed(item, merge_key)
        found = any(_has_key_value(b, merge_key, item[merge_key]) for b in by)
        (chosen if found else rest).append(item)
    return chosen, rest


def _index(items: list[Any], value: Any, merge_key: str, kind: str) -> int:
    def identity(item: Any) -> Any:
        if kind == "map":
            return item.get(merge_key) if isinstance(item, dict) else None
        return item

    wanted = identity(value)
    return next((i for i, item in enumerate(items) if identity(item) == wanted), -1)


def _sorted_by(
    items: list[Any], order: list[Any], merge_key: str, kind: str
) -> list[Any]:
    """apimachinery's `normalizeSliceOrder`: by position in `order`; an item
    `order` lacks counts as less than any (its comparison, by insertion)."""
    deleted: list[Any] = []
    if kind == "map":
        for item in [*items, *order]:
            _keyed(item, merge_key)
        deleted = [i for i in items if i.get(_DIRECTIVE) == "delete"]
        items = [i for i in items if i.get(_DIRECTIVE) != "delete"]

    def less(a: Any, b: Any) -> bool:
        ia, ib = _index(order, a, merge_key, kind), _index(order, b, merge_key, kind)
        return ia < ib if ia >= 0 and ib >= 0 else True

    result = list(items)
    for i in range(1, len(result)):
        j = i
        while j > 0 and less(result[j], result[j - 1]):
            result[j], result[j - 1] = result[j - 1], result[j]
            j -= 1
    return result + deleted


def _normalized(
    from_patch: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    kind: str,
) -> list[Any]:
    """apimachinery's `normalizeElementOrder`: the patch's items in the patch's
    order, the server's in the server's, interleaved by the server's order."""
    right = _sorted_by(from_patch, patch_order, merge_key, kind)
    left = _sorted_by(server_only, server_order, merge_key, kind)
    merged: list[Any] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            merged.append(right[j])
            j += 1
        elif j >= len(right):
            merged.append(left[i])
            i += 1
        else:
            li = _index(server_order, left[i], merge_key, kind)
            ri = _index(server_order, right[j], merge_key, kind)
            if li >= 0 and ri >= 0 and li < ri:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
    return merged


STRATEGIC_PATCH = "application/strategic-merge-patch+json"


def strategic_patched(
    kind: Kind, body: bytes | None, current: dict[str, Any] | None
) -> dict[str, Any]:
    """The object `current` of `kind` with the request's strategic merge patch
    applied, or the server's refusal (`answers.Refusal`): 415 for a custom
    resource, 400 for a body that is not a JSON object, and the errors of
    `StrategicError`. `current` is None to ask only whether the kind takes one."""
    if not kind.builtin:
        raise answers.status(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media "
            "types include: application/json-patch+json, "
            "application/merge-patch+json, application/apply-patch+yaml",
        )
    if current is None:
        return {}
    try:
        patch = decode(body or b"null")
    except ValueError as error:
        raise answers.bad_request(str(error)) from error
    if not isinstance(patch, dict):
        raise answers.bad_request(
            "json: cannot unmarshal array into Go value of type map[string]interface {}"
        )
    try:
        return strategic_merge(
            current, patch, root_type(kind.group, kind.version, kind.kind)
        )
    except StrategicError as error:
        reason = {400: "BadRequest", 422: "Invalid"}.get(error.code, "")
        refusal = answers.status(error.code, reason, error.message)
        if not reason and refusal.body is not None:
            del refusal.body["reason"]  # an error without a Status: no reason
        raise refusal from error
