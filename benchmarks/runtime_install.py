"""Benchmark: a generated operator's runtime install, beside kopf's.

    python -m benchmarks runtime_install   (make bench BENCH=runtime_install)

1. A generated project (`ray-operator`, one RayCluster kind) is installed into
   a fresh virtualenv as its image installs it: opgen from a wheel of this
   checkout, everything else from the index, no generator. For comparison,
   the same project with `opgen[cli]` (the generator too, what every operator
   carried before the split), and kopf (`pip install kopf`) in a virtualenv
   of its own.
2. Size on disk: the files of every installed distribution (site-packages
   without pip and setuptools, bytecode included), and how many there are.
3. Start-up and RSS at idle, against one envtest control plane holding the
   RayCluster CRD: the manager (`python -m ray_operator`) and a kopf operator
   for the same kind (`kopf run --standalone`, one handler, benchmarks/
   _kopf_idle.py) start RUNS times each (the first argument, default 5),
   alternating. Start-up is from spawn until the probe endpoint answers 200
   (the manager's /readyz, kopf's --liveness); RSS at idle is VmRSS IDLE seconds after that, with nothing to
   reconcile. Figures: median (min-max).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

from opgen.testing import Environment

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OPGEN = Path(sys.executable).parent / "opgen"
IDLE = 5.0
NOT_COUNTED = (
    "pip",
    "setuptools",
    "_distutils_hack",
    "pkg_resources",
    "distutils-precedence",
)
GENERATOR = {"typer", "jinja2", "black", "datamodel-code-generator"}


def run(*args: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(map(str, args))} failed:\n{done.stdout}{done.stderr}"
        )
    return done.stdout


def venv(path: Path, *requirements: str) -> Path:
    """A fresh virtualenv at `path` with `requirements`; its python."""
    run(sys.executable, "-m", "venv", path)
    run(
        path / "bin/pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        *requirements,
    )
    return path / "bin/python"


def footprint(python: Path) -> tuple[float, list[str]]:
    """MiB on disk of the installed distributions, and their names."""
    site = Path(
        run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        ).strip()
    )
    size = sum(
        file.stat().st_size
        for entry in site.iterdir()
        if not entry.name.startswith(NOT_COUNTED)
        for file in ([entry] if entry.is_file() else entry.rglob("*"))
        if file.is_file()
    )
    listed = run(
        python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"
    )
    names = [line.split("==")[0].lower().replace("_", "-") for line in listed.split()]
    return size / 2**20, [n for n in names if not n.startswith(NOT_COUNTED)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def start_and_idle(
    command: Sequence[str], url: str, env: dict[str, str]
) -> tuple[float, float]:
    """Seconds from spawn until `url` answers 200, and MiB of RSS IDLE s later."""
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=tempfile.gettempdir(),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not answers(url):
            if process.poll() is not None:
                raise SystemExit(
                    f"{command[0]} exited:\n{process.stderr.read() if process.stderr else ''}"
                )
            time.sleep(0.02)
        ready = time.monotonic() - started
        time.sleep(IDLE)
        return ready, rss_mib(process.pid)
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)


def summary(samples: list[float], unit: str) -> str:
    return (
        f"{statistics.median(samples):6.2f} {unit} "
        f"({min(samples):.2f}-{max(samples):.2f})"
    )


def main(argv: list[str] | None = None) -> None:
    """Entry point: `[RUNS]` (default 5)."""
    runs = int(argv[0]) if argv else 5
    work = Path(tempfile.mkdtemp(prefix="opgen-bench-install-"))
    try:
        measure(work, runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(work: Path, runs: int) -> None:
    project = work / "ray-operator"
    project.mkdir()
    for args in (
        ("init", "--domain", "example.com"),
        ("create", "api", "--group", "ray", "--version", "v1", "--kind", "RayCluster"),
        ("generate",),
    ):
        run(OPGEN, *args, cwd=project)
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--wheel-dir",
        work / "wheels",
        ROOT,
    )
    [wheel] = (work / "wheels").glob("opgen-*.whl")

    pythons = {
        "operator (opgen runtime)": venv(work / "runtime", str(wheel), str(project)),
        "operator with opgen[cli]": venv(work / "cli", f"{wheel}[cli]", str(project)),
        "kopf": venv(work / "kopf", "kopf"),
    }
    print(f"{'install':<28}{'MiB on disk':>12}{'packages':>10}   generator packages")
    for name, python in pythons.items():
        size, packages = footprint(python)
        carried = sorted(GENERATOR & set(packages)) or ["none"]
        print(f"{name:<28}{size:12.1f}{len(packages):10d}   {', '.join(carried)}")

    env = Environment().start()
    try:
        env.install_crds([project / "config/crd/bases"])
        base = {**os.environ, "KUBECONFIG": str(env.kubeconfig_path)}

        def opgen_manager() -> tuple[float, float]:
            port = free_port()
            command = [
                str(pythons["operator (opgen runtime)"]), "-m", "ray_operator",
                f"--health-probe-bind-address=127.0.0.1:{port}", "--metrics-bind-address=0",
            ]  # fmt: skip
            return start_and_idle(command, f"http://127.0.0.1:{port}/readyz", base)

        def kopf_operator() -> tuple[float, float]:
            port = free_port()
            command = [
                str(pythons["kopf"].parent / "kopf"), "run", "--standalone", "--all-namespaces",
                f"--liveness=http://127.0.0.1:{port}/healthz",
                str(HERE / "runtime" / "_kopf_login.py"), str(HERE / "_kopf_idle.py"),
            ]  # fmt: skip
            return start_and_idle(command, f"http://127.0.0.1:{port}/healthz", base)

        operators: dict[str, Callable[[], tuple[float, float]]] = {
            "opgen manager": opgen_manager,
            "kopf": kopf_operator,
        }
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in operators}
        for turn in range(runs):
            order = list(operators) if turn % 2 == 0 else list(reversed(operators))
            for name in order:
                results[name].append(operators[name]())
    finally:
        env.stop()
    print(
        f"\nstart-up (spawn to probe 200) and RSS {IDLE:.0f} s later, idle; median (min-max) of {runs}"
    )
    for name, samples in results.items():
        ready = summary([s[0] for s in samples], "s")
        rss = summary([s[1] for s in samples], "MiB")
        print(f"{name:<16} start-up {ready}   RSS at idle {rss}")


if __name__ == "__main__":
    main()
