"""A property test for conversions: a field a converter loses cannot go unnoticed.

`assert_round_trips(converter)` draws objects from the CRD schemas of both
versions the converter joins (`opgen.testing.drawing`, with Hypothesis) and
sends each through the conversion the API server would ask the webhook for
(`opgen.runtime`'s ConversionHandler, so fields only the hub has are kept in
the `conversion.opgen.dev/hub-fields` annotation, as on a real cluster):

- spoke → hub → spoke gives the spoke object back;
- hub → spoke → hub gives the hub object back.

Objects are compared as the models decode them (defaults filled in on both
sides), field by field; a difference fails with the path, what was sent and
what came back, after Hypothesis has shrunk the object to a small one.
Objects the models refuse (a rule only the API server checks) are not drawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from opgen.engine.cel.rules import rules_skipped
from opgen.engine.reading import webhook_declarations
from opgen.model.webhooks import Conversion
from opgen.runtime.metrics import Metrics
from opgen.runtime.resources import ResourceType, resource_type
from opgen.runtime.webhook.conversion import ConversionHandler
from opgen.testing.controlplane.crds import CrdSource, load_crds
from opgen.testing.drawing import ObjectMaker, body_for

__all__ = ["DEFAULT_CRD_DIR", "assert_round_trips"]

DEFAULT_CRD_DIR = Path("config", "crd", "bases")
"""Where `opgen generate` writes a project's CRDs (relative to the project root)."""


def assert_round_trips(
    converter: object,
    *,
    crds: Iterable[CrdSource] = (DEFAULT_CRD_DIR,),
    examples: int = 25,
) -> None:
    """Fail when `converter` (an `@op.conversion` class's instance) loses or changes
    a field of an object converted to the other version and back, in either
    direction; `examples` objects are drawn per direction, from the schemas of
    the CRD found in `crds` (files or directories)."""
    declaration = _declaration(converter)
    hub: ResourceType[Any] = resource_type(declaration.hub)
    spoke: ResourceType[Any] = resource_type(declaration.spoke)
    schemas = _schemas(hub, list(crds))
    handler = ConversionHandler(Metrics())
    handler.add(declaration, converter)
    for start, other in ((spoke, hub), (hub, spoke)):
        _round_trips(handler, start, other, schemas[start.version], examples)


def _declaration(converter: object) -> Conversion:
    for declaration in webhook_declarations(type(converter)):
        if isinstance(declaration, Conversion):
            return declaration
    raise TypeError(
        f"{type(converter).__name__} carries no @op.conversion declaration: "
        "pass an instance of the class decorated with @op.conversion(hub=..., spoke=...)"
    )


def _schemas(
    hub: ResourceType[Any], crds: list[CrdSource]
) -> dict[str, Mapping[str, Any]]:
    for crd in load_crds(crds):
        spec = crd.body.get("spec") or {}
        if spec.get("group") != hub.group or spec.get("names", {}).get("kind") != (
            hub.kind
        ):
            continue
        return {
            version["name"]: version["schema"]["openAPIV3Schema"]
            for version in spec.get("versions") or []
        }
    where = ", ".join(str(source) for source in crds)
    raise LookupError(
        f"no CustomResourceDefinition for {hub.kind}.{hub.group} in {where}: "
        "run `opgen generate` first, or pass crds= the files or directories that hold it"
    )


def _round_trips(
    handler: ConversionHandler,
    start: ResourceType[Any],
    other: ResourceType[Any],
    schema: Mapping[str, Any],
    examples: int,
) -> None:
    trip = f"{start.version} → {other.version} → {start.version}"

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def round_trip(data: st.DataObject) -> None:
        maker = ObjectMaker(data, breaking=False)
        sent = body_for(
            maker,
            dict(schema),
            api_version=start.api_version,
            kind=start.kind,
            name="drawn",
        )
        try:
            expected = start.decode_dict(sent)
        except ValidationError:
            reject()
        there = handler.convert(sent, other.api_version)
        back = handler.convert(there, start.api_version)
        with rules_skipped():  # a changed field may break a rule: show the change
            returned = start.decode_dict(back)
        changes = _changes(_fields(expected), _fields(returned), "")
        assert not changes, (
            f"{start.kind} {trip} changed the object:\n  "
            + "\n  ".join(changes)
            + f"\nsent: {sent}\nas {other.version}: {there}"
        )

    round_trip()


def _fields(obj: BaseModel) -> dict[str, Any]:
    """Every field but metadata, as wire JSON with the defaults filled in."""
    data: dict[str, Any] = obj.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        k: v for k, v in data.items() if k not in ("apiVersion", "kind", "metadata")
    }


def _changes(sent: Any, back: Any, path: str) -> list[str]:
    if isinstance(sent, dict) and isinstance(back, dict):
        found = []
        for key in sorted({*sent, *back}):
            where = f"{path}.{key}" if path else key
            if key not in back:
                found.append(f"{where}: lost (was {sent[key]!r})")
            elif key not in sent:
                found.append(f"{where}: appeared ({back[key]!r})")
            else:
                found += _changes(sent[key], back[key], where)
        return found
    if sent != back:
        return [f"{path}: was {sent!r}, came back {back!r}"]
    return []
