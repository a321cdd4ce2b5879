"""Kubernetes' own types inside a custom resource, on a real API server.

The Workload kind (workload_types.py) embeds a PodTemplateSpec, a Service,
ResourceRequirements, Tolerations and a PersistentVolumeClaim template. Its
CRD must install; a pod template copied from a real Deployment must validate
in Pydantic and come back from the server as stored; a wrong type deep inside
must be refused by both, at the same path; and the reconciler example
(reconciler_example.py) must carry the template into a Deployment and back.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

import opgen.api as op
from opgen import runtime as rt
from opgen.errors import Diagnostic
from opgen.load import load_kinds
from opgen.pipeline import crds
from opgen.runtime.rest import RestClient
from opgen.schema.options import CrdOptions
from opgen.testing import Environment
from tests.k8s import reconciler_example
from tests.k8s.workload_types import Workload
from tests.proof.api import RawApi

pytestmark = pytest.mark.envtest

TYPES = Path(__file__).parent / "workload_types.py"
PLURAL = "/apis/k8s.opgen.dev/v1/namespaces/{namespace}/workloads"

# The Deployment from the Kubernetes documentation's "Run a stateless
# application" task, grown into what a production manifest holds.
DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
        tier: frontend
      annotations:
        prometheus.io/scrape: "true"
    spec:
      serviceAccountName: nginx
      terminationGracePeriodSeconds: 30
      securityContext:
        runAsNonRoot: true
        runAsUser: 101
        fsGroup: 101
        seccompProfile:
          type: RuntimeDefault
      initContainers:
      - name: config
        image: busybox:1.36
        command: ["sh", "-c", "cp /defaults/* /etc/nginx/conf.d/"]
        volumeMounts:
        - name: conf
          mountPath: /etc/nginx/conf.d
      containers:
      - name: nginx
        image: nginx:1.25.3
        imagePullPolicy: IfNotPresent
        args: ["-g", "daemon off;"]
        ports:
        - name: http
          containerPort: 8080
        - name: metrics
          containerPort: 9113
          protocol: TCP
        env:
        - name: NGINX_PORT
          value: "8080"
        - name: POD_IP
          valueFrom:
            fieldRef:
              fieldPath: status.podIP
        - name: TOKEN
          valueFrom:
            secretKeyRef:
              name: nginx-secrets
              key: token
              optional: true
        envFrom:
        - configMapRef:
            name: nginx-env
        resources:
          requests:
            cpu: 250m
            memory: 64Mi
          limits:
            cpu: "1"
            memory: 128Mi
        readinessProbe:
          httpGet:
            path: /healthz
            port: http
          initialDelaySeconds: 5
          periodSeconds: 10
        livenessProbe:
          tcpSocket:
            port: 8080
          failureThreshold: 3
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities:
            drop: ["ALL"]
            add: ["NET_BIND_SERVICE"]
        volumeMounts:
        - name: conf
          mountPath: /etc/nginx/conf.d
          readOnly: true
        - name: cache
          mountPath: /var/cache/nginx
      volumes:
      - name: conf
        configMap:
          name: nginx-conf
          defaultMode: 420
      - name: cache
        emptyDir:
          sizeLimit: 1Gi
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              topologyKey: kubernetes.io/hostname
              labelSelector:
                matchLabels:
                  app: nginx
      tolerations:
      - key: dedicated
        operator: Equal
        value: web
        effect: NoSchedule
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
        labelSelector:
          matchLabels:
            app: nginx
"""


def _template() -> dict[str, Any]:
    template: dict[str, Any] = yaml.safe_load(DEPLOYMENT)["spec"]["template"]
    return template


def _generate() -> tuple[dict[str, Any], list[Diagnostic]]:
    loaded = load_kinds([TYPES])
    files, diagnostics = crds(
        loaded, PurePosixPath("."), CrdOptions(embedded_object_meta=True)
    )
    (crd,) = files
    document: dict[str, Any] = yaml.safe_load(crd.content)
    return document, [*loaded.diagnostics, *diagnostics]


@pytest.fixture(scope="module")
def installed(envtest: Environment) -> dict[str, Any]:
    document, _ = _generate()
    envtest.install_crds([document])
    return document


@pytest.fixture(scope="module")
def raw_api(envtest: Environment) -> Iterator[RawApi]:
    api = RawApi(envtest.kube_config())
    try:
        yield api
    finally:
        api.close()


@pytest.fixture(scope="module")
def workload_namespace(raw_api: RawApi) -> Iterator[str]:
    name = f"opgen-k8s-{secrets.token_hex(3)}"
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    assert raw_api.create("/api/v1/namespaces", namespace, dry_run=False).accepted
    try:
        yield name
    finally:
        raw_api.delete(f"/api/v1/namespaces/{name}")


def _workload(name: str, namespace: str, template: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "k8s.opgen.dev/v1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "head": {"replicas": 2, "template": template},
            "service": {
                "metadata": {"name": "web"},
                "spec": {
                    "selector": {"app": "nginx"},
                    "ports": [{"name": "http", "port": 80, "targetPort": "http"}],
                },
            },
            "resources": {"limits": {"cpu": 2, "memory": "1Gi"}},
            "tolerations": [
                {"key": "gpu", "operator": "Exists", "tolerationSeconds": 300}
            ],
            "storage": {
                "metadata": {"name": "data", "labels": {"app": "nginx"}},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "10Gi"}},
                },
            },
        },
    }


def test_the_crd_warns_about_its_size_and_the_server_accepts_it(
    installed: dict[str, Any],
) -> None:
    _, diagnostics = _generate()
    (size,) = [str(d) for d in diagnostics if "KiB" in str(d)]
    assert "over 256 KiB" in size and "last-applied-configuration" in size
    assert "--server-side" in size
    properties = installed["spec"]["versions"][0]["schema"]["openAPIV3Schema"][
        "properties"
    ]["spec"]["properties"]
    assert set(properties) == {"head", "resources", "service", "storage", "tolerations"}


def test_a_real_pod_template_validates_and_is_stored_unchanged(
    installed: dict[str, Any], raw_api: RawApi, workload_namespace: str
) -> None:
    template = _template()
    model = op.k8s.PodTemplateSpec.model_validate(template)
    assert model.spec is not None and model.spec.containers[0].image == "nginx:1.25.3"
    assert model.spec.containers[0].resources is not None
    body = _workload("real-template", workload_namespace, template)
    parsed = Workload.model_validate(body)
    sent = parsed.model_dump(mode="json", by_alias=True, exclude_none=True)

    created = raw_api.create(
        PLURAL.format(namespace=workload_namespace), sent, dry_run=False
    )
    assert created.accepted, created
    stored = raw_api.get(
        f"{PLURAL.format(namespace=workload_namespace)}/real-template"
    ).body
    # Pydantic's defaults are the CRD's (`protocol: TCP` on ports, ...), so the
    # object the server stores is the model's own dump, field for field.
    assert stored["spec"] == sent["spec"]
    # And the template written in the manifest is all there, as written.
    assert _contains(stored["spec"]["head"]["template"], template)
    assert Workload.model_validate(stored).spec == parsed.spec


def _contains(stored: Any, written: Any) -> bool:
    if isinstance(written, dict):
        return isinstance(stored, dict) and all(
            key in stored and _contains(stored[key], value)
            for key, value in written.items()
        )
    if isinstance(written, list):
        return (
            isinstance(stored, list)
            and len(stored) == len(written)
            and all(_contains(s, w) for s, w in zip(stored, written, strict=True))
        )
    return bool(stored == written)


WRONG = [
    # (where, value): both sides must refuse at `where`.
    ("spec.head.template.spec.containers[0].ports[0].containerPort", "x"),
    ("spec.head.template.spec.containers[0].resources.limits.cpu", "lots"),
    ("spec.head.template.spec.containers[0].env[0].value", 8080),
    ("spec.head.template.spec.tolerations[0].tolerationSeconds", "ten"),
    ("spec.head.template.spec.volumes[1].emptyDir.sizeLimit", "big"),
    ("spec.head.template.spec.securityContext.runAsNonRoot", "yes please"),
    ("spec.service.spec.ports[0].targetPort", ["http"]),
    ("spec.storage.spec.accessModes", "ReadWriteOnce"),
]


def _set(body: dict[str, Any], path: str, value: Any) -> None:
    parts: list[str | int] = []
    for segment in path.split("."):
        name, *indexes = segment.replace("]", "").split("[")
        parts.append(name)
        parts.extend(int(index) for index in indexes)
    target: Any = body
    for part in parts[:-1]:
        target = target[part]
    target[parts[-1]] = value


def _pydantic_path(body: Any, loc: tuple[str | int, ...]) -> str:
    """The wire path of an error's location: its parts that lead through the
    body (Pydantic adds union branches and validator steps after them)."""
    path, current = "", body
    for part in loc:
        if isinstance(current, list) and isinstance(part, int) and part < len(current):
            path += f"[{part}]"
        elif isinstance(current, dict) and part in current:
            path += f".{part}" if path else str(part)
        else:
            break
        current = current[part]
    return path


@pytest.mark.parametrize(("where", "value"), WRONG, ids=[w for w, _ in WRONG])
def test_a_wrong_type_deep_inside_is_refused_by_both_at_the_same_path(
    installed: dict[str, Any],
    raw_api: RawApi,
    workload_namespace: str,
    where: str,
    value: Any,
) -> None:
    body = _workload("wrong", workload_namespace, copy.deepcopy(_template()))
    _set(body, where, value)

    with pytest.raises(ValidationError) as refused:
        Workload.model_validate(body)
    pydantic_paths = {_pydantic_path(body, e["loc"]) for e in refused.value.errors()}
    assert where in pydantic_paths, refused.value

    verdict = raw_api.create(PLURAL.format(namespace=workload_namespace), body)
    assert not verdict.accepted, verdict
    assert where in {cause.field for cause in verdict.causes}, verdict


async def test_the_reconciler_example_round_trips_the_template_through_a_deployment(
    installed: dict[str, Any], envtest: Environment, namespace: str
) -> None:
    rest = RestClient.from_kubeconfig(envtest.kube_config(), rt.ClientOptions(qps=0))
    try:
        await _round_trip(rt.Client(rest), namespace)
    finally:
        await rest.aclose()


async def _round_trip(client: rt.Client, namespace: str) -> None:
    workloads = reconciler_example.WorkloadClient(client)
    body = _workload("example", namespace, _template())
    created = await workloads.create(Workload.model_validate(body))
    got = await workloads.get("example", namespace=namespace)
    assert isinstance(got.spec.head.template, op.k8s.PodTemplateSpec)
    assert got.spec == created.spec
    assert reconciler_example.first_image(got) == "nginx:1.25.3"

    deployment = await client.create(reconciler_example.head_deployment(got))
    stored = await client.get(type(deployment), "example-head", namespace=namespace)
    back = reconciler_example.head_template(stored)
    # The API server fills in the Deployment's own defaults (imagePullPolicy,
    # terminationMessagePath, ...); everything the template said comes back.
    assert _contains(
        back.model_dump(mode="json", by_alias=True, exclude_none=True),
        got.spec.head.template.model_dump(
            mode="json", by_alias=True, exclude_none=True
        ),
    )
    assert back.spec is not None and back.spec.containers[0].resources == (
        got.spec.head.template.spec
        and got.spec.head.template.spec.containers[0].resources
    )
