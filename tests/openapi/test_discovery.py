"""The kinds of op.k8s and their facts come from the API server's discovery."""

from __future__ import annotations

import pytest

from opgen.errors import SchemaError
from opgen.model.kinds import BuiltinResource
from opgen.openapi.kubernetes import (
    GROUP_VERSIONS,
    discovered_kinds,
    discovery_path,
    document_paths,
)

DOCUMENTS = {
    "apis/apps/v1": {
        "components": {
            "schemas": {
                "io.k8s.api.apps.v1.Deployment": {
                    "x-kubernetes-group-version-kind": [
                        {"group": "apps", "version": "v1", "kind": "Deployment"}
                    ]
                },
                "io.k8s.api.autoscaling.v1.Scale": {
                    "x-kubernetes-group-version-kind": [
                        {"group": "autoscaling", "version": "v1", "kind": "Scale"}
                    ]
                },
            }
        }
    },
    "api/v1": {
        "components": {
            "schemas": {
                "io.k8s.api.core.v1.Namespace": {
                    "x-kubernetes-group-version-kind": [
                        {"group": "", "version": "v1", "kind": "Namespace"}
                    ]
                }
            }
        }
    },
}

DISCOVERY = {
    "apps/v1": {
        "resources": [
            {"name": "deployments", "kind": "Deployment", "namespaced": True},
            {"name": "deployments/status", "kind": "Deployment", "namespaced": True},
            {"name": "deployments/scale", "kind": "Scale", "namespaced": True},
        ]
    },
    "v1": {
        "resources": [
            {"name": "namespaces", "kind": "Namespace", "namespaced": False},
            {"name": "namespaces/finalize", "kind": "Namespace", "namespaced": False},
        ]
    },
}


def test_each_resource_of_discovery_is_a_kind_with_its_facts() -> None:
    assert discovered_kinds(DISCOVERY, DOCUMENTS) == {
        "io.k8s.api.apps.v1.Deployment": BuiltinResource(
            group="apps",
            version="v1",
            kind="Deployment",
            plural="deployments",
            namespaced=True,
            subresources=("scale", "status"),
        ),
        "io.k8s.api.core.v1.Namespace": BuiltinResource(
            group="",
            version="v1",
            kind="Namespace",
            plural="namespaces",
            namespaced=False,
            subresources=("finalize",),
        ),
    }


def test_a_resource_without_a_definition_is_an_error() -> None:
    discovery = {
        "v1": {"resources": [{"name": "pods", "kind": "Pod", "namespaced": True}]}
    }
    with pytest.raises(SchemaError, match="v1 Pod: no /openapi/v3 definition"):
        discovered_kinds(discovery, DOCUMENTS)


def test_every_group_version_is_read() -> None:
    assert discovery_path("v1") == "api/v1"
    assert discovery_path("rbac.authorization.k8s.io/v1") == (
        "apis/rbac.authorization.k8s.io/v1"
    )
    paths = document_paths()
    assert {discovery_path(gv) for gv in GROUP_VERSIONS} <= set(paths)
    assert "apis/autoscaling/v2" in paths and "api/v1" in paths
