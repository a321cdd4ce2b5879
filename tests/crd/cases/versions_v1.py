"""Golden case: several versions of one kind. v1 is deprecated."""

from __future__ import annotations

import opgen.api as op


class VersionedSpec(op.Model):
    size: int = 1


@op.kind(group="cases.opgen.dev", version="v1")
@op.deprecated_version(warning="cases.opgen.dev/v1 Versioned is deprecated; use v2")
class Versioned(op.CustomResource[VersionedSpec, None]):
    """@op.deprecated_version(warning=): `deprecated` and `deprecationWarning`."""
