"""Every CRD opgen's own tests produce, with the Python kinds behind it.

Three sources: the golden CRDs (`tests/crd/golden`, one per marker and special
type), the port of controller-tools' CronJob API (`tests/crd/cronjob`, rendered
here: the files in `expected/` are the same CRDs without `jobTemplate`, see
tests/crd/test_cronjob_port.py) and the quick-start example
(`examples/standalone/raycluster_types.py`, rendered here).
Each entry keeps the CRD exactly as written to disk (or rendered) and the
`op.CustomResource` class of every version, so tests can build objects with
Pydantic and send them to the API server.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from opgen.load import LoadedKinds, load_kinds
from opgen.model.kinds import Kind
from opgen.pipeline import crds
from tests.crd import golden

__all__ = [
    "EXAMPLE",
    "ProofCrd",
    "catalogue",
    "crd_by_name",
    "resource_path",
]

ROOT = Path(__file__).resolve().parents[2]
CRONJOB_DIR = ROOT / "tests" / "crd" / "cronjob"
EXAMPLE = ROOT / "examples" / "standalone" / "raycluster_types.py"


@dataclass(frozen=True)
class ProofCrd:
    """One CRD as installed, where it came from, and its kind's versions."""

    name: str
    origin: str
    body: dict[str, Any]
    kind: Kind
    loaded: LoadedKinds

    @property
    def group(self) -> str:
        return str(self.body["spec"]["group"])

    @property
    def plural(self) -> str:
        return str(self.body["spec"]["names"]["plural"])

    @property
    def namespaced(self) -> bool:
        return bool(self.body["spec"]["scope"] == "Namespaced")

    @property
    def storage_version(self) -> str:
        return next(
            str(v["name"]) for v in self.body["spec"]["versions"] if v["storage"]
        )

    def served_versions(self) -> list[str]:
        return [str(v["name"]) for v in self.body["spec"]["versions"] if v["served"]]

    def model(self, version: str) -> type[Any]:
        """The `op.CustomResource` class of one version."""
        try:
            return self.loaded.models[self.kind.key(version)]
        except KeyError:
            raise KeyError(f"{self.name} has no version {version}") from None

    def version(self, version: str) -> dict[str, Any]:
        """The CRD's entry for `version` (spec.versions[*])."""
        entry: dict[str, Any] = next(
            v for v in self.body["spec"]["versions"] if v["name"] == version
        )
        return entry

    def has_status_subresource(self, version: str) -> bool:
        """With /status on, the server ignores `status` in creates and updates."""
        return "status" in (self.version(version).get("subresources") or {})

    def schema(self, version: str) -> dict[str, Any]:
        for entry in self.body["spec"]["versions"]:
            if entry["name"] == version:
                schema: dict[str, Any] = entry["schema"]["openAPIV3Schema"]
                return schema
        raise KeyError(f"{self.name} has no version {version}")


def _read(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return document


def _by_crd_name(kinds: tuple[Kind, ...]) -> dict[str, Kind]:
    return {kind.crd_name: kind for kind in kinds}


@functools.cache
def catalogue() -> tuple[ProofCrd, ...]:
    """All CRDs, sorted by name: golden, CronJob port, example."""
    entries: list[ProofCrd] = []
    golden_loaded = load_kinds(golden.case_files())
    golden_kinds = _by_crd_name(golden_loaded.kinds)
    for path in golden.golden_crd_paths():
        body = _read(path)
        name = body["metadata"]["name"]
        entries.append(
            ProofCrd(name, path.name, body, golden_kinds[name], golden_loaded)
        )
    for paths in (sorted(CRONJOB_DIR.glob("*.py")), [EXAMPLE]):
        loaded = load_kinds(paths)
        files, _ = crds(loaded, PurePosixPath("."))
        kinds = _by_crd_name(loaded.kinds)
        for file in files:
            body = yaml.safe_load(file.content)
            name = body["metadata"]["name"]
            origin = EXAMPLE.name if paths == [EXAMPLE] else f"cronjob/{file.path}"
            entries.append(ProofCrd(name, origin, body, kinds[name], loaded))
    return tuple(sorted(entries, key=lambda entry: entry.name))


def served_kind_versions() -> list[tuple[str, str]]:
    """(CRD name, version) for every served version in the catalogue: test parameters."""
    return [
        (entry.name, version)
        for entry in catalogue()
        for version in entry.served_versions()
    ]


def crd_by_name(name: str) -> ProofCrd:
    for entry in catalogue():
        if entry.name == name:
            return entry
    raise KeyError(name)


def resource_path(
    crd: ProofCrd, version: str, namespace: str | None, name: str | None = None
) -> str:
    """The REST path of a custom resource collection (or of one object)."""
    path = f"/apis/{crd.group}/{version}"
    if crd.namespaced:
        assert namespace is not None, f"{crd.name} is namespaced"
        path += f"/namespaces/{namespace}"
    path += f"/{crd.plural}"
    return f"{path}/{name}" if name else path
