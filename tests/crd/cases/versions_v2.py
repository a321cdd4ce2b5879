"""Golden case: several versions of one kind. v2 is the storage version."""

from __future__ import annotations

import opgen.api as op


class VersionedSpec(op.Model):
    size: int = 1
    zone: str = ""


@op.kind(group="cases.opgen.dev", version="v2")
@op.storage_version()
class Versioned(op.CustomResource[VersionedSpec, None]):
    """@op.storage_version(): the version stored in etcd."""
