"""Golden CRDs: generate them from `cases/`, read the expected ones from `golden/`.

Every file under `golden/` is a complete CRD that a real API server must
accept (later tests install them all; see `golden_crd_paths`). Regenerate with
`OPGEN_UPDATE_GOLDEN=1 pytest tests/crd`, then review the diff: an unexplained
change is a bug.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from opgen import __version__
from opgen.load import load_kinds
from opgen.pipeline import crds
from opgen.render.crd import VERSION_ANNOTATION

HERE = Path(__file__).parent
CASES_DIR = HERE / "cases"
GOLDEN_DIR = HERE / "golden"
UPDATE = os.environ.get("OPGEN_UPDATE_GOLDEN") == "1"


def golden_crd_paths() -> list[Path]:
    """Every golden CRD file (for tests that install them into an API server)."""
    return sorted(GOLDEN_DIR.glob("*.yaml"))


def case_files() -> list[Path]:
    return sorted(CASES_DIR.glob("*.py"))


@functools.cache
def generated() -> dict[str, str]:
    """File name → content of every CRD the cases produce."""
    loaded = load_kinds(case_files())
    files, _ = crds(loaded, PurePosixPath("."))
    return {file.path.name: file.content for file in files}


def without_version(document: dict[str, Any]) -> dict[str, Any]:
    annotations = document["metadata"]["annotations"]
    assert annotations.pop(VERSION_ANNOTATION) == __version__
    if not annotations:
        del document["metadata"]["annotations"]
    return document


def parse(text: str) -> dict[str, Any]:
    documents = [d for d in yaml.safe_load_all(text) if d is not None]
    assert len(documents) == 1
    document: dict[str, Any] = documents[0]
    return without_version(document)
