"""The generated chart under helm itself: lint, template, install and uninstall on envtest.

helm is built from the Go module proxy once and cached (tests/helm.py). For
four project shapes (one with webhooks), `helm template` with the default
values gives exactly the objects `kubectl kustomize config/default` gives,
apart from the documented differences (docs/deploy.md): Helm's labels, the
CRDs' keep annotation, the image pull policy, and the Namespace object, which
Helm leaves to `--create-namespace`. Values reach the objects (webhooks and
cert-manager too); values.schema.json refuses what it should; `helm install` into envtest creates the CRDs, RBAC
and Deployment, as the API server shows, and `helm uninstall` removes them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen.testing import Environment
from tests.chart.project import SHAPES, name_of, project_with_chart
from tests.helm import helm
from tests.scaffold.cluster import kubectl, kustomize

HELM_ONLY_LABELS = ("helm.sh/chart", "app.kubernetes.io/instance")
MANAGED_BY = "app.kubernetes.io/managed-by"


@pytest.fixture(scope="module", params=sorted(SHAPES))
def shaped(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    shape = str(request.param)
    root = project_with_chart(tmp_path_factory.mktemp(shape) / name_of(shape), shape)
    return shape, root


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project_with_chart(
        tmp_path_factory.mktemp("helm") / "ray-operator", "single"
    )


def template(root: Path, *args: str) -> list[dict[str, Any]]:
    """`helm template <project> dist/chart -n <project>-system`, parsed."""
    name = root.name
    done = helm(
        "template", name, "dist/chart", "--namespace", f"{name}-system", *args, cwd=root
    )
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def by_key(objects: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(o["kind"], o["metadata"]["name"]): o for o in objects}


def without_documented_differences(obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` without what docs/deploy.md lists as the chart's differences."""
    obj = copy.deepcopy(obj)
    metadata = obj["metadata"]
    labels = metadata.get("labels", {})
    for label in (*HELM_ONLY_LABELS, MANAGED_BY):
        labels.pop(label, None)
    if not labels:
        metadata.pop("labels", None)
    annotations = metadata.get("annotations", {})
    annotations.pop("helm.sh/resource-policy", None)
    if obj["kind"] == "Deployment":
        for container in obj["spec"]["template"]["spec"]["containers"]:
            container.pop("imagePullPolicy", None)
    return obj


def test_helm_lint_passes(shaped: tuple[str, Path]) -> None:
    _, root = shaped
    done = helm("lint", "--strict", "dist/chart", cwd=root)
    assert "1 chart(s) linted, 0 chart(s) failed" in done.stdout


def test_helm_template_with_defaults_is_kustomizes_output(
    shaped: tuple[str, Path],
) -> None:
    _, root = shaped
    chart = by_key(template(root))
    kustomized = by_key(kustomize(root))
    namespaces = [key for key in kustomized if key[0] == "Namespace"]
    assert namespaces == [("Namespace", f"{root.name}-system")]
    del kustomized[namespaces[0]]
    assert sorted(chart) == sorted(kustomized)
    for key, expected in kustomized.items():
        assert without_documented_differences(
            chart[key]
        ) == without_documented_differences(expected), key


@pytest.fixture(scope="module")
def webhooks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project_with_chart(tmp_path_factory.mktemp("hooks") / "zoo", "webhooks")


def test_webhooks_and_cert_manager_come_from_config(webhooks: Path) -> None:
    found = by_key(template(webhooks))
    service = "zoo-webhook-service"
    mutating = found[
        ("MutatingWebhookConfiguration", "zoo-mutating-webhook-configuration")
    ]
    assert mutating["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == (
        "zoo-system/zoo-serving-cert"
    )
    assert mutating["webhooks"][0]["clientConfig"]["service"]["name"] == service
    crd = found[("CustomResourceDefinition", "tigers.animals.example.com")]
    assert crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"] == {
        "name": service,
        "namespace": "zoo-system",
        "path": "/convert",
    }
    certificate = found[("Certificate", "zoo-serving-cert")]
    assert certificate["spec"]["dnsNames"] == [
        f"{service}.zoo-system.svc",
        f"{service}.zoo-system.svc.cluster.local",
    ]
    assert ("Issuer", "zoo-selfsigned-issuer") in found


def test_webhook_and_cert_manager_toggles(webhooks: Path) -> None:
    without_cert_manager = by_key(
        template(
            webhooks, "--set", "certManager.enable=false", "--set", "webhook.port=10443"
        )
    )
    assert not {kind for kind, _ in without_cert_manager} & {"Certificate", "Issuer"}
    for obj in without_cert_manager.values():
        assert "cert-manager.io/inject-ca-from" not in obj["metadata"].get(
            "annotations", {}
        )
    container = deployment_of(list(without_cert_manager.values()))["spec"]["template"][
        "spec"
    ]["containers"][0]
    assert "--webhook-port=10443" in container["args"]
    assert {
        "containerPort": 10443,
        "name": "webhook-server",
        "protocol": "TCP",
    } in container["ports"]
    service = without_cert_manager[("Service", "zoo-webhook-service")]
    assert service["spec"]["ports"][0]["targetPort"] == 10443

    off = by_key(template(webhooks, "--set", "webhook.enable=false"))
    kinds = {kind for kind, _ in off}
    assert not kinds & {
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "Certificate",
        "Issuer",
    }
    assert ("Service", "zoo-webhook-service") not in off
    crd = off[("CustomResourceDefinition", "tigers.animals.example.com")]
    assert "conversion" not in crd["spec"]
    pod = deployment_of(list(off.values()))["spec"]["template"]["spec"]
    assert not any(arg.startswith("--webhook") for arg in pod["containers"][0]["args"])
    assert not pod["volumes"]


def test_the_documented_differences_are_all_there_is(single: Path) -> None:
    """Helm's labels on every object, the keep annotation on CRDs, the pull policy."""
    for obj in template(single):
        labels = obj["metadata"]["labels"]
        assert labels[MANAGED_BY] == "Helm"
        assert labels["app.kubernetes.io/instance"] == "ray-operator"
        assert labels["helm.sh/chart"] == "ray-operator-0.1.0"
        if obj["kind"] == "CustomResourceDefinition":
            assert obj["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    [deployment] = [o for o in template(single) if o["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0][
        "imagePullPolicy"
    ] == ("IfNotPresent")


def deployment_of(objects: list[dict[str, Any]]) -> dict[str, Any]:
    [deployment] = [o for o in objects if o["kind"] == "Deployment"]
    return deployment


def test_values_reach_the_deployment(single: Path, tmp_path: Path) -> None:
    values = {
        "manager": {
            "replicas": 2,
            "image": {
                "repository": "registry.example.com/ray",
                "tag": "v1.2.0",
                "pullPolicy": "Always",
            },
            "args": ["--zap-encoder=json", "--zap-log-level=debug"],
            "env": [{"name": "RAY_DEFAULT_IMAGE", "value": "rayproject/ray:2.9"}],
            "imagePullSecrets": [{"name": "regcred"}],
            "resources": {"limits": {"memory": "1Gi"}},
            "podSecurityContext": {"runAsNonRoot": True, "fsGroup": 2000},
            "securityContext": {"readOnlyRootFilesystem": True},
            "nodeSelector": {"disktype": "ssd"},
            "tolerations": [
                {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}
            ],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "kubernetes.io/arch",
                                        "operator": "In",
                                        "values": ["arm64"],
                                    }
                                ]
                            }
                        ]
                    }
                }
            },
        }
    }
    file = tmp_path / "values.yaml"
    file.write_text(yaml.safe_dump(values))
    deployment = deployment_of(template(single, "--values", str(file)))
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert deployment["spec"]["replicas"] == 2
    assert container["image"] == "registry.example.com/ray:v1.2.0"
    assert container["imagePullPolicy"] == "Always"
    assert container["args"] == [
        "--metrics-bind-address=:8443",
        "--leader-elect",
        "--health-probe-bind-address=:8081",
        "--zap-encoder=json",
        "--zap-log-level=debug",
    ]
    assert container["env"] == values["manager"]["env"]
    # Helm merges maps of values into the defaults.
    assert container["resources"] == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "10m", "memory": "96Mi"},
    }
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert pod["securityContext"] == {
        "runAsNonRoot": True,
        "fsGroup": 2000,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert pod["imagePullSecrets"] == [{"name": "regcred"}]
    assert pod["nodeSelector"] == {"disktype": "ssd"}
    assert pod["tolerations"] == values["manager"]["tolerations"]
    assert pod["affinity"] == values["manager"]["affinity"]


def test_toggles_switch_objects_and_flags(single: Path) -> None:
    everything = by_key(
        template(
            single,
            "--set",
            "prometheus.enable=true",
            "--set",
            "networkPolicy.enable=true",
        )
    )
    assert (
        "ServiceMonitor",
        "ray-operator-controller-manager-metrics-monitor",
    ) in everything
    assert ("NetworkPolicy", "ray-operator-allow-metrics-traffic") in everything

    off = by_key(
        template(
            single,
            *("--set", "metrics.enable=false", "--set", "leaderElection.enable=false"),
            *("--set", "crd.enable=false", "--set", "rbacHelpers.enable=false"),
            *("--set", "prometheus.enable=true"),
        )
    )
    kinds = {kind for kind, _ in off}
    assert "CustomResourceDefinition" not in kinds and "Service" not in kinds
    assert "ServiceMonitor" not in kinds and "Role" not in kinds
    assert sorted(name for kind, name in off if kind == "ClusterRole") == [
        "ray-operator-manager-role"
    ]
    args = deployment_of(list(off.values()))["spec"]["template"]["spec"]["containers"][
        0
    ]["args"]
    assert args == ["--health-probe-bind-address=:8081"]

    insecure = template(
        single,
        "--set",
        "metrics.secure=false",
        "--set",
        "metrics.port=8080",
        "--set",
        "prometheus.enable=true",
    )
    args = deployment_of(insecure)["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[:2] == ["--metrics-bind-address=:8080", "--metrics-secure=false"]
    found = by_key(insecure)
    assert ("ClusterRole", "ray-operator-metrics-auth-role") not in found
    service = found[("Service", "ray-operator-controller-manager-metrics-service")]
    assert service["spec"]["ports"][0]["port"] == 8080
    monitor = found[
        ("ServiceMonitor", "ray-operator-controller-manager-metrics-monitor")
    ]
    assert monitor["spec"]["endpoints"][0]["scheme"] == "http"

    kept = template(single, "--set", "crd.keep=false")
    [crd] = [o for o in kept if o["kind"] == "CustomResourceDefinition"]
    assert "helm.sh/resource-policy" not in crd["metadata"]["annotations"]


def test_another_release_name_prefixes_every_name(single: Path) -> None:
    done = helm("template", "blue", "dist/chart", "--namespace", "blue-ns", cwd=single)
    objects = [o for o in yaml.safe_load_all(done.stdout) if o]
    for obj in objects:
        if obj["kind"] != "CustomResourceDefinition":
            assert obj["metadata"]["name"].startswith("blue-ray-operator-"), obj[
                "metadata"
            ]
        if "namespace" in obj["metadata"]:
            assert obj["metadata"]["namespace"] == "blue-ns"
    binding = next(
        o
        for o in objects
        if o["kind"] == "ClusterRoleBinding" and "manager" in o["metadata"]["name"]
    )
    assert binding["roleRef"]["name"] == "blue-ray-operator-manager-role"
    assert binding["subjects"] == [
        {
            "kind": "ServiceAccount",
            "name": "blue-ray-operator-controller-manager",
            "namespace": "blue-ns",
        }
    ]


@pytest.mark.parametrize(
    ("setting", "complaint"),
    [
        ("manager.replica=2", "replica"),
        ("manager.replicas=many", "replicas"),
        ("metrics.port=70000", "port"),
        ("crd.keep=maybe", "keep"),
        ("manager.image.pullPolicy=Sometimes", "pullPolicy"),
    ],
)
def test_the_schema_refuses_typos_and_wrong_types(
    single: Path, setting: str, complaint: str
) -> None:
    done = helm(
        "template",
        "ray-operator",
        "dist/chart",
        "--set",
        setting,
        cwd=single,
        check=False,
    )
    assert done.returncode != 0
    assert "values don't meet the specifications of the schema" in done.stderr
    assert complaint in done.stderr


def test_the_schema_accepts_values_of_the_users_own(single: Path) -> None:
    helm(
        "template", "ray-operator", "dist/chart", "--set", "myTeam=storage", cwd=single
    )


def api_objects(env: Environment, *args: str) -> list[dict[str, Any]]:
    done = kubectl(env.kubeconfig_path, "get", *args, "-o", "json", check=False)
    if done.returncode != 0:
        assert "NotFound" in done.stderr, done.stderr
        return []
    found = json.loads(done.stdout)
    return list(found.get("items", [found]))


@pytest.mark.envtest
def test_helm_install_and_uninstall_on_envtest(
    single: Path, envtest: Environment
) -> None:
    kube = envtest.kubeconfig_path
    release, namespace = "ray-operator", "ray-operator-helm"
    crd = ("crd", "rayclusters.ray.example.com")
    cluster_roles = ("clusterrole", "-l", "app.kubernetes.io/instance=ray-operator")
    done = helm(
        "install", release, "dist/chart", "--namespace", namespace, "--create-namespace",
        "--set", "crd.keep=false", kubeconfig=kube, cwd=single,
    )  # fmt: skip
    assert "STATUS: deployed" in done.stdout

    [installed_crd] = api_objects(envtest, *crd)
    assert installed_crd["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "Helm"
    [deployment] = api_objects(envtest, "deployment", "-n", namespace)
    assert deployment["metadata"]["name"] == "ray-operator-controller-manager"
    assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == (
        "ray-operator-controller-manager"
    )
    [account] = api_objects(
        envtest, "serviceaccount", "ray-operator-controller-manager", "-n", namespace
    )
    assert account["metadata"]["namespace"] == namespace
    roles = {o["metadata"]["name"] for o in api_objects(envtest, *cluster_roles)}
    assert {
        "ray-operator-manager-role",
        "ray-operator-metrics-auth-role",
        "ray-operator-raycluster-viewer-role",
    } <= roles
    [binding] = api_objects(
        envtest, "clusterrolebinding", "ray-operator-manager-rolebinding"
    )
    assert binding["subjects"] == [
        {
            "kind": "ServiceAccount",
            "name": "ray-operator-controller-manager",
            "namespace": namespace,
        }
    ]
    assert [
        r["metadata"]["name"] for r in api_objects(envtest, "role", "-n", namespace)
    ] == ["ray-operator-leader-election-role"]
    can = kubectl(
        kube, "auth", "can-i", "patch", "rayclusters.ray.example.com/status",
        f"--as=system:serviceaccount:{namespace}:ray-operator-controller-manager",
        check=False,
    )  # fmt: skip
    assert can.stdout.strip() == "yes", can.stdout + can.stderr

    helm("uninstall", release, "--namespace", namespace, "--wait", kubeconfig=kube)
    assert api_objects(envtest, *crd) == []
    assert api_objects(envtest, "deployment", "-n", namespace) == []
    assert api_objects(envtest, *cluster_roles) == []
    assert (
        api_objects(envtest, "clusterrolebinding", "ray-operator-manager-rolebinding")
        == []
    )


@pytest.mark.envtest
def test_helm_uninstall_keeps_the_crds_by_default(
    single: Path, envtest: Environment
) -> None:
    kube = envtest.kubeconfig_path
    release, namespace = "kept", "kept-helm"
    helm(
        "install", release, "dist/chart", "--namespace", namespace, "--create-namespace",
        "--set", "rbacHelpers.enable=false", kubeconfig=kube, cwd=single,
    )  # fmt: skip
    crd = ("crd", "rayclusters.ray.example.com")
    assert len(api_objects(envtest, *crd)) == 1
    helm("uninstall", release, "--namespace", namespace, "--wait", kubeconfig=kube)
    assert api_objects(envtest, "deployment", "-n", namespace) == []
    [kept] = api_objects(envtest, *crd)
    assert kept["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    kubectl(kube, "delete", *crd)
