"""Golden case: several versions of one kind. v3alpha1 is not served yet."""

from __future__ import annotations

import opgen.api as op


class VersionedSpec(op.Model):
    size: int = 1
    zones: list[str] = []


@op.kind(group="cases.opgen.dev", version="v3alpha1")
@op.unserved_version()
class Versioned(op.CustomResource[VersionedSpec, None]):
    """@op.unserved_version(): `served: false`."""
