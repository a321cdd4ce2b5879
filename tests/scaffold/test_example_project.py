"""The committed example project (examples/generated) is in sync and works.

It must be exactly what examples/regenerate.sh produces (opgen init, create
api for v1alpha1 and v1, examples/raycluster_types.py as the v1 types, create
webhook, the user's other files from examples/raycluster/, opgen generate),
`opgen generate --check` must find no drift in it, it must pass its own
checks (black, ruff, mypy --strict and its tests against envtest, the
manager in a process of its own included), and docs/tutorial.md's section 9
must give the recipe's commands.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.fresh import in_fresh_interpreter
from tests.scaffold.conftest import BIN, check_code, opgen, run_project_tests, snapshot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "generated"
RECIPE = ROOT / "examples" / "regenerate.sh"
TUTORIAL = ROOT / "docs" / "tutorial.md"
STALE = "run `make example-project` and commit the result"


def test_generate_check_finds_no_drift() -> None:
    run = opgen(EXAMPLE, "generate", "--check")
    assert run.exit_code == 0, f"{run.stderr}\n{STALE}"
    assert run.stdout == "up to date\n"


LOADS = """
import sys
from opgen.cli import main
sys.argv = ["opgen", "generate", "--check"]
try:
    main()
except SystemExit as exit:
    assert not exit.code, exit.code
print(sorted(m for m in sys.modules if m.split(".")[0] in ("aiohttp", "prometheus_client")
             or m.startswith(("opgen.runtime.", "opgen.render.imported", "opgen.render.models"))))
"""


def test_generate_check_loads_markers_not_the_operator() -> None:
    """The command an author runs after every edit imports the reconcilers and
    webhook handlers for their markers, and none of the runtime they run on (the
    HTTP stack, Prometheus); without imported CRDs, not their renderer either."""
    assert in_fresh_interpreter(LOADS, cwd=EXAMPLE).splitlines()[-1] == "[]"


def test_example_is_what_the_recipe_produces(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    done = subprocess.run(
        [str(RECIPE), str(out), str(BIN / "opgen")],
        check=True,
        capture_output=True,
        text=True,
    )
    assert snapshot(out) == snapshot(EXAMPLE), STALE
    assert done.stdout.startswith(f"Built the example operator project in {out}\n")
    assert "config/crd/bases/ray.io_rayclusters.yaml" in done.stdout
    assert not list(out.rglob("__pycache__"))


def test_the_recipe_refuses_to_replace_a_folder_that_is_not_a_project(
    tmp_path: Path,
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me\n")
    done = subprocess.run(
        [str(RECIPE), str(out), str(BIN / "opgen")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "is not an opgen project; not replacing it" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_a_failed_rebuild_leaves_the_previous_project(tmp_path: Path) -> None:
    out = tmp_path / "example"
    subprocess.run(
        [str(RECIPE), str(out), str(BIN / "opgen")], check=True, capture_output=True
    )
    before = snapshot(out)
    broken = tmp_path / "opgen"
    broken.write_text(
        f'#!/bin/sh\n[ "$1" = generate ] && exit 1\nexec {BIN / "opgen"} "$@"\n'
    )
    broken.chmod(0o755)
    done = subprocess.run(
        [str(RECIPE), str(out), str(broken)], capture_output=True, check=False
    )
    assert done.returncode != 0
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["example", "opgen"]


def test_the_example_passes_black_ruff_and_mypy_strict() -> None:
    check_code(EXAMPLE, "ray_operator")


@pytest.mark.envtest
def test_the_example_passes_its_own_tests() -> None:
    run_project_tests(EXAMPLE)


def test_the_tutorial_gives_the_recipes_commands() -> None:
    """docs/tutorial.md builds this example step by step: its commands are the recipe's."""
    recipe = RECIPE.read_text().replace("\\\n", " ")
    steps = [
        "opgen " + " ".join(line.split())
        for line in re.findall(r'"\$opgen" (.*?) >/dev/null', recipe)
    ]
    tutorial = TUTORIAL.read_text()
    section = tutorial[tutorial.index("\n## 9. ") :]
    first_block = re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    assert first_block is not None
    assert first_block[1].splitlines() == steps
