"""`op.Undescribed()`: no description at or below one field (issue 22, class 10).

Argo Workflows leaves every description out of its Workflow's
`templateDefaults` and `status` to stay under etcd's limit; the op.k8s types
the import finds there would bring theirs back, 476 KiB of them. The marker
leaves them out for that field alone; the same type elsewhere keeps them
(tests/imports/test_round_trip.py imports such a CRD).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opgen.load import load_kinds
from opgen.pipeline import crd_of
from opgen.schema.catalogue import has_descriptions

_TYPES = '''
from typing import Annotated

import opgen.api as op


class Spec(op.Model):
    quiet: Annotated[op.k8s.PodTemplateSpec, op.Undescribed()] | None = None
    """The field's own description goes too."""
    loud: op.k8s.PodTemplateSpec | None = None
    """The pod template."""


@op.kind(group="quiet.example.com", version="v1")
class Thing(op.CustomResource[Spec, None]):
    """A thing."""
'''


def test_nothing_is_described_at_or_below_the_field(tmp_path: Path) -> None:
    path = tmp_path / "thing_types.py"
    path.write_text(_TYPES)
    loaded = load_kinds([path])
    (kind,) = loaded.kinds
    document, _, _ = crd_of(loaded, kind)
    root = document["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec: dict[str, Any] = root["properties"]["spec"]["properties"]
    assert not has_descriptions(spec["quiet"])
    assert spec["loud"]["description"] == "The pod template."
    containers = spec["loud"]["properties"]["spec"]["properties"]["containers"]
    assert "description" in containers["items"]["properties"]["image"]
    assert spec["quiet"] == _bare(spec["loud"])


def _bare(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _bare(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_bare(v) for v in node]
    return node
