"""Model-level markers of a model whose fields refer to classes defined after it.

A model validated inside another before it is ever used alone keeps its
forward references unresolved in `model_fields`; its `op.ListMapKey` keys
inside `Annotated[...] | None` must still be enforced.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

MODULE = """
from __future__ import annotations

from typing import Annotated

import opgen.api as op


class Outer(op.Model):
    inner: Inner


class Inner(op.Model):
    items: Annotated[list[Item], op.ListType("map"), op.ListMapKey("name")] | None = None


class Item(op.Model):
    name: str
"""


def test_list_map_keys_behind_forward_references_are_enforced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "forward_refs_module.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "forward_refs_module", raising=False)
    from forward_refs_module import Outer  # type: ignore[import-not-found]

    duplicate = {"inner": {"items": [{"name": "a"}, {"name": "a"}]}}
    with pytest.raises(ValidationError, match="Duplicate value"):
        Outer.model_validate(duplicate)
