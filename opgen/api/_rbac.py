"""`@op.rbac(...)`: RBAC rules a reconciler needs, written next to its code.

The decorator stores `RbacRule` values on the class (repeatable, source order);
`opgen.engine.reading.rbac_rules(cls)` reads them back. The RBAC generator
normalises and merges them.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from typing import TypeVar

from opgen.engine.recording import RBAC_ATTR, record_on_class
from opgen.errors import MarkerError
from opgen.model.kinds import SourceRef
from opgen.model.rbac import RbacRule

__all__ = ["rbac"]

C = TypeVar("C", bound=type)


def _strings(label: str, values: Sequence[str] | str | None) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        return (values,)
    items = tuple(values)
    for item in items:
        if not isinstance(item, str):
            raise MarkerError(f"@op.rbac: {label}= holds {item!r}, expected strings")
    return items


def _source(cls: type) -> SourceRef:
    try:
        file = inspect.getsourcefile(cls) or ""
    except TypeError:
        file = ""
    return SourceRef(file=file, module=cls.__module__, cls=cls.__qualname__)


class _RbacDecorator:
    def __init__(self, rule: RbacRule) -> None:
        self.rule = rule

    def __call__(self, cls: C) -> C:
        if not isinstance(cls, type):
            raise MarkerError(f"@op.rbac decorates classes (reconcilers), not {cls!r}")
        record_on_class(
            cls, RBAC_ATTR, dataclasses.replace(self.rule, source=_source(cls))
        )
        return cls


def rbac(
    *,
    verbs: Sequence[str] | str,
    groups: Sequence[str] | str | None = None,
    resources: Sequence[str] | str | None = None,
    resource_names: Sequence[str] | str | None = None,
    urls: Sequence[str] | str | None = None,
    namespace: str | None = None,
    role_name: str | None = None,
) -> _RbacDecorator:
    """Grant the reconciler `verbs` on `resources` of `groups` (repeatable).

    The core group is `""` (or `"core"`). Use `urls=` for non-resource URLs.
    `namespace=` makes a Role in that namespace instead of the ClusterRole.
    """
    rule = RbacRule(
        verbs=_strings("verbs", verbs),
        groups=_strings("groups", groups),
        resources=_strings("resources", resources),
        resource_names=_strings("resource_names", resource_names),
        urls=_strings("urls", urls),
        namespace=namespace,
        role_name=role_name,
    )
    if not rule.verbs:
        raise MarkerError(
            "@op.rbac: verbs= must name at least one verb",
            hint='for example verbs=["get", "list", "watch"]',
        )
    if not rule.resources and not rule.urls:
        raise MarkerError(
            "@op.rbac: give resources= (with groups=) or urls=",
            hint='for example groups=["apps"], resources=["deployments"]',
        )
    if rule.urls and (rule.resources or rule.groups):
        raise MarkerError(
            "@op.rbac: urls= (non-resource URLs) cannot be combined with resources="
        )
    if rule.urls and namespace:
        raise MarkerError(
            "@op.rbac: non-resource urls= only exist in the ClusterRole, not a namespace"
        )
    return _RbacDecorator(rule)
