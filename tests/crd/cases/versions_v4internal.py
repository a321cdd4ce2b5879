"""Golden case: several versions of one kind. v4internal is left out of the CRD."""

from __future__ import annotations

import opgen.api as op


class VersionedSpec(op.Model):
    size: int = 1


@op.kind(group="cases.opgen.dev", version="v4internal")
@op.skip_version()
class Versioned(op.CustomResource[VersionedSpec, None]):
    """@op.skip_version(): this version is not in the CRD."""
