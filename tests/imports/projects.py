"""Projects that import CRDs, for the tests of `opgen import crd`.

`ImportedProject.create(root, crds)` runs `opgen init`, writes the CRDs into
one file and imports them with the command line; `kinds()` loads the imported
modules (through opgen's loader, as a types file would be) and
`generated_crd(kind)` generates a CRD from the imported types, which
`round_trip(crd)` compares with the original, parsed, path by path.
"""

from __future__ import annotations

import copy
import importlib
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from typer.testing import CliRunner

from opgen.cli import app
from opgen.load import LoadedKinds, importable, load_kinds
from opgen.model.kinds import Kind
from opgen.pipeline import crd_of
from opgen.schema.options import CrdOptions
from tests.schema_paths import SchemaDiff, compare_crds

__all__ = ["ImportedProject", "as_compared", "by_crd_name", "has_descriptions", "opgen"]

PACKAGE = "demo"


def opgen(root: Path, *args: str, stdin: str | None = None) -> tuple[int, str]:
    """Run the command line in `root`: (exit code, stdout and stderr)."""
    result = CliRunner().invoke(app, ["-C", str(root), *args], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def by_crd_name(loaded: LoadedKinds) -> dict[str, Kind]:
    """The loaded kinds by CRD name."""
    return {kind.crd_name: kind for kind in loaded.kinds}


def has_descriptions(crd: dict[str, Any]) -> bool:
    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            return isinstance(node.get("description"), str) or any(
                walk(value) for value in node.values()
            )
        if isinstance(node, list):
            return any(walk(value) for value in node)
        return False

    return any(walk(v["schema"]) for v in crd["spec"]["versions"])


@dataclass
class ImportedProject:
    root: Path
    output: str
    package: str = PACKAGE

    @classmethod
    def create(
        cls,
        root: Path,
        crds: Sequence[dict[str, Any]],
        *flags: str,
        package: str = PACKAGE,
    ) -> ImportedProject:
        root.mkdir(parents=True, exist_ok=True)
        code, output = opgen(
            root,
            *("init", "--domain", "example.com"),
            *("--project-name", package.replace("_", "-")),
        )
        assert code == 0, output
        source = root.parent / f"{root.name}-crds.yaml"
        source.write_text(yaml.safe_dump_all(crds, sort_keys=False))
        code, output = opgen(root, "import", "crd", str(source), *flags)
        assert code == 0, output
        return cls(root, output, package)

    def add_own_kind(self, kind: str, types: str, reconciler: str) -> None:
        """`create api --group issuing --version v1 --kind KIND --no-controller`,
        the types file and a reconciler written in, then `opgen generate`."""
        code, output = opgen(
            self.root, "create", "api", "--group", "issuing", "--version", "v1",
            "--kind", kind, "--no-controller",
        )  # fmt: skip
        assert code == 0, output
        lower = kind.lower()
        (self.root / PACKAGE / "api" / "v1" / f"{lower}_types.py").write_text(types)
        controller = self.root / PACKAGE / "controller" / f"{lower}_controller.py"
        controller.write_text(reconciler)
        code, output = opgen(self.root, "generate")
        assert code == 0, output

    @property
    def modules(self) -> list[Path]:
        """The imported group/version modules (`<pkg>/imported/<group>/<version>`)."""
        base = self.root / self.package / "imported"
        return sorted(
            path / "__init__.py"
            for group in base.iterdir()
            if group.is_dir()
            for path in group.iterdir()
            if (path / "__init__.py").is_file()
        )

    def loaded(self) -> LoadedKinds:
        """The imported kinds, with the classes of their versions."""
        with importable(self.root, self.package):
            return load_kinds(self.modules)

    @contextmanager
    def imported(self, module: str) -> Iterator[ModuleType]:
        """`demo.imported....`, imported normally (as an operator would)."""
        sys.path.insert(0, str(self.root))
        try:
            yield importlib.import_module(module)
        finally:
            sys.path.remove(str(self.root))
            for name in [n for n in sys.modules if n.split(".")[0] == self.package]:
                del sys.modules[name]

    def round_trip(
        self, crd: dict[str, Any], *, loaded: LoadedKinds | None = None
    ) -> SchemaDiff:
        """Generate the CRD from the imported types and compare it with `crd`.

        Descriptions as the original has them (none, or all); nested
        metadata with the default option, the imported models saying where
        it is described (`op.EmbeddedObjectMeta`). Inside nodes the import
        typed as an older release of an op.k8s type, what the pinned release
        adds is listed apart."""
        loaded = loaded or self.loaded()
        kind = by_crd_name(loaded)[crd["metadata"]["name"]]
        options = CrdOptions(
            max_description_length=None if has_descriptions(crd) else 0
        )
        ours, _, _ = crd_of(loaded, kind, options)
        return compare_crds(
            as_compared(ours),
            as_compared(crd),
            newer_subtrees=self.older_nodes(crd),
            theirs_name="the original",
        )

    def older_nodes(self, crd: dict[str, Any]) -> list[str]:
        """Paths (`spec.template`) the import reported as older-release types."""
        kind = crd["spec"]["names"]["kind"]
        found = []
        for line in self.output.splitlines():
            if line.startswith("  older: "):
                path = line.removeprefix("  older: ").split(" ", 1)[0]
                if path.startswith(f"{kind}."):
                    found.append(path.removeprefix(f"{kind}."))
        return found


def as_compared(crd: dict[str, Any]) -> dict[str, Any]:
    """`crd` as the API server stores and means it, with the differences
    docs/import.md allows taken out: the names the server defaults (singular,
    `listKind`), an empty `subresources: {}` (none), `preserveUnknownFields:
    false` (the default), a conversion webhook (not imported), the order of
    `required` lists, and the root's type meta (`apiVersion`, `kind`,
    `metadata`: every object's, whatever the schema says)."""
    copied: dict[str, Any] = copy.deepcopy(crd)
    spec = copied["spec"]
    spec.pop("conversion", None)
    if spec.get("preserveUnknownFields") is False:
        del spec["preserveUnknownFields"]
    names = spec["names"]
    names.setdefault("singular", names["kind"].lower())
    names.setdefault("listKind", f"{names['kind']}List")
    for version in spec["versions"]:
        if version.get("subresources") == {}:
            del version["subresources"]
        root = version["schema"]["openAPIV3Schema"]
        _sort_required(root)
        for name in ("apiVersion", "kind", "metadata"):
            (root.get("properties") or {}).pop(name, None)
        required = [
            name
            for name in root.get("required", [])
            if name not in ("apiVersion", "kind", "metadata")
        ]
        if required:
            root["required"] = required
        else:
            root.pop("required", None)
    return copied


def _sort_required(node: Any) -> None:
    """`required` lists in name order (the server keeps them as given; their
    order means nothing)."""
    if isinstance(node, dict):
        if isinstance(node.get("required"), list):
            node["required"] = sorted(node["required"])
        for value in node.values():
            _sort_required(value)
    elif isinstance(node, list):
        for value in node:
            _sort_required(value)
