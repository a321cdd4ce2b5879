"""Build schemas of small models defined inside tests."""

from __future__ import annotations

from typing import Any

import opgen.api as op
from opgen.errors import Diagnostic
from opgen.schema import build_version_schema

GROUP = "tests.example.com"


def kind_of(spec: Any, status: Any = None) -> type[Any]:
    """A throw-away kind around `spec` (and `status`)."""

    @op.kind(group=GROUP, version="v1")
    class Thing(op.CustomResource[spec, status]):
        """A thing."""

    return Thing


def spec_schema(spec: Any) -> dict[str, Any]:
    """The `spec` node of the openAPIV3Schema of a kind around `spec`."""
    node: dict[str, Any] = build_version_schema(kind_of(spec)).schema["properties"][
        "spec"
    ]
    return node


def field(spec: Any, name: str) -> dict[str, Any]:
    """One property of the spec node."""
    node: dict[str, Any] = spec_schema(spec)["properties"][name]
    return node


def warnings_of(spec: Any) -> list[Diagnostic]:
    return list(build_version_schema(kind_of(spec)).diagnostics)
