"""opgen init, create api and delete api through the CLI, on real folders."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import yaml

from opgen.project import load_project, replay_commands
from tests.scaffold.conftest import (
    CREATE_RAY,
    DELETE_RAY,
    INIT,
    api_args,
    create_api,
    opgen,
    snapshot,
    tree_hash,
)

INIT_FILES = {
    ".dockerignore",
    ".github/workflows/lint.yml",
    ".github/workflows/test-e2e.yml",
    ".github/workflows/test.yml",
    ".gitignore",
    "Dockerfile",
    "Makefile",
    "PROJECT",
    "README.md",
    "constraints.txt",
    "pyproject.toml",
    "wheelhouse/README.md",
    "config/crd/kustomization.yaml",
    "config/default/cert_metrics_manager_patch.yaml",
    "config/default/kustomization.yaml",
    "config/default/manager_metrics_patch.yaml",
    "config/default/metrics_service.yaml",
    "config/manager/kustomization.yaml",
    "config/manager/manager.yaml",
    "config/network-policy/allow-metrics-traffic.yaml",
    "config/network-policy/kustomization.yaml",
    "config/prometheus/kustomization.yaml",
    "config/prometheus/monitor.yaml",
    "config/prometheus/monitor_tls_patch.yaml",
    "config/rbac/kustomization.yaml",
    "config/rbac/leader_election_role.yaml",
    "config/rbac/leader_election_role_binding.yaml",
    "config/rbac/metrics_auth_role.yaml",
    "config/rbac/metrics_auth_role_binding.yaml",
    "config/rbac/metrics_reader_role.yaml",
    "config/rbac/role.yaml",
    "config/rbac/role_binding.yaml",
    "config/rbac/service_account.yaml",
    "config/samples/kustomization.yaml",
    "ray_operator/__init__.py",
    "ray_operator/__main__.py",
    "ray_operator/api/__init__.py",
    "ray_operator/controller/__init__.py",
    "ray_operator/main.py",
    "tests/conftest.py",
    "tests/e2e/test_manager.py",
}


def test_init_scaffolds_the_project(project: Path) -> None:
    files = snapshot(project)
    assert set(files) == INIT_FILES
    recorded = load_project(project)
    assert (recorded.domain, recorded.project_name, recorded.package) == (
        "example.com",
        "ray-operator",
        "ray_operator",
    )
    for name, text in files.items():
        if name.endswith(".py"):
            ast.parse(text, name)
        if name.endswith(".yaml"):
            list(yaml.safe_load_all(text))
    manager = list(yaml.safe_load_all(files["config/manager/manager.yaml"]))[1]
    pod = manager["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert pod["securityContext"] == {
        "runAsNonRoot": True,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert container["securityContext"] == {
        "readOnlyRootFilesystem": True,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    assert container["args"] == ["--leader-elect", "--health-probe-bind-address=:8081"]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": 8081}
    assert "USER 65532:65532" in files["Dockerfile"]
    assert files["Dockerfile"].count("FROM ") == 2
    for target in (
        "help",
        "manifests",
        "generate",
        "fmt",
        "lint",
        "typecheck",
        "test",
        "run",
        "build",
        "docker-build",
        "install",
        "uninstall",
        "deploy",
        "undeploy",
        "build-installer",
    ):
        assert f"\n{target}:" in files["Makefile"], target
    default = yaml.safe_load(files["config/default/kustomization.yaml"])
    assert default["namespace"] == "ray-operator-system"
    assert default["namePrefix"] == "ray-operator-"
    assert "../prometheus" not in default["resources"]
    assert "../network-policy" not in default["resources"]


def test_init_accepts_a_git_only_folder_and_defaults_the_name(tmp_path: Path) -> None:
    root = tmp_path / "my-operator"
    (root / ".git").mkdir(parents=True)
    run = opgen(
        root, "init", "--domain", "example.com", "--namespaced", "--license", "none"
    )
    assert run.exit_code == 0, run.stderr
    project = load_project(root)
    assert (project.project_name, project.package, project.namespaced) == (
        "my-operator",
        "my_operator",
        True,
    )
    assert "Copyright" not in (root / "my_operator" / "main.py").read_text()
    binding = yaml.safe_load((root / "config/rbac/role_binding.yaml").read_text())
    assert binding["kind"] == "RoleBinding"
    assert binding["roleRef"]["kind"] == "Role"
    role = yaml.safe_load((root / "config/rbac/role.yaml").read_text())
    assert role["kind"] == "Role"
    assert "WATCH_NAMESPACE" in (root / "config/manager/manager.yaml").read_text()
    assert "WATCH_NAMESPACE" in (root / "my_operator/main.py").read_text()


def test_create_api_adds_files_and_wiring(project: Path) -> None:
    run = opgen(project, *CREATE_RAY)
    assert run.exit_code == 0, run.stderr
    files = snapshot(project)
    added = set(files) - INIT_FILES
    assert added == {
        "config/rbac/raycluster_admin_role.yaml",
        "config/rbac/raycluster_editor_role.yaml",
        "config/rbac/raycluster_viewer_role.yaml",
        "config/samples/ray_v1_raycluster.yaml",
        "ray_operator/api/v1/__init__.py",
        "ray_operator/api/v1/groupversion_info.py",
        "ray_operator/api/v1/raycluster_types.py",
        "ray_operator/controller/raycluster_controller.py",
        "tests/controller/test_raycluster_controller.py",
    }
    main = files["ray_operator/main.py"]
    assert (
        "from ray_operator.controller.raycluster_controller import RayClusterReconciler"
        in main
    )
    assert "    RayClusterReconciler(manager.client).setup(manager)\n" in main
    assert (
        "- bases/ray.example.com_rayclusters.yaml"
        in files["config/crd/kustomization.yaml"]
    )
    assert "- ../crd" in files["config/default/kustomization.yaml"]
    assert "- raycluster_viewer_role.yaml" in files["config/rbac/kustomization.yaml"]
    assert "- ray_v1_raycluster.yaml" in files["config/samples/kustomization.yaml"]
    types = files["ray_operator/api/v1/raycluster_types.py"]
    assert "class RayClusterSpec(op.Model):" in types
    assert "observed_generation: int | None = None" in types
    assert "conditions: op.Conditions = []" in types
    assert "@op.subresource_status()" in types
    controller = files["ray_operator/controller/raycluster_controller.py"]
    for needle in (
        'resources=["rayclusters"]',
        'resources=["rayclusters/status"]',
        'resources=["rayclusters/finalizers"]',
    ):
        assert needle in controller
    assert 'FINALIZER = "ray.example.com/finalizer"' in controller
    sample = yaml.safe_load(files["config/samples/ray_v1_raycluster.yaml"])
    assert (sample["apiVersion"], sample["kind"]) == (
        "ray.example.com/v1",
        "RayCluster",
    )
    recorded = load_project(project)
    assert [(r.group, r.version, r.kind, r.plural) for r in recorded.resources] == [
        ("ray", "v1", "RayCluster", "rayclusters")
    ]
    assert set(recorded.scaffolded) == added
    for name, text in files.items():
        if name.endswith(".py"):
            ast.parse(text, name)


def test_create_then_delete_restores_the_tree_exactly(project: Path) -> None:
    before = snapshot(project)
    assert opgen(project, *CREATE_RAY).exit_code == 0
    run = opgen(project, *DELETE_RAY)
    assert run.exit_code == 0, run.stderr
    assert snapshot(project) == before
    assert not (project / "ray_operator/api/v1").exists()
    assert not (project / "tests/controller").exists()


def test_delete_refuses_edited_files_unless_forced(project: Path) -> None:
    assert opgen(project, *CREATE_RAY).exit_code == 0
    types = project / "ray_operator/api/v1/raycluster_types.py"
    types.write_text(types.read_text() + "\n# my field ideas\n")
    before = tree_hash(project)
    delete = DELETE_RAY
    run = opgen(project, *delete)
    assert run.exit_code == 1
    assert (
        "you edited files that create api scaffolded: ray_operator/api/v1/raycluster_types.py"
        in run.stderr
    )
    assert "--force" in run.stderr
    assert tree_hash(project) == before
    assert opgen(project, *delete, "--force").exit_code == 0
    assert not types.exists()


def test_delete_keeps_files_other_kinds_need(project: Path) -> None:
    assert opgen(project, *CREATE_RAY).exit_code == 0
    assert create_api(project, "ray", "v1", "RayJob").exit_code == 0
    run = opgen(project, *DELETE_RAY)
    assert run.exit_code == 0, run.stderr
    assert (project / "ray_operator/api/v1/groupversion_info.py").exists()
    assert (project / "ray_operator/api/v1/rayjob_types.py").exists()
    main = (project / "ray_operator/main.py").read_text()
    assert (
        "RayJobReconciler(manager.client)" in main
        and "RayClusterReconciler" not in main
    )
    # The shared file's hash moves on with the project: deleting RayJob removes it.
    assert (
        opgen(project, *api_args("ray", "v1", "RayJob", verb="delete")).exit_code == 0
    )
    assert not (project / "ray_operator/api/v1").exists()


def test_create_api_force_is_idempotent_and_rewrites_edits(project: Path) -> None:
    assert opgen(project, *CREATE_RAY).exit_code == 0
    first = snapshot(project)
    assert opgen(project, *CREATE_RAY, "--force").exit_code == 0
    assert snapshot(project) == first
    controller = project / "ray_operator/controller/raycluster_controller.py"
    controller.write_text("# mine\n")
    assert opgen(project, *CREATE_RAY, "--force").exit_code == 0
    assert snapshot(project) == first


def test_existing_user_file_is_skipped_and_reported(project: Path) -> None:
    mine = project / "ray_operator/controller/raycluster_controller.py"
    mine.write_text("# written before create api\n")
    run = opgen(project, *CREATE_RAY)
    assert run.exit_code == 0, run.stderr
    assert (
        "skip      ray_operator/controller/raycluster_controller.py (exists and is yours"
        in run.stdout
    )
    assert mine.read_text() == "# written before create api\n"
    assert (
        "ray_operator/controller/raycluster_controller.py"
        not in load_project(project).scaffolded
    )


def test_controller_for_a_core_type(project: Path) -> None:
    args = api_args("apps", "v1", "Deployment", "--no-resource")
    run = opgen(project, *args)
    assert run.exit_code == 0, run.stderr
    added = set(snapshot(project)) - INIT_FILES
    assert added == {
        "ray_operator/controller/deployment_controller.py",
        "tests/controller/test_deployment_controller.py",
    }
    controller = (
        project / "ray_operator/controller/deployment_controller.py"
    ).read_text()
    assert "from opgen.api.k8s.apps_v1 import Deployment" in controller
    assert 'groups=["apps"]' in controller
    entry = load_project(project).resources[0]
    assert (entry.core, entry.api, entry.api_group, entry.plural) == (
        True,
        False,
        "apps",
        "deployments",
    )
    assert "../crd" not in (
        project / "config/default/kustomization.yaml"
    ).read_text().split("resources:")[1].split("- ../rbac")[0].replace("# +opgen", "")


def test_types_then_controller_in_two_steps(project: Path) -> None:
    assert opgen(project, *CREATE_RAY, "--no-controller").exit_code == 0
    assert not (project / "ray_operator/controller/raycluster_controller.py").exists()
    assert opgen(project, *CREATE_RAY, "--no-resource").exit_code == 0
    assert (project / "ray_operator/controller/raycluster_controller.py").exists()
    entry = load_project(project).resources[0]
    assert (entry.api, entry.controller) == (True, True)


def test_cluster_scoped_kind_and_custom_plural(project: Path) -> None:
    args = api_args("ray", "v1alpha1", "Fleet", "--cluster", "--plural", "fleetz")
    assert opgen(project, *args).exit_code == 0
    types = (project / "ray_operator/api/v1alpha1/fleet_types.py").read_text()
    assert (
        '@op.kind(group=GROUP, version=VERSION, scope="Cluster", plural="fleetz")'
        in types
    )
    test = (project / "tests/controller/test_fleet_controller.py").read_text()
    assert "rt.Request(namespace=None, name=name)" in test


def test_rerunning_init_changes_nothing(project: Path) -> None:
    before = tree_hash(project)
    run = opgen(project, *INIT)
    assert run.exit_code == 1
    assert "already an opgen project" in run.stderr
    assert tree_hash(project) == before


def test_multigroup_wiring_is_sorted_and_stable(tmp_path: Path) -> None:
    root = tmp_path / "fleet"
    root.mkdir()
    assert opgen(root, "init", "--domain", "example.com", "--multigroup").exit_code == 0
    for group, kind in (("ray", "RayCluster"), ("batch", "Job"), ("ray", "RayJob")):
        assert create_api(root, group, "v1", kind).exit_code == 0
    main = (root / "fleet/main.py").read_text()
    imports = [
        line for line in main.splitlines() if line.startswith("from fleet.controller")
    ]
    assert imports == sorted(imports) and len(imports) == 3
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    for group, kind in (("ray", "RayCluster"), ("batch", "Job"), ("ray", "RayJob")):
        assert create_api(copy, group, "v1", kind, "--force").exit_code == 0
    assert snapshot(copy) == snapshot(root)


def test_project_file_replays_to_the_same_tree(tmp_path: Path) -> None:
    original = tmp_path / "original"
    original.mkdir()
    steps = [
        (
            "init",
            "--domain",
            "example.com",
            "--project-name",
            "replayed",
            "--owner",
            "Me",
            "--multigroup",
        ),
        api_args("ray", "v1", "RayCluster", "--no-controller"),
        api_args("batch", "v1", "Fleet", "--cluster", "--plural", "fleetz"),
        api_args("apps", "v1", "Deployment", "--no-resource"),
        api_args("ray", "v1", "RayCluster", "--no-resource"),
    ]
    for step in steps:
        run = opgen(original, *step)
        assert run.exit_code == 0, run.stderr
    replayed = tmp_path / "replayed"
    replayed.mkdir()
    for command in replay_commands(load_project(original)):
        run = opgen(replayed, *command)
        assert run.exit_code == 0, run.stderr
    assert snapshot(replayed) == snapshot(original)


def test_generate_in_a_project_without_kinds(project: Path) -> None:
    """Right after init, and with controllers for built-in types only: no CRDs, no error."""
    before = snapshot(project)
    run = opgen(project, "generate")
    assert (run.exit_code, run.stdout) == (0, "up to date\n"), run.stderr
    assert snapshot(project) == before

    core = ("--group", "apps", "--version", "v1", "--kind", "Deployment")
    assert opgen(project, "create", "api", *core, "--no-resource").exit_code == 0
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr
    # PROJECT records the role's new hash (issue 23).
    assert run.stdout == "update    PROJECT\nupdate    config/rbac/role.yaml\n"
    assert not (project / "config/crd/bases").exists()
    role = yaml.safe_load((project / "config/rbac/role.yaml").read_text())
    assert {g for rule in role["rules"] for g in rule["apiGroups"]} == {"apps"}
    assert opgen(project, "generate", "--check").exit_code == 0


def test_generate_after_deleting_the_last_kind(project: Path) -> None:
    assert opgen(project, *CREATE_RAY).exit_code == 0
    assert opgen(project, "generate").exit_code == 0
    delete = ("delete", "api", "--group", "ray", "--version", "v1", "--kind")
    assert opgen(project, *delete, "RayCluster").exit_code == 0
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr
    role = yaml.safe_load((project / "config/rbac/role.yaml").read_text())
    assert role["rules"] == []
    assert not list((project / "config/crd").rglob("*_rayclusters.yaml"))


def test_generate_follows_a_plural_and_scope_changed_in_the_types(
    project: Path,
) -> None:
    assert opgen(project, *CREATE_RAY).exit_code == 0
    assert opgen(project, "generate").exit_code == 0
    bases = project / "config/crd/bases"
    hand_written = bases / "mine.yaml"
    hand_written.write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "metadata:\n  name: things.mine.example.com\n"
    )
    types = project / "ray_operator/api/v1/raycluster_types.py"
    types.write_text(
        types.read_text().replace(
            "@op.kind(group=GROUP, version=VERSION)",
            '@op.kind(group=GROUP, version=VERSION, plural="rays", scope="Cluster")',
        )
    )
    # The reconciler's @op.rbac markers still name the old plural (issue 23).
    stale = opgen(project, "generate", "--check")
    assert stale.exit_code == 1
    assert (
        "RayClusterReconciler: @op.rbac(groups=['ray.example.com'], "
        "resources=['rayclusters']): group 'ray.example.com' has no resource "
        "'rayclusters'" in stale.stderr
    )
    controller = project / "ray_operator/controller/raycluster_controller.py"
    controller.write_text(controller.read_text().replace('"rayclusters', '"rays'))

    check = opgen(project, "generate", "--check")
    assert check.exit_code == 1
    for line in (
        "delete config/crd/bases/ray.example.com_rayclusters.yaml",
        "create config/crd/bases/ray.example.com_rays.yaml",
        "update config/crd/kustomization.yaml",
        "update PROJECT",
    ):
        assert line in check.stderr

    assert opgen(project, "generate").exit_code == 0
    assert sorted(p.name for p in bases.iterdir()) == [
        "mine.yaml",
        "ray.example.com_rays.yaml",
    ]
    kustomization = yaml.safe_load(
        (project / "config/crd/kustomization.yaml").read_text()
    )
    assert kustomization["resources"] == ["bases/ray.example.com_rays.yaml"]
    # PROJECT keeps what create api was given; the types file's plural and scope
    # are read from the IR on each run.
    entry = load_project(project).resources[0]
    assert (entry.plural, entry.namespaced) == ("rayclusters", True)
    assert "plural: rays" not in (project / "PROJECT").read_text()
    assert opgen(project, "generate", "--check").exit_code == 0

    delete = ("delete", "api", "--group", "ray", "--version", "v1", "--kind")
    assert opgen(project, *delete, "RayCluster", "--force").exit_code == 0
    assert sorted(p.name for p in bases.iterdir()) == ["mine.yaml"]


def test_two_versions_of_one_kind_share_controller_crd_and_roles(
    project: Path,
) -> None:
    create = ("create", "api", "--group", "ray", "--kind", "RayCluster", "--version")
    assert opgen(project, *create, "v1").exit_code == 0
    run = opgen(project, *create, "v2")
    assert run.exit_code == 0, run.stderr
    assert "skip      ray_operator/controller/raycluster_controller.py" in run.stdout
    main = (project / "ray_operator/main.py").read_text()
    assert main.count("import RayClusterReconciler") == 1
    assert main.count("RayClusterReconciler(manager.client).setup(manager)") == 1
    crd_list = yaml.safe_load((project / "config/crd/kustomization.yaml").read_text())
    assert crd_list["resources"] == ["bases/ray.example.com_rayclusters.yaml"]
    roles = yaml.safe_load((project / "config/rbac/kustomization.yaml").read_text())
    assert roles["resources"].count("raycluster_admin_role.yaml") == 1

    run = opgen(project, "generate")
    assert run.exit_code == 1
    assert "none is the storage version" in run.stderr
    types = project / "ray_operator/api/v1/raycluster_types.py"
    types.write_text(
        types.read_text().replace(
            "@op.subresource_status()\n",
            "@op.subresource_status()\n@op.storage_version()\n",
        )
    )
    run = opgen(project, "generate")
    assert run.exit_code == 0, run.stderr
    crd = yaml.safe_load(
        (project / "config/crd/bases/ray.example.com_rayclusters.yaml").read_text()
    )
    assert [(v["name"], v["storage"]) for v in crd["spec"]["versions"]] == [
        ("v1", True),
        ("v2", False),
    ]
    done = subprocess.run(
        ["kubectl", "kustomize", "config/default"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    delete = ("delete", "api", "--group", "ray", "--version", "v2", "--kind")
    assert opgen(project, *delete, "RayCluster").exit_code == 0
    assert (project / "ray_operator/controller/raycluster_controller.py").exists()
    assert (project / "config/rbac/raycluster_admin_role.yaml").exists()
    assert opgen(project, "generate").exit_code == 0
    crd = yaml.safe_load(
        (project / "config/crd/bases/ray.example.com_rayclusters.yaml").read_text()
    )
    assert [v["name"] for v in crd["spec"]["versions"]] == ["v1"]
