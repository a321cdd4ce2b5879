"""`create api` and the CRD engine agree on a kind's plural.

The plural decides file names (`config/crd/bases/<group>_<plural>.yaml`, which
`config/crd/kustomization.yaml` lists) and the CRD's name; both come from
`opgen.engine.naming.pluralize` unless `--plural` is given.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.scaffold.conftest import api_args, opgen


@pytest.mark.parametrize(
    ("kind", "plural", "extra"),
    [
        ("Policy", "policies", ()),
        ("Ingress", "ingresses", ()),
        ("Analysis", "analyses", ()),
        ("Person", "people", ()),
        ("VertexIndex", "vertexindices", ()),
        ("Endpoints", "endpoints", ()),
        ("Proxy", "proxies", ()),
        ("Gateway", "gateways", ()),
        ("Cactus", "cacti", ()),
        ("Mouse", "mouses", ("--plural", "mouses")),
    ],
)
def test_file_names_and_crd_names_agree(
    project: Path, kind: str, plural: str, extra: tuple[str, ...]
) -> None:
    create = api_args("web", "v1", kind)
    assert opgen(project, *create, *extra).exit_code == 0
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr

    crd_file = f"web.example.com_{plural}.yaml"
    assert sorted(p.name for p in (project / "config/crd/bases").iterdir()) == [
        crd_file
    ]
    crd = yaml.safe_load((project / "config/crd/bases" / crd_file).read_text())
    assert crd["metadata"]["name"] == f"{plural}.web.example.com"
    assert crd["spec"]["names"]["plural"] == plural
    kustomization = yaml.safe_load(
        (project / "config/crd/kustomization.yaml").read_text()
    )
    assert kustomization["resources"] == [f"bases/{crd_file}"]
    # PROJECT records --plural when it was given, not the default it derives.
    entry = yaml.safe_load((project / "PROJECT").read_text())["resources"][0]
    assert entry.get("plural") == (plural if extra else None)
    role = yaml.safe_load((project / "config/rbac/role.yaml").read_text())
    assert {r for rule in role["rules"] for r in rule["resources"]} == {
        plural,
        f"{plural}/finalizers",
        f"{plural}/status",
        "events",
    }
    assert opgen(project, "generate", "--check").exit_code == 0
