"""Strategic merge patch on the memory server alone: where its facts come from
and when they load (`test_agreement.py`'s strategic scenarios hold the merge
itself to envtest)."""

from __future__ import annotations

import json
from typing import Any

from opgen.testing.memory import MemoryApiServer
from opgen.testing.memory.strategic import root_type, strategic_merge
from tests.fresh import in_fresh_interpreter
from tests.testing.memory.crds import served_kinds

STRATEGIC = "application/strategic-merge-patch+json"


def test_importing_op_k8s_does_not_load_the_patch_facts() -> None:
    code = (
        "import sys\n"
        "import opgen.api.k8s as k8s\n"
        "k8s.Deployment\n"
        "print('opgen.api.k8s.patch_strategies' in sys.modules)\n"
    )
    assert in_fresh_interpreter(code) == "False"


def test_the_facts_are_kubernetes_own() -> None:
    from opgen.api.k8s.patch_strategies import TYPES

    assert root_type("apps", "v1", "Deployment") == "io.k8s.api.apps.v1.Deployment"
    pod = TYPES["io.k8s.api.core.v1.PodSpec"]
    assert pod["containers"] == ("merge", "name", "io.k8s.api.core.v1.Container")
    assert pod["volumes"] == ("merge,retainKeys", "name", "io.k8s.api.core.v1.Volume")
    meta = TYPES["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]
    assert meta["finalizers"] == ("merge", "", "")


def test_containers_merge_by_name_and_new_ones_come_first() -> None:
    original: dict[str, Any] = {
        "spec": {
            "containers": [
                {"name": "a", "image": "one", "env": [{"name": "X", "value": "1"}]},
                {"name": "b", "image": "two"},
            ]
        }
    }
    patch = {
        "spec": {
            "containers": [
                {"name": "c", "image": "three"},
                {"name": "a", "env": [{"name": "Y", "value": "2"}]},
            ]
        }
    }
    merged = strategic_merge(original, patch, "io.k8s.api.core.v1.PodTemplateSpec")
    containers = merged["spec"]["containers"]
    assert [c["name"] for c in containers] == ["c", "a", "b"]
    assert containers[1]["image"] == "one"
    assert [e["name"] for e in containers[1]["env"]] == ["Y", "X"]
    assert original["spec"]["containers"][0]["env"] == [{"name": "X", "value": "1"}]


def test_a_custom_resource_refuses_it_before_looking_for_the_object() -> None:
    server = MemoryApiServer(served_kinds())
    code, answer = server.handle(
        "PATCH",
        "/apis/test.opgen.dev/v1/namespaces/default/widgets/missing",
        json.dumps({"spec": {}}).encode(),
        STRATEGIC,
    )
    assert code == 415 and answer is not None
    assert answer["reason"] == "UnsupportedMediaType"
