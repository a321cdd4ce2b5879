"""docs/tutorial.md, followed step by step with its own code blocks: the RedisCluster proof.

As a reader would: `opgen init`, then `make setup` (opgen from this
checkout, as OPGEN_PACKAGE), then the project's own `.venv/bin/opgen` for
every other command; each code block the tutorial asks for is taken from the
Markdown and put into its file. The project's own `make test` then runs the
scaffolded tests and the tutorial's test of the operator (pods created and
deleted to match `replicas`, status from their readiness, the 30 s requeue,
the `Finalized` Event) with the manager running as its generated
ServiceAccount. Section 6's loop runs as written: `make cluster`, `make run`,
and each kubectl command, with what the text says checked after each; both
stop on Ctrl-C (SIGINT to their process group, as a terminal sends it).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from opgen.testing import cache_root
from tests.scaffold.cluster import free_port, run_kubectl
from tests.scaffold.conftest import opgen, tool
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
CONTROLLER = "redis_operator/controller/rediscluster_controller.py"
CRD = "config/crd/bases/cache.example.com_redisclusters.yaml"


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


def make(root: Path, *args: str, **env: str) -> str:
    return tool(root, "make", *args, timeout=900, **env)


def project_opgen(root: Path, command: str) -> str:
    """A command of the tutorial, run with the project's own opgen (`.venv` activated)."""
    words = shlex.split(command)
    assert words[0] == "opgen", command
    return tool(root, str(root / ".venv/bin/opgen"), *words[1:])


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tutorial") / "redis-operator"
    root.mkdir()
    # 1: init with the opgen at hand, then the project's own environment.
    init, setup, activate = blocks("1.", "sh")[0].splitlines()[2:]
    assert init == "opgen init --domain example.com"
    assert opgen(root, *shlex.split(init)[1:]).exit_code == 0
    assert setup == "make setup OPGEN_PACKAGE=/path/to/opgen"
    make(root, "setup", f"OPGEN_PACKAGE={ROOT}")
    assert activate == "source .venv/bin/activate"

    # 2: with the project's opgen from here on.
    project_opgen(root, blocks("2.", "sh")[0].strip())

    # 3: the types file, the sample's spec, opgen generate.
    (root / "redis_operator/api/v1/rediscluster_types.py").write_text(
        blocks("3.", "python")[0]
    )
    sample_spec = blocks("3.", "yaml")[0]
    sample_path = root / sample_spec.splitlines()[0].removeprefix("# ")
    sample = yaml.safe_load(sample_path.read_text())
    sample["spec"] = yaml.safe_load(sample_spec)["spec"]
    sample_path.write_text(yaml.safe_dump(sample, sort_keys=False))
    project_opgen(root, blocks("3.", "sh")[0].strip())

    # 4: marker, setup, reconcile_spec, cleanup, helpers (op.k8s's kinds need
    # no import); make fmt.
    marker, setup_method, reconcile_spec, cleanup, helpers = blocks("4.", "python")
    controller = root / CONTROLLER
    source = controller.read_text()
    first_marker = source.index("@op.rbac(")
    source = source[:first_marker] + marker + source[first_marker:]
    for method in (setup_method, reconcile_spec, cleanup):
        source = replace_method(source, method.rstrip("\n"))
    controller.write_text(source.rstrip("\n") + "\n\n\n" + helpers)
    make(root, "fmt")
    project_opgen(root, "opgen generate")

    # 5: the test of the operator.
    (root / "tests/controller/test_rediscluster_pods.py").write_text(
        blocks("5.", "python")[0]
    )
    make(root, "fmt")
    return root


def test_section_3_the_crd_has_the_scale_subresource_and_the_columns(
    project: Path,
) -> None:
    crd = yaml.safe_load((project / CRD).read_text())
    version = crd["spec"]["versions"][0]
    spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["properties"]["replicas"] == {
        "default": 3,
        "description": "How many Redis pods to run.",
        "minimum": 1,
        "type": "integer",
    }
    assert version["subresources"]["scale"] == {
        "labelSelectorPath": ".status.selector",
        "specReplicasPath": ".spec.replicas",
        "statusReplicasPath": ".status.readyReplicas",
    }
    columns = [c["name"] for c in version["additionalPrinterColumns"]]
    assert columns == ["Replicas", "Ready", "Phase", "Age"]


def test_section_4_role_yaml_grants_pods_and_events(project: Path) -> None:
    role = yaml.safe_load((project / "config/rbac/role.yaml").read_text())
    assert {
        "apiGroups": [""],
        "resources": ["pods"],
        "verbs": ["create", "delete", "get", "list", "watch"],
    } in role["rules"]
    assert {
        "apiGroups": ["events.k8s.io"],
        "resources": ["events"],
        "verbs": ["create", "patch"],
    } in role["rules"]


@pytest.mark.envtest
def test_section_5_the_projects_make_test_passes(project: Path) -> None:
    assert blocks("5.", "sh")[0].strip() == "make test"
    out = make(project, "test", OPGEN_REQUIRE_ENVTEST="1")
    assert "Success: no issues found" in out  # mypy --strict, tests included
    assert "5 passed" in out


class Background:
    """A make target running in its own process group, its output collected."""

    def __init__(self, root: Path, env: dict[str, str], *args: str) -> None:
        self.log = root.parent / f"make-{args[0]}.log"
        self._out = self.log.open("w")
        self.process = subprocess.Popen(
            ["make", *args],
            cwd=root,
            env=env,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def output(self) -> str:
        return self.log.read_text()

    def wait_for(self, text: str) -> None:
        until(
            lambda: text in self.output() or self.process.poll() is not None,
            f"{text!r} in the output of make",
        )
        assert text in self.output(), self.output()

    def ctrl_c(self) -> str:
        """SIGINT to the whole process group, as a terminal sends Ctrl-C."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
        self.process.wait(timeout=120)
        self._out.close()
        return self.output()


@pytest.fixture
def environ(project: Path, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The reader's shell: `.venv` activated, a kubeconfig of their own."""
    env = {
        **os.environ,
        "PATH": f"{project / '.venv/bin'}{os.pathsep}{os.environ['PATH']}",
        "KUBECONFIG": str(tmp_path / "kube" / "config"),
        "HOME": str(tmp_path),
        # The binaries cached under the real home (make test found them there).
        "OPGEN_ENVTEST_CACHE": str(cache_root(os.environ)),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    yield env


kubectl = run_kubectl


def cluster_status(env: dict[str, str]) -> dict[str, object]:
    found = kubectl(env, "get", "rediscluster", "rediscluster-sample", "-o", "json")
    status: dict[str, object] = json.loads(found).get("status") or {}
    return status


def pod_count(env: dict[str, str]) -> int:
    names = kubectl(
        env, "get", "pods", "-l", "cluster=rediscluster-sample", "-o", "name"
    )
    return len(names.split())


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.envtest
def test_section_6_make_cluster_make_run_and_kubectl(
    project: Path, environ: dict[str, str]
) -> None:
    start, run, use = blocks("6.", "sh")
    assert (start.strip(), run.strip()) == ("make cluster", "make run")
    cluster = Background(project, environ, "cluster")
    manager = None
    try:
        cluster.wait_for("Ctrl-C (or SIGTERM) stops it")
        banner = cluster.output()
        pids = [
            int(p)
            for p in re.findall(
                r"(?:etcd|kube-apiserver|kube-controller-manager) (\d+)", banner
            )
        ]
        assert len(pids) == 3, banner
        assert kubectl(environ, "config", "current-context") == "opgen-envtest\n"

        # A free probe port: other managers may hold :8081 on this machine.
        probe = f"ARGS=--health-probe-bind-address=127.0.0.1:{free_port()}"
        manager = Background(project, environ, "run", probe)
        manager.wait_for("starting 1 workers")

        after: dict[str, Callable[[], object]] = {
            "apply": lambda: until(
                lambda: pod_count(environ) == 3
                and cluster_status(environ).get("phase") == "Pending",
                "3 pods, Pending",
            ),
            "patch": lambda: until(
                lambda: cluster_status(environ).get("readyReplicas") == 1,
                "readyReplicas 1",
            ),
            "scale": lambda: until(
                lambda: pod_count(environ) == 1
                and cluster_status(environ).get("phase") == "Running",
                "1 pod, Running",
            ),
        }
        outputs = []
        for line in use.strip().splitlines():
            words = shlex.split(line)
            assert words[0] == "kubectl", line
            outputs.append(kubectl(environ, *words[1:], cwd=project))
            check = after.get(words[1])
            if check is not None:
                check()
        listed_first, listed_scaled = (o for o in outputs if "REPLICAS" in o)
        assert re.search(r"rediscluster-sample\s+3\s+\S*\s*Pending", listed_first)
        assert re.search(r"rediscluster-sample\s+1\s+1\s+Running\s+\S+", listed_scaled)
        assert "Finalized" in outputs[-1]
        # The garbage collector deletes the last pod with its cluster.
        until(lambda: pod_count(environ) == 0, "the pod to be garbage-collected")
    finally:
        run_log = manager.ctrl_c() if manager is not None else ""
        cluster_log = cluster.ctrl_c()
    assert "SIGINT received: stopping the manager" in run_log, run_log
    assert "manager stopped" in run_log, run_log
    assert "Forbidden" not in run_log and "Traceback" not in run_log, run_log
    assert "SIGINT received: stopping the control plane" in cluster_log, cluster_log
    assert "stopped; nothing is left running" in cluster_log, cluster_log
    assert [pid for pid in pids if alive(pid)] == []
    assert not Path(environ["KUBECONFIG"]).exists()  # it made the file: it is gone


def test_section_8_delete_api_refuses_edited_files_then_forced(project: Path) -> None:
    command = blocks("8.", "sh")[0].strip()
    words = shlex.split(command)
    run = opgen(project, *words[1:])
    assert run.exit_code == 1
    assert "you edited files that create api scaffolded" in run.stderr
    assert CONTROLLER in run.stderr
    run = opgen(project, *words[1:], "--force")
    assert run.exit_code == 0, run.stderr
    assert not (project / CONTROLLER).exists()
    assert not (project / CRD).exists()
    assert opgen(project, "generate").exit_code == 0
    assert opgen(project, "generate", "--check").exit_code == 0
