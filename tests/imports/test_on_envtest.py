"""Imported models validate objects the way the API server does (envtest).

The original CRDs of tests/imports/crds.py are installed; their kinds are
imported into a project. As the property test does for opgen's own kinds
(tests/proof/test_pydantic_vs_server.py, whose machinery this reuses),
Hypothesis draws request bodies from each served version's schema, half of
them valid, half with constraints broken; each goes to the imported model
and (`dryRun=All`) to the API server, and the verdicts must agree, as must
the defaults both fill in. Then objects go through the generated typed
clients: good ones are created and read back, bad ones (built past Pydantic's
validation) are refused by the server where Pydantic refuses them too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import opgen.api as op
from opgen import runtime as rt
from opgen.load import LoadedKinds
from opgen.runtime.rest import RestClient
from opgen.testing import Environment
from tests.imports import crds
from tests.imports.projects import ImportedProject, by_crd_name
from tests.proof.api import RawApi, opened, scratch_namespace
from tests.proof.catalogue import ProofCrd
from tests.proof.drawn import draw_and_compare, scaled

pytestmark = [pytest.mark.envtest, pytest.mark.slow]

NAMES = crds.TOGETHER
EXAMPLES = scaled(40)
LARGE_EXAMPLES = scaled(10)
"""For the kind with two pod templates, whose objects are big."""


def _cases() -> list[tuple[str, str]]:
    everything = crds.all_crds()
    return [
        (name, str(version["name"]))
        for name in NAMES
        for version in everything[name]["spec"]["versions"]
        if version["served"]
    ]


@pytest.fixture(scope="module")
def imported(
    tmp_path_factory: pytest.TempPathFactory, envtest: Environment
) -> tuple[ImportedProject, LoadedKinds]:
    everything = crds.all_crds()
    originals = [everything[name] for name in NAMES]
    envtest.install_crds(originals)
    project = ImportedProject.create(
        tmp_path_factory.mktemp("imports-on-envtest") / "project", originals
    )
    return project, project.loaded()


@pytest.fixture(scope="module")
def raw_api(envtest: Environment) -> Iterator[RawApi]:
    with opened(envtest.kube_config()) as api:
        yield api


@pytest.fixture(scope="module")
def verdict_namespace(raw_api: RawApi) -> Iterator[str]:
    with scratch_namespace(raw_api, "opgen-imports") as name:
        yield name


@pytest.mark.parametrize(("name", "version"), _cases())
def test_imported_models_and_the_server_agree(
    imported: tuple[ImportedProject, LoadedKinds],
    raw_api: RawApi,
    verdict_namespace: str,
    name: str,
    version: str,
) -> None:
    original = crds.all_crds()[name]
    crd_name = original["metadata"]["name"]
    kind = by_crd_name(imported[1])[crd_name]
    entry = ProofCrd(crd_name, f"imported {name}", original, kind, imported[1])
    examples = LARGE_EXAMPLES if name == "runner" else EXAMPLES
    drawn = draw_and_compare(
        raw_api, entry, version, verdict_namespace, examples=examples
    )
    print(
        f"{name} {version}: {len(drawn.outcomes)} objects, {drawn.refused} refused "
        f"by the server, {len(drawn.mismatches)} mismatches"
    )
    assert not drawn.mismatches, drawn.failure()
    # Both verdicts were met, or the comparison proves little.
    assert drawn.accepted_valid, "the server refused every object drawn as valid"
    assert drawn.refused, "the server accepted every object drawn"


async def test_objects_go_through_the_generated_typed_clients(
    imported: tuple[ImportedProject, LoadedKinds],
    envtest: Environment,
    namespace: str,
) -> None:
    project, _ = imported
    rest = RestClient.from_kubeconfig(envtest.kube_config(), rt.ClientOptions(qps=0))
    try:
        with project.imported(
            "demo.imported.cert_manager_io.v1.zz_generated_client"
        ) as clients:
            models: Any = __import__("demo.imported.cert_manager_io.v1", fromlist=["x"])
            certificates = clients.CertificateClient(rt.Client(rest))
            good = models.Certificate(
                metadata=op.ObjectMeta(name="web", namespace=namespace),
                spec=models.CertificateSpec(
                    secret_name="web-tls",
                    issuer_ref=models.IssuerRef(
                        name="letsencrypt", kind="ClusterIssuer"
                    ),
                    dns_names=["example.com"],
                    private_key=models.PrivateKey(algorithm="ECDSA", size=256),
                    usages=["server auth"],
                ),
            )
            await certificates.create(good)
            read = await certificates.get("web", namespace=namespace)
            assert read.spec == good.spec
            assert read.spec.private_key.algorithm == "ECDSA"
            # The same object with a value Pydantic refuses: built past
            # validation, the server refuses it as well.
            wire = good.model_dump(mode="json", by_alias=True, exclude_none=True)
            wire["spec"]["privateKey"]["algorithm"] = "DSA"
            wire["metadata"] = {"name": "bad", "namespace": namespace}
            with pytest.raises(ValidationError, match="algorithm"):
                models.Certificate.model_validate(wire)
            bad = models.Certificate.model_construct(
                metadata=op.ObjectMeta(name="bad", namespace=namespace),
                spec=models.CertificateSpec.model_construct(
                    secret_name="x",
                    issuer_ref=models.IssuerRef(name="i"),
                    private_key=models.PrivateKey.model_construct(algorithm="DSA"),
                ),
            )
            with pytest.raises(rt.Invalid, match=r"spec\.privateKey\.algorithm"):
                await certificates.create(bad)
            await certificates.delete(read)
    finally:
        await rest.aclose()


def test_the_imported_copy_installs_like_the_original(
    imported: tuple[ImportedProject, LoadedKinds], envtest: Environment
) -> None:
    project, _ = imported
    copies = sorted(Path(project.root, "config", "imported").glob("*.yaml"))
    assert len(copies) == len(NAMES)
    envtest.install_crds(copies)  # the same CRDs again: accepted, unchanged
