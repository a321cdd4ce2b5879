"""Round trip: import a CRD, generate a CRD from the imported types, compare.

For every CRD of tests/imports/crds.py, `opgen import crd` writes the models
and kinds; opgen's own CRD generator then writes the CRD of the imported
kind, which must be the original, parsed, path by path: schemas of every
version (descriptions compared modulo whitespace), names, scope, printer
columns, subresources, selectable fields and version flags. The figures are
printed (`pytest -s`); the goal, 0 differing paths, is asserted. Inside nodes
typed as an older release of an op.k8s type, what the pinned release adds is
listed, not counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opgen.render.templating import format_python
from tests.imports import crds
from tests.imports.projects import ImportedProject

ONE_PROJECT = crds.TOGETHER


@pytest.fixture(scope="module")
def together(tmp_path_factory: pytest.TempPathFactory) -> ImportedProject:
    everything = crds.all_crds()
    return ImportedProject.create(
        tmp_path_factory.mktemp("together") / "project",
        [everything[name] for name in ONE_PROJECT],
    )


@pytest.mark.parametrize("name", ONE_PROJECT)
def test_import_then_generate_gives_the_crd_back(
    together: ImportedProject, name: str
) -> None:
    original = crds.all_crds()[name]
    diff = together.round_trip(original)
    print(diff.summary(f"{name} ({original['metadata']['name']})"))
    assert not diff.differences, diff.summary(name)
    assert not diff.version_only


@pytest.mark.parametrize(
    ("name", "crd"),
    [
        ("runner, maxDescLen=0", crds.without_descriptions(crds.runner())),
        ("runner, generateEmbeddedObjectMeta", crds.runner(embedded_object_meta=True)),
    ],
)
def test_the_same_kind_generated_with_controller_gens_options(
    tmp_path: Path, name: str, crd: dict[str, Any]
) -> None:
    project = ImportedProject.create(tmp_path / "project", [crd])
    diff = project.round_trip(crd)
    print(diff.summary(name))
    assert not diff.differences, diff.summary(name)


def test_both_forms_of_nested_metadata_in_one_crd(tmp_path: Path) -> None:
    """One pod template describes its metadata, the other does not (issue 22,
    class 11): each field keeps its form (`op.EmbeddedObjectMeta()` on the
    described one), so the CRD comes back as it was."""
    described = crds.runner(embedded_object_meta=True)
    plain = crds.runner()
    spec = described["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    workers = spec["properties"]["spec"]["properties"]["workers"]["items"]
    workers["properties"]["template"] = plain["spec"]["versions"][0]["schema"][
        "openAPIV3Schema"
    ]["properties"]["spec"]["properties"]["workers"]["items"]["properties"]["template"]
    project = ImportedProject.create(tmp_path / "project", [described])
    (module,) = project.modules
    text = module.read_text()
    assert text.count("op.EmbeddedObjectMeta()") == 1
    assert (
        "template: Annotated[op.k8s.PodTemplateSpec, op.EmbeddedObjectMeta()]" in text
    )
    diff = project.round_trip(described)
    print(diff.summary("runner with both forms"))
    assert not diff.differences, diff.summary("both forms")
    assert not diff.version_only


def test_a_pod_template_left_undescribed_in_a_described_crd(tmp_path: Path) -> None:
    """A CRD that leaves every description out below one field (Argo Workflows'
    `templateDefaults` and `status`, to stay under etcd's limit) gets
    `op.Undescribed()` there, so the CRD comes back as it was, no larger."""
    original = crds.runner()
    spec = original["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    workers = spec["properties"]["spec"]["properties"]["workers"]["items"]
    workers["properties"]["template"] = crds._undocumented(
        workers["properties"]["template"]
    )
    project = ImportedProject.create(tmp_path / "project", [original])
    (module,) = project.modules
    text = module.read_text()
    assert text.count("op.Undescribed()") == 1
    assert "template: Annotated[op.k8s.PodTemplateSpec, op.Undescribed()]" in text
    assert "older:" not in project.output
    diff = project.round_trip(original)
    print(diff.summary("runner with an undescribed template"))
    assert not diff.differences, diff.summary("undescribed template")
    assert not diff.version_only


def test_a_pod_template_of_an_older_release_is_listed_not_counted(
    tmp_path: Path,
) -> None:
    original = crds.older_runner()
    project = ImportedProject.create(tmp_path / "project", [original])
    assert "op.k8s.PodTemplateSpec (2)" in project.output
    older = project.older_nodes(original)
    assert sorted(older) == ["spec.template", "spec.workers[*].template"]
    diff = project.round_trip(original)
    print(diff.summary("runner with an older pod template"))
    assert not diff.differences, diff.summary("older runner")
    listed = "\n".join(diff.version_only)
    for field in (
        "spec.template.spec.hostUsers",
        "spec.template.spec.containers[*].resizePolicy",
        "spec.workers[*].template.spec.os",
    ):
        assert f"{field}: only in opgen's" in listed
    assert "containers[*].args x-kubernetes-list-type" in listed
    assert "ports[*].protocol default" in listed
    assert "containers[*].ports x-kubernetes-list-map-keys" in listed


def test_a_keyword_the_import_lost_is_named_by_its_path(tmp_path: Path) -> None:
    """The comparison can fail: a marker taken out of the imported module (as if
    the import had dropped it) is reported at its schema path."""
    original = crds.quota()
    project = ImportedProject.create(tmp_path / "project", [original])
    (module,) = project.modules
    text = module.read_text()
    assert text.count("Annotated[str, op.MinLength(1)]") == 1
    module.write_text(text.replace("Annotated[str, op.MinLength(1)]", "str"))
    diff = project.round_trip(original)
    assert diff.differences == [
        "spec.scopes[*].name minLength: opgen None, the original 1"
    ], diff.summary("quota without a marker")


def test_the_modules_are_as_black_writes_them(together: ImportedProject) -> None:
    """Statements are formatted one by one (opgen.render.templating.render_statement);
    the modules they make are what black makes of them whole."""
    files = sorted((together.root / "demo" / "imported").rglob("*.py"))
    assert len(files) > 10
    for path in files:
        text = path.read_text()
        assert format_python(text) == text, path
