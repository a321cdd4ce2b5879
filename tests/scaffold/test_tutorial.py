"""docs/tutorial.md, followed step by step with its own code blocks.

Each code block the tutorial asks the reader to put into a file is taken from
the Markdown and put there, as the reader would; then the commands it names
run, and what it says should happen is checked, up to a manager that keeps a
ConfigMap in step with each RayCluster (with only the generated RBAC) and
`delete api` refusing, then forced.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from opgen.testing import Environment
from tests.scaffold.cluster import deploy, kubectl, manager, wait_ready
from tests.scaffold.conftest import BIN, check_code, opgen, run_project_tests, tool
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
CONTROLLER = "ray_operator/controller/raycluster_controller.py"


def blocks(section: str, language: str) -> list[str]:
    """The `language` code blocks of the tutorial's section `## <section>...`."""
    text = TUTORIAL.read_text()
    start = text.index(f"\n## {section}")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else None]
    return re.findall(rf"```{language}\n(.*?)```", body, flags=re.DOTALL)


def replace_method(source: str, method: str) -> str:
    """`source` with the method of the same name as `method` replaced by it."""
    name = re.search(r"def (\w+)\(", method)
    assert name is not None
    pattern = re.compile(
        rf"^    (async )?def {name[1]}\(.*?(?=^    (async )?def |\Z)",
        flags=re.DOTALL | re.MULTILINE,
    )
    assert pattern.search(source), name[1]
    return pattern.sub(lambda _: method + "\n", source, count=1)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tutorial") / "ray-operator"
    root.mkdir()
    # 1 and 2: the commands, as the tutorial gives them.
    assert "opgen init --domain example.com" in blocks("1.", "sh")[0]
    assert opgen(root, "init", "--domain", "example.com").exit_code == 0
    create = blocks("2.", "sh")[0].split()
    assert create[:2] == ["opgen", "create"]
    assert opgen(root, *create[1:]).exit_code == 0

    # 3: the types file and the sample's spec.
    types, sample_spec = blocks("3.", "python")[0], blocks("3.", "yaml")[0]
    (root / "ray_operator/api/v1/raycluster_types.py").write_text(types)
    sample_path = root / sample_spec.splitlines()[0].removeprefix("# ")
    sample = yaml.safe_load(sample_path.read_text())
    sample["spec"] = yaml.safe_load(sample_spec)["spec"]
    sample_path.write_text(yaml.safe_dump(sample, sort_keys=False))
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr

    # 4: imports, marker, setup and reconcile_spec, then `make fmt`'s tools.
    imports, marker, setup, reconcile_spec = blocks("4.", "python")
    controller = root / CONTROLLER
    source = controller.read_text()
    anchor = "from opgen import runtime as rt\n"
    source = source.replace(anchor, anchor + imports, 1)
    first_marker = source.index("@op.rbac(")
    source = source[:first_marker] + marker + source[first_marker:]
    source = replace_method(source, setup.rstrip("\n"))
    source = replace_method(source, reconcile_spec.rstrip("\n"))
    controller.write_text(source)
    tool(
        root,
        str(BIN / "ruff"),
        "check",
        "--fix",
        "--select",
        "I",
        "--no-cache",
        "ray_operator",
        "tests",
    )
    tool(root, str(BIN / "black"), "--quiet", "ray_operator", "tests")
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr
    return root


def test_generate_wrote_what_section_3_says(project: Path) -> None:
    crd_path = project / "config/crd/bases/ray.example.com_rayclusters.yaml"
    crd = yaml.safe_load(crd_path.read_text())
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec = schema["properties"]["spec"]
    assert spec["required"] == ["image"]
    assert spec["properties"]["workers"]["minimum"] == 0
    columns = crd["spec"]["versions"][0]["additionalPrinterColumns"]
    assert columns[0]["jsonPath"] == ".status.readyWorkers"
    client = project / "ray_operator/api/v1/zz_generated_client.py"
    assert "class RayClusterClient(" in client.read_text()


def test_the_configmap_marker_reached_role_yaml(project: Path) -> None:
    role = yaml.safe_load((project / "config/rbac/role.yaml").read_text())
    assert {
        "apiGroups": [""],
        "resources": ["configmaps"],
        "verbs": ["create", "get", "list", "patch", "update", "watch"],
    } in role["rules"]


def test_make_lint_and_typecheck_would_pass(project: Path) -> None:
    check_code(project, "ray_operator")


@pytest.mark.envtest
def test_section_5_the_projects_tests_pass(project: Path) -> None:
    out = run_project_tests(project)
    assert "3 passed" in out  # with tests/e2e/


@pytest.mark.envtest
def test_section_6_the_manager_keeps_the_configmap_in_step(
    project: Path, envtest: Environment, tmp_path: Path
) -> None:
    assert "kubectl apply -k config/samples/" in blocks("6.", "sh")[0]
    identity = deploy(envtest, project, "ray-operator", tmp_path / "sa.kubeconfig")
    admin = envtest.kubeconfig_path
    with manager(project, "ray_operator", identity):
        tool(
            project,
            "kubectl",
            "--kubeconfig",
            str(admin),
            "apply",
            "-k",
            "config/samples/",
        )
        found = wait_ready(admin, "rayclusters.ray.example.com", "raycluster-sample")
        assert found == {"Ready": "True", "Progressing": "False", "Degraded": "False"}
        config = yaml.safe_load(
            kubectl(
                admin, "get", "configmap", "raycluster-sample-ray", "-o", "yaml"
            ).stdout
        )
        assert config["data"] == {"image": "rayproject/ray:2.40.0", "workers": "2"}
        owner = config["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["controller"]) == (
            "RayCluster",
            "raycluster-sample",
            True,
        )
        # Owned: deleting the ConfigMap triggers a reconcile that puts it back.
        kubectl(admin, "delete", "configmap", "raycluster-sample-ray")
        until(
            lambda: kubectl(
                admin, "get", "configmap", "raycluster-sample-ray", check=False
            ).returncode
            == 0,
            "the reconciler to recreate the ConfigMap",
            every=0.5,
        )


def test_section_7_delete_api_refuses_edited_files_then_forced(project: Path) -> None:
    command = blocks("7.", "sh")[0].split()
    run = opgen(project, *command[1:])
    assert run.exit_code == 1
    assert "you edited files that create api scaffolded" in run.stderr
    assert CONTROLLER in run.stderr
    run = opgen(project, *command[1:], "--force")
    assert run.exit_code == 0, run.stderr
    assert not (project / CONTROLLER).exists()
    assert not (project / "config/crd/bases/ray.example.com_rayclusters.yaml").exists()
    assert opgen(project, "generate").exit_code == 0
    assert opgen(project, "generate", "--check").exit_code == 0
