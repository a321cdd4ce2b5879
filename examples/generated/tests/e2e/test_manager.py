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
`python -m ray_operator` from this checkout.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from opgen.testing import Environment

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parents[2]
NAME = "ray-operator"
NAMESPACE = "ray-operator-system"
SERVICE_ACCOUNT = f"{NAME}-controller-manager"
SAMPLES_NAMESPACE = "e2e-samples"
TIMEOUT = 120.0
ROUTING = {
    "CustomResourceDefinition",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "Certificate",
    "Issuer",
}
"""Kinds of config/default the test does not apply (see above)."""


def applies(document: dict[str, Any]) -> bool:
    """Whether the test applies this object of config/default."""
    webhook_service = document["kind"] == "Service" and document["metadata"][
        "name"
    ].endswith("-webhook-service")
    return document["kind"] not in ROUTING and not webhook_service


def kubectl(kubeconfig: Path, *args: str, stdin: str | None = None) -> str:
    binary = shutil.which("kubectl")
    if binary is None:
        message = "kubectl is not on PATH; the e2e test applies config/default with it"
        if os.environ.get("OPGEN_REQUIRE_ENVTEST"):
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [binary, "--kubeconfig", str(kubeconfig), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"kubectl {' '.join(args)}:\n{done.stderr}"
    return done.stdout


def eventually(check: Callable[[], Any], what: str) -> Any:
    """`check()`'s first truthy result; fails after TIMEOUT seconds."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str, token: str | None = None) -> tuple[int, str]:
    """GET `url` (HTTPS without verifying the self-signed certificate)."""
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, timeout=5, context=context) as answer:
            return int(answer.status), answer.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), ""
    except OSError:
        return 0, ""


def added_objects() -> list[dict[str, Any]]:
    """What the test adds to config/default: a binding of the metrics-reader role
    to the manager's ServiceAccount (as Kubebuilder's e2e test makes), so that
    its token may read /metrics, and the samples' namespace."""
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": f"{NAME}-e2e-metrics-reader"},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": f"{NAME}-metrics-reader",
        },
        "subjects": [
            {"kind": "ServiceAccount", "name": SERVICE_ACCOUNT, "namespace": NAMESPACE}
        ],
    }
    namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": SAMPLES_NAMESPACE},
    }
    return [binding, namespace]


@pytest.fixture(scope="module")
def deployed(
    envtest: Environment, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """config/default applied; a kubeconfig holding the manager's ServiceAccount token."""
    admin = envtest.kubeconfig_path
    rendered = kubectl(admin, "kustomize", str(ROOT / "config/default"))
    applied = [d for d in yaml.safe_load_all(rendered) if d and applies(d)]
    applied += added_objects()
    kubectl(
        admin,
        "apply",
        "--server-side",
        "-f",
        "-",
        stdin=yaml.safe_dump_all(applied),
    )
    token = kubectl(admin, "create", "token", SERVICE_ACCOUNT, "-n", NAMESPACE).strip()
    config: dict[str, Any] = yaml.safe_load(admin.read_text())
    config["users"] = [{"name": SERVICE_ACCOUNT, "user": {"token": token}}]
    for context in config["contexts"]:
        context["context"]["user"] = SERVICE_ACCOUNT
        context["context"]["namespace"] = NAMESPACE
    identity = tmp_path_factory.mktemp("e2e") / "manager.kubeconfig"
    identity.write_text(yaml.safe_dump(config))
    yield identity
    kubectl(
        admin,
        "delete",
        "--ignore-not-found",
        "--wait=false",
        "-f",
        "-",
        stdin=yaml.safe_dump_all(applied),
    )


def manager_command() -> list[str]:
    command = os.environ.get("E2E_MANAGER")
    return shlex.split(command) if command else [sys.executable, "-m", "ray_operator"]


def test_the_manager_reconciles_every_sample_as_its_service_account(
    envtest: Environment, deployed: Path
) -> None:
    admin = envtest.kubeconfig_path
    probes, metrics, webhooks = free_port(), free_port(), free_port()
    process = subprocess.Popen(
        [
            *manager_command(),
            f"--health-probe-bind-address=127.0.0.1:{probes}",
            f"--metrics-bind-address=127.0.0.1:{metrics}",
            f"--webhook-port={webhooks}",
            "--leader-elect",
        ],
        cwd=ROOT,
        env={
            **os.environ,
            "KUBECONFIG": str(deployed),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        eventually(
            lambda: process.poll() is not None
            or get(f"http://127.0.0.1:{probes}/readyz")[0] == 200,
            "the manager to be ready",
        )
        assert process.poll() is None, "the manager exited"

        reader = kubectl(
            admin, "create", "token", SERVICE_ACCOUNT, "-n", NAMESPACE
        ).strip()
        url = f"https://127.0.0.1:{metrics}/metrics"
        assert get(url)[0] == 401, "metrics must need a token"

        samples = [
            document
            for path in sorted((ROOT / "config/samples").glob("*.yaml"))
            if path.name != "kustomization.yaml"
            for document in yaml.safe_load_all(path.read_text())
            if document
        ]
        for sample in samples:
            kubectl(
                admin,
                "apply",
                "-n",
                SAMPLES_NAMESPACE,
                "-f",
                "-",
                stdin=yaml.safe_dump(sample),
            )

        def reconciled() -> bool:
            status, text = get(url, reader)
            assert status == 200, f"GET /metrics answered {status}"
            done = errors = 0.0
            for line in text.splitlines():
                found = re.match(
                    r'controller_runtime_reconcile_total\{.*result="(\w+)".*\} (\S+)',
                    line,
                )
                if found is not None:
                    if found.group(1) == "error":
                        errors += float(found.group(2))
                    else:
                        done += float(found.group(2))
            assert errors == 0, "a reconcile failed; see the manager's output"
            return done >= len(samples)

        eventually(reconciled, "every sample to be reconciled")
        assert process.poll() is None, "the manager exited"
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "Forbidden" not in output, output
