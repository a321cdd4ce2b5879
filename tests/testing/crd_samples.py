"""Hand-written CRDs for the envtest proofs (not generated: the engine is proven elsewhere)."""

from __future__ import annotations

from typing import Any

import opgen.api as op

GROUP = "envtest.opgen.dev"


class SampleSpec(op.Model):
    """The spec `widget_crd` describes; unset fields stay out of what is sent."""

    size: int | None = None
    color: str | None = None


@op.kind(group=GROUP, version="v1")
class Widget(op.CustomResource[SampleSpec, None]):
    """`widget_crd()` as a kind the runtime client reads and writes."""


@op.kind(group=GROUP, version="v1")
class Sprocket(op.CustomResource[SampleSpec, None]):
    """`widget_crd("Sprocket", "sprockets")`."""


@op.kind(group=GROUP, version="v1")
class Cog(op.CustomResource[SampleSpec, None]):
    """`widget_crd("Cog", "cogs")`."""


def widget_crd(kind: str = "Widget", plural: str = "widgets") -> dict[str, Any]:
    """A valid namespaced CRD with a default, a minimum and a status subresource."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {
                "kind": kind,
                "listKind": f"{kind}List",
                "plural": plural,
                "singular": kind.lower(),
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "size": {
                                            "type": "integer",
                                            "minimum": 1,
                                            "default": 3,
                                        },
                                        "color": {"type": "string"},
                                    },
                                },
                                "status": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True,
                                },
                            },
                        }
                    },
                }
            ],
        },
    }


def misnamed_crd() -> dict[str, Any]:
    """Rejected by the API server: metadata.name must be <plural>.<group>."""
    crd = widget_crd(kind="Gadget", plural="gadgets")
    crd["metadata"]["name"] = f"not-gadgets.{GROUP}"
    return crd


def non_structural_crd() -> dict[str, Any]:
    """Rejected by the API server: a property without a type is not structural."""
    crd = widget_crd(kind="Gizmo", plural="gizmos")
    properties = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]
    properties["spec"]["properties"]["untyped"] = {"description": "no type here"}
    return crd
