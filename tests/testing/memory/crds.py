"""The CRDs of the memory server's tests, as opgen generates them, with the models
that validate them on the memory server."""

from __future__ import annotations

import functools
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from opgen.load import load_kinds
from opgen.pipeline import crds
from opgen.testing.memory import Kinds
from tests.runtime.crds import generated_crds as runtime_crds
from tests.runtime.kinds import Gadget, Widget
from tests.testing.memory.kinds import Dial, Gauge, Rack

KINDS_FILE = Path(__file__).with_name("kinds.py")
MODELS = (Widget, Gadget, Gauge, Dial, Rack)


@functools.cache
def generated_crds() -> list[dict[str, Any]]:
    """The CRDs of the runtime's test kinds and of kinds.py, as the engine renders
    them (once a session: do not change them)."""
    loaded = load_kinds([KINDS_FILE])
    files, diagnostics = crds(loaded, PurePosixPath("."))
    warnings = [*loaded.diagnostics, *diagnostics]
    if warnings:
        raise AssertionError(f"the test kinds give warnings: {warnings}")
    return [*runtime_crds(), *(yaml.safe_load(file.content) for file in files)]


def served_kinds() -> Kinds:
    kinds = Kinds()
    kinds.add_crds(generated_crds(), MODELS)
    return kinds
