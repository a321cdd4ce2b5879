"""`opgen install-crds` (`make install`) on a cluster `make cluster` started.

The CRD is first installed as `make cluster` installs it (server-side apply,
field manager `opgen-envtest`); `make install` must then replace it whole
(a field the types dropped goes, no conflict), keep a conversion `opgen
webhook install-local` pointed at this machine, and give the Service back
with `--service` (`make uninstall-local-webhooks`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

import opgen.api as op
from opgen.cli import app
from opgen.errors import EnvtestError
from opgen.testing import Environment
from opgen.testing.controlplane.adminapi import AdminApi
from opgen.testing.controlplane.crdinstall import connect, install_project_crds
from opgen.testing.controlplane.crds import FIELD_MANAGER, CrdDocument
from opgen.testing.controlplane.pki import generate_pki
from opgen.testing.controlplane.webhooks import LocalWebhooks, patch_conversion
from tests.testing.crd_samples import widget_crd

SERVICE = {"name": "webhook-service", "namespace": "system", "path": "/convert"}


def converting_crd(plural: str) -> dict[str, Any]:
    """A Widget-like CRD served as v1 and v2, converting through a Service."""
    crd = widget_crd(plural.capitalize()[:-1], plural)
    v1 = crd["spec"]["versions"][0]
    v2 = {**copy.deepcopy(v1), "name": "v2", "storage": False}
    crd["spec"]["versions"] = [v1, v2]
    crd["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"service": SERVICE},
            "conversionReviewVersions": ["v1"],
        },
    }
    return crd


def admin(envtest: Environment) -> AdminApi:
    return AdminApi(envtest.kubeconfig_path, field_manager=FIELD_MANAGER)


def live(envtest: Environment, name: str) -> dict[str, Any]:
    with admin(envtest) as api:
        crd: dict[str, Any] = api.get(op.k8s.CustomResourceDefinition, name)
    return crd


def client_config(crd: dict[str, Any]) -> dict[str, Any]:
    return crd["spec"]["conversion"]["webhook"]["clientConfig"]  # type: ignore[no-any-return]


@pytest.mark.envtest
def test_the_loop_on_a_running_cluster_with_local_webhooks(
    envtest: Environment, tmp_path: Path
) -> None:
    crd = converting_crd("ratchets")
    name = crd["metadata"]["name"]
    envtest.install_crds([crd])  # as `make cluster` does
    cluster = connect(envtest.kubeconfig_path, None)

    edited = copy.deepcopy(crd)
    for version in edited["spec"]["versions"]:
        spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
        del spec["properties"]["color"]
    (installed,) = install_project_crds(cluster, [CrdDocument(edited, "edited")])
    assert (installed.action, installed.conversion) == (
        "replaced",
        "Service system/webhook-service",
    )
    schema = live(envtest, name)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert "color" not in schema["properties"]["spec"]["properties"]

    local = LocalWebhooks(
        host="127.0.0.1",
        port=9443,
        cert_dir=Path(),
        ca_pem=generate_pki(tmp_path).ca_pem,
        configurations=(),
    )
    with admin(envtest) as api:
        assert patch_conversion(api, [name], local) == [name]
    (installed,) = install_project_crds(cluster, [CrdDocument(edited, "edited")])
    assert installed.conversion == "https://127.0.0.1:9443/convert"
    config = client_config(live(envtest, name))
    assert config["url"] == "https://127.0.0.1:9443/convert" and "service" not in config

    install_project_crds(
        cluster, [CrdDocument(edited, "edited")], local_conversion=False
    )
    config = client_config(live(envtest, name))
    assert "url" not in config and config["service"]["name"] == "webhook-service"


@pytest.mark.envtest
def test_the_command_reads_kustomize_output_and_creates(
    envtest: Environment, tmp_path: Path
) -> None:
    crd = converting_crd("flanges")
    out = CliRunner().invoke(
        app,
        ["install-crds", "--kubeconfig", str(envtest.kubeconfig_path), "-"],
        input=yaml.safe_dump_all([{"kind": "Namespace"}, crd]),
    )
    assert out.exit_code == 0, out.output
    assert "created CustomResourceDefinition flanges." in out.stdout
    assert (
        live(envtest, crd["metadata"]["name"])["spec"]["names"]["plural"] == "flanges"
    )


def test_no_cluster_is_one_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "config"
    with pytest.raises(EnvtestError) as error:
        connect(missing, None)
    assert str(missing) in str(error.value) and "make cluster" in str(error.value)


def stale_kubeconfig(tmp_path: Path) -> Path:
    """A kubeconfig whose server nothing listens on (a stopped `make cluster`)."""
    config = tmp_path / "config"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": "c", "cluster": {"server": "https://127.0.0.1:9"}}
                ],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    return config


def test_a_cluster_that_does_not_answer_is_named(tmp_path: Path) -> None:
    config = stale_kubeconfig(tmp_path)
    out = CliRunner().invoke(
        app,
        ["install-crds", "--kubeconfig", str(config), "-"],
        input=yaml.safe_dump(converting_crd("gears")),
    )
    assert out.exit_code == 1
    assert "cannot reach the cluster at https://127.0.0.1:9" in out.stderr
    assert "make cluster" in out.stderr and "Traceback" not in out.output


def test_make_run_without_a_kubeconfig_says_so_and_exits(tmp_path: Path) -> None:
    out = CliRunner().invoke(
        app,
        ["check-cluster"],
        env={"KUBECONFIG": str(tmp_path / "none"), "HOME": str(tmp_path)},
    )
    assert out.exit_code == 1
    assert str(tmp_path / "none") in out.stderr and "make cluster" in out.stderr
    assert "Traceback" not in out.output


def test_make_run_with_a_stale_context_names_the_server(tmp_path: Path) -> None:
    config = stale_kubeconfig(tmp_path)
    out = CliRunner().invoke(app, ["check-cluster", "--kubeconfig", str(config)])
    assert out.exit_code == 1
    assert "cannot reach the cluster at https://127.0.0.1:9" in out.stderr
    assert "make cluster" in out.stderr and "Traceback" not in out.output


@pytest.mark.envtest
def test_a_running_cluster_answers(envtest: Environment) -> None:
    out = CliRunner().invoke(
        app, ["check-cluster", "--kubeconfig", str(envtest.kubeconfig_path)]
    )
    assert out.exit_code == 0, out.output
    assert "answers" in out.stdout
