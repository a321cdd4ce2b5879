"""`opgen/api/k8s/patch_strategies.py` is read from the OpenAPI's strategic
merge patch facts, keeping only what a patch of a kind needs."""

from __future__ import annotations

from opgen.openapi.patching import patch_strategies
from opgen.render.core_types import CoreTypesSource, patch_strategies_file

REF = "#/components/schemas/"


def _document() -> dict[str, object]:
    schemas = {
        "x.v1.Thing": {
            "x-kubernetes-group-version-kind": [
                {"group": "x", "version": "v1", "kind": "Thing"}
            ],
            "properties": {
                "spec": {"allOf": [{"$ref": REF + "x.v1.ThingSpec"}]},
                "note": {"type": "string"},
            },
        },
        "x.v1.ThingList": {
            "x-kubernetes-group-version-kind": [
                {"group": "x", "version": "v1", "kind": "ThingList"}
            ],
            "properties": {"items": {"items": {"$ref": REF + "x.v1.Thing"}}},
        },
        "x.v1.ThingSpec": {
            "properties": {
                "parts": {
                    "items": {"allOf": [{"$ref": REF + "x.v1.Part"}]},
                    "x-kubernetes-patch-merge-key": "name",
                    "x-kubernetes-patch-strategy": "merge",
                },
                "plain": {"allOf": [{"$ref": REF + "x.v1.Plain"}]},
                "byName": {"additionalProperties": {"$ref": REF + "x.v1.Part"}},
            },
        },
        "x.v1.Part": {
            "properties": {
                "tags": {
                    "items": {"type": "string"},
                    "x-kubernetes-patch-strategy": "merge",
                }
            }
        },
        "x.v1.Plain": {"properties": {"size": {"type": "integer"}}},
    }
    return {"components": {"schemas": schemas}}


def test_only_the_facts_a_kind_reaches_are_kept() -> None:
    facts = patch_strategies({"apis/x/v1": _document()})
    assert facts.kinds == {"x/v1/Thing": "x.v1.Thing"}
    assert facts.types == {
        "x.v1.Thing": {"spec": ("", "", "x.v1.ThingSpec")},
        "x.v1.ThingSpec": {
            "byName": ("", "", "map:x.v1.Part"),
            "parts": ("merge", "name", "x.v1.Part"),
        },
        "x.v1.Part": {"tags": ("merge", "", "")},
    }


def test_the_module_is_plain_data() -> None:
    facts = patch_strategies({"apis/x/v1": _document()})
    namespace: dict[str, object] = {}
    source = CoreTypesSource("1.36.3", ("apis/x/v1",), ("k8s.io/api@v0.36.3",))
    file = patch_strategies_file(facts, source)
    assert str(file.path) == "opgen/api/k8s/patch_strategies.py"
    assert "kube-apiserver v1.36.3 (/openapi/v3/apis/x/v1)." in " ".join(
        file.content.split()
    )
    exec(file.content, namespace)
    assert namespace["KINDS"] == facts.kinds
    assert namespace["TYPES"] == facts.types
