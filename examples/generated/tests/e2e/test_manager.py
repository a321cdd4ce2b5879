# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""End to end: the manager, run as its own ServiceAccount, against a real control plane.

Kubebuilder's e2e test builds an image and needs kind and docker; this one
runs wherever the tests run. It applies `config/default` to the envtest API
server (`kubectl kustomize`; no kubelet runs the Deployment's pod), starts the
manager as the pod would, with a token of the ServiceAccount `config/rbac`
gives it, and creates every sample in `config/samples/`. Then it checks what
a cluster would show: the manager is ready, its metrics endpoint answers a
caller bound to the metrics-reader role, every sample was reconciled without
an error, and the API server refused the manager nothing.

What only routes the API server to the pod stays out, since no pod runs
behind the Service: the webhook configurations, the webhook Service and
cert-manager's objects (the session's envtest serves the webhooks, see
tests/conftest.py), and the CRDs, which the session installed.

`make test-e2e` runs it on the built wheel, installed as the image installs
it (`E2E_MANAGER` names that manager's command); without `E2E_MANAGER` it runs
`python -m ray_operator` from this checkout. `opgen.testing.e2e` does
the deploying and the running; this file holds the scenario.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from opgen.testing import Environment, e2e

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parents[2]
PACKAGE = "ray_operator"
SAMPLES_NAMESPACE = "e2e-samples"


@pytest.fixture(scope="module")
def deployed(
    envtest: Environment, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[e2e.DeployedConfig]:
    """config/default applied; a kubeconfig holding the manager's ServiceAccount token."""
    extra = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": SAMPLES_NAMESPACE},
        }
    ]
    with e2e.deployed_config(
        envtest, ROOT, tmp_path_factory.mktemp("e2e"), extra=extra
    ) as config:
        yield config


def test_the_manager_reconciles_every_sample_as_its_service_account(
    envtest: Environment, deployed: e2e.DeployedConfig
) -> None:
    with e2e.manager_process(
        PACKAGE,
        deployed.kubeconfig_path,
        cwd=ROOT,
        args=["--leader-elect"],
    ) as manager:
        assert manager.get_metrics()[0] == 401, "metrics must need a token"
        reader = deployed.token()

        samples = e2e.samples(ROOT)
        for sample in samples:
            e2e.kubectl(
                envtest.kubeconfig_path,
                "apply",
                "-n",
                SAMPLES_NAMESPACE,
                "-f",
                "-",
                stdin=yaml.safe_dump(sample),
            )

        def reconciled() -> bool:
            done, failed = manager.reconciles(reader)
            assert failed == 0, "a reconcile failed; see the manager's output"
            return done >= len(samples)

        e2e.wait_for(reconciled, "every sample to be reconciled")
        assert manager.running(), "the manager exited"
        assert manager.stop() == 0, manager.output
    assert "Forbidden" not in manager.output, manager.output
