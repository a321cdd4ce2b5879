"""`make envtest`: a missing toolchain does not abort `make test` unless envtest is required."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.testing.fake_index import closed_port_url

REPO = Path(__file__).resolve().parents[2]
NO_GO_PATH = "/usr/bin:/bin"  # make, bash and coreutils, but no `go`


def _make_envtest(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    environ = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TEST_ASSET_", "KUBEBUILDER_", "OPGEN_", "MAKE"))
    }
    environ.update(
        PATH=NO_GO_PATH,
        OPGEN_ENVTEST_CACHE=str(tmp_path / "empty-cache"),
        # no archive can be had (and nothing reaches the internet): the build is next
        OPGEN_ENVTEST_INDEX_URL=closed_port_url(),
        **extra,
    )
    return subprocess.run(
        # -o setup: do not (re)install the venv; BIN: the interpreter running these tests.
        [
            "make",
            "--no-print-directory",
            "-o",
            "setup",
            f"BIN={Path(sys.executable).parent}",
            "envtest",
        ],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_go_make_envtest_warns_and_succeeds(tmp_path: Path) -> None:
    done = _make_envtest(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "error: Go is not installed" in done.stderr
    assert "tests that need them will be skipped" in done.stderr


def test_without_go_and_opgen_require_envtest_make_envtest_fails(
    tmp_path: Path,
) -> None:
    done = _make_envtest(tmp_path, OPGEN_REQUIRE_ENVTEST="1")
    assert done.returncode != 0
    assert "error: Go is not installed" in done.stderr
    assert "will be skipped" not in done.stderr
