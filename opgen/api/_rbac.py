"""`@op.rbac(...)`: RBAC rules a reconciler needs, written next to its code.

The decorator stores `RbacRule` values on the class (repeatable, source order);
`opgen.engine.reading.rbac_rules(cls)` reads them back. The RBAC generator
normalises and merges them.

Verbs are checked, since a typo (`"lsit"`) would otherwise grant nothing and
fail only in a cluster: Kubernetes' resource verbs, `*`, and the special verbs
some built-in APIs define (`use`, `bind`, `escalate`, `impersonate`,
`approve`, `sign`); for non-resource `urls=`, the HTTP verbs. A verb that only
some other API defines is passed in `custom_verbs=`, which is not checked.
Resources are checked by `opgen generate` (`opgen.project.rbac`), which knows
the project's kinds; one it cannot know is passed in `custom_resources=`.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from typing import TypeVar

from opgen.api._bare import needs_call
from opgen.engine.recording import RBAC_ATTR, record_on_class
from opgen.errors import Location, MarkerError
from opgen.model.kinds import SourceRef
from opgen.model.rbac import RbacRule

__all__ = ["RESOURCE_VERBS", "SPECIAL_VERBS", "URL_VERBS", "rbac"]

C = TypeVar("C", bound=type)

RESOURCE_VERBS = (
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
)
"""The verbs the API server authorizes on resources."""
SPECIAL_VERBS = ("use", "bind", "escalate", "impersonate", "approve", "sign")
"""Verbs some built-in APIs check on their own (roles, users, certificate signers, ...)."""
URL_VERBS = ("get", "post", "put", "patch", "delete", "head", "options")
"""The verbs of non-resource URLs: lower-case HTTP methods."""


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
    def __init__(
        self,
        rule: RbacRule,
        custom_verbs: tuple[str, ...],
        custom_resources: tuple[str, ...],
    ) -> None:
        self.rule = rule
        self.custom_verbs = custom_verbs
        self.custom_resources = custom_resources

    def __call__(self, cls: C) -> C:
        if not isinstance(cls, type):
            raise MarkerError(f"@op.rbac decorates classes (reconcilers), not {cls!r}")
        _check_verbs(self.rule, cls)
        rule = dataclasses.replace(
            self.rule,
            verbs=self.rule.verbs + self.custom_verbs,
            resources=self.rule.resources + self.custom_resources,
            custom_resources=self.custom_resources,
            source=_source(cls),
        )
        record_on_class(cls, RBAC_ATTR, rule)
        return cls


def _check_verbs(rule: RbacRule, cls: type) -> None:
    known = (*URL_VERBS, "*") if rule.urls else (*RESOURCE_VERBS, *SPECIAL_VERBS, "*")
    for verb in rule.verbs:
        if verb in known:
            continue
        import difflib  # only for a misspelt verb: not loaded with every operator

        close = difflib.get_close_matches(verb.lower(), known, n=1, cutoff=0.6)
        guess = f"; did you mean {close[0]!r}?" if close else ""
        if rule.urls:
            allowed = f"non-resource URLs take HTTP verbs: {', '.join(URL_VERBS)}"
        else:
            allowed = (
                f"the verbs are {', '.join(RESOURCE_VERBS)} and '*'; some APIs add "
                f"{', '.join(SPECIAL_VERBS)}"
            )
        raise MarkerError(
            f"@op.rbac(verbs=...): {verb!r} is not a Kubernetes verb{guess}",
            location=Location(cls=cls.__qualname__),
            hint=f"{allowed}; a verb that only your API defines goes in "
            f"custom_verbs=[{verb!r}]",
        )


@needs_call
def rbac(
    *,
    verbs: Sequence[str] | str,
    custom_verbs: Sequence[str] | str | None = None,
    groups: Sequence[str] | str | None = None,
    resources: Sequence[str] | str | None = None,
    custom_resources: Sequence[str] | str | None = None,
    resource_names: Sequence[str] | str | None = None,
    urls: Sequence[str] | str | None = None,
    namespace: str | None = None,
    role_name: str | None = None,
) -> _RbacDecorator:
    """Grant the reconciler `verbs` on `resources` of `groups` (repeatable).

    The core group is `""` (or `"core"`). Use `urls=` for non-resource URLs.
    `namespace=` makes a Role in that namespace instead of the ClusterRole.
    `custom_verbs=` holds verbs only some API defines; they are not checked.
    `custom_resources=` holds resources `opgen generate` cannot know of (an API
    neither Kubernetes, the project nor its imports define); they are not checked.
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
    extra = _strings("custom_verbs", custom_verbs)
    unchecked = _strings("custom_resources", custom_resources)
    for label, words in (("custom_verbs", extra), ("custom_resources", unchecked)):
        for word in words:
            if not word or word != word.strip() or " " in word:
                raise MarkerError(
                    f"@op.rbac: {label}= holds {word!r}, expected one word per "
                    + label.removeprefix("custom_").removesuffix("s")
                )
    if not rule.verbs and not extra:
        raise MarkerError(
            "@op.rbac: verbs= must name at least one verb",
            hint='for example verbs=["get", "list", "watch"]',
        )
    if not rule.resources and not unchecked and not rule.urls:
        raise MarkerError(
            "@op.rbac: give resources= (with groups=) or urls=",
            hint='for example groups=["apps"], resources=["deployments"]',
        )
    if rule.urls and (rule.resources or unchecked or rule.groups):
        raise MarkerError(
            "@op.rbac: urls= (non-resource URLs) cannot be combined with resources="
        )
    if rule.urls and namespace:
        raise MarkerError(
            "@op.rbac: non-resource urls= only exist in the ClusterRole, not a namespace"
        )
    return _RbacDecorator(rule, extra, unchecked)
