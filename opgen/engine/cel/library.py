"""Kubernetes' CEL libraries, as Python functions the CEL engine calls.

The API server adds these to CEL's standard functions for CRD validation
rules: the sets (`sets.contains`, `sets.equivalent`, `sets.intersects`),
the list functions (`isSorted`, `sum`, `min`, `max`, `indexOf`,
`lastIndexOf`), the extended strings (`charAt`, `indexOf`, `lastIndexOf`,
`lowerAscii`, `upperAscii`, `replace`, `split`, `substring`, `trim`, `join`,
`reverse`, `format`, `strings.quote`), regex `find`/`findAll`, and the
`url`, `ip`/`cidr`, `quantity` and `semver` types with their methods.

The engine calls a function by name with the receiver first (`'a'.charAt(0)`
is `charAt('a', 0)`), so one Python function serves every overload of a name
and dispatches on the argument types. Values of Kubernetes' own types travel
as one-key maps (`{"@quantity": "1Gi"}`); see docs/markers.md for what that
means for `==` between them.
"""

from __future__ import annotations

import ipaddress
import itertools
import re
import urllib.parse
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from opgen.engine.goregex import GoRegex, GoRegexError, go_regex
from opgen.engine.openapi import quantity_amount

__all__ = ["FUNCTIONS", "NAMESPACES", "CelFunctionError"]


class CelFunctionError(ValueError):
    """A library function refused its arguments (an evaluation error in CEL)."""


_QUANTITY_KEY = "@quantity"
_URL_KEY = "@url"
_IP_KEY = "@ip"
_CIDR_KEY = "@cidr"
_SEMVER_KEY = "@semver"
_STRINGS_NS = "@strings"
_IP_NS = "@ip-namespace"
_SETS_NS = "@sets"

NAMESPACES = {"strings": {_STRINGS_NS: True}, "sets": {_SETS_NS: True}}
"""Names that stand for a function namespace (`strings.quote(...)`)."""


def _tagged(value: Any, key: str) -> Any:
    if isinstance(value, dict) and len(value) == 1 and key in value:
        return value[key]
    return None


def _need_str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise CelFunctionError(f"no such overload: {name}({type(value).__name__})")
    return value


def _need_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CelFunctionError(f"no such overload: {name}({type(value).__name__})")
    return value


# ---- strings ------------------------------------------------------------------


def _char_at(text: Any, index: Any) -> str:
    text, index = _need_str("charAt", text), _need_int("charAt", index)
    if index < 0 or index > len(text):
        raise CelFunctionError(f"index out of range: {index}")
    return str(text[index : index + 1])


def _index_of(target: Any, item: Any, *start: Any) -> int:
    if isinstance(target, list):
        for position, value in enumerate(target):
            if value == item and type(value) is type(item):
                return position
        return -1
    text, sub = _need_str("indexOf", target), _need_str("indexOf", item)
    offset = _need_int("indexOf", start[0]) if start else 0
    if offset < 0 or offset > len(text):
        raise CelFunctionError(f"index out of range: {offset}")
    return text.find(sub, offset)


def _last_index_of(target: Any, item: Any, *end: Any) -> int:
    if isinstance(target, list):
        for position in range(len(target) - 1, -1, -1):
            value = target[position]
            if value == item and type(value) is type(item):
                return position
        return -1
    text, sub = _need_str("lastIndexOf", target), _need_str("lastIndexOf", item)
    if not end:
        return text.rfind(sub)
    offset = _need_int("lastIndexOf", end[0])
    if offset < 0 or offset > len(text):
        raise CelFunctionError(f"index out of range: {offset}")
    return text.rfind(sub, 0, offset + len(sub))


def _ascii(text: Any, lower: bool) -> str:
    text = _need_str("lowerAscii" if lower else "upperAscii", text)
    table = str.maketrans(
        *(
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
            if lower
            else ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        )
    )
    return str(text.translate(table))


def _replace(text: Any, old: Any, new: Any, *limit: Any) -> str:
    text = _need_str("replace", text)
    count = _need_int("replace", limit[0]) if limit else -1
    return str(
        text.replace(_need_str("replace", old), _need_str("replace", new), count)
    )


def _split(text: Any, separator: Any, *limit: Any) -> list[str]:
    text, separator = _need_str("split", text), _need_str("split", separator)
    count = _need_int("split", limit[0]) if limit else -1
    if count == 0:
        return []
    if separator == "":
        parts = list(text)
        if count > 0 and len(parts) > count:
            parts = [*parts[: count - 1], "".join(parts[count - 1 :])]
        return parts
    return list(text.split(separator, count - 1 if count > 0 else -1))


def _substring(text: Any, start: Any, *end: Any) -> str:
    text = _need_str("substring", text)
    begin = _need_int("substring", start)
    finish = _need_int("substring", end[0]) if end else len(text)
    if begin < 0 or begin > len(text) or finish < begin or finish > len(text):
        raise CelFunctionError(f"index out of range: {begin}, {finish}")
    return str(text[begin:finish])


def _trim(text: Any) -> str:
    return _need_str("trim", text).strip()


def _join(items: Any, *separator: Any) -> str:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise CelFunctionError(
            "no such overload: join on a list that is not of strings"
        )
    return (_need_str("join", separator[0]) if separator else "").join(items)


def _reverse(text: Any) -> str:
    return _need_str("reverse", text)[::-1]


def _quote(namespace: Any, *text: Any) -> str:
    value = _need_str("quote", text[0] if text else namespace)
    escaped = (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\a", "\\a")
        .replace("\b", "\\b")
        .replace("\f", "\\f")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
        .replace("\v", "\\v")
    )
    return f'"{escaped}"'


_VERB = re.compile(r"%(\.\d+)?([sdfeEbxXo%])")


def _format_one(verb: str, precision: str | None, value: Any) -> str:
    if verb == "s":
        return _to_string(value)
    if verb == "d":
        if isinstance(value, bool) or not isinstance(value, int):
            raise CelFunctionError(
                "error during formatting: decimal clause needs an integer"
            )
        return str(value)
    if verb in "fe" or verb == "E":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CelFunctionError(f"error during formatting: %{verb} needs a number")
        digits = int(precision[1:]) if precision else 6
        return format(float(value), f".{digits}{verb}")
    if verb in "xXob":
        if isinstance(value, str):
            if verb in "xX":
                hexed = value.encode().hex()
                return hexed.upper() if verb == "X" else hexed
            raise CelFunctionError(f"error during formatting: %{verb} needs an integer")
        if isinstance(value, bool) or not isinstance(value, int):
            raise CelFunctionError(f"error during formatting: %{verb} needs an integer")
        spelt = format(abs(value), {"x": "x", "X": "X", "o": "o", "b": "b"}[verb])
        return ("-" if value < 0 else "") + spelt
    raise CelFunctionError(f"could not parse formatting clause %{verb}")


def _to_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(_to_string(v) for v in value) + "]"
    if isinstance(value, dict):
        shown = sorted(f"{_to_string(k)}: {_to_string(v)}" for k, v in value.items())
        return "{" + ", ".join(shown) + "}"
    if isinstance(value, float) and value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def _format(template: Any, arguments: Any) -> str:
    template = _need_str("format", template)
    if not isinstance(arguments, list):
        raise CelFunctionError("no such overload: format needs a list of arguments")
    position = 0
    out: list[str] = []
    last = 0
    for match in _VERB.finditer(template):
        out.append(template[last : match.start()])
        last = match.end()
        precision, verb = match.group(1), match.group(2)
        if verb == "%":
            out.append("%")
            continue
        if position >= len(arguments):
            raise CelFunctionError(
                f"index {position} out of range; only {len(arguments)} arguments"
            )
        out.append(_format_one(verb, precision, arguments[position]))
        position += 1
    out.append(template[last:])
    return "".join(out)


# ---- lists --------------------------------------------------------------------


def _need_list(name: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise CelFunctionError(f"no such overload: {name}({type(value).__name__})")
    return value


def _compare(left: Any, right: Any) -> int:
    if _tagged(left, _QUANTITY_KEY) is not None:
        return _quantity_compare(left, right)
    if isinstance(left, dict) and _SEMVER_KEY in left:
        return _semver_compare(left, right)
    return int(left > right) - int(left < right)


def _is_sorted(items: Any) -> bool:
    items = _need_list("isSorted", items)
    return all(_compare(a, b) <= 0 for a, b in itertools.pairwise(items))


def _sum(items: Any) -> Any:
    items = _need_list("sum", items)
    if items and _tagged(items[0], _QUANTITY_KEY) is not None:
        total = items[0]
        for item in items[1:]:
            total = _quantity_add(total, item)
        return total
    return sum(items) if items else 0


def _extreme(name: str, pick: Callable[[int], bool]) -> Callable[..., Any]:
    def extreme(*values: Any) -> Any:
        items: Sequence[Any] = values
        if len(values) == 1 and isinstance(values[0], list):
            items = values[0]
        if not items:
            raise CelFunctionError(f"{name} called on an empty list")
        best = items[0]
        for item in items[1:]:
            if pick(_compare(item, best)):
                best = item
        return best

    return extreme


# ---- sets ---------------------------------------------------------------------


def _cel_equal(left: Any, right: Any) -> bool:
    """CEL's `==`: numbers compare across int, uint and double, a bool is no
    number, lists and maps compare item by item."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            _cel_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(
            _cel_equal(value, right[key]) for key, value in left.items()
        )
    return type(left) is type(right) and bool(left == right)


def _holds(items: list[Any], wanted: Any) -> bool:
    return any(_cel_equal(item, wanted) for item in items)


def _set_lists(name: str, namespace: Any, args: tuple[Any, ...]) -> tuple[Any, Any]:
    if namespace != {_SETS_NS: True} or len(args) != 2:
        raise CelFunctionError(f"no such overload: {name}")
    first, second = args
    if not isinstance(first, list) or not isinstance(second, list):
        raise CelFunctionError(f"no such overload: sets.{name} needs two lists")
    return first, second


def _contains(target: Any, *args: Any) -> bool:
    """`sets.contains(list, sublist)`: every item of the sublist is in the list
    (`'text'.contains('x')` too, should the engine pass it here)."""
    if isinstance(target, str) and len(args) == 1 and isinstance(args[0], str):
        return args[0] in target
    items, wanted = _set_lists("contains", target, args)
    return all(_holds(items, item) for item in wanted)


def _equivalent(namespace: Any, *args: Any) -> bool:
    """`sets.equivalent(a, b)`: each list holds every item of the other."""
    first, second = _set_lists("equivalent", namespace, args)
    return all(_holds(first, item) for item in second) and all(
        _holds(second, item) for item in first
    )


def _intersects(namespace: Any, *args: Any) -> bool:
    """`sets.intersects(a, b)`: the lists share an item."""
    first, second = _set_lists("intersects", namespace, args)
    return any(_holds(second, item) for item in first)


# ---- regex --------------------------------------------------------------------


def _find(text: Any, pattern: Any) -> str:
    match = _regex(pattern).search(_need_str("find", text))
    return match.group(0) if match else ""


def _find_all(text: Any, pattern: Any, *limit: Any) -> list[str]:
    count = _need_int("findAll", limit[0]) if limit else -1
    if count == 0:
        return []
    found = [m.group(0) for m in _regex(pattern).finditer(_need_str("findAll", text))]
    return found[:count] if count > 0 else found


def _regex(pattern: Any) -> GoRegex:
    """`pattern` compiled as the API server's CEL library compiles it (RE2)."""
    try:
        return go_regex(_need_str("regex", pattern))
    except GoRegexError as error:
        raise CelFunctionError(f"invalid regex {pattern!r}: {error}") from error


# ---- quantity -----------------------------------------------------------------


def _quantity(text: Any) -> dict[str, str]:
    value = _need_str("quantity", text)
    if quantity_amount(value) is None:
        raise CelFunctionError(
            f"quantities must match the regular expression: {value!r}"
        )
    return {_QUANTITY_KEY: value}


def _is_quantity(text: Any) -> bool:
    return isinstance(text, str) and quantity_amount(text) is not None


def _amount(value: Any) -> Decimal:
    spelt = _tagged(value, _QUANTITY_KEY)
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if not isinstance(spelt, str):
        raise CelFunctionError("no such overload: expected a quantity")
    amount = quantity_amount(spelt)
    assert amount is not None
    return amount


def _from_amount(amount: Decimal) -> dict[str, str]:
    spelt = format(amount.normalize(), "f")
    return {_QUANTITY_KEY: spelt}


def _quantity_compare(left: Any, right: Any) -> int:
    a, b = _amount(left), _amount(right)
    return (a > b) - (a < b)


def _quantity_add(left: Any, right: Any) -> dict[str, str]:
    return _from_amount(_amount(left) + _amount(right))


def _quantity_sub(left: Any, right: Any) -> dict[str, str]:
    return _from_amount(_amount(left) - _amount(right))


def _as_integer(value: Any) -> int:
    amount = _amount(value)
    if amount != amount.to_integral_value() or abs(amount) >= 2**63:
        raise CelFunctionError("cannot convert value to integer")
    return int(amount)


def _is_integer(value: Any) -> bool:
    amount = _amount(value)
    return amount == amount.to_integral_value() and abs(amount) < 2**63


# ---- semver -------------------------------------------------------------------

_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


def _parse_semver(text: str, normalize: bool) -> tuple[int, int, int, str] | None:
    if normalize:
        try:
            head = re.split(r"([-+])", text, maxsplit=1)
            core = head[0][1:] if head[0].startswith("v") else head[0]
            parts = core.split(".")
            if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
                return None
            parts += ["0"] * (3 - len(parts))
            text = ".".join(str(int(p)) for p in parts) + "".join(head[1:])
        except ValueError:
            return None
    match = _SEMVER.match(text)
    if match is None:
        return None
    return (
        int(match.group(1)),
        int(match.group(2)),
        int(match.group(3)),
        match.group(4) or "",
    )


def _semver(text: Any, *normalize: Any) -> dict[str, str]:
    value = _need_str("semver", text)
    if _parse_semver(value, bool(normalize and normalize[0])) is None:
        raise CelFunctionError(f"could not parse semver: {value!r}")
    return {_SEMVER_KEY: value, "@normalize": bool(normalize and normalize[0])}  # type: ignore[dict-item]


def _is_semver(text: Any, *normalize: Any) -> bool:
    return isinstance(text, str) and (
        _parse_semver(text, bool(normalize and normalize[0])) is not None
    )


def _version(value: Any) -> tuple[int, int, int, str]:
    if not isinstance(value, dict) or _SEMVER_KEY not in value:
        raise CelFunctionError("no such overload: expected a semver")
    parsed = _parse_semver(value[_SEMVER_KEY], bool(value.get("@normalize")))
    assert parsed is not None
    return parsed


def _pre_key(pre: str) -> tuple[int, list[tuple[int, int, str]]]:
    if not pre:
        return (1, [])
    return (
        0,
        [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")],
    )


def _semver_compare(left: Any, right: Any) -> int:
    a, b = _version(left), _version(right)
    ka = (a[:3], _pre_key(a[3]))
    kb = (b[:3], _pre_key(b[3]))
    return (ka > kb) - (ka < kb)


# ---- url ----------------------------------------------------------------------


def _parse_url(text: str) -> urllib.parse.SplitResult | None:
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError:
        return None
    if not (parts.scheme or text.startswith("/")) or any(c.isspace() for c in text):
        return None
    return parts


def _url(text: Any) -> dict[str, str]:
    value = _need_str("url", text)
    if _parse_url(value) is None:
        raise CelFunctionError(
            f"URL parse error during conversion from string: {value!r}"
        )
    return {_URL_KEY: value}


def _url_parts(value: Any) -> urllib.parse.SplitResult:
    spelt = _tagged(value, _URL_KEY)
    if not isinstance(spelt, str):
        raise CelFunctionError("no such overload: expected a URL")
    parts = _parse_url(spelt)
    assert parts is not None
    return parts


def _host(value: Any) -> str:
    netloc = _url_parts(value).netloc.rsplit("@", 1)[-1]
    return netloc


def _hostname(value: Any) -> str:
    return _url_parts(value).hostname or ""


def _port(value: Any) -> str:
    host = _host(value)
    if host.startswith("["):
        return host.rsplit("]:", 1)[1] if "]:" in host else ""
    return host.rsplit(":", 1)[1] if ":" in host else ""


# ---- ip and cidr --------------------------------------------------------------


def _parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if "%" in text:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return None
    return address


def _ip(text: Any) -> Any:
    if text == {_IP_NS: True}:
        raise CelFunctionError("no such overload: ip needs a string")
    if isinstance(text, dict) and _CIDR_KEY in text:
        return {_IP_KEY: str(_network(text)[0])}
    value = _need_str("ip", text)
    if _parse_ip(value) is None:
        raise CelFunctionError(f"IP Address {value!r} parse error during conversion")
    return {_IP_KEY: value}


def _address(value: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    spelt = _tagged(value, _IP_KEY)
    if not isinstance(spelt, str):
        raise CelFunctionError("no such overload: expected an IP")
    address = _parse_ip(spelt)
    assert address is not None
    return address


def _parse_cidr(
    text: str,
) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int] | None:
    if "/" not in text:
        return None
    address_text, prefix = text.split("/", 1)
    address = _parse_ip(address_text)
    if (
        address is None
        or not prefix.isdigit()
        or (len(prefix) > 1 and prefix[0] == "0")
    ):
        return None
    if int(prefix) > address.max_prefixlen:
        return None
    return address, int(prefix)


def _cidr(text: Any) -> dict[str, str]:
    value = _need_str("cidr", text)
    if _parse_cidr(value) is None:
        raise CelFunctionError(
            f"network address {value!r} parse error during conversion"
        )
    return {_CIDR_KEY: value}


def _network(
    value: Any,
) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    spelt = _tagged(value, _CIDR_KEY)
    if not isinstance(spelt, str):
        raise CelFunctionError("no such overload: expected a CIDR")
    parsed = _parse_cidr(spelt)
    assert parsed is not None
    return parsed


def _as_network(value: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    address, prefix = _network(value)
    return ipaddress.ip_network(f"{address}/{prefix}", strict=False)


def _contains_ip(value: Any, other: Any) -> bool:
    address = _address(_ip(other) if isinstance(other, str) else other)
    network = _as_network(value)
    return address.version == network.version and address in network


def _contains_cidr(value: Any, other: Any) -> bool:
    inner = _as_network(_cidr(other) if isinstance(other, str) else other)
    outer = _as_network(value)
    return inner.version == outer.version and inner.subnet_of(outer)  # type: ignore[arg-type]


def _is_canonical(namespace: Any, *text: Any) -> bool:
    value = _need_str("ip.isCanonical", text[0] if text else namespace)
    address = _parse_ip(value)
    if address is None:
        raise CelFunctionError(f"IP Address {value!r} parse error during conversion")
    return str(address) == value


def _family(value: Any) -> int:
    if isinstance(value, dict) and _CIDR_KEY in value:
        return _network(value)[0].version
    return _address(value).version


def _masked(value: Any) -> dict[str, str]:
    return {_CIDR_KEY: str(_as_network(value))}


def _prefix_length(value: Any) -> int:
    return _network(value)[1]


def _is_global_unicast(value: Any) -> bool:
    address = _address(value)
    return not (
        address.is_unspecified
        or address.is_loopback
        or address.is_multicast
        or address.is_link_local
        or (address.version == 4 and int(address) == 0xFFFFFFFF)
    )


def _greater(left: Any, right: Any) -> bool:
    return _compare(left, right) > 0


def _less(left: Any, right: Any) -> bool:
    return _compare(left, right) < 0


def _compare_to(left: Any, right: Any) -> int:
    return _compare(left, right)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    # strings
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": lambda text: _ascii(text, True),
    "upperAscii": lambda text: _ascii(text, False),
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": _trim,
    "join": _join,
    "reverse": _reverse,
    "format": _format,
    "quote": _quote,
    # lists
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _extreme("min", lambda c: c < 0),
    "max": _extreme("max", lambda c: c > 0),
    # sets
    "contains": _contains,
    "equivalent": _equivalent,
    "intersects": _intersects,
    # regex
    "find": _find,
    "findAll": _find_all,
    # quantity
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "sign": lambda q: (_amount(q) > 0) - (_amount(q) < 0),
    "isInteger": _is_integer,
    "asInteger": _as_integer,
    "asApproximateFloat": lambda q: float(_amount(q)),
    "add": _quantity_add,
    "sub": _quantity_sub,
    "isGreaterThan": _greater,
    "isLessThan": _less,
    "compareTo": _compare_to,
    # semver
    "semver": _semver,
    "isSemver": _is_semver,
    "major": lambda v: _version(v)[0],
    "minor": lambda v: _version(v)[1],
    "patch": lambda v: _version(v)[2],
    # url
    "url": _url,
    "isURL": lambda text: isinstance(text, str) and _parse_url(text) is not None,
    "getScheme": lambda u: _url_parts(u).scheme,
    "getHost": _host,
    "getHostname": lambda u: _hostname(u).strip("[]"),
    "getPort": _port,
    "getEscapedPath": lambda u: _url_parts(u).path,
    "getQuery": lambda u: {
        k: v for k, v in urllib.parse.parse_qs(_url_parts(u).query).items()
    },
    # ip and cidr
    "ip": _ip,
    "isIP": lambda text: isinstance(text, str) and _parse_ip(text) is not None,
    "cidr": _cidr,
    "isCIDR": lambda text: isinstance(text, str) and _parse_cidr(text) is not None,
    "isCanonical": _is_canonical,
    "family": _family,
    "isUnspecified": lambda a: _address(a).is_unspecified,
    "isLoopback": lambda a: _address(a).is_loopback,
    "isLinkLocalMulticast": lambda a: _address(a).is_multicast
    and (
        int(_address(a)) >> 8 == 0xE00000
        if _address(a).version == 4
        else int(_address(a)) >> 112 == 0xFF02
    ),
    "isLinkLocalUnicast": lambda a: _address(a).is_link_local,
    "isGlobalUnicast": _is_global_unicast,
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
    "masked": _masked,
    "prefixLength": _prefix_length,
}
"""Every Kubernetes library function, by the name CEL calls it."""

NAMESPACES["ip"] = {_IP_NS: True}
