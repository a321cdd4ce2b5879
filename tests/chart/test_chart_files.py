"""`opgen create chart` and how `opgen generate` keeps the chart (no helm needed).

The chart follows the project (a new kind's CRD and roles appear, a deleted
kind's go), keeps the values a user set in values.yaml and any template of
their own, refuses a broken values.yaml without writing anything, and is
byte-identical run after run.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from opgen.project import load_project
from opgen.project.config import replay_commands
from opgen.render.chart.helmyaml import Slots
from opgen.render.chart.manifests import WebhookPatch, _crd_body, _Helm, documents
from opgen.render.yaml import dump_documents
from tests.chart.project import project_with_chart
from tests.scaffold.conftest import api_args, opgen, snapshot, tree_hash

CHART = "dist/chart"


@pytest.fixture(scope="module")
def charted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project_with_chart(
        tmp_path_factory.mktemp("chart") / "ray-operator", "single"
    )


@pytest.fixture
def project(charted: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ray-operator"
    shutil.copytree(charted, root)
    return root


def chart_files(root: Path) -> set[str]:
    return {name for name in snapshot(root) if name.startswith(f"{CHART}/")}


def test_create_chart_writes_the_chart_and_records_it(charted: Path) -> None:
    assert chart_files(charted) == {
        f"{CHART}/{name}"
        for name in (
            ".helmignore",
            "Chart.yaml",
            "values.yaml",
            "values.schema.json",
            "templates/NOTES.txt",
            "templates/_helpers.tpl",
            "templates/crd/ray.example.com_rayclusters.yaml",
            "templates/manager/manager.yaml",
            "templates/metrics/metrics_service.yaml",
            "templates/network-policy/allow-metrics-traffic.yaml",
            "templates/prometheus/monitor.yaml",
            "templates/rbac/leader_election_role.yaml",
            "templates/rbac/leader_election_role_binding.yaml",
            "templates/rbac/metrics_auth_role.yaml",
            "templates/rbac/metrics_auth_role_binding.yaml",
            "templates/rbac/metrics_reader_role.yaml",
            "templates/rbac/raycluster_admin_role.yaml",
            "templates/rbac/raycluster_editor_role.yaml",
            "templates/rbac/raycluster_viewer_role.yaml",
            "templates/rbac/role.yaml",
            "templates/rbac/role_binding.yaml",
            "templates/rbac/service_account.yaml",
        )
    }
    project = load_project(charted)
    assert project.chart is True
    assert replay_commands(project)[-1] == ("create", "chart")
    assert "chart: true" in (charted / "PROJECT").read_text()
    chart = yaml.safe_load((charted / CHART / "Chart.yaml").read_text())
    assert (chart["apiVersion"], chart["name"], chart["type"]) == (
        "v2",
        "ray-operator",
        "application",
    )
    schema = json.loads((charted / CHART / "values.schema.json").read_text())
    assert set(schema["properties"]) == {
        "manager",
        "leaderElection",
        "crd",
        "rbacHelpers",
        "metrics",
        "prometheus",
        "networkPolicy",
    }


def test_generate_is_up_to_date_after_create_chart(charted: Path) -> None:
    run = opgen(charted, "generate", "--check")
    assert run.exit_code == 0, run.stderr
    assert "up to date" in run.stdout


def test_the_chart_follows_the_kinds(project: Path) -> None:
    assert opgen(project, *api_args("ray", "v1", "RayJob")).exit_code == 0
    assert opgen(project, "generate").exit_code == 0
    files = chart_files(project)
    assert f"{CHART}/templates/crd/ray.example.com_rayjobs.yaml" in files
    assert f"{CHART}/templates/rbac/rayjob_viewer_role.yaml" in files
    role = (project / CHART / "templates/rbac/role.yaml").read_text()
    assert "- rayjobs" in role

    assert (
        opgen(project, *api_args("ray", "v1", "RayJob", verb="delete")).exit_code == 0
    )
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr
    assert (
        "delete    dist/chart/templates/crd/ray.example.com_rayjobs.yaml" in run.stdout
    )
    files = chart_files(project)
    assert f"{CHART}/templates/crd/ray.example.com_rayjobs.yaml" not in files
    assert f"{CHART}/templates/rbac/rayjob_viewer_role.yaml" not in files
    assert "- rayjobs" not in (project / CHART / "templates/rbac/role.yaml").read_text()


def test_generate_manifests_updates_the_chart_too(project: Path) -> None:
    template = project / CHART / "templates/rbac/role.yaml"
    template.write_text(template.read_text().replace("- watch", "- watchh"))
    # A hand edit of a generated file is refused without --force (issue 23).
    run = opgen(project, "generate", "manifests", "--force")
    assert run.exit_code == 0, run.stderr
    assert "update    dist/chart/templates/rbac/role.yaml" in run.stdout


def test_the_values_a_user_set_survive_regeneration(project: Path) -> None:
    values = project / CHART / "values.yaml"
    edited = (
        values.read_text()
        .replace("  replicas: 1\n", "  replicas: 3\n")
        .replace("  nodeSelector: {}\n", "  nodeSelector:\n    disktype: ssd\n")
        .replace("    tag: latest\n", "    tag: v1.2.0\n")
        .replace("  keep: true\n", "  keep: false\n")
        + "\n# My own value, for a template of mine.\nextraLabel: blue\n"
    )
    values.write_text(edited)
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr
    kept = yaml.safe_load(values.read_text())
    assert kept["manager"]["replicas"] == 3
    assert kept["manager"]["nodeSelector"] == {"disktype": "ssd"}
    assert kept["manager"]["image"]["tag"] == "v1.2.0"
    assert kept["crd"]["keep"] is False
    assert kept["extraLabel"] == "blue"
    # Values alone changed: the file is opgen's layout with them, and stays so.
    again = opgen(project, "generate", "--check")
    assert again.exit_code == 0, again.stderr


def test_keys_opgen_does_not_know_are_kept_in_their_section(project: Path) -> None:
    values = project / CHART / "values.yaml"
    values.write_text(
        values.read_text().replace(
            "manager:\n", "manager:\n  podAnnotations:\n    team: storage\n", 1
        )
    )
    assert opgen(project, "generate").exit_code == 0
    text = values.read_text()
    kept = yaml.safe_load(text)
    assert kept["manager"]["podAnnotations"] == {"team": "storage"}
    assert text.count("\nmanager:\n") == 1
    assert "# Not read by opgen's templates; kept from your values.yaml." in text


def test_a_template_of_the_users_own_stays(project: Path) -> None:
    mine = project / CHART / "templates/configmap.yaml"
    mine.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n")
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr
    assert mine.is_file()


def test_a_broken_values_yaml_is_refused_and_nothing_is_written(project: Path) -> None:
    values = project / CHART / "values.yaml"
    values.write_text("manager: [unclosed\n")
    role = project / CHART / "templates/rbac/role.yaml"
    role.write_text(role.read_text() + "# stale\n")
    before = tree_hash(project)
    run = opgen(project, "generate")
    assert run.exit_code == 1
    assert run.stderr.startswith(
        "error: dist/chart/values.yaml: values.yaml is not valid YAML"
    )
    assert "delete it to get the defaults back" in run.stderr
    assert tree_hash(project) == before


def test_the_users_chart_files_are_scaffolded_once(project: Path) -> None:
    chart_yaml = project / CHART / "Chart.yaml"
    chart_yaml.write_text(
        chart_yaml.read_text().replace("version: 0.1.0", "version: 0.4.2")
    )
    run = opgen(project, "create", "chart")
    assert run.exit_code == 0, run.stderr
    assert "skip      dist/chart/Chart.yaml" in run.stdout
    assert "version: 0.4.2" in chart_yaml.read_text()
    assert opgen(project, "create", "chart", "--force").exit_code == 0
    assert "version: 0.1.0" in chart_yaml.read_text()


def test_the_chart_is_byte_identical_run_after_run(
    tmp_path: Path, charted: Path
) -> None:
    again = project_with_chart(tmp_path / "ray-operator", "single")
    first = {k: v for k, v in snapshot(charted).items() if k.startswith(CHART)}
    second = {k: v for k, v in snapshot(again).items() if k.startswith(CHART)}
    assert first == second


def test_create_chart_outside_a_project_is_refused(tmp_path: Path) -> None:
    run = opgen(tmp_path, "create", "chart")
    assert run.exit_code == 1
    assert "must run in the root folder of a project" in run.stderr


def test_braces_in_the_objects_are_escaped_for_helm() -> None:
    slots = Slots()
    text = slots.dump(
        {
            "kind": "ConfigMap",
            "metadata": {"name": slots.inline('{{ include "x.fullname" . }}-cm')},
            "data": {"template": "Hello {{ .Name }}"},
        }
    )
    assert 'template: Hello {{ "{{" }} .Name }}' in text
    assert 'name: {{ include "x.fullname" . }}-cm' in text


def test_a_crds_versions_pass_through_as_a_full_conversion_writes_them() -> None:
    # The chart copies a CRD's versions (its schemas) from the CRD file rather
    # than parsing and dumping them again: the template must be the same.
    schema = {
        "type": "object",
        "description": "Renders {{ .Values }}.\n\nSecond paragraph, after a blank line.",
        "properties": {
            "replicas": {"type": "integer", "default": 1, "maximum": 1e-05},
            "mode": {"type": "string", "enum": ["yes", "no", "124", ""]},
        },
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "annotations": {"opgen.dev/version": "0.1.0"},
            "name": "rayclusters.ray.io",
        },
        "spec": {
            "conversion": {
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
            },
            "group": "ray.io",
            "names": {"kind": "RayCluster", "plural": "rayclusters"},
            "scope": "Namespaced",
            "versions": [
                {"name": name, "schema": {"openAPIV3Schema": schema}, "served": True}
                for name in ("v1", "v2")
            ],
        },
    }
    text = dump_documents([crd])
    helm = _Helm("ray-operator", "--metrics-bind-address=:8443", WebhookPatch(), "cert")
    [document] = documents(text)
    assert _crd_body(text, helm) == helm.convert(document)
    assert 'Renders {{ "{{" }} .Values }}.' in _crd_body(text, helm)
