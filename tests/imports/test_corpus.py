"""`opgen import crd` on the CRDs people run: 16 projects' published CRDs.

For each CRD of tests/imports/corpus.py (taken from the projects' Go modules
at pinned versions, cached by Go): `opgen import crd` imports it, and the CRD
`opgen generate` writes from the imported types is the published one again,
path by path, descriptions included (the differences docs/import.md allows
are the comparison's: `listKind`, the root's `apiVersion`/`kind`/`metadata`).
The imported packages pass one `mypy --strict` run and import in a fresh
interpreter. Where a project ships sample objects in its module (its
`examples/`, `config/samples/`), each goes to the imported model and, on
envtest with the published CRDs installed, to the API server (`dryRun=All`):
the verdicts agree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from opgen.load import LoadedKinds
from opgen.testing import Environment
from tests.imports.corpus import (
    CORPUS,
    Published,
    Sample,
    published_crds,
    published_samples,
)
from tests.imports.projects import ImportedProject, by_crd_name, opgen
from tests.proof.api import RawApi, opened, scratch_namespace

pytestmark = pytest.mark.slow


@dataclass
class Imported:
    entry: Published
    root: Path
    crds: list[dict[str, Any]] = field(default_factory=list)
    project: ImportedProject | None = None
    refused: str = ""


def _import(entry: Published, root: Path) -> Imported:
    crds = published_crds(entry)
    assert crds, f"{entry.project}: no CRD in {entry.files}"
    result = Imported(entry, root, crds)
    try:
        result.project = ImportedProject.create(root, crds, package=entry.package)
    except AssertionError as error:
        result.refused = str(error)
    return result


class _Corpus(dict[str, Imported]):
    """The corpus's projects, each imported when a test first asks for it."""

    def __init__(self, base: Path) -> None:
        super().__init__()
        self.base = base

    def __missing__(self, project: str) -> Imported:
        (entry,) = [e for e in CORPUS if e.project == project]
        self[project] = _import(entry, self.base / entry.package)
        return self[project]

    def everything(self) -> list[Imported]:
        return [self[entry.project] for entry in CORPUS]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> _Corpus:
    return _Corpus(tmp_path_factory.mktemp("corpus"))


def test_the_corpus_is_broad() -> None:
    assert len({entry.project.split(" (")[0] for entry in CORPUS}) >= 15
    assert sum(len(published_crds(entry)) for entry in CORPUS) >= 30


@pytest.mark.parametrize("entry", CORPUS, ids=lambda entry: entry.project)
def test_published_crds_import_and_come_back(corpus: _Corpus, entry: Published) -> None:
    imported = corpus[entry.project]
    assert imported.project is not None, imported.refused
    loaded = imported.project.loaded()
    failures = []
    known: set[str] = set()
    for crd in imported.crds:
        diff = imported.project.round_trip(crd, loaded=loaded)
        name = f"{entry.project} {entry.version} {crd['metadata']['name']}"
        print(diff.summary(name))
        differing = []
        for line in diff.differences:
            listed = [p for p in entry.differences if line.startswith(f"{p}:")]
            known.update(listed)
            if not listed:
                differing.append(line)
        # Nested metadata is never a difference of Kubernetes releases: each
        # node keeps its form (op.EmbeddedObjectMeta where it is described).
        differing += [line for line in diff.version_only if ".metadata" in line]
        if differing:
            failures.append(f"{name}:\n  " + "\n  ".join(differing[:40]))
    assert not failures, "\n".join(failures)
    # What still differs is what docs/import.md lists, no more and no less.
    assert known == set(entry.differences)


def test_imported_packages_pass_mypy_and_import(corpus: _Corpus) -> None:
    projects = [i.project for i in corpus.everything() if i.project is not None]
    assert projects
    environment = dict(os.environ)
    environment["MYPYPATH"] = os.pathsep.join(str(p.root) for p in projects)
    packages = [arg for p in projects for arg in ("-p", f"{p.package}.imported")]
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *packages],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout[-5000:]
    modules = [
        ".".join(path.relative_to(p.root).with_suffix("").parts[:-1])
        for p in projects
        for path in p.modules
    ]
    environment["PYTHONPATH"] = environment["MYPYPATH"]
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import importlib\nfor m in {modules!r}: importlib.import_module(m)",
        ],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr[-5000:]
    code, output = opgen(projects[0].root, "generate", "--check")
    assert code == 0, output


WITH_SAMPLES = [entry for entry in CORPUS if entry.samples]


def _model_verdict(loaded: LoadedKinds, sample: Sample) -> str:
    """ "" when the imported model takes the sample, else why not."""
    group, version = sample.body["apiVersion"].split("/")
    (kind,) = [
        k
        for k in loaded.kinds
        if k.group == group and k.names.kind == sample.body["kind"]
    ]
    model = loaded.models[kind.key(version)]
    try:
        model.model_validate(sample.body)
    except ValidationError as error:
        return str(error).splitlines()[0]
    return ""


def _server_verdict(
    api: RawApi, crd: dict[str, Any], sample: Sample, namespace: str
) -> str:
    """What the server says of the sample's kind-specific part: its metadata
    (the server's, which models leave to it) is a plain name, as a sample
    whose name a tool fills in (`generateName`, a placeholder label) gets."""
    body = {**sample.body, "metadata": {"name": "sample"}}
    if crd["spec"]["scope"] == "Namespaced":
        body["metadata"]["namespace"] = namespace
        where = f"namespaces/{namespace}/"
    else:
        where = ""
    path = f"/apis/{body['apiVersion']}/{where}{crd['spec']['names']['plural']}"
    verdict = api.create(path, body, dry_run=True)
    return "" if verdict.accepted else verdict.message or str(verdict)


@pytest.mark.envtest
@pytest.mark.parametrize("entry", WITH_SAMPLES, ids=lambda entry: entry.project)
def test_the_projects_samples_are_judged_as_the_server_judges_them(
    corpus: _Corpus, envtest: Environment, entry: Published
) -> None:
    imported = corpus[entry.project]
    assert imported.project is not None, imported.refused
    samples = published_samples(entry, imported.crds)
    assert samples, f"{entry.project}: no sample of its kinds in {entry.samples}"
    envtest.install_crds(imported.crds)
    loaded = imported.project.loaded()
    crds = by_crd_name(loaded)
    by_kind = {
        (crd["spec"]["group"], crd["spec"]["names"]["kind"]): crd
        for crd in imported.crds
    }
    assert set(crds) == {crd["metadata"]["name"] for crd in imported.crds}
    disagreements = []
    accepted = 0
    with (
        opened(envtest.kube_config()) as api,
        scratch_namespace(api, "samples") as namespace,
    ):
        for sample in samples:
            group = sample.body["apiVersion"].split("/")[0]
            crd = by_kind[group, sample.body["kind"]]
            ours = _model_verdict(loaded, sample)
            theirs = _server_verdict(api, crd, sample, namespace)
            accepted += not theirs
            if bool(ours) != bool(theirs):
                disagreements.append(
                    f"{sample.path}: model {ours or 'accepts'}; "
                    f"server {theirs or 'accepts'}"
                )
    print(
        f"{entry.project}: {len(samples)} samples, {accepted} accepted by the "
        f"server, {len(disagreements)} judged otherwise by the models"
    )
    assert not disagreements, "\n".join(disagreements)
