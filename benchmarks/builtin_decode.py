"""Benchmark: decoding built-in objects, op.k8s's models against lightkube's, side by side.

    python -m benchmarks builtin_decode [-- --objects 10000 --repeats 5]

Built-in objects are large (a Deployment as the API server answers it: managed
fields, a pod template, status and conditions). Before issue 20 the runtime
read them as lightkube's msgspec classes; now they are `op.k8s` models. For a
Deployment and a Service, in one process, CPU time per object (median of
`--repeats` runs of `--objects` decodes, with the range):

- lightkube: `msgspec.json.decode(raw, type=Deployment)`, what the runtime did
  on every cached read of a built-in object;
- op.k8s validated: `Deployment.model_validate_json(raw)`, Pydantic's full
  validation with opgen's marker checks;
- op.k8s unpickled: `pickle.loads` of the validated object, what the runtime
  does on a cached read of a custom resource;
- op.k8s built: what the runtime does now on every read of a built-in object
  (`opgen.runtime.resources`: the API server validated it, so it is built
  without opgen's checks, by Pydantic's validator with them taken out,
  `opgen.runtime.construct.unchecked`);
- op.k8s builder: `construct.builder`, Python that builds the model tree from
  the decoded JSON, what the runtime did before and falls back to for JSON the
  validator refuses (a `null` where the model has a list).

Then the work the example's reconciler does per child on each reconcile
besides the read: its wire form (lightkube's `to_dict()`, op.k8s's
`model_dump`), which it hashes and compares with what it would apply; and the
whole converged reconcile of the head Deployment both ways (read it as the
cache keeps it, build what to apply, then `rt.apply_if_changed`: stamp it,
compare), `--objects / 10` times, the two ways alternating.

lightkube is the baseline only, not an opgen dependency: install it with
`pip install -e '.[bench]'`.

`--instructions` counts instructions instead of CPU time, which a loaded
machine cannot disturb: it runs the Deployment decodes and the two reconciles
under valgrind's callgrind (which must be installed), with instrumentation
switched on only around `--objects / 10` rounds of each, and prints the
instructions per call, and those of each phase of the two reconciles (read,
build, compare) run alone.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import msgspec

_LABELS = {"ray.io/cluster": "demo", "ray.io/node-type": "head", "ray.io/group": "head"}
_MANAGED = [
    {
        "manager": "ray-operator",
        "operation": "Apply",
        "apiVersion": "apps/v1",
        "time": "2026-12-01T21:00:00Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {"f:ray.io/cluster": {}}}},
    },
    {
        "manager": "kube-controller-manager",
        "operation": "Update",
        "apiVersion": "apps/v1",
        "time": "2026-12-01T21:00:05Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:replicas": {}}},
        "subresource": "status",
    },
]
_METADATA = {
    "namespace": "default",
    "uid": "0a7c44d2-4a86-4bd0-9a39-4d7a1c0f2d11",
    "resourceVersion": "48213",
    "generation": 2,
    "creationTimestamp": "2026-12-01T21:00:00Z",
    "labels": {"app.kubernetes.io/managed-by": "ray-operator", **_LABELS},
    "annotations": {"ray.io/applied-hash": "5d41402abc4b2a76"},
    "ownerReferences": [
        {
            "apiVersion": "ray.io/v1",
            "kind": "RayCluster",
            "name": "demo",
            "uid": "8e3c2b1a-0d7f-4f11-9b7e-2c6a1f0e9d55",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ],
    "managedFields": _MANAGED,
}
DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "demo-head", **_METADATA},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": _LABELS},
        "template": {
            "metadata": {"labels": _LABELS},
            "spec": {
                "containers": [
                    {
                        "name": "ray-head",
                        "image": "rayproject/ray:2.9.0",
                        "command": ["ray", "start", "--head", "--block", "--port=6379"],
                        "ports": [
                            {
                                "name": "gcs-server",
                                "containerPort": 6379,
                                "protocol": "TCP",
                            },
                            {
                                "name": "dashboard",
                                "containerPort": 8265,
                                "protocol": "TCP",
                            },
                            {
                                "name": "client",
                                "containerPort": 10001,
                                "protocol": "TCP",
                            },
                        ],
                        "resources": {
                            "limits": {"cpu": "1", "memory": "2Gi"},
                            "requests": {"cpu": "500m", "memory": "1Gi"},
                        },
                        "env": [{"name": "RAY_CLUSTER", "value": "demo"}],
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                        "imagePullPolicy": "IfNotPresent",
                    }
                ],
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst",
                "securityContext": {},
                "schedulerName": "default-scheduler",
            },
        },
        "strategy": {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
        },
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
    },
    "status": {
        "observedGeneration": 2,
        "replicas": 1,
        "updatedReplicas": 1,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "conditions": [
            {
                "type": "Available",
                "status": "True",
                "lastUpdateTime": "2026-12-01T21:00:05Z",
                "lastTransitionTime": "2026-12-01T21:00:05Z",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
            },
            {
                "type": "Progressing",
                "status": "True",
                "lastUpdateTime": "2026-12-01T21:00:05Z",
                "lastTransitionTime": "2026-12-01T21:00:00Z",
                "reason": "NewReplicaSetAvailable",
                "message": 'ReplicaSet "demo-head-5d8f7c9b4" has successfully progressed.',
            },
        ],
    },
}
SERVICE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "demo-head", **_METADATA},
    "spec": {
        "type": "ClusterIP",
        "selector": _LABELS,
        "ports": [
            {
                "name": "gcs-server",
                "port": 6379,
                "targetPort": "gcs-server",
                "protocol": "TCP",
            },
            {
                "name": "dashboard",
                "port": 8265,
                "targetPort": "dashboard",
                "protocol": "TCP",
            },
            {
                "name": "client",
                "port": 10001,
                "targetPort": "client",
                "protocol": "TCP",
            },
        ],
        "clusterIP": "10.0.0.17",
        "clusterIPs": ["10.0.0.17"],
        "sessionAffinity": "None",
        "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack",
        "internalTrafficPolicy": "Cluster",
    },
    "status": {"loadBalancer": {}},
}


def _cpu_per_object(call: Callable[[], Any], objects: int, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        began = time.process_time()
        for _ in range(objects):
            call()
        samples.append((time.process_time() - began) / objects * 1e6)
    return samples


def _row(name: str, samples: list[float], base: float | None) -> str:
    median = statistics.median(samples)
    ratio = f"{median / base:5.2f}x" if base else "      "
    return f"  {name:<28} {median:8.1f} µs  ({min(samples):.1f}-{max(samples):.1f})  {ratio}"


def _compare(label: str, data: dict[str, Any], objects: int, repeats: int) -> None:
    import lightkube.resources.apps_v1 as lightkube_apps
    import lightkube.resources.core_v1 as lightkube_core

    import opgen.api as op
    from opgen.runtime import construct
    from opgen.runtime.resources import resource_type

    lightkube_cls = getattr(lightkube_apps, label, None) or getattr(
        lightkube_core, label
    )
    k8s_cls = getattr(op.k8s, label)
    rtype = resource_type(k8s_cls)
    raw = msgspec.json.encode(data)
    validated = k8s_cls.model_validate_json(raw)
    pickled = pickle.dumps(validated, protocol=pickle.HIGHEST_PROTOCOL)
    built = rtype.decode_json(raw)
    assert rtype.encode_obj(built) == rtype.encode_obj(validated)
    build = construct.builder(k8s_cls)
    assert rtype.encode_obj(build(msgspec.json.decode(raw))) == rtype.encode_obj(built)
    lightkube_obj = msgspec.json.decode(raw, type=lightkube_cls)

    print(f"{label} ({len(raw)} bytes of JSON), CPU per object, {objects} objects:")
    base = _cpu_per_object(
        lambda: msgspec.json.decode(raw, type=lightkube_cls), objects, repeats
    )
    print(_row("lightkube (msgspec)", base, None))
    reference = statistics.median(base)
    for name, call in (
        ("op.k8s validated", lambda: k8s_cls.model_validate_json(raw)),
        ("op.k8s unpickled", lambda: pickle.loads(pickled)),
        ("op.k8s built (the runtime)", lambda: rtype.decode_json(raw)),
        ("op.k8s builder (fallback)", lambda: build(msgspec.json.decode(raw))),
    ):
        print(_row(name, _cpu_per_object(call, objects, repeats), reference))
    print(f"{label}'s wire form, CPU per object:")
    wire = _cpu_per_object(lightkube_obj.to_dict, objects, repeats)
    print(_row("lightkube to_dict()", wire, None))
    dumped = _cpu_per_object(lambda: rtype.encode_obj(built), objects, repeats)
    print(_row("op.k8s model_dump", dumped, statistics.median(wire)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks builtin_decode")
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    options = parser.parse_args(argv or [])
    try:
        import lightkube.resources.apps_v1  # noqa: F401  (the baseline)
    except ImportError:
        raise SystemExit(
            "builtin_decode compares with lightkube, which opgen does not install: "
            "pip install -e '.[bench]'"
        ) from None
    if options.instructions:
        _instructions(max(options.objects // 10, 100))
        return
    for label, data in (("Deployment", DEPLOYMENT), ("Service", SERVICE)):
        _compare(label, data, options.objects, options.repeats)
    _reconcile_work(options.repeats, max(options.objects // 10, 100))


_COUNTED = {
    "lightkube-decode": "Deployment decode, lightkube (msgspec)",
    "k8s-decode": "Deployment decode, op.k8s built (the runtime)",
    "k8s-validated": "Deployment decode, op.k8s validated",
    "lightkube-reconcile": "converged reconcile, lightkube (before)",
    "k8s-reconcile": "converged reconcile, op.k8s (now)",
    **{
        f"{side}-{phase}": f"  {phase}, {name}"
        for phase in ("read", "build", "compare")
        for side, name in (("lightkube", "lightkube"), ("k8s", "op.k8s"))
    },
}
"""Callgrind dumps by name, and what each counts."""


def _instructions(rounds: int) -> None:
    """Run `_count` under callgrind and print its counts per call."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("--instructions runs valgrind's callgrind: install valgrind")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cg.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                f"from benchmarks.builtin_decode import _count; _count({rounds})",
            ],
            check=True,
            capture_output=True,
            cwd=Path(__file__).parents[1],
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        counts: dict[str, int] = {}
        for dump in Path(folder).glob("cg.out.*"):
            name = total = None
            for line in dump.read_text().splitlines():
                if line.startswith("desc: Trigger: "):
                    name = line.split()[-1]  # "desc: Trigger: dump <name>"
                elif line.startswith("summary: "):
                    total = int(line.split()[1])
            if name in _COUNTED and total is not None:
                counts[name] = total
    print(f"Instructions per call (callgrind, {rounds} rounds each):")
    for name, label in _COUNTED.items():
        if name == "lightkube-read":
            print("  the reconcile's phases, each alone:")
        print(f"  {label:<46} {counts[name] / rounds / 1000:8.0f} k")
    ratio = counts["k8s-reconcile"] / counts["lightkube-reconcile"]
    print(f"  converged reconcile, op.k8s / lightkube      {ratio:8.2f}x")


def _count(rounds: int) -> None:
    """Under callgrind: each call of `_COUNTED` `rounds` times, instrumented, one
    dump of the counts per call."""
    import os
    import subprocess

    import lightkube.resources.apps_v1 as lightkube_apps

    import opgen.api as op
    from opgen.runtime.resources import resource_type

    raw = msgspec.json.encode(DEPLOYMENT)
    rtype = resource_type(op.k8s.Deployment)
    lightkube, k8s, _ = _reconciles()
    calls: dict[str, Callable[[], Any]] = {
        "lightkube-decode": lambda: msgspec.json.decode(
            raw, type=lightkube_apps.Deployment
        ),
        "k8s-decode": lambda: rtype.decode_json(raw),
        "k8s-validated": lambda: op.k8s.Deployment.model_validate_json(raw),
        "lightkube-reconcile": lightkube,
        "k8s-reconcile": k8s,
        **{f"lightkube-{phase}": call for phase, call in lightkube.phases()},
        **{f"k8s-{phase}": call for phase, call in k8s.phases()},
    }
    pid = str(os.getpid())

    def control(*arguments: str) -> None:
        subprocess.run(
            ["callgrind_control", *arguments, pid],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    for call in calls.values():
        for _ in range(50):  # warm: caches filled, schemas built
            call()
    control("-i", "on")
    control("-z")
    for name, call in calls.items():
        for _ in range(rounds):
            call()
        control("-d", name)
    control("-i", "off")


def _reconcile_work(repeats: int, rounds: int) -> None:
    lightkube_reconcile, k8s_reconcile, size = _reconciles()
    print(f"A converged reconcile of the example's head Deployment ({size} bytes):")
    base: list[float] = []
    mine: list[float] = []
    for _ in range(repeats):
        base += _cpu_per_object(lightkube_reconcile, rounds, 1)
        mine += _cpu_per_object(k8s_reconcile, rounds, 1)
    print(_row("lightkube (before)", base, None))
    print(_row("op.k8s (now)", mine, statistics.median(base)))
    ratio = statistics.median(mine) / statistics.median(base)
    verdict = "met" if ratio <= 1.0 else "not met"
    print(
        f"goal (issue 20): a converged reconcile on op.k8s costs at most lightkube's: "
        f"{ratio:.2f}x, {verdict}"
    )


def _reconciles() -> tuple[_Reconcile, _Reconcile, int]:
    """The converged reconcile of the example's head Deployment, both ways: read
    the live child as the cache keeps it (without managedFields; the op.k8s
    column reads the informer's store entry through `Decoder.read`, as every
    cached read does, so `rt.apply_if_changed` compares the JSON that read made it
    from), build the desired one from the cluster's spec, stamp it, and compare. The op.k8s column
    runs `rt.apply_if_changed` itself, which finds nothing to write and so never
    awaits. The lightkube column is the example before issue 20 (lightkube's
    classes, the pod template converted with `model_dump` and `from_dict`),
    rebuilt here from its code. The two alternate, repeat by repeat."""
    import copy
    import hashlib
    import importlib
    import json
    import sys
    from pathlib import Path

    import yaml
    from lightkube.models.apps_v1 import DeploymentSpec
    from lightkube.models.core_v1 import PodTemplateSpec
    from lightkube.models.meta_v1 import LabelSelector, ObjectMeta
    from lightkube.resources.apps_v1 import Deployment

    from opgen.runtime import applied, store
    from opgen.runtime.decoding import Decoder
    from opgen.runtime.resources import resource_type

    example = Path(__file__).parents[1] / "examples" / "generated"
    sys.path.insert(0, str(example))
    # the example project, imported from its folder (not installed: no types)
    RayCluster: Any = importlib.import_module(
        "ray_operator.api.v1.raycluster_types"
    ).RayCluster
    children: Any = importlib.import_module("ray_operator.controller.children")

    import opgen.api as op
    from opgen import runtime as rt

    APPLIED_HASH = "ray.io/applied-hash"
    sample = yaml.safe_load(
        (example / "config/samples/ray_v1_raycluster.yaml").read_text()
    )
    cluster = RayCluster.model_validate(sample)
    cluster.metadata = op.ObjectMeta(name="demo", namespace="default", uid="u1")
    rtype = resource_type(op.k8s.Deployment)

    def lightkube_desired() -> Any:
        pod = children.head_pod(cluster)
        labels = children.selector_labels(cluster, "head", children.HEAD_GROUP)
        meta = pod.metadata or op.ObjectMeta()
        meta.labels = {**(meta.labels or {}), **labels}
        pod.metadata = meta
        wire = pod.model_dump(mode="json", by_alias=True, exclude_none=True)
        owner = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "name": "demo"}
        return Deployment(
            metadata=ObjectMeta(
                name="demo-head",
                namespace="default",
                labels={**children.MANAGED_BY, **labels},
                ownerReferences=[{**owner, "uid": "u1", "controller": True}],
            ),
            spec=DeploymentSpec(
                replicas=1,
                selector=LabelSelector(matchLabels=labels),
                template=cast("PodTemplateSpec", PodTemplateSpec.from_dict(wire)),
            ),
        )

    def lightkube_stamp(child: Any) -> None:
        annotations = {
            k: v
            for k, v in (child.metadata.annotations or {}).items()
            if k != APPLIED_HASH
        }
        child.metadata.annotations = annotations
        body = json.dumps(child.to_dict(), sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(body.encode()).hexdigest()[:16]
        child.metadata.annotations = {**annotations, APPLIED_HASH: digest}

    def lightkube_up_to_date(live: Any, desired: Any) -> bool:
        mine = (desired.metadata.annotations or {}).get(APPLIED_HASH)
        theirs = (live.metadata.annotations or {}).get(APPLIED_HASH)
        return mine == theirs and applied.holds(live.to_dict(), desired.to_dict())

    def served(applied_body: dict[str, Any]) -> bytes:
        """What the cache holds of the API server's answer for the applied body:
        its metadata, defaults and status added, managedFields dropped
        (`opgen.runtime.store`)."""
        body = copy.deepcopy(applied_body)
        body["metadata"] = DEPLOYMENT["metadata"] | body["metadata"]
        del body["metadata"]["managedFields"]
        body["spec"].update(progressDeadlineSeconds=600, revisionHistoryLimit=10)
        body["status"] = DEPLOYMENT["status"]
        return msgspec.json.encode(body)

    desired = children.head_deployment(cluster, 1)
    applied.stamp(desired, APPLIED_HASH)
    raw = served(rtype.encode_obj(desired))
    lightkube_applied = lightkube_desired()
    lightkube_stamp(lightkube_applied)
    lightkube_raw = served(lightkube_applied.to_dict())

    def lightkube_compare(live: Any, want: Any) -> None:
        lightkube_stamp(want)
        assert lightkube_up_to_date(live, want)

    def k8s_compare(live: Any, want: Any) -> None:
        call = rt.apply_if_changed(
            cast("rt.Client", None), want, annotation=APPLIED_HASH, live=live
        )
        try:
            call.send(None)
        except StopIteration as done:
            assert done.value[1] is rt.Operation.UNCHANGED
        else:
            raise AssertionError("apply_if_changed would write a converged child")

    # the informer's entry of the served object, read as the cache reads it
    entry = store.entry_from_dict(msgspec.json.decode(raw))
    decoder = Decoder(rtype)
    lightkube = _Reconcile(
        read=lambda: msgspec.json.decode(lightkube_raw, type=Deployment),
        build=lightkube_desired,
        compare=lightkube_compare,
    )
    k8s = _Reconcile(
        read=lambda: decoder.read(entry),
        build=lambda: children.head_deployment(cluster, 1),
        compare=k8s_compare,
    )
    return lightkube, k8s, len(raw)


@dataclass(frozen=True)
class _Reconcile:
    """One side's converged reconcile: `read` the live child, `build` the desired
    one, `compare` them (stamp the desired one, find nothing to apply)."""

    read: Callable[[], Any]
    build: Callable[[], Any]
    compare: Callable[[Any, Any], None]

    def __call__(self) -> None:
        self.compare(self.read(), self.build())

    def phases(self) -> list[tuple[str, Callable[[], Any]]]:
        """Each phase alone, to be called repeatedly (compare: on one read and one
        build; stamping again gives the same stamp)."""
        live, want = self.read(), self.build()
        return [
            ("read", self.read),
            ("build", self.build),
            ("compare", lambda: self.compare(live, want)),
        ]
