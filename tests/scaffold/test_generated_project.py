"""End to end: a multigroup project scaffolded, generated, and checked with its own tools.

The project gets two APIs in two groups and a controller for a core type,
then `opgen generate`. In it: black --check, ruff, mypy --strict, `kubectl
kustomize config/default`, and the project's own pytest against envtest.
Generating again is byte-identical; `generate --check` catches a hand edit.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen import runtime as rt
from opgen.testing import Environment
from tests.scaffold.cluster import (
    deploy,
    kubectl,
    kustomize,
    manager,
    sample,
    wait_ready,
)
from tests.scaffold.conftest import (
    api_args,
    check_code,
    opgen,
    run_project_tests,
    snapshot,
    tree_hash,
)

CREATES = [
    api_args("ray", "v1", "RayCluster"),
    api_args("batch", "v1alpha1", "CronTab", "--cluster"),
    api_args("apps", "v1", "Deployment", "--no-resource"),
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("e2e") / "fleet-operator"
    root.mkdir()
    assert (
        opgen(root, "init", "--domain", "fleet.example.com", "--multigroup").exit_code
        == 0
    )
    for args in CREATES:
        run = opgen(root, *args)
        assert run.exit_code == 0, run.stderr
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr
    return root


def test_generated_files(generated: Path) -> None:
    files = snapshot(generated)
    crds = sorted(name for name in files if name.startswith("config/crd/bases/"))
    assert crds == [
        "config/crd/bases/batch.fleet.example.com_crontabs.yaml",
        "config/crd/bases/ray.fleet.example.com_rayclusters.yaml",
    ]
    role = list(yaml.safe_load_all(files["config/rbac/role.yaml"]))
    assert [d["kind"] for d in role] == ["ClusterRole"]
    crud = ["create", "delete", "get", "list", "patch", "update", "watch"]

    def rule(group: str, resource: str, verbs: list[str]) -> dict[str, list[str]]:
        return {"apiGroups": [group], "resources": [resource], "verbs": verbs}

    assert role[0]["rules"] == [
        rule("apps", "deployments", crud),
        rule("apps", "deployments/status", ["get"]),
        rule("batch.fleet.example.com", "crontabs", crud),
        rule("batch.fleet.example.com", "crontabs/finalizers", ["update"]),
        rule("batch.fleet.example.com", "crontabs/status", ["get", "patch", "update"]),
        rule("events.k8s.io", "events", ["create", "patch"]),
        rule("ray.fleet.example.com", "rayclusters", crud),
        rule("ray.fleet.example.com", "rayclusters/finalizers", ["update"]),
        rule("ray.fleet.example.com", "rayclusters/status", ["get", "patch", "update"]),
    ]


def test_black_ruff_and_mypy_strict_pass(generated: Path) -> None:
    check_code(generated, "fleet_operator")


def test_kustomize_renders_the_default_overlay(generated: Path) -> None:
    objects = kustomize(generated)
    kinds = {(o["kind"], o["metadata"]["name"]) for o in objects}
    assert ("CustomResourceDefinition", "rayclusters.ray.fleet.example.com") in kinds
    assert ("Deployment", "fleet-operator-controller-manager") in kinds
    assert ("ClusterRole", "fleet-operator-manager-role") in kinds
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    assert deployment["metadata"]["namespace"] == "fleet-operator-system"
    pod = deployment["spec"]["template"]["spec"]
    args = pod["containers"][0]["args"]
    assert args[0] == "--metrics-bind-address=:8443"
    # Kubernetes waits longer than the manager drains before it sends SIGKILL.
    drain = rt.ManagerOptions().graceful_shutdown_timeout
    assert pod["terminationGracePeriodSeconds"] > drain


def test_kustomize_renders_prometheus_and_network_policy_once_uncommented(
    generated: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "fleet-operator"
    shutil.copytree(generated, copy)
    overlay = copy / "config/default/kustomization.yaml"
    text = overlay.read_text()
    assert "#- ../prometheus\n" in text and "#- ../network-policy\n" in text
    overlay.write_text(
        text.replace("#- ../prometheus\n", "- ../prometheus\n").replace(
            "#- ../network-policy\n", "- ../network-policy\n"
        )
    )
    rendered = kustomize(copy)
    objects = {(o["kind"], o["metadata"]["name"]) for o in rendered}
    assert (
        "ServiceMonitor",
        "fleet-operator-controller-manager-metrics-monitor",
    ) in objects
    assert ("NetworkPolicy", "fleet-operator-allow-metrics-traffic") in objects


def uncomment(text: str, tag: str) -> str:
    """`text` with the commented-out YAML of every `# [tag]` block enabled.

    A block is the run of comment lines from its tag; prose (`# Word ...`) stays,
    commented YAML (`#- path:`, `#  target:`, `#replacements:`) loses its `#`.
    """
    lines, out, inside = text.splitlines(keepends=True), [], False
    for line in lines:
        if f"# [{tag}]" in line:
            inside = True
        elif not line.startswith("#"):
            inside = False
        prose = re.match(r"# \S", line) is not None
        out.append(line[1:] if inside and line.startswith("#") and not prose else line)
    return "".join(out)


METRICS_CERTIFICATE = """\
# Stands in for config/certmanager until the project has webhooks.
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: metrics-certs
  namespace: system
spec:
  dnsNames:
  - SERVICE_NAME.SERVICE_NAMESPACE.svc
  - SERVICE_NAME.SERVICE_NAMESPACE.svc.cluster.local
  issuerRef:
    kind: Issuer
    name: selfsigned-issuer
  secretName: metrics-server-cert
"""


def test_metrics_certificates_from_cert_manager_once_uncommented(
    generated: Path, tmp_path: Path
) -> None:
    """[METRICS-WITH-CERTS] and [PROMETHEUS-WITH-CERTS], as Kubebuilder scaffolds them:
    the manager mounts the secret and is given --metrics-cert-path, the Certificate
    and the ServiceMonitor get the metrics Service's DNS name."""
    copy = tmp_path / "fleet-operator"
    shutil.copytree(generated, copy)
    overlay = copy / "config/default/kustomization.yaml"
    text = uncomment(overlay.read_text(), "METRICS-WITH-CERTS")
    text = text.replace("#- ../prometheus\n", "- ../prometheus\n- ../certmanager\n")
    overlay.write_text(text)
    monitor = copy / "config/prometheus/kustomization.yaml"
    monitor.write_text(uncomment(monitor.read_text(), "PROMETHEUS-WITH-CERTS"))
    (copy / "config/certmanager").mkdir()
    (copy / "config/certmanager/certificate-metrics.yaml").write_text(
        METRICS_CERTIFICATE
    )
    (copy / "config/certmanager/kustomization.yaml").write_text(
        "resources:\n- certificate-metrics.yaml\n"
    )
    rendered = kustomize(copy)
    objects = {o["kind"]: o for o in rendered}
    pod = objects["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert (
        "--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs" in container["args"]
    )
    assert {
        "mountPath": "/tmp/k8s-metrics-server/metrics-certs",
        "name": "metrics-certs",
        "readOnly": True,
    } in container["volumeMounts"]
    [volume] = pod["volumes"]
    assert volume["secret"]["secretName"] == "metrics-server-cert"
    service = (
        "fleet-operator-controller-manager-metrics-service.fleet-operator-system.svc"
    )
    assert objects["Certificate"]["spec"]["dnsNames"] == [
        service,
        f"{service}.cluster.local",
    ]
    tls = objects["ServiceMonitor"]["spec"]["endpoints"][0]["tlsConfig"]
    assert tls["serverName"] == service
    assert tls["insecureSkipVerify"] is False
    assert tls["ca"]["secret"] == {"name": "metrics-server-cert", "key": "ca.crt"}


def test_generate_is_idempotent_and_check_catches_a_hand_edit(
    generated: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "fleet-operator"
    shutil.copytree(
        generated,
        copy,
        ignore=shutil.ignore_patterns(
            "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"
        ),
    )
    before = snapshot(copy)
    assert opgen(copy, "generate").exit_code == 0
    assert snapshot(copy) == before
    assert opgen(copy, "generate", "--check").exit_code == 0
    for args in CREATES:
        assert opgen(copy, *args, "--force").exit_code == 0
    assert snapshot(copy) == before

    role = copy / "config/rbac/role.yaml"
    role.write_text(role.read_text().replace("- watch", "- watchh", 1))
    edited = tree_hash(copy)
    run = opgen(copy, "generate", "--check")
    assert run.exit_code == 1
    assert "update config/rbac/role.yaml" in run.stderr
    assert "+  - watch\n" in run.stderr and "-  - watchh\n" in run.stderr
    assert "out of date" in run.stderr
    assert tree_hash(copy) == edited

    dry = opgen(copy, "generate", "--dry-run")
    assert dry.exit_code == 0
    assert "update    config/rbac/role.yaml" in dry.stdout
    assert tree_hash(copy) == edited
    assert opgen(copy, "generate").exit_code == 1  # edited by hand: refused
    assert tree_hash(copy) == edited
    assert opgen(copy, "generate", "--force").exit_code == 0
    assert snapshot(copy) == before


@pytest.mark.envtest
def test_the_projects_own_tests_pass_against_envtest(generated: Path) -> None:
    run_project_tests(generated)


@pytest.mark.envtest
def test_the_manager_reconciles_the_sample_with_only_the_generated_rbac(
    generated: Path, envtest: Environment, tmp_path: Path
) -> None:
    """As in a cluster: `config/default` applied, the manager's service account's token.

    It runs with leader election (the lease in its own namespace), watches
    every namespace (a ClusterRole), and stops cleanly on SIGTERM.
    """
    identity = deploy(envtest, generated, "fleet-operator", tmp_path / "sa.kubeconfig")
    admin = envtest.kubeconfig_path
    kubectl(admin, "create", "namespace", "fleet-e2e")
    with manager(generated, "fleet_operator", identity, "--leader-elect"):
        kubectl(
            admin,
            "apply",
            "-f",
            "-",
            stdin=sample(
                generated, "config/samples/ray_v1_raycluster.yaml", "fleet-e2e"
            ),
        )
        found = wait_ready(
            admin,
            "rayclusters.ray.fleet.example.com",
            "raycluster-sample",
            "-n",
            "fleet-e2e",
        )
        assert found == {"Ready": "True", "Progressing": "False", "Degraded": "False"}
    lease = kubectl(
        admin, "get", "lease", "-n", "fleet-operator-system", "-o", "name"
    ).stdout
    assert lease.startswith("lease.coordination.k8s.io/")


@pytest.mark.envtest
def test_the_manager_pod_meets_the_restricted_pod_security_standard(
    generated: Path, envtest: Environment
) -> None:
    """The API server's PodSecurity admission, enforcing `restricted`, admits the pod."""
    deployment = next(o for o in kustomize(generated) if o["kind"] == "Deployment")
    admin = envtest.kubeconfig_path
    kubectl(admin, "create", "namespace", "fleet-restricted")
    kubectl(
        admin,
        "label",
        "namespace",
        "fleet-restricted",
        "pod-security.kubernetes.io/enforce=restricted",
    )
    template = deployment["spec"]["template"]
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "manager", "namespace": "fleet-restricted"},
        "spec": {**template["spec"], "serviceAccountName": "default"},
    }
    done = kubectl(
        admin, "create", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(pod)
    )
    assert "pod/manager created (server dry run)" in done.stdout

    loose = {**pod, "spec": {**pod["spec"], "securityContext": {}}}
    refused = kubectl(
        admin,
        "create",
        "--dry-run=server",
        "-f",
        "-",
        stdin=yaml.safe_dump(loose),
        check=False,
    )
    assert refused.returncode != 0
    assert 'violates PodSecurity "restricted' in refused.stderr
