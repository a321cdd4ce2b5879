"""An operator that owns and watches imported kinds, on envtest, and under mypy --strict.

The project imports a cert-manager-like Certificate and a ServiceMonitor-like
kind, has a kind of its own (Issuance) and a reconciler that keeps one
Certificate per Issuance (`Owns`: changes to the Certificate are reconciled
back, and its Ready condition reaches the Issuance's status) and counts the
ServiceMonitors labelled for it (`Watches`). `opgen generate` writes the
Issuance CRD and the role, with the RBAC markers on imported kinds; the
imported CRDs are installed from their copies in config/imported/.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import opgen.api as op
from opgen import runtime as rt
from opgen.testing import Environment
from tests.fresh import in_fresh_interpreter
from tests.imports import crds
from tests.imports.projects import PACKAGE, ImportedProject
from tests.runtime.helpers import manager_for, running
from tests.waiting import until_async

ISSUANCE_TYPES = '''"""Issuance: keep a certificate issued for a DNS name."""

import opgen.api as op

from demo.api.v1.groupversion_info import GROUP, VERSION


class IssuanceSpec(op.Model):
    """What an Issuance wants."""

    dns_name: str
    """The name to issue a certificate for."""
    issuer: str
    """The ClusterIssuer to ask."""


class IssuanceStatus(op.Model):
    """What an Issuance has."""

    ready: bool = False
    """The certificate is issued."""
    monitors: int = 0
    """ServiceMonitors labelled for this Issuance."""


@op.kind(group=GROUP, version=VERSION)
@op.subresource_status()
class Issuance(op.CustomResource[IssuanceSpec, IssuanceStatus]):
    """Issuance keeps a certificate issued."""
'''

RECONCILER = '''"""Keeps a cert-manager Certificate per Issuance and counts its ServiceMonitors."""

from __future__ import annotations

import opgen.api as op
from opgen import runtime as rt

from demo.api.v1.issuance_types import Issuance, IssuanceStatus
from demo.imported.cert_manager_io.v1 import Certificate, CertificateSpec, IssuerRef
from demo.imported.monitoring_coreos_com.v1 import ServiceMonitor

MONITOR_LABEL = "issuing.example.com/issuance"


@op.rbac(groups=["issuing.example.com"], resources=["issuances"], verbs=["get", "list", "watch"])
@op.rbac(groups=["issuing.example.com"], resources=["issuances/status"], verbs=["get", "patch"])
@op.rbac(
    groups=["cert-manager.io"],
    resources=["certificates"],
    verbs=["get", "list", "watch", "create", "update"],
)
@op.rbac(groups=["monitoring.coreos.com"], resources=["servicemonitors"], verbs=["get", "list", "watch"])
class IssuanceReconciler:
    def __init__(self, client: rt.Client) -> None:
        self.client = client

    async def reconcile(self, request: rt.Request) -> rt.Result:
        try:
            issuance = await self.client.get(Issuance, request.name, request.namespace)
        except rt.NotFound:
            return rt.Result()
        desired = CertificateSpec(
            secret_name=f"{request.name}-tls",
            dns_names=[issuance.spec.dns_name],
            issuer_ref=IssuerRef(name=issuance.spec.issuer, kind="ClusterIssuer"),
        )
        try:
            certificate = await self.client.get(Certificate, request.name, request.namespace)
        except rt.NotFound:
            certificate = Certificate(
                metadata=op.ObjectMeta(name=request.name, namespace=request.namespace),
                spec=desired,
            )
            rt.owner.set_controller_reference(issuance, certificate)
            await self.client.create(certificate)
        else:
            if certificate.spec != desired:
                certificate.spec = desired
                await self.client.update(certificate)
        monitors = await self.client.list(
            ServiceMonitor, request.namespace, labels={MONITOR_LABEL: request.name}
        )
        status = IssuanceStatus(ready=_ready(certificate), monitors=len(monitors))
        if issuance.status != status:
            issuance.status = status
            await self.client.patch_status(issuance)
        return rt.Result()

    def setup(self, manager: rt.Manager) -> None:
        manager.add_controller(
            rt.Controller(
                name="issuance",
                for_=rt.For(Issuance),
                owns=[rt.Owns(Certificate)],
                watches=[rt.Watches(ServiceMonitor, _issuance_of)],
                reconciler=self,
            )
        )


def _issuance_of(monitor: ServiceMonitor) -> list[rt.Request]:
    name = (monitor.metadata.labels or {}).get(MONITOR_LABEL)
    return [rt.Request(monitor.metadata.namespace, name)] if name else []


def _ready(certificate: Certificate) -> bool:
    conditions = certificate.status.conditions if certificate.status else None
    return any(c.type == "Ready" and c.status == "True" for c in conditions or [])
'''


@pytest.fixture(scope="module")
def operator(tmp_path_factory: pytest.TempPathFactory) -> ImportedProject:
    project = ImportedProject.create(
        tmp_path_factory.mktemp("operator") / "project",
        [crds.certificate(), crds.service_monitor()],
    )
    project.add_own_kind("Issuance", ISSUANCE_TYPES, RECONCILER)
    return project


def test_the_role_grants_the_imported_kinds(operator: ImportedProject) -> None:
    role = yaml.safe_load((operator.root / "config/rbac/role.yaml").read_text())
    rules = {
        (tuple(r["apiGroups"]), tuple(r["resources"])): r["verbs"]
        for r in role["rules"]
    }
    assert rules[(("cert-manager.io",), ("certificates",))] == [
        "create", "get", "list", "update", "watch",
    ]  # fmt: skip
    assert rules[(("monitoring.coreos.com",), ("servicemonitors",))] == [
        "get", "list", "watch",
    ]  # fmt: skip
    assert sorted(p.name for p in (operator.root / "config/crd/bases").iterdir()) == [
        "issuing.example.com_issuances.yaml"
    ]


@pytest.fixture
def installed(
    operator: ImportedProject, envtest: Environment
) -> Iterator[ImportedProject]:
    root = operator.root
    envtest.install_crds([root / "config/crd/bases", root / "config/imported"])
    yield operator


@pytest.mark.envtest
async def test_the_operator_owns_and_watches_imported_kinds(
    installed: ImportedProject, envtest: Environment, namespace: str
) -> None:
    with installed.imported(f"{PACKAGE}.controller.issuance_controller") as controller:
        types: Any = importlib.import_module(f"{PACKAGE}.api.v1.issuance_types")
        certs: Any = importlib.import_module(f"{PACKAGE}.imported.cert_manager_io.v1")
        monitoring: Any = importlib.import_module(
            f"{PACKAGE}.imported.monitoring_coreos_com.v1"
        )
        cert_clients: Any = importlib.import_module(
            f"{PACKAGE}.imported.cert_manager_io.v1.zz_generated_client"
        )
        monitor_clients: Any = importlib.import_module(
            f"{PACKAGE}.imported.monitoring_coreos_com.v1.zz_generated_client"
        )
        manager = manager_for(envtest, namespace)
        controller.IssuanceReconciler(manager.client).setup(manager)
        certificates = cert_clients.CertificateClient(manager.client)
        monitors = monitor_clients.ServiceMonitorClient(manager.client)

        async def certificate() -> Any:
            try:
                return await certificates.get("web", namespace=namespace)
            except rt.NotFound:
                return None

        async def issuance() -> Any:
            return await manager.client.get(types.Issuance, "web", namespace)

        async with running(manager):
            await manager.client.create(
                types.Issuance(
                    metadata=op.ObjectMeta(name="web", namespace=namespace),
                    spec=types.IssuanceSpec(dns_name="web.example.com", issuer="ca"),
                )
            )
            created = await until_async(certificate, "the Certificate of the Issuance")
            (reference,) = created.metadata.owner_references
            assert (reference.kind, reference.name, reference.controller) == (
                "Issuance", "web", True,
            )  # fmt: skip
            assert created.spec.dns_names == ["web.example.com"]

            # Owns: a change to the owned Certificate is reconciled back...
            created.spec.dns_names = ["elsewhere.example.com"]
            await certificates.update(created)

            async def restored() -> bool:
                found = await certificate()
                return found is not None and found.spec.dns_names == ["web.example.com"]

            await until_async(restored, "the Certificate's spec, reconciled back")

            # ...and its status reaches the owner.
            ready = await certificate()
            ready.status = certs.CertificateStatus(
                conditions=[certs.CertificateCondition(type="Ready", status="True")]
            )
            await certificates.patch_status(ready)

            async def is_ready() -> bool:
                return bool(
                    (await issuance()).status and (await issuance()).status.ready
                )

            await until_async(is_ready, "the Issuance's ready status")

            # Watches: a ServiceMonitor labelled for the Issuance enqueues it.
            await monitors.create(
                monitoring.ServiceMonitor(
                    metadata=op.ObjectMeta(
                        name="web",
                        namespace=namespace,
                        labels={controller.MONITOR_LABEL: "web"},
                    ),
                    spec=monitoring.ServiceMonitorSpec(
                        selector=op.k8s.LabelSelector(match_labels={"app": "web"}),
                        endpoints=[monitoring.Endpoint(port="metrics", interval="30s")],
                    ),
                )
            )

            async def counted() -> bool:
                status = (await issuance()).status
                return bool(status and status.monitors == 1)

            await until_async(counted, "the Issuance counting its ServiceMonitor")


MYPY_CONFIG = "[mypy]\nstrict = True\nplugins = pydantic.mypy\n"


@pytest.mark.slow
def test_the_generated_modules_and_the_operator_pass_mypy_strict(
    operator: ImportedProject, tmp_path: Path
) -> None:
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG)
    done = subprocess.run(
        [
            sys.executable, "-m", "mypy", "--no-error-summary",
            f"--config-file={config}", f"--cache-dir={tmp_path / 'cache'}",
            "-p", f"{PACKAGE}.imported", "-p", f"{PACKAGE}.controller",
            "-p", f"{PACKAGE}.api",
        ],
        cwd=operator.root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_imported_modules_need_no_generator(operator: ImportedProject) -> None:
    """An operator's runtime install has no generator: the imported models, their
    clients and the reconciler import with typer, jinja2 and black blocked, and
    load no generator module (`opgen.openapi`, `opgen.schema`, `opgen.render`, ...)."""
    script = textwrap.dedent(f"""
        import sys
        blocked = ["typer", "jinja2", "black", "datamodel_code_generator"]

        class Blocker:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in blocked:
                    raise ImportError(f"{{name}} is blocked")
                return None

        sys.meta_path.insert(0, Blocker())
        import {PACKAGE}.imported.cert_manager_io.v1.zz_generated_client
        import {PACKAGE}.imported.monitoring_coreos_com.v1.zz_generated_client
        import {PACKAGE}.controller.issuance_controller as controller
        assert controller.Certificate.__name__ == "Certificate"
        generator = [m for m in sys.modules if m.split(".")[:2] in (
            ["opgen", "load"], ["opgen", "openapi"], ["opgen", "schema"],
            ["opgen", "render"], ["opgen", "write"], ["opgen", "project"],
            ["opgen", "cli"])]
        assert not generator, generator
        print("ok")
        """)
    assert in_fresh_interpreter(script, cwd=operator.root) == "ok"
