"""Shapes published CRDs have, each imported, regenerated and used.

One test per class of failure issue 22 found on the CRDs people run (the
corpus test, tests/imports/test_corpus.py, meets them in the projects' own
files): object defaults, a missing `listKind`, two JSON names of one Python
name, names that would shadow Python's or Pydantic's, YAML that only a YAML
1.1 reader misreads, junctors (`oneOf`, `anyOf`, `allOf`, `not`) and keywords
on nodes they do not apply to.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from opgen.openapi.crd import crd_documents
from opgen.pipeline import crd_of
from opgen.schema.check import inspect_crd
from opgen.schema.options import CrdOptions
from tests.imports.crds import Node, array, crd, integer, obj, root, string, version
from tests.imports.projects import ImportedProject, by_crd_name

MODULE = "demo.imported.example_com.v1"


def _crd(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return crd(
        "example.com",
        "Widget",
        "widgets",
        [version("v1", root("A widget.", spec, status), status=status is not None)],
    )


def _round_trip(project: ImportedProject, original: dict[str, Any]) -> None:
    diff = project.round_trip(original)
    assert not diff.differences, diff.summary("widgets.example.com")


def test_object_defaults_are_instances_and_come_back(tmp_path: Path) -> None:
    target = obj(
        {"creationPolicy": string(), "deletionPolicy": string(), "name": string()},
        default={"creationPolicy": "Owner", "deletionPolicy": "Retain"},
    )
    item = obj({"name": string(), "weight": integer(default=1)})
    spec = obj(
        {
            "target": target,
            "empty": obj({"size": integer()}, default={}),
            "items": array(item, default=[{"name": "a"}, {"name": "b", "weight": 2}]),
        }
    )
    status = obj({"observedGeneration": integer()}, default={"observedGeneration": -1})
    original = _crd(spec, status)
    project = ImportedProject.create(tmp_path / "p", [original])
    written = (project.root / "demo/imported/example_com/v1/__init__.py").read_text()
    source = " ".join(written.split()).replace("( ", "(").replace(" )", ")")
    assert 'lambda: Target(creation_policy="Owner", deletion_policy="Retain")' in source
    assert 'lambda: [Item(name="a"), Item(name="b", weight=2)]' in source
    assert "lambda: Empty()" in source
    _round_trip(project, original)
    with project.imported(MODULE) as module:
        widget = module.WidgetSpec()
        assert widget.target.creation_policy == "Owner"
        assert [i.name for i in widget.items] == ["a", "b"]
        assert widget.items[0].weight == 1
        assert module.WidgetStatus().observed_generation is None


def test_a_missing_list_kind_is_the_servers_default(tmp_path: Path) -> None:
    original = _crd(obj({"size": integer()}))
    del original["spec"]["names"]["listKind"]
    del original["spec"]["names"]["singular"]
    project = ImportedProject.create(tmp_path / "p", [original])
    _round_trip(project, original)


def test_json_names_of_one_python_name_get_distinct_names(tmp_path: Path) -> None:
    spec = obj(
        {
            "mirror_percent": integer("The old spelling."),
            "mirrorPercent": integer("The new spelling."),
            "proxyURL": string(),
            "proxyUrl": string(),
        }
    )
    original = _crd(spec)
    project = ImportedProject.create(tmp_path / "p", [original])
    _round_trip(project, original)
    with project.imported(MODULE) as module:
        widget = module.WidgetSpec.model_validate(
            {"mirror_percent": 1, "mirrorPercent": 2, "proxyURL": "a", "proxyUrl": "b"}
        )
        assert (widget.mirror_percent, widget.mirror_percent_2) == (2, 1)
        assert (widget.proxy_url, widget.proxy_url_2) == ("b", "a")
        assert widget.model_dump(exclude_none=True) == {
            "mirror_percent": 1,
            "mirrorPercent": 2,
            "proxyURL": "a",
            "proxyUrl": "b",
        }


def test_names_that_would_shadow_python_or_pydantic_are_renamed(
    tmp_path: Path,
) -> None:
    names = ["list", "dict", "str", "int", "op", "json", "copy", "schema"]
    names += ["model_config", "modelFields", "validate"]
    spec = obj(
        {
            **{name: string() for name in names},
            "after": array(integer()),
            "later": obj({"x": integer()}),
        }
    )
    original = _crd(spec)
    project = ImportedProject.create(tmp_path / "p", [original])
    _round_trip(project, original)
    with project.imported(MODULE) as module:
        body = {name: name.upper() for name in names} | {"after": [1]}
        widget = module.WidgetSpec.model_validate(body)
        assert widget.model_dump(exclude_none=True) == body
        assert widget.list_ == "LIST" and widget.op_ == "OP"


def test_yaml_is_read_as_the_api_server_reads_it() -> None:
    enum_node = "enum: [=, '!=', =~]"
    document = f"""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: matchers.example.com}}
spec:
  group: example.com
  names: {{kind: Matcher, plural: matchers}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              matchType: {{type: string, {enum_node}}}
              since: {{type: string, enum: [2001-12-14, 1:20]}}
"""
    (found,) = crd_documents(document, "matchers.yaml")
    schema = found.spec["versions"][0]["schema"]["openAPIV3Schema"]
    spec = schema["properties"]["spec"]["properties"]
    assert spec["matchType"]["enum"] == ["=", "!=", "=~"]
    assert spec["since"]["enum"] == ["2001-12-14", "1:20"]


def test_junctors_are_kept_and_checked_as_the_server_checks_them(
    tmp_path: Path,
) -> None:
    hashing = obj(
        {"maglev": obj({"size": integer()}), "ringHash": obj({"size": integer()})},
        oneOf=[{"required": ["maglev"]}, {"required": ["ringHash"]}],
    )
    spec = obj(
        {
            "hashing": hashing,
            "port": integer(**Node({"not": {"enum": [0]}})),
            "mode": string(anyOf=[{"enum": ["a"]}, {"pattern": "^x"}]),
            "weights": array(integer(), allOf=[{"maxItems": 3}, {"minItems": 1}]),
        }
    )
    original = _crd(spec)
    project = ImportedProject.create(tmp_path / "p", [original])
    _round_trip(project, original)
    with project.imported(MODULE) as module:
        module.WidgetSpec.model_validate(
            {"hashing": {"maglev": {}}, "port": 1, "mode": "xyz", "weights": [1]}
        )
        bad: Node
        for bad in (
            {"hashing": {"maglev": {}, "ringHash": {}}},
            {"hashing": {}},
            {"port": 0},
            {"mode": "b"},
            {"weights": []},
        ):
            with pytest.raises(ValidationError):
                module.WidgetSpec.model_validate(bad)


def test_keywords_that_do_not_apply_to_a_node_are_kept(tmp_path: Path) -> None:
    values = array(string(), maxLength=63, pattern="^[a-z]*$")
    original = _crd(obj({"values": values}))
    project = ImportedProject.create(tmp_path / "p", [original])
    written = (project.root / "demo/imported/example_com/v1/__init__.py").read_text()
    assert "op.InapplicableKeywords(maxLength=63" in written
    _round_trip(project, original)
    with project.imported(MODULE) as module:
        long_values = ["x" * 100, "NOT-LOWER"]  # the server checks neither
        assert module.WidgetSpec(values=long_values).values == long_values


def test_the_approval_annotation_the_server_requires_is_kept(tmp_path: Path) -> None:
    original = crd(
        "gateway.networking.k8s.io",
        "Route",
        "routes",
        [version("v1", root("A route.", obj({"host": string()})))],
    )
    approval = "https://github.com/kubernetes-sigs/gateway-api/pull/1"
    original["metadata"]["annotations"]["api-approved.kubernetes.io"] = approval
    project = ImportedProject.create(tmp_path / "p", [original])
    loaded = project.loaded()
    kind = by_crd_name(loaded)["routes.gateway.networking.k8s.io"]
    ours, _, _ = crd_of(loaded, kind, CrdOptions())
    assert ours["metadata"]["annotations"]["api-approved.kubernetes.io"] == approval
    assert not inspect_crd(ours, {}, None).errors
