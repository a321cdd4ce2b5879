"""Bad inputs to `opgen generate crd`: one clear message, exit code 1, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from opgen.cli import app

HEADER = """\
from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

import opgen.api as op

"""


def _kind(
    spec: str = "Spec", status: str = "None", extra: str = "", name: str = "Thing"
) -> str:
    return (
        f'\n@op.kind(group="things.example.com", version="v1")\n{extra}'
        f"class {name}(op.CustomResource[{spec}, {status}]):\n    pass\n"
    )


# name → (types file source, text the error message must contain)
CASES: dict[str, tuple[str, str]] = {
    "syntax error": (
        "import opgen.api as op\n\nclass Spec(op.Model)\n    x: int\n",
        "case_types.py:3: syntax error",
    ),
    "import error": (
        "import opgen.api as op\nimport no_such_module_for_opgen_tests\n",
        "case_types.py:2: ModuleNotFoundError: No module named 'no_such_module_for_opgen_tests'",
    ),
    "exception while importing": (
        "import opgen.api as op\n\n\nraise RuntimeError('boom')\n",
        "case_types.py:4: RuntimeError: boom",
    ),
    "no kinds": (
        HEADER + "class Spec(op.Model):\n    x: int\n",
        "no kinds found",
    ),
    "marker written as a string": (
        HEADER
        + "class Spec(op.Model):\n    x: Annotated[int, '+kubebuilder:validation:Minimum=0']\n"
        + _kind(),
        "Spec.x: unknown marker '+kubebuilder:validation:Minimum=0'",
    ),
    "unknown marker object": (
        HEADER + "class Spec(op.Model):\n    x: Annotated[int, 42]\n" + _kind(),
        "Spec.x: unknown marker 42",
    ),
    # Not written to the CRD, but sent by every object: found by tests/proof.
    "empty default the server refuses": (
        HEADER
        + "class Spec(op.Model):\n    hosts: Annotated[list[str], op.MinItems(1)] = []\n"
        + _kind(),
        "Spec.hosts: the default [] is sent to the API server by every object that "
        "keeps it, and the server refuses it: should have at least 1 items",
    ),
    "empty bytes default": (
        HEADER + "class Spec(op.Model):\n    ca: op.Bytes = b''\n" + _kind(),
        "Spec.ca: the default b'' is sent to the API server",
    ),
    "marker used without being called": (
        HEADER + "class Spec(op.Model):\n    x: Annotated[int, op.Minimum]\n" + _kind(),
        "op.Minimum is used without being called",
    ),
    "marker on the wrong type": (
        HEADER
        + "class Spec(op.Model):\n    x: Annotated[int, op.MinLength(1)]\n"
        + _kind(),
        "Spec.x: op.MinLength(1): applies to int-or-string or string values, but this is integer",
    ),
    "field marker on list items": (
        HEADER
        + "class Spec(op.Model):\n    x: list[Annotated[int, op.Required()]] = []\n"
        + _kind(),
        "op.Required() cannot stand on a type (class decorator or nested type)",
    ),
    "field marker as a class decorator": (
        HEADER + "@op.Required()\nclass Spec(op.Model):\n    x: int\n" + _kind(),
        "op.Required() cannot decorate a class",
    ),
    "kind decorator on a plain model": (
        HEADER
        + '@op.kind(group="things.example.com", version="v1")\nclass Spec(op.Model):\n    x: int\n',
        "@op.kind(",
    ),
    "bad marker argument": (
        HEADER
        + "class Spec(op.Model):\n    x: Annotated[str, op.MinLength(-1)]\n"
        + _kind(),
        "case_types.py:10: Spec.x: op.MinLength(-1): expected a non-negative integer",
    ),
    "pattern the API server cannot compile": (
        HEADER
        + "class Spec(op.Model):\n    x: Annotated[str, op.Pattern(r'^(?!x)')]\n"
        + _kind(),
        "not a valid regular expression in RE2, the syntax the API server uses",
    ),
    "recursive type": (
        HEADER
        + "class Node(op.Model):\n    children: list[Node] = []\n\n"
        + "class Spec(op.Model):\n    root: Node\n"
        + _kind(),
        "recursive type: Node.children refers back to Node (Spec.root → Node.children → Node)",
    ),
    "fixed tuple": (
        HEADER + "class Spec(op.Model):\n    pair: tuple[int, str]\n" + _kind(),
        "Spec.pair: a fixed-shape tuple has no Kubernetes schema",
    ),
    "arbitrary class": (
        HEADER
        + "class Blob:\n    pass\n\nclass Spec(op.Model):\n"
        + "    model_config = {'arbitrary_types_allowed': True}\n    blob: Blob\n"
        + _kind(),
        "Spec.blob: Blob is an arbitrary class with no Kubernetes schema",
    ),
    "arbitrary class, as Pydantic refuses it": (
        HEADER
        + "class Blob:\n    pass\n\nclass Spec(op.Model):\n    blob: Blob\n"
        + _kind(),
        "Spec.blob: Blob is an arbitrary class with no Kubernetes schema\n"
        "  hint: make Blob an op.Model subclass (it becomes a nested object), or use "
        "a plain type (str, int, list[...], dict[str, ...]); Pydantic's "
        "arbitrary_types_allowed would not help",
    ),
    "kind decorator without parentheses": (
        HEADER
        + "class Spec(op.Model):\n    x: int = 0\n"
        + _kind(extra="@op.storage_version\n"),
        "Thing: @op.storage_version is used without parentheses",
    ),
    "typo'd marker": (
        HEADER
        + "class Spec(op.Model):\n    x: Annotated[int, op.Minimun(1)] = 1\n"
        + _kind(),
        "Spec.x: op.Minimun is not part of opgen.api; did you mean op.Minimum?",
    ),
    "dataclass in the spec": (
        HEADER
        + "import dataclasses\n\n@dataclasses.dataclass\nclass Window:\n"
        + "    start_hour: int = 0\n\nclass Spec(op.Model):\n    window: Window\n"
        + _kind(),
        "Spec.window: Window is a dataclass; opgen describes op.Model classes only",
    ),
    "plain BaseModel in the spec": (
        HEADER
        + "import pydantic\n\nclass Tls(pydantic.BaseModel):\n    secret_name: str\n\n"
        + "class Spec(op.Model):\n    tls: Tls\n"
        + _kind(),
        "Spec.tls: Tls is a pydantic.BaseModel, not an op.Model: its field "
        "secret_name would be 'secret_name' on the wire, not 'secretName'",
    ),
    "float without opt-in": (
        HEADER + "class Spec(op.Model):\n    ratio: float = 0.5\n" + _kind(),
        "Spec.ratio: float fields are refused by default",
    ),
    "union of models": (
        HEADER
        + "class A(op.Model):\n    a: int\n\nclass B(op.Model):\n    b: int\n\n"
        + "class Spec(op.Model):\n    choice: A | B\n"
        + _kind(),
        "Spec.choice: a union (a model, a model) has no structural Kubernetes schema",
    ),
    "plain bytes": (
        HEADER + "class Spec(op.Model):\n    data: bytes\n" + _kind(),
        "Spec.data: plain bytes would be sent as URL-safe base64",
    ),
    "timedelta": (
        HEADER + "class Spec(op.Model):\n    wait: datetime.timedelta\n" + _kind(),
        "use op.Duration",
    ),
    "map with int keys": (
        HEADER + "class Spec(op.Model):\n    by_port: dict[int, str] = {}\n" + _kind(),
        "Spec.by_port: map keys must be plain strings",
    ),
    "list map key that is not a field": (
        HEADER
        + "class Item(op.Model):\n    name: str\n\n"
        + "class Spec(op.Model):\n"
        + "    items: Annotated[list[Item], op.ListType('map'), op.ListMapKey('id')] = []\n"
        + _kind(),
        "op.ListMapKey('id'): the list items have no field 'id'",
    ),
    "list map key that is optional": (
        HEADER
        + "class Item(op.Model):\n    name: str | None = None\n\n"
        + "class Spec(op.Model):\n"
        + "    items: Annotated[list[Item], op.ListType('map'), op.ListMapKey('name')] = []\n"
        + _kind(),
        "it must have a default or be a required property",
    ),
    "oldSelf in the items of an atomic list": (
        HEADER
        + "class Spec(op.Model):\n"
        + "    names: list[Annotated[str, op.Rule('self == oldSelf')]] = []\n"
        + _kind(),
        "oldSelf is only available on correlatable nodes",
    ),
    "bad CEL reason": (
        HEADER
        + "class Spec(op.Model):\n    x: Annotated[int, op.Rule('self > 0', reason='Nope')]\n"
        + _kind(),
        "reason='Nope' is not one the API server accepts",
    ),
    "default that breaks its own schema": (
        HEADER
        + "class Spec(op.Model):\n    replicas: Annotated[int, op.Minimum(1)] = 0\n"
        + _kind(),
        "Spec.replicas: the API server would refuse this CRD",
    ),
    "one-of naming a required field": (
        HEADER
        + "@op.ExactlyOneOf('a', 'b')\nclass Spec(op.Model):\n    a: str\n    b: str | None = None\n"
        + _kind(),
        "field 'a' is required",
    ),
    "group without a dot": (
        HEADER
        + "class Spec(op.Model):\n    x: int = 0\n\n"
        + '@op.kind(group="things", version="v1")\nclass Thing(op.CustomResource[Spec, None]):\n    pass\n',
        "should be a domain with at least one dot",
    ),
    "bad version name": (
        HEADER
        + "class Spec(op.Model):\n    x: int = 0\n\n"
        + '@op.kind(group="things.example.com", version="V1")\nclass Thing(op.CustomResource[Spec, None]):\n    pass\n',
        "spec.versions[0].name: Invalid value: 'V1'",
    ),
    "protected group without approval": (
        HEADER
        + "class Spec(op.Model):\n    x: int = 0\n\n"
        + '@op.kind(group="things.k8s.io", version="v1")\nclass Thing(op.CustomResource[Spec, None]):\n    pass\n',
        "protected groups must have approval annotation",
    ),
    "printer column with a bad type": (
        HEADER
        + "class Spec(op.Model):\n    x: int = 0\n"
        + _kind(extra='@op.print_column(name="X", type="int", json_path=".spec.x")\n'),
        "must be one of boolean,date,integer,number,string",
    ),
    "scale path to a missing field": (
        HEADER
        + "class Spec(op.Model):\n    replicas: int = 1\n\nclass Status(op.Model):\n    ready: int = 0\n"
        + _kind(
            status="Status",
            extra='@op.subresource_scale(".spec.replicas", ".status.replicas")\n',
        ),
        "opgen refuses this CRD (the API server would accept it, but it would not "
        "work as written): spec.versions[0].subresources.scale.statusReplicasPath: "
        "Invalid value: '.status.replicas': no such field in the schema",
    ),
    "selectable field that is an object": (
        HEADER
        + "class Inner(op.Model):\n    a: int = 0\n\nclass Spec(op.Model):\n    inner: Inner = Inner()\n"
        + _kind(extra='@op.selectable_field(".spec.inner")\n'),
        "must point to a field of type string, boolean or integer",
    ),
    "enum values of the wrong type": (
        HEADER
        + "class Spec(op.Model):\n    x: Annotated[int, op.Enum('a', 'b')]\n"
        + _kind(),
        "op.Enum('a', 'b'): has values of type string for a integer field",
    ),
    "items marker on a map": (
        HEADER
        + "class Spec(op.Model):\n    m: Annotated[dict[str, str], op.Items(op.MinLength(1))] = {}\n"
        + _kind(),
        "op.Items(op.MinLength(1)): applies to lists, but this is object",
    ),
}


def test_printer_column_to_a_missing_field_is_a_warning(tmp_path: Path) -> None:
    """The API server takes it (it only parses JSONPaths); kubectl shows it empty."""
    types = tmp_path / "case_types.py"
    types.write_text(
        HEADER
        + "class Spec(op.Model):\n    x: int = 0\n"
        + _kind(
            extra='@op.print_column(name="X", type="integer", json_path=".spec.y")\n'
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("warning: ")
    assert (
        "printer column 'X' reads '.spec.y', which is not a field of the schema, "
        "so `kubectl get` would always show it empty"
    ) in result.stderr
    assert "would refuse" not in result.stderr
    assert (out / "things.example.com_things.yaml").is_file()


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name: str, tmp_path: Path) -> None:
    source, message = CASES[name]
    types = tmp_path / "case_types.py"
    types.write_text(source, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert message in result.stderr
    assert result.stderr.startswith("error: ")
    assert not out.exists()


def _version(version: str, extra: str = "", plural: str = "") -> str:
    names = f', plural="{plural}"' if plural else ""
    return (
        HEADER
        + "class Spec(op.Model):\n    x: int = 0\n\n"
        + f'@op.kind(group="things.example.com", version="{version}"{names})\n{extra}'
        + "class Thing(op.CustomResource[Spec, None]):\n    pass\n"
    )


MULTI_FILE_CASES: dict[str, tuple[list[str], str]] = {
    "two storage versions": (
        [
            _version("v1", "@op.storage_version()\n"),
            _version("v2", "@op.storage_version()\n"),
        ],
        "Thing.things.example.com has 2 storage versions (v1 in",
    ),
    "no storage version": (
        [_version("v1"), _version("v2")],
        "Thing.things.example.com has versions v1, v2 but none is the storage version",
    ),
    "versions disagree on names": (
        [_version("v1", "@op.storage_version()\n"), _version("v2", plural="thingies")],
        "the versions of Thing disagree on plural: v1 (",
    ),
    "one version defined twice": (
        [_version("v1"), _version("v1")],
        "things.example.com/v1 Thing is defined twice",
    ),
    "no version served": (
        [_version("v1", "@op.unserved_version()\n")],
        "no version of Thing.things.example.com is served",
    ),
}


@pytest.mark.parametrize("name", sorted(MULTI_FILE_CASES))
def test_bad_versions(name: str, tmp_path: Path) -> None:
    sources, message = MULTI_FILE_CASES[name]
    arguments = ["generate", "crd"]
    for position, source in enumerate(sources):
        path = tmp_path / f"version_{position}.py"
        path.write_text(source, encoding="utf-8")
        arguments += ["--types", str(path)]
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [*arguments, "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert message in result.stderr
    assert not out.exists()


def test_missing_types_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["generate", "crd", "--types", str(tmp_path / "nope.py"), "--out", str(out)],
    )
    assert result.exit_code == 1
    assert "nope.py: no such file" in result.stderr
    assert not out.exists()


def test_types_file_that_is_not_python(tmp_path: Path) -> None:
    types = tmp_path / "types.yaml"
    types.write_text("a: b\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "not a Python file" in result.stderr
    assert not out.exists()


def test_out_is_a_file(tmp_path: Path) -> None:
    types = tmp_path / "case_types.py"
    types.write_text(
        HEADER + "class Spec(op.Model):\n    x: int = 0\n" + _kind(), encoding="utf-8"
    )
    out = tmp_path / "out"
    out.write_text("not a directory", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "exists and is not a directory" in result.stderr
    assert out.read_text(encoding="utf-8") == "not a directory"


def test_one_bad_kind_writes_nothing_at_all(tmp_path: Path) -> None:
    types = tmp_path / "case_types.py"
    types.write_text(
        HEADER
        + "class Good(op.Model):\n    x: int = 0\n\nclass Bad(op.Model):\n    r: float = 1.0\n"
        + _kind(spec="Good", name="Aaa")
        + _kind(spec="Bad", name="Zzz"),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "Bad.r: float fields are refused" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "arguments",
    [
        ["generate", "crd", "--out", "x"],
        ["generate", "crd", "--types", "x.py"],
        ["generate", "crd", "--types", "x.py", "--out", "x", "--bogus"],
        ["generate", "nope"],
    ],
)
def test_usage_errors_exit_2(arguments: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 2


def _dag_source(levels: int, width: int) -> str:
    """Models that reuse each other: small in Python, large once inlined."""
    doc = "x" * 2000
    source = (
        HEADER
        + "class L0(op.Model):\n"
        + "".join(f'    f{i}: str = ""\n    """{doc}"""\n' for i in range(4))
    )
    for level in range(1, levels + 1):
        source += f"\n\nclass L{level}(op.Model):\n" + "".join(
            f"    f{i}: L{level - 1} | None = None\n" for i in range(width)
        )
    return source + _kind(spec=f"L{levels}")


def test_crd_over_the_etcd_limit_is_refused(tmp_path: Path) -> None:
    types = tmp_path / "case_types.py"
    types.write_text(_dag_source(levels=3, width=7), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "over the 1.5 MiB etcd limit" in result.stderr
    assert not out.exists()


def test_crd_over_256_kib_is_written_with_a_warning(tmp_path: Path) -> None:
    types = tmp_path / "case_types.py"
    types.write_text(_dag_source(levels=2, width=7), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "warning: " in result.stderr
    assert "over 256 KiB, client-side `kubectl apply` fails" in result.stderr
    assert "last-applied-configuration" in result.stderr
    assert "kubectl apply --server-side" in result.stderr
    assert (out / "things.example.com_things.yaml").stat().st_size > 256 * 1024


@pytest.mark.parametrize("command", [["generate"], ["generate", "manifests"]])
def test_project_generators_outside_a_project_point_at_init_and_crd(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a project `opgen generate` says where it must run, and what to use instead."""
    (tmp_path / "raycluster_types.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")
    assert (
        f"`opgen {' '.join(command)}` must run in the root folder of a project "
        "made by `opgen init` (there is no PROJECT file here)"
    ) in result.stderr
    assert "`opgen generate crd --types FILE.py --out DIR`" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raycluster_types.py"]


def test_generate_help_lists_the_generators() -> None:
    result = CliRunner().invoke(app, ["generate", "--help"])
    assert result.exit_code == 0
    assert "Usage: opgen generate" in result.output
    assert "crd" in result.output and "manifests" in result.output
