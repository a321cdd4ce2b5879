"""What reconcilers and webhook handlers declare, read off their classes as IR.

`rules_of(classes)` is every `@op.rbac` rule (`opgen.model.RbacRule`) and
`webhooks_of(classes)` every `@op.webhook` and `@op.conversion`
(`opgen.model.webhooks.Webhooks`), checked for clashing paths, names and
conversions. Both read the markers through `opgen.engine.reading`; the render
stage gets only the values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from opgen.engine.reading import rbac_rules, webhook_declarations
from opgen.errors import Location, MarkerError
from opgen.model.rbac import RbacRule
from opgen.model.webhooks import AdmissionWebhook, Conversion, Webhooks

__all__ = ["rules_of", "webhooks_of"]


def rules_of(classes: Sequence[type]) -> list[RbacRule]:
    """Every `op.rbac` rule on `classes`, class by class in the order given."""
    rules: list[RbacRule] = []
    for cls in classes:
        rules.extend(rbac_rules(cls))
    return rules


def _where(declaration: AdmissionWebhook | Conversion) -> Location:
    source = declaration.source
    return Location(file=source.file, cls=source.cls) if source else Location()


def webhooks_of(classes: Iterable[type]) -> Webhooks:
    """The declarations on `classes`, checked for clashing paths and names."""
    admission: list[AdmissionWebhook] = []
    conversions: list[Conversion] = []
    for cls in classes:
        for declaration in webhook_declarations(cls):
            if isinstance(declaration, AdmissionWebhook):
                admission.append(declaration)
            else:
                conversions.append(declaration)
    seen: dict[tuple[str, str], AdmissionWebhook] = {}
    for webhook in admission:
        for key in (("path", webhook.path), ("name", webhook.name)):
            other = seen.get(key)
            if other is not None:
                other_cls = other.source.cls if other.source else "another class"
                raise MarkerError(
                    f"@op.webhook: {key[0]} {key[1]!r} is also declared by {other_cls}",
                    location=_where(webhook),
                    hint=f"give each webhook its own {key[0]}=",
                )
            seen[key] = webhook
    spokes: dict[tuple[str, str, str], Conversion] = {}
    for conversion in conversions:
        spoke = (conversion.group, conversion.kind, conversion.spoke_version)
        if spoke in spokes:
            raise MarkerError(
                f"@op.conversion: {conversion.kind} {conversion.spoke_version} has two "
                "conversions",
                location=_where(conversion),
                hint="keep one @op.conversion per spoke version",
            )
        spokes[spoke] = conversion
    return Webhooks(tuple(admission), tuple(conversions))
