"""Session fixtures of the proofs: one control plane, every CRD installed once.

All CRDs of the catalogue go in with a single `install_crds` call (which waits
until each is Established and served); verdicts use `dryRun=All`, so nothing
the proofs send is stored, except in the few tests that read objects back,
which work in the session's own namespace.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from opgen.testing import Environment
from tests.proof.api import RawApi, opened, scratch_namespace
from tests.proof.catalogue import ProofCrd, catalogue


@pytest.fixture(scope="session")
def raw_api(envtest: Environment) -> Iterator[RawApi]:
    with opened(envtest.kube_config()) as api:
        yield api


@pytest.fixture(scope="session")
def installed_crds(envtest: Environment) -> tuple[ProofCrd, ...]:
    """Every CRD of the catalogue, installed and Established."""
    entries = catalogue()
    envtest.install_crds([entry.body for entry in entries])
    return entries


@pytest.fixture(scope="session")
def proof_namespace(raw_api: RawApi) -> Iterator[str]:
    """A namespace for the objects the proofs really create."""
    with scratch_namespace(raw_api, "opgen-proofs") as name:
        yield name


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.proof.test_pydantic_vs_server import TALLY

    if TALLY.cases:
        terminalreporter.write_line(TALLY.summary())
