"""The webhook handlers the tests serve, and the CRDs and configurations opgen
generates for them (what `opgen generate` would write)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

import yaml

import opgen.api as op
from opgen import runtime as rt
from opgen.load import load_kinds
from opgen.load.handlers import webhooks_of
from opgen.pipeline import crds
from opgen.render.webhook import webhook_documents
from tests.webhook import kinds_v1, kinds_v1alpha1
from tests.webhook.kinds_v1 import Crash, Gizmo, Latch, Lock, Pet

HERE = Path(__file__).parent
KIND_FILES = [HERE / "kinds_v1.py", HERE / "kinds_v1alpha1.py"]


@op.webhook(Pet, mutating=True, timeout_seconds=10)
class PetDefaulter:
    async def default(self, obj: Pet) -> None:
        if obj.spec.owner is None:
            obj.spec.owner = "nobody"
        labels = dict(obj.metadata.labels or {})
        if "pet" not in labels:
            labels["pet"] = obj.spec.name
            obj.metadata.labels = labels


@op.webhook(Pet, mutating=False, operations=["CREATE", "UPDATE", "DELETE"])
class PetValidator:
    deleted: list[str] = []

    async def validate_create(self, obj: Pet) -> list[str]:
        return self.check(obj)

    async def validate_update(self, old: Pet, new: Pet) -> list[str]:
        if old.spec.owner is not None and new.spec.owner != old.spec.owner:
            raise rt.webhook.Denied(
                "",
                rt.webhook.FieldError(
                    "spec.owner",
                    f"may not change from {old.spec.owner!r}",
                    value=new.spec.owner,
                    type="FieldValueForbidden",
                ),
            )
        return self.check(new)

    async def validate_delete(self, obj: Pet) -> list[str]:
        self.deleted.append(obj.metadata.name or "")
        return []

    def check(self, obj: Pet) -> list[str]:
        if obj.spec.age is not None and obj.spec.age > 40:
            raise rt.webhook.Denied(
                "",
                rt.webhook.FieldError(
                    "spec.age", "no pet lives that long", value=obj.spec.age
                ),
            )
        return [] if obj.spec.tags else [f"pet {obj.spec.name} has no tags"]


class _Accept:
    async def validate_create(self, obj: Any) -> list[str]:
        return []

    async def validate_update(self, old: Any, new: Any) -> list[str]:
        return []

    async def validate_delete(self, obj: Any) -> list[str]:
        return []


@op.webhook(Lock, mutating=False, failure_policy="Fail", timeout_seconds=5)
class LockValidator(_Accept):
    pass


@op.webhook(Latch, mutating=False, failure_policy="Ignore", timeout_seconds=5)
class LatchValidator(_Accept):
    pass


@op.webhook(Crash, mutating=False)
class CrashValidator(_Accept):
    async def validate_create(self, obj: Any) -> list[str]:
        raise KeyError("the crash handler always raises")


@op.conversion(hub=Gizmo, spoke=kinds_v1alpha1.Gizmo)
class GizmoConversion:
    def convert_to_hub(self, spoke: kinds_v1alpha1.Gizmo) -> Gizmo:
        return Gizmo(
            metadata=spoke.metadata,
            spec=kinds_v1.GizmoSpec(replicas=spoke.spec.size, label=spoke.spec.label),
        )

    def convert_from_hub(self, hub: Gizmo) -> kinds_v1alpha1.Gizmo:
        return kinds_v1alpha1.Gizmo(
            metadata=hub.metadata,
            spec=kinds_v1alpha1.GizmoSpec(size=hub.spec.replicas, label=hub.spec.label),
        )


HANDLERS = [
    PetDefaulter,
    PetValidator,
    LockValidator,
    LatchValidator,
    CrashValidator,
    GizmoConversion,
]
WEBHOOKS = webhooks_of(HANDLERS)


def setup(manager: rt.Manager) -> None:
    """Register every test handler (what a project's `setup_webhooks` does)."""
    for handler in HANDLERS:
        manager.webhooks.add(handler())


def generated_crds() -> list[dict[str, Any]]:
    """The kinds' CRDs as opgen renders them, Gizmo's with its conversion."""
    loaded = load_kinds(KIND_FILES)
    files, diagnostics = crds(
        loaded, PurePosixPath("."), conversions=WEBHOOKS.conversions
    )
    assert not [*loaded.diagnostics, *diagnostics]
    return [yaml.safe_load(file.content) for file in files]


def generated_configurations() -> list[dict[str, Any]]:
    """The webhook configurations as `opgen generate` writes them."""
    return webhook_documents(WEBHOOKS.admission)
