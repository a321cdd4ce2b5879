"""controller-tools' CronJob test API, ported: opgen's CRDs match controller-gen's.

`cronjob/expected/` holds controller-gen's golden CRDs reduced to the features
opgen claims (see cronjob/README.md). Two comparisons per CRD: parsed YAML
(the semantics) and bytes (the formatting: key order, folding, quoting).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
import yaml

from opgen import __version__
from opgen.errors import Diagnostic
from opgen.load import load_kinds
from opgen.render.crd import render_crds

HERE = Path(__file__).parent / "cronjob"

PORTS = {
    "testdata.kubebuilder.io_cronjobs.yaml": [
        "cronjob_v1.py",
        "cronjob_v1beta1.py",
        "cronjob_v1beta2.py",
    ],
    "testdata.kubebuilder.io_immutabletypes.yaml": ["immutable_types.py"],
    "testdata.kubebuilder.io_oneofs.yaml": ["oneof_types.py"],
}

DIFFERENCES = {
    # field → why opgen's expected fragment differs from controller-gen's output
    "fieldLevelAliasOverride": "field-level markers override the named type's instead of "
    "producing allOf: [{maxLength: 255, minLength: 1}, {maxLength: 10, minLength: 10}]",
    "fieldLevelLocalDeclarationOverride": "the same, instead of allOf: [{minLength: 4}, {minLength: 10}]",
}


def _generate(name: str) -> tuple[str, list[Diagnostic]]:
    loaded = load_kinds([HERE / file for file in PORTS[name]])
    files, diagnostics = render_crds(loaded.kinds, PurePosixPath("."))
    assert [file.path.name for file in files] == [name]
    return files[0].content, [*loaded.diagnostics, *diagnostics]


def _expected(name: str) -> str:
    text = (HERE / "expected" / name).read_text(encoding="utf-8")
    return text.replace("opgen.dev/version: 0.1.0", f"opgen.dev/version: {__version__}")


@pytest.mark.parametrize("name", sorted(PORTS))
def test_port_matches_controller_gen(name: str) -> None:
    content, _ = _generate(name)
    assert yaml.safe_load(content) == yaml.safe_load(_expected(name))


@pytest.mark.parametrize("name", sorted(PORTS))
def test_port_is_byte_identical(name: str) -> None:
    content, _ = _generate(name)
    assert content == _expected(name)


def test_documented_differences_are_the_only_ones() -> None:
    spec = yaml.safe_load(_expected("testdata.kubebuilder.io_cronjobs.yaml"))["spec"]
    properties = spec["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"
    ]
    for field in DIFFERENCES:
        assert "allOf" not in properties[field]
        assert properties[field]["minLength"] == properties[field]["maxLength"] == 10


def test_port_warns_where_controller_gen_is_silent() -> None:
    _, diagnostics = _generate("testdata.kubebuilder.io_cronjobs.yaml")
    messages = [str(d) for d in diagnostics]
    # op.Required() next to a default: the default can never apply.
    assert sum("required and has a default" in m for m in messages) == 13
    assert any("defaulted_string" in m for m in messages)
    # v1beta1 and v1beta2 have /status but no status field.
    assert sum("without a status field" in m for m in messages) == 2
    assert len(messages) == 15
