"""`opgen generate` writes one typed-client module per group/version folder.

Layout (single group and --multigroup), bases chosen by scope and subresources,
drift found by `--check`, and modules left in emptied folders removed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from opgen.cli import app

BAR_TYPES = '''"""Bar: cluster-scoped, no subresources."""

import opgen.api as op

from multi.api.b.v2.groupversion_info import GROUP, VERSION


class BarSpec(op.Model):
    size: int = 0


@op.kind(group=GROUP, version=VERSION, scope="Cluster")
class Bar(op.CustomResource[BarSpec, None]):
    """A kind without status or scale."""
'''


def opgen(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["-C", str(root), *args])
    return result.exit_code, result.output


def create(root: Path, group: str, version: str, kind: str, *flags: str) -> None:
    args = ["create", "api", "--group", group, "--version", version, "--kind", kind]
    code, output = opgen(root, *args, "--no-controller", *flags)
    assert code == 0, output


@pytest.fixture
def multigroup(tmp_path: Path) -> Path:
    code, output = opgen(
        tmp_path, "init", "--domain", "example.com", "--project-name", "multi",
        "--multigroup",
    )  # fmt: skip
    assert code == 0, output
    create(tmp_path, "a", "v1", "Foo")
    create(tmp_path, "b", "v2", "Bar", "--cluster")
    (tmp_path / "multi/api/b/v2/bar_types.py").write_text(BAR_TYPES)
    code, output = opgen(tmp_path, "generate")
    assert code == 0, output
    return tmp_path


def test_multigroup_modules_per_group_version_with_bases_as_the_kind_is(
    multigroup: Path,
) -> None:
    foo = (multigroup / "multi/api/a/v1/zz_generated_client.py").read_text()
    bar = (multigroup / "multi/api/b/v2/zz_generated_client.py").read_text()
    assert "DO NOT EDIT" in foo and "DO NOT EDIT" in bar
    assert "from multi.api.a.v1.foo_types import Foo" in foo
    assert "typed.NamespacedClient[Foo]" in foo and "typed.NamespacedStatus[Foo]" in foo
    assert "Scale" not in foo.split("__all__")[1]
    assert "typed.ClusterClient[Bar]" in bar
    assert "Status[" not in bar and "Scale[" not in bar
    assert 'await bars.get("example")' in bar  # cluster-scoped usage: no namespace


def test_check_finds_a_hand_edit_and_generate_force_restores_it(
    multigroup: Path,
) -> None:
    assert opgen(multigroup, "generate", "--check") == (0, "up to date\n")
    module = multigroup / "multi/api/a/v1/zz_generated_client.py"
    original = module.read_text()
    module.write_text(original.replace("model = Foo", "model = Foo  # edited"))
    code, output = opgen(multigroup, "generate", "--check")
    assert code == 1 and "multi/api/a/v1/zz_generated_client.py" in output
    assert "edited by hand" in output
    code, output = opgen(multigroup, "generate")
    assert code == 1 and "multi/api/a/v1/zz_generated_client.py" in output
    assert "# edited" in module.read_text()  # refused: the edit is kept
    assert opgen(multigroup, "generate", "--force")[0] == 0
    assert module.read_text() == original


def test_a_folder_without_kinds_loses_its_client_module(multigroup: Path) -> None:
    code, output = opgen(
        multigroup, "delete", "api", "--group", "b", "--version", "v2", "--kind", "Bar",
        "--force",
    )  # fmt: skip
    assert code == 0, output
    stale = multigroup / "multi/api/b/v2/zz_generated_client.py"
    assert stale.exists()
    code, output = opgen(multigroup, "generate", "--check")
    assert code == 1 and "delete" in output
    assert opgen(multigroup, "generate")[0] == 0
    assert not stale.exists()
    assert (multigroup / "multi/api/a/v1/zz_generated_client.py").exists()
