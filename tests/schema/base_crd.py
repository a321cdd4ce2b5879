"""The small valid CRD that the checker's tests (and the proofs against the server)
break one rule at a time, and accessors for its parts."""

from __future__ import annotations

from typing import Any

__all__ = ["Crd", "base_crd", "first_version", "root_schema", "spec_schema"]

Crd = dict[str, Any]


def base_crd() -> Crd:
    """A small valid CRD: one version with a spec and a status."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "group": "example.com",
            "names": {
                "kind": "Thing",
                "listKind": "ThingList",
                "plural": "things",
                "singular": "thing",
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "apiVersion": {"type": "string"},
                                "kind": {"type": "string"},
                                "metadata": {"type": "object"},
                                "spec": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string"}},
                                },
                                "status": {
                                    "type": "object",
                                    "properties": {"ready": {"type": "boolean"}},
                                },
                            },
                        }
                    },
                }
            ],
        },
    }


def first_version(crd: Crd) -> dict[str, Any]:
    version: dict[str, Any] = crd["spec"]["versions"][0]
    return version


def root_schema(crd: Crd) -> dict[str, Any]:
    root: dict[str, Any] = first_version(crd)["schema"]["openAPIV3Schema"]
    return root


def spec_schema(crd: Crd) -> dict[str, Any]:
    spec: dict[str, Any] = root_schema(crd)["properties"]["spec"]
    return spec
