"""CEL's optional syntax and Kubernetes' sets library: opgen's verdicts are a real API server's.

The CRD of tests/cel/extras_cases.py is installed; each object of `SPECS` is
sent (dry run) and the server's causes (field and message) must be those
opgen's rule check finds on the same object.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from opgen.testing import Environment
from tests.cel.extras_cases import SPECS, crd_for_extras
from tests.cel.test_extras import opgen_causes
from tests.proof.api import RawApi


@pytest.fixture(scope="module")
def extras_installed(envtest: Environment) -> Iterator[None]:
    crd = crd_for_extras()
    envtest.install_crds([crd])
    yield
    envtest.uninstall_crds([crd])


@pytest.mark.parametrize("position", range(len(SPECS)))
def test_the_server_and_opgen_refuse_the_same_objects_alike(
    raw_api: RawApi, proof_namespace: str, extras_installed: None, position: int
) -> None:
    spec = SPECS[position]
    body = {
        "apiVersion": "cases.opgen.dev/v1",
        "kind": "Extra",
        "metadata": {"name": f"extra-{position}"},
        "spec": spec,
    }
    path = f"/apis/cases.opgen.dev/v1/namespaces/{proof_namespace}/extras"
    verdict = raw_api.create(path, body, dry_run=True)
    server = {(c.field, c.message) for c in verdict.causes}
    assert verdict.accepted == (not server), verdict
    assert opgen_causes(spec) == server, verdict
