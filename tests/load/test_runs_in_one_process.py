"""Two runs in one process are two fresh processes: no run sees another's state.

Everything a run caches (the user modules it executed, their files and
docstrings, the schemas it built) lives in the run's `RunContext`; nothing is
kept at module level. Two projects whose packages, modules and classes have
the same names, generated one after the other in one process, must give the
bytes `opgen generate` gives for each in a process of its own.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from opgen.pipeline import project_outputs
from opgen.project.paths import load_project
from tests.scaffold.conftest import create_api, opgen

OPGEN = [sys.executable, "-m", "opgen"]


def _project(root: Path, field_doc: str, plural: str) -> Path:
    root.mkdir(parents=True)
    assert opgen(root, "init", "--domain", "example.com").exit_code == 0
    assert create_api(root, "ray", "v1", "RayCluster").exit_code == 0
    types = root / f"{root.name.replace('-', '_')}/api/v1/raycluster_types.py"
    text = types.read_text(encoding="utf-8")
    text = text.replace(
        "@op.kind(group=GROUP, version=VERSION)",
        f'@op.kind(group=GROUP, version=VERSION, plural="{plural}")',
    )
    spec = "class RayClusterSpec(op.Model):\n"
    assert spec in text
    body = text.index(spec) + len(spec)
    end = text.index("\n\n\n", body)
    text = text[:end] + f'\n\n    replicas: int = 1\n    """{field_doc}"""' + text[end:]
    types.write_text(text, encoding="utf-8")
    controller = types.parents[2] / "controller/raycluster_controller.py"
    source = controller.read_text(encoding="utf-8")
    controller.write_text(source.replace('"rayclusters', f'"{plural}'), "utf-8")
    return root


def _fresh_process(root: Path, copy: Path) -> dict[str, str]:
    shutil.copytree(root, copy)
    subprocess.run(
        [*OPGEN, "-C", str(copy), "generate"], check=True, capture_output=True
    )
    return {
        str(path.relative_to(copy)): path.read_text(encoding="utf-8")
        for path in sorted(copy.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_two_projects_in_one_process_give_two_fresh_processes_bytes(
    tmp_path: Path,
) -> None:
    # Same project name (so the same package and module names), different types.
    first = _project(tmp_path / "one" / "ray-operator", "Workers, first.", "rays")
    second = _project(tmp_path / "two" / "ray-operator", "Workers, second.", "rcs")

    in_process = [
        project_outputs(root, load_project(root), everything=True)
        for root in (first, second, first)
    ]
    fresh = [
        _fresh_process(first, tmp_path / "fresh-one"),
        _fresh_process(second, tmp_path / "fresh-two"),
    ]
    for outputs, written in zip(in_process, [*fresh, fresh[0]], strict=True):
        assert outputs.files
        for file in outputs.files:
            assert written[str(file.path)] == file.content, file.path
    crds = [
        {str(f.path): f.content for f in outputs.files if "crd/bases" in str(f.path)}
        for outputs in in_process
    ]
    assert "Workers, first." in crds[0]["config/crd/bases/ray.example.com_rays.yaml"]
    assert "Workers, second." in crds[1]["config/crd/bases/ray.example.com_rcs.yaml"]
    assert crds[0] == crds[2]
