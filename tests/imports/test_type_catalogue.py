"""The import's type catalogue is built once and read back from the user's cache.

`opgen.schema.typecatalogue` keeps what the type matcher compares CRD nodes
with (every op.k8s type's fields and schemas) in a file named by a
fingerprint of opgen's, Pydantic's and Python's versions. What is read back
must be what was built; a file that cannot be read is rebuilt; a new
version's file replaces the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opgen.schema import typecatalogue
from opgen.schema.typecatalogue import CACHE_ENV, cache_file


@pytest.fixture(scope="module")
def built() -> dict[str, Any]:
    return typecatalogue._build()


def test_the_cache_file_is_named_by_the_fingerprint(tmp_path: Path) -> None:
    path = cache_file({CACHE_ENV: str(tmp_path)})
    assert path.parent == tmp_path / "import"
    assert path.name == f"catalogue-{typecatalogue._fingerprint()}.marshal"
    home = cache_file({"HOME": str(tmp_path)})
    assert home.parent == tmp_path / ".cache" / "opgen" / "import"
    xdg = cache_file({"XDG_CACHE_HOME": str(tmp_path / "x"), "HOME": "/nowhere"})
    assert xdg.parent == tmp_path / "x" / "opgen" / "import"


def test_what_is_read_back_is_what_was_built(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    path = cache_file({CACHE_ENV: str(tmp_path)})
    stale = path.parent / "catalogue-0000.marshal"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"an older release's")
    typecatalogue._write(path, built)
    assert typecatalogue._read(path) == built
    assert sorted(path.parent.iterdir()) == [path]
    names = built["names"]
    assert "k8s.PodTemplateSpec" in names and "Condition" in names
    assert "k8s.ObjectMeta" not in names
    position = names.index("k8s.PodTemplateSpec")
    for embedded in (False, True):
        plain = built["schemas"][f"{embedded}-False"][position]
        described = built["schemas"][f"{embedded}-True"][position]
        assert "description" not in plain["properties"]["spec"]
        assert "description" in described["properties"]["spec"]
    metadata = built["schemas"]["True-False"][position]["properties"]["metadata"]
    assert set(metadata["properties"]) == {
        "annotations",
        "finalizers",
        "labels",
        "name",
        "namespace",
    }
    assert built["schemas"]["False-False"][position]["properties"]["metadata"] == {
        "type": "object"
    }


@pytest.mark.parametrize("content", [b"", b"not marshal data", b"\xe9\x00\x00"])
def test_an_unreadable_cache_file_is_not_used(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "catalogue-x.marshal"
    path.write_bytes(content)
    assert typecatalogue._read(path) is None
    assert typecatalogue._read(tmp_path / "missing.marshal") is None


def test_a_cache_directory_that_cannot_be_written_only_costs_time(
    tmp_path: Path, built: dict[str, Any]
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    typecatalogue._write(blocked / "import" / "catalogue-x.marshal", built)
    assert blocked.read_text() == "not a directory"
