"""The operator author's second hour (issue 23), end to end on a new project.

PostgresCluster has v1beta1 and v1 (the hub), defaulting, validation and a
conversion; the author then does what the first trial did:

- imports more names into the webhook modules, from the types module the
  scaffold's import region already imports from, and runs the project's
  `make fmt` (black, then ruff's import sorting) and `opgen generate`;
- gives the spec a nested optional field and sets part of it in the sample;
- has the defaulter copy the object's name into a label (63 characters at
  most), as an operator does for its children, and runs the tests, whose
  namespaces are long.

The project must pass its own fmt, lint and tests after each, and its
conversion property test must catch a converter that drops a field.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from opgen.testing import object_name
from tests.scaffold.conftest import (
    BIN,
    api_args,
    check_code,
    opgen,
    run_project_tests,
    tool,
)

PACKAGE = "pg_operator"
WEBHOOK_FILE = f"{PACKAGE}/webhook/v1/postgrescluster_webhook.py"
TEST_FILE = "tests/webhook/test_postgrescluster_v1_webhook.py"
TYPES = f"{PACKAGE}/api/v1/postgrescluster_types.py"

NESTED_SPEC = '''class Storage(op.Model):
    """Where the data lives."""

    size: str = "1Gi"
    """The claim's size."""
    class_name: str | None = None
    """The storage class; the cluster's default when unset."""


class PostgresClusterSpec(op.Model):
    """The desired state of a PostgresCluster."""

    foo: str | None = None
    """An example field; replace it with your own."""
    image: str = "postgres:16"
    """The server's image."""
    storage: Storage | None = None
    """The data volume."""
'''
SPOKE_FIELDS = '''    foo: str | None = None
    """An example field; replace it with your own."""
    image: str = "postgres:15"
    """The server's image."""
'''
USER_IMPORTS = (
    "from pg_operator.api.v1 import postgrescluster_types\n"
    "from pg_operator.api.v1.postgrescluster_types import PostgresClusterSpec\n"
)
USER_DEFAULT = """        log.debug("defaulting %s %s", obj.kind, obj.metadata.name)
        if obj.spec.storage is None:
            obj.spec.storage = postgrescluster_types.Storage()
        assert isinstance(obj.spec, PostgresClusterSpec)
        obj.metadata.labels = {
            **(obj.metadata.labels or {}),
            "app.kubernetes.io/instance": obj.metadata.name or "",
        }
"""
HUB_CONVERSION = """        return PostgresCluster.model_validate(
            spoke.model_dump(exclude={"api_version", "kind"})
        )"""
DROPS_THE_IMAGE = """        data = spoke.model_dump(exclude={"api_version", "kind"})
        del data["spec"]["image"]
        return PostgresCluster.model_validate(data)"""


def ok(root: Path, *args: str) -> str:
    run = opgen(root, *args)
    assert run.exit_code == 0, run.stderr
    return run.stdout


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new))


def make_fmt(root: Path) -> None:
    """What the project's `make fmt` runs."""
    tool(root, str(BIN / "black"), "--quiet", PACKAGE, "tests")
    tool(
        root,
        str(BIN / "ruff"),
        "check",
        "--quiet",
        "--no-cache",
        "--fix",
        "--select",
        "I",
        PACKAGE,
        "tests",
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("second-hour") / "pg-operator"
    root.mkdir()
    ok(root, "init", "--domain", "example.com")
    ok(root, *api_args("db", "v1beta1", "PostgresCluster", "--no-controller"))
    ok(root, *api_args("db", "v1", "PostgresCluster"))
    types = root / TYPES
    text = types.read_text()
    start = text.index("class PostgresClusterSpec(op.Model):")
    end = text.index("class PostgresClusterStatus(op.Model):")
    types.write_text(text[:start] + NESTED_SPEC + "\n\n" + text[end:])
    replace(
        types,
        "@op.subresource_status()",
        "@op.storage_version()\n@op.subresource_status()",
    )
    replace(
        root / f"{PACKAGE}/api/v1beta1/postgrescluster_types.py",
        '    foo: str | None = None\n    """An example field; replace it with your own."""\n',
        SPOKE_FIELDS,
    )
    replace(
        root / "config/samples/db_v1_postgrescluster.yaml",
        "  foo: bar\n",
        "  foo: bar\n  storage:\n    size: 2Gi\n",
    )
    ok(
        root,
        "create",
        "webhook",
        "--group",
        "db",
        "--version",
        "v1",
        "--kind",
        "PostgresCluster",
        "--defaulting",
        "--programmatic-validation",
        "--conversion",
        "--spoke",
        "v1beta1",
    )
    webhook = root / WEBHOOK_FILE
    replace(
        webhook,
        "# +opgen:scaffold:imports:end\n",
        "# +opgen:scaffold:imports:end\n" + USER_IMPORTS,
    )
    replace(
        webhook,
        '        log.debug("defaulting %s %s", obj.kind, obj.metadata.name)\n',
        USER_DEFAULT,
    )
    replace(
        root / TEST_FILE,
        "# +opgen:scaffold:imports:end\n",
        "# +opgen:scaffold:imports:end\nfrom pg_operator.api.v1.postgrescluster_types import Storage\n",
    )
    replace(
        root / TEST_FILE,
        "# +opgen:insert:tests\n",
        "def test_storage_defaults_to_one_gibibyte() -> None:\n"
        '    assert Storage().size == "1Gi"\n\n\n# +opgen:insert:tests\n',
    )
    make_fmt(root)
    ok(root, "generate")
    make_fmt(root)
    return root


def test_fmt_and_generate_agree_and_lint_passes(project: Path) -> None:
    text = (project / WEBHOOK_FILE).read_text()
    assert text.index("# +opgen:scaffold:imports\n") < text.index(
        "# +opgen:scaffold:imports:end\n"
    )
    assert "up to date" in ok(project, "generate", "--check")
    check_code(project, PACKAGE)


def test_test_object_names_fit_whatever_the_namespace() -> None:
    namespace = "t-" + "x" * 40 + "-0a1b2c"
    for base in ("postgrescluster", "postgrescluster-v1beta1", "k" * 70):
        name = object_name(base, namespace)
        assert len(name) <= 40 and name.endswith("-0a1b2c"), name
    assert object_name("a", "t-one-0a1b2c") != object_name("a", "t-one-3d4e5f")


def test_the_conversion_test_catches_a_dropped_field(project: Path) -> None:
    selected = ("-k", "loses_no_field", TEST_FILE)
    out = tool(
        project,
        str(BIN / "python"),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *selected,
    )
    assert "1 passed" in out, out
    webhook = project / WEBHOOK_FILE
    good = webhook.read_text()
    try:
        replace(webhook, HUB_CONVERSION, DROPS_THE_IMAGE)
        with pytest.raises(AssertionError) as failed:
            tool(
                project,
                str(BIN / "python"),
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                *selected,
            )
        assert "spec.image: was 'postgres:15', came back 'postgres:16'" in str(
            failed.value
        )
    finally:
        webhook.write_text(good)


@pytest.mark.envtest
def test_its_own_tests_pass(project: Path) -> None:
    out = run_project_tests(project)
    assert "passed" in out and "failed" not in out, out


def test_make_remembers_where_opgen_came_from(tmp_path: Path) -> None:
    """`make setup OPGEN_PACKAGE=...` once; test-e2e and wheelhouse install the same."""
    root = tmp_path / "remembers"
    root.mkdir()
    ok(root, "init", "--domain", "example.com")
    (root / ".venv/bin").mkdir(parents=True)
    (root / ".venv/bin/.installed").touch()
    (root / ".venv/opgen-package").write_text("/src/opgen-checkout\n")
    dry = subprocess.run(
        ["make", "-n", "test-e2e", "wheelhouse"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installs = [
        line
        for line in dry.splitlines()
        if "/bin/pip install" in line or "--wheel-dir wheelhouse" in line
    ]
    assert len(installs) == 2, dry
    assert all("/src/opgen-checkout" in line for line in installs), dry
    makefile = (root / "Makefile").read_text()
    assert "echo '$(OPGEN_PACKAGE)' > $(VENV)/opgen-package" in makefile


def test_make_run_and_test_generate_once(tmp_path: Path) -> None:
    """One `opgen generate` per target, so its warnings (a CRD over 256 KiB) print once."""
    root = tmp_path / "once"
    root.mkdir()
    ok(root, "init", "--domain", "example.com")
    (root / ".venv/bin").mkdir(parents=True)
    (root / ".venv/bin/.installed").touch()
    for target in ("run", "test", "test-e2e", "build", "build-installer"):
        dry = subprocess.run(
            ["make", "-n", target],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        runs = [line for line in dry.splitlines() if "/opgen generate" in line]
        assert len(runs) == 1, (target, dry)
    dry = subprocess.run(
        ["make", "-n", "run"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert dry.index("opgen check-cluster") < dry.index("python -m")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_python_m_without_a_cluster_says_so_in_one_line(
    project: Path, tmp_path: Path
) -> None:
    """`python -m <package>` (what `make run` runs after its own check) with no
    kubeconfig, with a context whose API server is gone, and with an exec
    credential plugin that fails: one line, exit 1."""
    stale = tmp_path / "stale-kubeconfig"
    server = f"https://127.0.0.1:{_closed_port()}"
    stale.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: gone\n"
        f"clusters:\n- name: gone\n  cluster:\n    server: {server}\n"
        "contexts:\n- name: gone\n  context:\n    cluster: gone\n    user: gone\n"
        "users:\n- name: gone\n  user:\n    token: abc\n"
    )
    failing = tmp_path / "failing-plugin-kubeconfig"
    failing.write_text(
        stale.read_text().replace(
            "    token: abc\n",
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
            '      command: "false"\n      interactiveMode: Never\n',
        )
    )
    missing = tmp_path / "no-such-kubeconfig"
    for kubeconfig, says, fix in (
        (
            missing,
            f"error: no cluster to connect to: kubeconfig $KUBECONFIG={missing}",
            "make cluster",
        ),
        (
            stale,
            f'error: cannot reach the API server {server} (context "gone" of {stale})',
            "make cluster",
        ),
        (failing, "error: ", "exited with status 1"),
    ):
        done = subprocess.run(
            [str(BIN / "python"), "-m", PACKAGE, "--health-probe-bind-address", "0"],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "KUBECONFIG": str(kubeconfig)},
        )
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith(says), done.stderr
        assert fix in done.stderr
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
