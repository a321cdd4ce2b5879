"""A project made by `opgen init` / `create api` / `generate`, for the typed-client tests.

It has a namespaced Widget and a cluster-scoped Gadget (group typed.opgen.dev),
both with the status and scale subresources. `opgen generate` writes their CRDs
and `typed_demo/api/v1/zz_generated_client.py`, whose `WidgetClient` and
`GadgetClient` the tests exercise against envtest and check with mypy --strict.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from typer.testing import CliRunner

from opgen.cli import app

PACKAGE = "typed_demo"
API = f"{PACKAGE}.api.v1"
CLIENT_MODULE = f"{API}.zz_generated_client"

WIDGET_TYPES = '''"""Widget: namespaced, with status and scale."""

import opgen.api as op

from typed_demo.api.v1.groupversion_info import GROUP, VERSION


class WidgetSpec(op.Model):
    """What a Widget wants."""

    replicas: int = 1
    """Desired replicas."""
    message: str = ""
    """A message."""


class WidgetStatus(op.Model):
    """What a Widget has."""

    replicas: int = 0
    """Observed replicas."""
    selector: str | None = None
    """Label selector of the replicas."""
    ready: bool | None = None
    """Whether it is ready."""


@op.kind(group=GROUP, version=VERSION)
@op.subresource_status()
@op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
class Widget(op.CustomResource[WidgetSpec, WidgetStatus]):
    """A namespaced kind."""
'''

GADGET_TYPES = '''"""Gadget: cluster-scoped, with status and scale."""

import opgen.api as op

from typed_demo.api.v1.groupversion_info import GROUP, VERSION
from typed_demo.api.v1.widget_types import WidgetSpec, WidgetStatus


@op.kind(group=GROUP, version=VERSION, scope="Cluster")
@op.subresource_status()
@op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
class Gadget(op.CustomResource[WidgetSpec, WidgetStatus]):
    """A cluster-scoped kind."""
'''


@dataclass(frozen=True)
class TypedProject:
    root: Path
    clients: ModuleType
    widget_types: ModuleType
    gadget_types: ModuleType

    @property
    def crds(self) -> Path:
        return self.root / "config" / "crd" / "bases"

    @property
    def client_file(self) -> Path:
        return self.root / PACKAGE / "api" / "v1" / "zz_generated_client.py"


def opgen(root: Path, *args: str) -> None:
    result = CliRunner().invoke(app, ["-C", str(root), *args])
    assert result.exit_code == 0, f"opgen {' '.join(args)}: {result.output}"


def generate_project(root: Path) -> Path:
    """Scaffold the project in `root` and run `opgen generate`; returns `root`."""
    opgen(root, "init", "--domain", "opgen.dev", "--project-name", "typed-demo")
    for kind, scope in (("Widget", "--namespaced"), ("Gadget", "--cluster")):
        opgen(
            root,
            "create",
            "api",
            "--group",
            "typed",
            "--version",
            "v1",
            "--kind",
            kind,
            scope,
            "--no-controller",
        )
    api = root / PACKAGE / "api" / "v1"
    (api / "widget_types.py").write_text(WIDGET_TYPES)
    (api / "gadget_types.py").write_text(GADGET_TYPES)
    opgen(root, "generate")
    return root


@contextmanager
def imported(root: Path) -> Iterator[TypedProject]:
    """The generated project, importable while the context lasts."""
    sys.path.insert(0, str(root))
    try:
        yield TypedProject(
            root=root,
            clients=importlib.import_module(CLIENT_MODULE),
            widget_types=importlib.import_module(f"{API}.widget_types"),
            gadget_types=importlib.import_module(f"{API}.gadget_types"),
        )
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n.split(".")[0] == PACKAGE]:
            del sys.modules[name]
