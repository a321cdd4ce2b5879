"""The webhook tests' kinds: Gizmo v1 (the hub and storage version), Pet (defaulting
and validation), Lock and Latch (failure policies), Crash (a raising handler)."""

from __future__ import annotations

import opgen.api as op


class GizmoSpec(op.Model):
    """What a v1 Gizmo wants."""

    replicas: int = 1
    """How many; v1alpha1 calls it size."""
    label: str | None = None
    """A label, the same in both versions."""
    color: str | None = None
    """Only v1 has it: it must survive a round trip through v1alpha1."""


@op.kind(group="webhook.opgen.dev", version="v1")
@op.storage_version()
class Gizmo(op.CustomResource[GizmoSpec, None]):
    """The hub version of Gizmo."""


class PetSpec(op.Model):
    """A pet."""

    name: str
    age: int | None = None
    owner: str | None = None
    """Defaulted to "nobody"; may not change once set."""
    tags: list[str] = []


@op.kind(group="webhook.opgen.dev", version="v1")
class Pet(op.CustomResource[PetSpec, None]):
    """Defaulted and validated by webhooks."""


class NoteSpec(op.Model):
    """Anything."""

    text: str = ""


@op.kind(group="webhook.opgen.dev", version="v1")
class Lock(op.CustomResource[NoteSpec, None]):
    """Validated by a webhook with failurePolicy Fail."""


@op.kind(group="webhook.opgen.dev", version="v1")
class Latch(op.CustomResource[NoteSpec, None]):
    """Validated by a webhook with failurePolicy Ignore."""


@op.kind(group="webhook.opgen.dev", version="v1")
class Crash(op.CustomResource[NoteSpec, None]):
    """Validated by a webhook whose handler raises."""
