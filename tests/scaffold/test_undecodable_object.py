"""The scaffolded reconciler meets a stored object that no longer fits its model.

As an operator's author upgrading their API would meet it: the project's
RayCluster has `replicas: int`, its CRD is deployed, and objects are created,
one with `replicas: 0` and the skeleton's finalizer (as the previous operator
version left it). Then the operator runs with types that say
`Annotated[int, op.Minimum(1)]`; the API server keeps `replicas: 0` as it is.

The skeleton (`rt.status.reconcile`), unchanged, and with nothing but the
generated RBAC: the good object converges; the bad one gets the decode outcome
(one log line without a traceback, a `DecodeFailed` Event, Degraded in its
status, no retry); deleting it runs `cleanup` on its metadata and releases the
finalizer, so it does not stay Terminating.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen.testing import Environment
from tests.scaffold.cluster import conditions, deploy, kubectl, manager, wait_ready
from tests.scaffold.conftest import INIT, create_api, opgen
from tests.waiting import until

NAME = "ray-operator"
NAMESPACE = "upgrade"
RESOURCE = "rayclusters.ray.example.com"
TYPES = Path("ray_operator/api/v1/raycluster_types.py")
EXAMPLE_FIELD = '''    foo: str | None = None
    """An example field; replace it with your own."""
'''


def with_replicas(root: Path, annotation: str) -> None:
    """Give RayClusterSpec a `replicas` field of type `annotation`."""
    path = root / TYPES
    text = path.read_text()
    if "replicas:" not in text:
        text = text.replace(
            EXAMPLE_FIELD,
            EXAMPLE_FIELD + '\n    replicas: int = 1\n    """How many replicas."""\n',
        )
        text = text.replace(
            "import opgen.api as op\n",
            "from typing import Annotated\n\nimport opgen.api as op\n",
        )
    text = re.sub(r"replicas: .* = 1\n", f"replicas: {annotation} = 1\n", text)
    path.write_text(text)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("upgrade") / NAME
    root.mkdir()
    assert opgen(root, *INIT).exit_code == 0
    run = create_api(root, "ray", "v1", "RayCluster")
    assert run.exit_code == 0, run.stderr
    with_replicas(root, "int")
    run = opgen(root, "generate")
    assert run.exit_code == 0, run.stderr
    return root


def raycluster(name: str, replicas: int, **metadata: Any) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "ray.example.com/v1",
            "kind": "RayCluster",
            "metadata": {"name": name, "namespace": NAMESPACE, **metadata},
            "spec": {"replicas": replicas},
        }
    )


def get(kubeconfig: Path, *args: str) -> dict[str, Any] | None:
    """The object as YAML, None once it is gone."""
    done = kubectl(kubeconfig, "get", *args, "-n", NAMESPACE, "-o", "yaml", check=False)
    if "NotFound" in done.stderr:
        return None
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = yaml.safe_load(done.stdout)
    return found


def decode_events(kubeconfig: Path) -> list[dict[str, Any]]:
    listed = get(kubeconfig, "events.events.k8s.io")
    assert listed is not None
    return [
        e
        for e in listed["items"]
        if e["regarding"]["name"] == "bad" and e["reason"] == "DecodeFailed"
    ]


@pytest.mark.envtest
def test_the_skeleton_reports_an_object_that_no_longer_fits_and_still_deletes_it(
    generated: Path, envtest: Environment, tmp_path: Path
) -> None:
    identity = deploy(envtest, generated, NAME, tmp_path / "sa.kubeconfig")
    admin = envtest.kubeconfig_path
    finalizer = re.search(
        r'^FINALIZER = "(.+)"$',
        (generated / "ray_operator/controller/raycluster_controller.py").read_text(),
        re.MULTILINE,
    )
    assert finalizer is not None
    kubectl(admin, "create", "namespace", NAMESPACE)
    kubectl(admin, "apply", "-f", "-", stdin=raycluster("good", 2))
    kubectl(
        admin,
        "apply",
        "-f",
        "-",
        stdin=raycluster("bad", 0, finalizers=[finalizer.group(1)]),
    )

    with_replicas(generated, "Annotated[int, op.Minimum(1)]")  # the upgrade
    with manager(generated, "ray_operator", identity) as run:
        wait_ready(admin, RESOURCE, "good", "-n", NAMESPACE)

        def degraded() -> dict[str, Any] | None:
            obj = get(admin, RESOURCE, "bad")
            assert obj is not None
            found = {c["type"]: c for c in obj.get("status", {}).get("conditions", [])}
            return found if found.get("Degraded", {}).get("status") == "True" else None

        flagged = until(degraded, "the bad object to be Degraded", every=0.5)
        assert flagged["Degraded"]["reason"] == "DecodeFailed"
        assert "spec.replicas: must be greater than or equal to 1" in (
            flagged["Degraded"]["message"]
        )
        assert flagged["Ready"]["status"] == "False"
        events = until(lambda: decode_events(admin), "a DecodeFailed Event", every=0.5)
        assert [e["type"] for e in events] == ["Warning"]
        assert "spec.replicas" in events[0]["note"]

        # Later work is done while the bad object waits for a change: a retry
        # would have logged again by the time the good one has converged anew.
        kubectl(
            admin,
            "patch",
            RESOURCE,
            "good",
            "-n",
            NAMESPACE,
            "--type=merge",
            "-p",
            '{"spec": {"replicas": 3}}',
        )

        def observed_again() -> bool:
            good = get(admin, RESOURCE, "good")
            assert good is not None
            return bool(good.get("status", {}).get("observedGeneration") == 2)

        until(observed_again, "the good object's new generation", every=0.5)

        kubectl(admin, "delete", RESOURCE, "bad", "-n", NAMESPACE, "--wait=false")
        until(
            lambda: get(admin, RESOURCE, "bad") is None,
            "the bad object to be deleted (its finalizer released)",
            every=0.5,
        )
        assert conditions(admin, RESOURCE, "good", "-n", NAMESPACE)["Ready"] == "True"
    log = run.output.splitlines()
    bad = [line for line in log if f"{NAMESPACE}/bad" in line]
    decode_lines = [line for line in bad if "does not fit" in line]
    assert len(decode_lines) == 1, "\n".join(log)
    assert "ERROR" in decode_lines[0]
    # zap's console encoding: time, level, logger, message, then the fields as JSON
    message = decode_lines[0].split("\t")[3]
    assert message.endswith("; not retried until the object changes"), message
    assert f"cleaning up {NAMESPACE}/bad" in "\n".join(bad)
    assert not [line for line in log if "Traceback" in line], "\n".join(log)
