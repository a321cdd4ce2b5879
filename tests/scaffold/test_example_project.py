"""The committed example project (examples/generated) is in sync.

It must be exactly what examples/regenerate.sh produces (opgen init, create
api, examples/raycluster_types.py as the types, opgen generate), and
`opgen generate --check` must find no drift in it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.scaffold.conftest import opgen, snapshot

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "generated"


def test_generate_check_finds_no_drift() -> None:
    run = opgen(EXAMPLE, "generate", "--check")
    assert run.exit_code == 0, (
        run.stderr + "\nrun `make example-project` and commit the result"
    )


def test_example_is_what_the_recipe_produces(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    subprocess.run(
        [
            str(ROOT / "examples" / "regenerate.sh"),
            str(out),
            str(Path(sys.executable).parent / "opgen"),
        ],
        check=True,
        capture_output=True,
    )
    assert snapshot(out) == snapshot(
        EXAMPLE
    ), "run `make example-project` and commit the result"
