"""End to end: a project with all three kinds of webhook, added one `create webhook` at a time.

Tiger has v1alpha1 and v1 (the storage version and the hub); `create webhook`
runs three times (--defaulting, then --programmatic-validation, then
--conversion --spoke v1alpha1) with a user edit in between that must survive.
Then: black, ruff, mypy --strict, `opgen generate --check`, the manifests,
`kubectl kustomize config/default` with cert-manager, the project's own tests
on envtest (its webhooks served by opgen's pytest plugin), and the manager
serving the webhooks against a cluster as `make run` does, after `opgen
webhook install-local`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen.project import load_project, replay_commands
from opgen.testing import Environment
from tests.scaffold.cluster import free_port, kubectl, kubectl_binary
from tests.scaffold.conftest import (
    api_args,
    check_code,
    opgen,
    run_project_tests,
    snapshot,
)
from tests.waiting import until

PACKAGE = "zoo_operator"
WEBHOOK_FILE = f"{PACKAGE}/webhook/v1/tiger_webhook.py"
USER_DEFAULT = """        log.debug("defaulting %s %s", obj.kind, obj.metadata.name)
        if obj.spec.foo is None:
            obj.spec.foo = "striped"  # the user's default
"""


def webhook_args(*flags: str) -> tuple[str, ...]:
    return (
        "create",
        "webhook",
        "--group",
        "animals",
        "--version",
        "v1",
        "--kind",
        "Tiger",
        *flags,
    )


def ok(root: Path, *args: str) -> str:
    run = opgen(root, *args)
    assert run.exit_code == 0, run.stderr
    return run.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("webhooks") / "zoo-operator"
    root.mkdir()
    ok(root, "init", "--domain", "zoo.example.com")
    ok(root, *api_args("animals", "v1alpha1", "Tiger", "--no-controller"))
    ok(root, *api_args("animals", "v1", "Tiger"))
    types = root / PACKAGE / "api/v1/tiger_types.py"
    types.write_text(
        types.read_text().replace(
            "@op.subresource_status()",
            "@op.storage_version()\n@op.subresource_status()",
        )
    )
    ok(root, *webhook_args("--defaulting"))
    webhook = root / WEBHOOK_FILE
    text = webhook.read_text()
    line = '        log.debug("defaulting %s %s", obj.kind, obj.metadata.name)\n'
    assert line in text
    webhook.write_text(text.replace(line, USER_DEFAULT))
    ok(root, *webhook_args("--programmatic-validation"))
    ok(root, *webhook_args("--conversion", "--spoke", "v1alpha1"))
    ok(root, "generate")
    return root


def test_each_run_added_its_part_and_kept_the_users_edit(project: Path) -> None:
    text = (project / WEBHOOK_FILE).read_text()
    assert USER_DEFAULT in text
    for part in (
        "class TigerDefaulter:",
        "class TigerValidator:",
        "class TigerV1alpha1Conversion:",
        "    manager.webhooks.add(TigerDefaulter(manager.client))\n"
        "    manager.webhooks.add(TigerValidator(manager.client))\n"
        "    manager.webhooks.add(TigerV1alpha1Conversion())\n",
        "from zoo_operator.api.v1alpha1 import tiger_types as v1alpha1\n",
    ):
        assert text.count(part) == 1, part
    main = (project / PACKAGE / "main.py").read_text()
    assert (
        "from zoo_operator.webhook.v1 import tiger_webhook as tiger_v1_webhook" in main
    )
    assert "    tiger_v1_webhook.setup(manager)\n" in main
    recorded = yaml.safe_load((project / "PROJECT").read_text())
    (tiger,) = [r for r in recorded["resources"] if r["version"] == "v1"]
    assert tiger["webhooks"] == {
        "defaulting": True,
        "validation": True,
        "conversion": True,
        "spoke": ["v1alpha1"],
    }


def test_asking_again_for_a_webhook_it_has_is_refused(project: Path) -> None:
    run = opgen(project, *webhook_args("--defaulting"))
    assert run.exit_code == 1
    assert "already has defaulting webhooks" in run.stderr
    for args, message in [
        (webhook_args(), "nothing to scaffold"),
        (webhook_args("--conversion"), "--conversion needs --spoke"),
        (webhook_args("--conversion", "--spoke", "v9"), "is not in this project"),
        (
            (
                "create",
                "webhook",
                "--group",
                "animals",
                "--version",
                "v2",
                "--kind",
                "Tiger",
                "--defaulting",
            ),
            "create api",
        ),
    ]:
        run = opgen(project, *args)
        assert (run.exit_code, message in run.stderr) == (1, True), run.stderr


def test_black_ruff_and_mypy_strict_pass(project: Path) -> None:
    check_code(project, PACKAGE)


def test_generate_again_changes_nothing(project: Path) -> None:
    before = snapshot(project)
    assert "up to date" in ok(project, "generate", "--check")
    ok(project, "generate")
    assert snapshot(project) == before


def test_the_manifests_name_every_webhook_and_the_crd_converts(project: Path) -> None:
    documents = list(
        yaml.safe_load_all((project / "config/webhook/manifests.yaml").read_text())
    )
    assert [(d["kind"], d["metadata"]["name"]) for d in documents] == [
        ("MutatingWebhookConfiguration", "mutating-webhook-configuration"),
        ("ValidatingWebhookConfiguration", "validating-webhook-configuration"),
    ]
    mutating = documents[0]["webhooks"][0]
    assert mutating["name"] == "mtiger-v1.animals.zoo.example.com"
    assert mutating["clientConfig"]["service"] == {
        "name": "webhook-service",
        "namespace": "system",
        "path": "/mutate-animals-zoo-example-com-v1-tiger",
    }
    assert mutating["rules"] == [
        {
            "apiGroups": ["animals.zoo.example.com"],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["tigers"],
        }
    ]
    crd = yaml.safe_load(
        (project / "config/crd/bases/animals.zoo.example.com_tigers.yaml").read_text()
    )
    assert crd["spec"]["conversion"] == {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {
                "service": {
                    "name": "webhook-service",
                    "namespace": "system",
                    "path": "/convert",
                }
            },
            "conversionReviewVersions": ["v1"],
        },
    }


def test_kustomize_renders_a_deployable_set_with_cert_manager(project: Path) -> None:
    done = subprocess.run(
        [kubectl_binary(), "kustomize", "config/default"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    objects = {
        (o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(done.stdout)
    }
    prefix = "zoo-operator-"
    ca_from = {
        "cert-manager.io/inject-ca-from": "zoo-operator-system/zoo-operator-serving-cert"
    }
    for kind in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
        configuration = objects[
            (kind, f"{prefix}{kind[:-20].lower()}-webhook-configuration")
        ]
        assert configuration["metadata"]["annotations"] == ca_from
        service = configuration["webhooks"][0]["clientConfig"]["service"]
        assert (service["name"], service["namespace"]) == (
            "zoo-operator-webhook-service",
            "zoo-operator-system",
        )
    crd = objects[("CustomResourceDefinition", "tigers.animals.zoo.example.com")]
    assert ca_from.items() <= crd["metadata"]["annotations"].items()
    conversion_service = crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]
    assert (conversion_service["name"], conversion_service["namespace"]) == (
        "zoo-operator-webhook-service",
        "zoo-operator-system",
    )
    certificate = objects[("Certificate", f"{prefix}serving-cert")]
    assert certificate["spec"]["dnsNames"] == [
        "zoo-operator-webhook-service.zoo-operator-system.svc",
        "zoo-operator-webhook-service.zoo-operator-system.svc.cluster.local",
    ]
    assert certificate["spec"]["issuerRef"]["name"] == f"{prefix}selfsigned-issuer"
    assert ("Issuer", f"{prefix}selfsigned-issuer") in objects
    service = objects[("Service", f"{prefix}webhook-service")]
    assert service["spec"]["ports"] == [
        {"port": 443, "protocol": "TCP", "targetPort": 9443}
    ]
    pod = objects[("Deployment", f"{prefix}controller-manager")]["spec"]["template"][
        "spec"
    ]
    container = pod["containers"][0]
    assert (
        "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs" in container["args"]
    )
    assert {
        "containerPort": 9443,
        "name": "webhook-server",
        "protocol": "TCP",
    } in container["ports"]
    assert pod["volumes"] == [
        {"name": "webhook-certs", "secret": {"secretName": "webhook-server-cert"}}
    ]


def test_its_own_tests_pass_with_its_webhooks_served(project: Path) -> None:
    out = run_project_tests(project)
    assert "passed" in out and "failed" not in out, out
    assert (
        "test_a_round_trip_through_v1alpha1_keeps_the_object"
        in (project / "tests/webhook/test_tiger_v1_webhook.py").read_text()
    )


def _tiger(namespace: str, name: str, version: str = "v1") -> str:
    return yaml.safe_dump(
        {
            "apiVersion": f"animals.zoo.example.com/{version}",
            "kind": "Tiger",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {},
        }
    )


def _get(envtest: Environment, resource: str, namespace: str) -> dict[str, Any]:
    """The Tiger sher-khan, read as `resource` (`<plural>.<version>.<group>`)."""
    done = kubectl(
        envtest.kubeconfig_path,
        "get",
        resource,
        "sher-khan",
        "-n",
        namespace,
        "-o",
        "yaml",
    )
    found: dict[str, Any] = yaml.safe_load(done.stdout)
    return found


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
            return bool(r.status == 200)
    except OSError:
        return False


@pytest.mark.envtest
def test_make_run_serves_the_webhooks_against_a_cluster(
    project: Path, envtest: Environment, tmp_path: Path
) -> None:
    """What docs/webhooks.md tells a user to do for `make run`, against envtest."""
    config = ["--kubeconfig", str(envtest.kubeconfig_path)]
    envtest.install_crds([project / "config/crd/bases"])
    port, probes = free_port(), free_port()
    certs = tmp_path / "certs"
    out = ok(
        project,
        "webhook",
        "install-local",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--cert-dir",
        str(certs),
        *config,
    )
    assert (
        "installed MutatingWebhookConfiguration zoo-operator-local-mutating-webhook-configuration"
        in out
    )
    assert "converting CustomResourceDefinition tigers.animals.zoo.example.com" in out
    namespace = f"make-run-{free_port()}"
    kubectl(envtest.kubeconfig_path, "create", "namespace", namespace)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            PACKAGE,
            f"--health-probe-bind-address=127.0.0.1:{probes}",
            f"--webhook-port={port}",
            f"--webhook-cert-path={certs}",
        ],
        cwd=project,
        env={"KUBECONFIG": str(envtest.kubeconfig_path), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        until(
            lambda: _ready(probes), "the manager to be ready (webhook server included)"
        )
        kubectl(
            envtest.kubeconfig_path,
            "create",
            "-f",
            "-",
            stdin=_tiger(namespace, "sher-khan"),
        )
        stored = _get(envtest, "tigers.v1.animals.zoo.example.com", namespace)
        assert stored["spec"]["foo"] == "striped"  # the user's defaulter ran
        old = _get(envtest, "tigers.v1alpha1.animals.zoo.example.com", namespace)
        assert (old["apiVersion"], old["spec"]["foo"]) == (
            "animals.zoo.example.com/v1alpha1",
            "striped",
        )
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "serving webhooks" in output and f":{port}" in output, output
    out = ok(project, "webhook", "uninstall-local", *config)
    assert (
        "deleted ValidatingWebhookConfiguration zoo-operator-local-validating-webhook-configuration"
        in out
    )
    listed = kubectl(
        envtest.kubeconfig_path, "get", "validatingwebhookconfigurations", "-o", "name"
    )
    assert "zoo-operator-local" not in listed.stdout


def test_rbac_markers_on_a_handler_reach_role_yaml(
    project: Path, tmp_path: Path
) -> None:
    """A validator that reads other objects declares the permission on its class."""
    copy = tmp_path / "zoo-operator"
    shutil.copytree(project, copy)
    webhook = copy / WEBHOOK_FILE
    marker = '@op.rbac(groups=["core"], resources=["resourcequotas"], verbs=["list"])\n'
    webhook.write_text(
        webhook.read_text().replace(
            "class TigerValidator:", marker + "class TigerValidator:"
        )
    )
    ok(copy, "generate")
    (cluster_role,) = [
        d
        for d in yaml.safe_load_all((copy / "config/rbac/role.yaml").read_text())
        if d["kind"] == "ClusterRole"
    ]
    assert {
        "apiGroups": [""],
        "resources": ["resourcequotas"],
        "verbs": ["list"],
    } in cluster_role["rules"]


def test_delete_api_removes_the_webhooks_and_refuses_a_spoke(
    project: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "zoo-operator"
    shutil.copytree(project, copy)
    run = opgen(copy, *api_args("animals", "v1alpha1", "Tiger", verb="delete"))
    assert run.exit_code == 1 and "conversions of the hub v1" in run.stderr
    ok(copy, *api_args("animals", "v1", "Tiger", "--force", verb="delete"))
    assert not (copy / PACKAGE / "webhook").exists()
    assert not (copy / "tests/webhook/test_tiger_v1_webhook.py").exists()
    assert "tiger_v1_webhook" not in (copy / PACKAGE / "main.py").read_text()
    overlay = (copy / "config/default/kustomization.yaml").read_text()
    assert "\n- ../webhook\n" not in overlay and "\nreplacements:\n" not in overlay
    ok(copy, "generate")
    assert not (copy / "config/webhook/manifests.yaml").exists()
    check_code(copy, PACKAGE)


def test_project_file_replays_webhooks_added_one_at_a_time(tmp_path: Path) -> None:
    """Three `create webhook` runs replay as one, to the same tree."""
    original = tmp_path / "original"
    original.mkdir()
    ok(original, "init", "--domain", "zoo.example.com", "--project-name", "zoo")
    ok(original, *api_args("animals", "v1alpha1", "Tiger", "--no-controller"))
    ok(original, *api_args("animals", "v1", "Tiger"))
    for flags in (
        ("--defaulting",),
        ("--validation",),
        ("--conversion", "--spoke", "v1alpha1"),
    ):
        ok(original, *webhook_args(*flags))
    commands = replay_commands(load_project(original))
    assert commands[-1] == webhook_args(
        "--defaulting",
        "--programmatic-validation",
        "--conversion",
        "--spoke",
        "v1alpha1",
    )
    replayed = tmp_path / "replayed"
    replayed.mkdir()
    for command in commands:
        ok(replayed, *command)
    assert snapshot(replayed) == snapshot(original)
