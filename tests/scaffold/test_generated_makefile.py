"""The generated project's Makefile, target by target, in a project of its own.

`make setup` builds the project's own virtualenv (opgen from this checkout
through OPGEN_PACKAGE, everything else from PyPI), then the development
targets run as a user runs them, and the cluster targets against envtest:
install/uninstall the CRDs, deploy/undeploy the manager, `make run` until
SIGTERM. `make wheelhouse` then feeds the Dockerfile's own steps, run without
a container engine or any package index (tests/scaffold/dockerfile.py): the
image's virtualenv holds the runtime install only, and its manager reconciles
on envtest as the project's service account.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest
import yaml

import opgen as opgen_package
from opgen.testing import Environment
from tests.scaffold import dockerfile
from tests.scaffold.cluster import deploy, kubectl, manager, sample, wait_ready
from tests.scaffold.conftest import opgen
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
TARGETS = [
    "help",
    "setup",
    "manifests",
    "generate",
    "fmt",
    "lint",
    "typecheck",
    "envtest",
    "cluster",
    "test",
    "test-e2e",
    "run",
    "install-local-webhooks",
    "uninstall-local-webhooks",
    "build",
    "docker-build",
    "docker-push",
    "wheelhouse",
    "lock",
    "build-installer",
    "install",
    "uninstall",
    "deploy",
    "undeploy",
]


def make(
    root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> str:
    done = subprocess.run(
        ["make", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
    )
    assert (
        done.returncode == 0
    ), f"make {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def source_files(root: Path) -> dict[str, str]:
    """The project's files, without its virtualenv, caches and build output."""
    skipped = {".venv", "dist", "build", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
    return {
        str(path.relative_to(root)): path.read_text()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and path.relative_to(root).parts[0] not in skipped
        and "__pycache__" not in path.parts
        and not any(part.endswith(".egg-info") for part in path.parts)
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("make") / "make-demo"
    root.mkdir()
    assert opgen(root, "init", "--domain", "make.example.com").exit_code == 0
    create = ("create", "api", "--group", "ray", "--version", "v1")
    assert opgen(root, *create, "--kind", "RayCluster").exit_code == 0
    make(root, "setup", f"OPGEN_PACKAGE={ROOT}")
    make(root, "manifests")
    return root


def test_help_lists_every_target(project: Path) -> None:
    plain = re.sub(r"\x1b\[[0-9;]*m", "", make(project, "help"))
    listed = {line.split()[0] for line in plain.splitlines() if line.startswith("  ")}
    assert set(TARGETS) <= listed


def test_setup_installed_the_project_and_its_tools(project: Path) -> None:
    for tool in ("opgen", "black", "ruff", "mypy", "pytest"):
        assert (project / ".venv/bin" / tool).is_file(), tool
    up_to_date = subprocess.run(
        ["make", "-q", ".venv/bin/.installed"], cwd=project, check=False
    )
    assert up_to_date.returncode == 0
    done = subprocess.run(
        [str(project / ".venv/bin/python"), "-c", "import opgen, make_demo"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_manifests_and_generate_write_what_opgen_owns(project: Path) -> None:
    crd = project / "config/crd/bases/ray.make.example.com_rayclusters.yaml"
    crd.unlink(missing_ok=True)
    make(project, "manifests")
    assert yaml.safe_load(crd.read_text())["spec"]["names"]["kind"] == "RayCluster"
    role = project / "config/rbac/role.yaml"
    role.unlink()
    assert "create    config/rbac/role.yaml" in make(project, "generate")
    assert "up to date" in make(project, "generate")


def test_fmt_changes_nothing_and_lint_and_typecheck_pass(project: Path) -> None:
    before = source_files(project)
    make(project, "fmt")
    assert source_files(project) == before
    make(project, "lint")
    assert "Success: no issues found" in make(project, "typecheck")


@pytest.mark.envtest
def test_make_test_runs_the_projects_tests_against_envtest(project: Path) -> None:
    out = make(project, "test", env={"OPGEN_REQUIRE_ENVTEST": "1"})
    assert "Source:  " in out  # make envtest reported where the binaries are
    assert "4 passed" in out


@pytest.mark.envtest
def test_make_test_e2e_runs_the_built_wheel_as_its_service_account(
    project: Path,
) -> None:
    out = make(
        project,
        "test-e2e",
        f"OPGEN_PACKAGE={ROOT}",
        env={"OPGEN_REQUIRE_ENVTEST": "1"},
    )
    assert "1 passed" in out
    installed = subprocess.run(
        [str(project / ".e2e-venv/bin/pip"), "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.lower()
    assert "make-demo==0.1.0" in installed
    assert "typer" not in installed and "jinja2" not in installed


def test_build_and_build_installer(project: Path) -> None:
    make(project, "build")
    assert [p.name for p in (project / "dist").glob("*.whl")] == [
        "make_demo-0.1.0-py3-none-any.whl"
    ]
    make(project, "build-installer", "IMG=registry.example.com/make-demo:1.0")
    objects = list(yaml.safe_load_all((project / "dist/install.yaml").read_text()))
    deployment = next(o for o in objects if o["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "registry.example.com/make-demo:1.0"
    assert {o["kind"] for o in objects} >= {
        "Namespace",
        "CustomResourceDefinition",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Deployment",
    }


def kubectl_json(env: Environment, *args: str) -> dict[str, object]:
    done = subprocess.run(
        ["kubectl", "--kubeconfig", str(env.kubeconfig_path), *args, "-o", "yaml"],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: dict[str, object] = yaml.safe_load(done.stdout)
    return loaded


def absent(env: Environment, *args: str) -> bool:
    done = subprocess.run(
        ["kubectl", "--kubeconfig", str(env.kubeconfig_path), "get", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode != 0 and "NotFound" in done.stderr


@pytest.mark.envtest
def test_install_deploy_undeploy_uninstall_against_envtest(
    project: Path, envtest_controller_manager: Environment
) -> None:
    env = envtest_controller_manager
    kube = {"KUBECONFIG": str(env.kubeconfig_path)}
    crd = ("crd", "rayclusters.ray.make.example.com")

    make(project, "install", env=kube)
    assert kubectl_json(env, "get", *crd)["kind"] == "CustomResourceDefinition"
    make(project, "uninstall", env=kube)
    assert absent(env, *crd)

    make(project, "deploy", "IMG=registry.example.com/make-demo:1.0", env=kube)
    deployment = kubectl_json(
        env,
        "get",
        "deployment",
        "make-demo-controller-manager",
        "-n",
        "make-demo-system",
    )
    spec = deployment["spec"]
    assert isinstance(spec, dict)
    pod = spec["template"]["spec"]
    assert pod["containers"][0]["image"] == "registry.example.com/make-demo:1.0"
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert kubectl_json(env, "get", *crd)["kind"] == "CustomResourceDefinition"

    make(project, "undeploy", env=kube, timeout=120)
    assert absent(env, "namespace", "make-demo-system")
    assert absent(env, *crd)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.envtest
def test_make_run_starts_the_manager_until_sigterm(
    project: Path, envtest: Environment
) -> None:
    envtest.install_crds([project / "config/crd/bases"])
    port = free_port()
    run = subprocess.Popen(
        ["make", "run", f"ARGS=--health-probe-bind-address=127.0.0.1:{port}"],
        cwd=project,
        env={**os.environ, "KUBECONFIG": str(envtest.kubeconfig_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert ready(f"http://127.0.0.1:{port}/readyz", run), "never ready"
    finally:
        # SIGTERM to the manager only, as Kubernetes stops a pod; make then
        # exits with the manager's status.
        if run.poll() is None:
            os.kill(manager_pid(run.pid), signal.SIGTERM)
        output, _ = run.communicate(timeout=60)
    assert run.returncode == 0, output
    assert "python -m make_demo --health-probe-bind-address" in output
    assert "starting manager" in output


def ready(url: str, process: subprocess.Popen[str]) -> bool:
    """Poll `url` until it answers 200 (True) or `process` exits (False)."""

    def answers() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    until(
        lambda: process.poll() is not None or answers(),
        f"{url} to answer or the manager to exit",
    )
    return process.poll() is None


def manager_pid(make_pid: int) -> int:
    """The `python -m make_demo` process below `make` (Linux /proc)."""
    pending = [make_pid]
    while pending:
        pid = pending.pop()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"make_demo" in command and b"-m" in command:
            return pid
        pending += [
            int(child)
            for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()
        ]
    raise AssertionError("the manager process is not running")


GENERATOR_ONLY = {"typer", "click", "jinja2", "black", "datamodel-code-generator"}
"""Packages of opgen's `cli` extra (and theirs): never in an operator's image."""


@pytest.fixture(scope="module")
def image(project: Path, tmp_path_factory: pytest.TempPathFactory) -> dockerfile.Image:
    """The Dockerfile carried out with `--build-arg PIP_NO_INDEX=1` after `make wheelhouse`."""
    make(project, "wheelhouse", f"OPGEN_PACKAGE={ROOT}")
    return dockerfile.build(
        project, tmp_path_factory.mktemp("image"), {"PIP_NO_INDEX": "1"}
    )


def installed(image: dockerfile.Image) -> dict[str, str]:
    done = subprocess.run(
        [str(image.path("/opt/venv/bin/pip")), "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
        env=image.env,
    )
    pins = (line.partition("==") for line in done.stdout.split())
    return {name.lower().replace("_", "-"): version for name, _, version in pins}


def test_wheelhouse_holds_opgen_and_what_the_image_build_needs(
    project: Path, image: dockerfile.Image
) -> None:
    wheels = {p.name.split("-")[0] for p in (project / "wheelhouse").glob("*.whl")}
    assert {"opgen", "pydantic", "aiohttp", "hatchling"} <= wheels
    assert "make_demo" not in wheels
    assert not wheels & {"typer", "jinja2", "black", "lightkube", "lightkube_models"}
    admitted = dockerfile.context_files(project)
    assert f"wheelhouse/opgen-{opgen_package.__version__}-py3-none-any.whl" in admitted
    assert "constraints.txt" in admitted
    assert not any(
        path.startswith((".venv/", "tests/", "config/")) for path in admitted
    )


def test_the_image_has_the_runtime_install_only(image: dockerfile.Image) -> None:
    packages = installed(image)
    assert packages["opgen"] == opgen_package.__version__
    assert "make-demo" in packages
    assert not set(packages) & GENERATOR_ONLY, sorted(packages)
    assert image.user == "65532:65532"


def test_the_images_entrypoint_runs(image: dockerfile.Image) -> None:
    done = image.run("--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: make-demo")
    assert "--zap-encoder" in done.stdout


@pytest.mark.envtest
def test_the_images_manager_reconciles_as_its_service_account(
    project: Path, image: dockerfile.Image, envtest: Environment, tmp_path: Path
) -> None:
    """The image's manager, with JSON logs, against `config/default` on envtest."""
    identity = deploy(envtest, project, "make-demo", tmp_path / "sa.kubeconfig")
    kubectl(envtest.kubeconfig_path, "create", "namespace", "image-e2e")
    with manager(
        image.root,
        "make_demo",
        identity,
        "--zap-encoder=json",
        command=image.command(),
        base_env=image.env,
    ) as running:
        kubectl(
            envtest.kubeconfig_path,
            "apply",
            "-f",
            "-",
            stdin=sample(project, "config/samples/ray_v1_raycluster.yaml", "image-e2e"),
        )
        found = wait_ready(
            envtest.kubeconfig_path,
            "rayclusters.ray.make.example.com",
            "raycluster-sample",
            "-n",
            "image-e2e",
        )
        assert found["Ready"] == "True"
    lines = [json.loads(line) for line in running.output.splitlines() if line.strip()]
    assert any(line["msg"] == "starting manager" for line in lines), running.output


def test_lock_pins_the_runtime_install(project: Path) -> None:
    make(project, "lock", f"OPGEN_PACKAGE={ROOT}")
    text = (project / "constraints.txt").read_text()
    assert text.startswith("# The exact versions the manager's image installs")
    pins = dict(
        line.split("==") for line in text.splitlines() if not line.startswith("#")
    )
    pinned = {name.lower().replace("_", "-") for name in pins}
    assert pins["opgen"] == opgen_package.__version__
    assert {"pydantic", "aiohttp", "cryptography"} <= pinned
    assert not pinned & (
        GENERATOR_ONLY | {"pytest", "make-demo", "pip", "lightkube", "lightkube-models"}
    )
