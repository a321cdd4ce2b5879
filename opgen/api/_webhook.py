"""`@op.webhook(...)` and `@op.conversion(...)`: the webhooks a handler class serves.

Written on the handler classes of `<pkg>/webhook/<version>/<kind>_webhook.py`,
they carry what controller-gen's `+kubebuilder:webhook` marker carries (path,
name, operations, failure policy, side effects, timeout, match and
reinvocation policy); the group, resource and version of the rule come from
the kind class itself. `opgen generate` writes the webhook configurations and
the CRD's `spec.conversion` from them; the runtime's webhook server serves
each handler on its declared path. Both read them through
`opgen.engine.reading.webhook_declarations`.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from typing import Any, TypeVar, cast

from opgen.engine import webhooks as rules
from opgen.engine.reading import resource_info
from opgen.engine.recording import WEBHOOK_ATTR, record_on_class
from opgen.errors import Location, MarkerError
from opgen.model.kinds import SourceRef, source_file
from opgen.model.webhooks import (
    AdmissionWebhook,
    Conversion,
    Declaration,
    FailurePolicy,
    MatchPolicy,
    Operation,
    ReinvocationPolicy,
    SideEffects,
)

__all__ = ["conversion", "webhook"]

C = TypeVar("C", bound=type)

_DEFAULTER_METHODS = ("default",)
_VALIDATOR_METHODS = ("validate_create", "validate_update", "validate_delete")
_CONVERTER_METHODS = ("convert_to_hub", "convert_from_hub")


def _source(cls: type) -> SourceRef:
    return SourceRef(
        file=source_file(cls) or "", module=cls.__module__, cls=cls.__qualname__
    )


def _choice(label: str, value: str, allowed: Sequence[str]) -> str:
    """`value` spelled as the API spells it; controller-gen's markers accept any case."""
    for option in allowed:
        if value.lower() == option.lower():
            return option
    raise MarkerError(
        f"{label}={value!r} is not one of {', '.join(allowed)}",
        hint=f"use one of {', '.join(repr(a) for a in allowed)}",
    )


def _strings(label: str, values: Sequence[str] | str) -> tuple[str, ...]:
    items = (values,) if isinstance(values, str) else tuple(values)
    for item in items:
        if not isinstance(item, str) or not item:
            raise MarkerError(f"{label}= holds {item!r}, expected non-empty strings")
    return items


def _kind(label: str, cls: object) -> Any:
    if not isinstance(cls, type):
        raise MarkerError(
            f"{label} must be an op.CustomResource class decorated with @op.kind, "
            f"not {cls!r}"
        )
    return resource_info(cls)


class _Declare:
    """Records one declaration on the handler class it decorates."""

    def __init__(
        self, declaration: Declaration, methods: tuple[str, ...], what: str
    ) -> None:
        self.declaration = declaration
        self.methods = methods
        self.what = what

    def __call__(self, cls: C) -> C:
        if not isinstance(cls, type):
            raise MarkerError(f"{self.what} decorates handler classes, not {cls!r}")
        location = Location(file=source_file(cls), cls=cls.__qualname__)
        missing = [m for m in self.methods if not callable(getattr(cls, m, None))]
        if missing:
            raise MarkerError(
                f"{self.what} needs the method(s) {', '.join(missing)}",
                location=location,
                hint=f"define {', '.join(f'{m}(...)' for m in self.methods)} on the class",
            )
        for name in self.methods:
            method = getattr(cls, name)
            wants_async = self.methods is not _CONVERTER_METHODS
            if inspect.iscoroutinefunction(method) != wants_async:
                raise MarkerError(
                    f"{self.what}: {name} must be "
                    + ("`async def`" if wants_async else "a plain `def` (not async)"),
                    location=location,
                    hint=(
                        "admission handlers may await the API server"
                        if wants_async
                        else "conversions are pure functions of the object"
                    ),
                )
        if any(
            isinstance(d, type(self.declaration))
            for d in cls.__dict__.get(WEBHOOK_ATTR, ())
        ):
            raise MarkerError(
                f"{self.what} appears twice on one class",
                location=location,
                hint="give each webhook its own handler class",
            )
        record_on_class(
            cls,
            WEBHOOK_ATTR,
            dataclasses.replace(self.declaration, source=_source(cls)),
        )
        return cls


def webhook(
    kind: type,
    *,
    mutating: bool,
    path: str | None = None,
    name: str | None = None,
    operations: Sequence[str] | str = ("CREATE", "UPDATE"),
    failure_policy: str = "Fail",
    side_effects: str = "None",
    timeout_seconds: int | None = None,
    match_policy: str | None = None,
    reinvocation_policy: str | None = None,
    admission_review_versions: Sequence[str] | str = ("v1",),
) -> _Declare:
    """Serve the decorated class as an admission webhook for `kind`.

    `mutating=True`: a defaulter, whose `async def default(self, obj)` changes
    the object in place (the runtime sends the API server a JSON patch of the
    changes). `mutating=False`: a validator, with `async def
    validate_create(self, obj)`, `validate_update(self, old, new)` and
    `validate_delete(self, obj)`, each returning warnings and refusing by
    raising `rt.webhook.Denied`. The other arguments are controller-gen's
    `+kubebuilder:webhook` fields. The rule names the kind's group, plural and
    version; requests made in its other versions reach the handler converted
    to this one (match policy Equivalent, the API server's default).
    """
    info = _kind("op.webhook's kind", kind)
    what = "@op.webhook(mutating=True)" if mutating else "@op.webhook(mutating=False)"
    path = path or rules.default_path(
        mutating=mutating, group=info.group, version=info.version, kind=info.kind
    )
    problem = rules.path_problem(path)
    if problem is not None:
        raise MarkerError(f"{what}: path={path!r} {problem}")
    ops = tuple(
        cast(Operation, _choice("operations", op, rules.OPERATIONS))
        for op in _strings("operations", operations)
    )
    if not ops:
        raise MarkerError(f"{what}: operations= must name at least one operation")
    if timeout_seconds is not None and not (
        isinstance(timeout_seconds, int) and 1 <= timeout_seconds <= 30
    ):
        raise MarkerError(
            f"{what}: timeout_seconds={timeout_seconds!r} must be an integer from 1 to 30",
            hint="the API server waits at most 30 s for a webhook (default 10)",
        )
    if reinvocation_policy is not None and not mutating:
        raise MarkerError(
            f"{what}: reinvocation_policy= only applies to mutating webhooks"
        )
    review_versions = _strings("admission_review_versions", admission_review_versions)
    if "v1" not in review_versions:
        raise MarkerError(
            f"{what}: admission_review_versions= must include 'v1'",
            hint="opgen's webhook server speaks AdmissionReview v1",
        )
    declaration = AdmissionWebhook(
        mutating=mutating,
        group=info.group,
        version=info.version,
        kind=info.kind,
        plural=info.plural,
        model=kind,
        path=path,
        name=name
        or rules.default_name(
            mutating=mutating, group=info.group, version=info.version, kind=info.kind
        ),
        operations=ops,
        failure_policy=cast(
            FailurePolicy,
            _choice("failure_policy", failure_policy, rules.FAILURE_POLICIES),
        ),
        side_effects=cast(
            SideEffects, _choice("side_effects", side_effects, rules.SIDE_EFFECTS)
        ),
        timeout_seconds=timeout_seconds,
        match_policy=(
            cast(
                MatchPolicy,
                _choice("match_policy", match_policy, rules.MATCH_POLICIES),
            )
            if match_policy is not None
            else None
        ),
        reinvocation_policy=(
            cast(
                ReinvocationPolicy,
                _choice(
                    "reinvocation_policy",
                    reinvocation_policy,
                    rules.REINVOCATION_POLICIES,
                ),
            )
            if reinvocation_policy is not None
            else None
        ),
        admission_review_versions=review_versions,
    )
    methods = _DEFAULTER_METHODS if mutating else _VALIDATOR_METHODS
    return _Declare(declaration, methods, what)


def conversion(*, hub: type, spoke: type) -> _Declare:
    """Serve the decorated class as the conversion between `spoke` and `hub`.

    `hub` and `spoke` are two versions of one kind; the class has
    `convert_to_hub(self, spoke) -> hub` and `convert_from_hub(self, hub) ->
    spoke`, plain functions. Every version but the hub needs one; the API
    server's requests between two spokes go through the hub.
    """
    hub_info = _kind("op.conversion's hub", hub)
    spoke_info = _kind("op.conversion's spoke", spoke)
    what = f"@op.conversion(hub={hub.__name__}, spoke={spoke.__name__})"
    if (hub_info.group, hub_info.kind) != (spoke_info.group, spoke_info.kind):
        raise MarkerError(
            f"{what}: the hub is {hub_info.kind} in {hub_info.group} but the spoke is "
            f"{spoke_info.kind} in {spoke_info.group}",
            hint="a conversion joins two versions of the same kind",
        )
    if hub_info.version == spoke_info.version:
        raise MarkerError(
            f"{what}: hub and spoke are both version {hub_info.version}",
            hint="pass the hub version's class and another version's class",
        )
    declaration = Conversion(
        group=hub_info.group,
        kind=hub_info.kind,
        hub_version=hub_info.version,
        spoke_version=spoke_info.version,
        hub=hub,
        spoke=spoke,
    )
    return _Declare(declaration, _CONVERTER_METHODS, what)
