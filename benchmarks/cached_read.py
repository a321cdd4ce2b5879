"""Benchmark: the CPU of one cached read, and where decoding's cost went.

    python -m benchmarks.cached_read [--objects 200] [--rounds 10]

Starts one envtest control plane with the runtime tests' Widget CRD and the
example's RayCluster CRD, creates N objects of each (a Widget with a status and a
condition; the example's sample RayCluster), fills an informer cache with them,
then times `Cache.get` of every object, `--rounds` times, in process CPU time
(median of 5 repeats). A cached read gives the reconciler a fresh object it may
mutate; before issue 13 that object was built by validating the stored JSON with
Pydantic on every read, now it is copied from the object validated once when the
informer stored it.

The second table splits the cost per object without a server: validating the
stored JSON (the old cost of every read), what the informer now does once per
stored version (validate and keep a pickle), and what a read now costs (a copy).
Bytes per object: the JSON the store keeps, and the pickle kept beside it.

The script runs on a tree without `opgen.runtime.decoding` too (printing only the
first table), which is how the "before" column in docs/runtime.md was measured.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import importlib.util
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import yaml

from opgen import runtime as rt
from opgen.api import ObjectMeta
from opgen.api.k8s import Namespace
from opgen.runtime.cache import Cache
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.testing import Environment
from tests.runtime.crds import generated_crds
from tests.runtime.kinds import Widget, WidgetStatus, widget

ROOT = Path(__file__).parents[1]
EXAMPLE = ROOT / "examples" / "generated"
REPEATS = 5


def _example() -> tuple[type[Any], dict[str, Any]]:
    sys.path.insert(0, str(EXAMPLE))
    from ray_operator.api.v1.raycluster_types import RayCluster

    sample = yaml.safe_load(
        (EXAMPLE / "config/samples/ray_v1_raycluster.yaml").read_text()
    )
    return RayCluster, sample


async def _fill(
    client: rt.Client, namespace: str, count: int, ray: tuple[type[Any], Any]
) -> None:
    ray_cls, sample = ray
    for i in range(count):
        created = await client.create(widget(f"w{i}", namespace, message="hello"))
        created.status = WidgetStatus(replicas=1, observed_generation=1)
        rt.conditions.set_condition(
            created.status.conditions, type="Ready", status="True", reason="Ready"
        )
        await client.patch_status(created)
        body = copy.deepcopy(sample)
        body["metadata"] = {"name": f"r{i}", "namespace": namespace}
        await client.create(ray_cls.model_validate(body))


def _cpu_per_call(calls: Callable[[], Any], count: int) -> list[float]:
    """CPU µs per call of `calls()` (which makes `count` calls), REPEATS times."""
    samples = []
    for _ in range(REPEATS):
        began = time.process_time()
        asyncio.get_event_loop().run_until_complete(calls())
        samples.append((time.process_time() - began) / count * 1e6)
    return samples


def _row(name: str, samples: list[float], unit: str = "µs") -> str:
    return (
        f"  {name:<44} {statistics.median(samples):8.1f} {unit}"
        f"   (min {min(samples):.1f}, max {max(samples):.1f})"
    )


def _measure_reads(
    kinds: list[tuple[str, type[Any], str]], objects: int, rounds: int
) -> None:
    env = Environment(crd_paths=[*generated_crds(), EXAMPLE / "config/crd/bases"])
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    env.start()
    try:
        rest = RestClient.from_kubeconfig(env.kube_config(), rt.ClientOptions(qps=0))
        namespace = f"bench-{secrets.token_hex(3)}"
        writer = rt.Client(rest)

        async def prepare() -> Cache:
            await writer.create(Namespace(metadata=ObjectMeta(name=namespace)))
            await _fill(writer, namespace, objects, _example())
            cache = Cache(rest, rt.CacheOptions(namespaces=[namespace]))
            await cache.start()
            for _, cls, _prefix in kinds:
                while len(await cache.list(cls, namespace)) < objects:
                    await asyncio.sleep(0.05)
            return cache

        cache = loop.run_until_complete(prepare())
        print(
            f"cached read (Cache.get), {objects} objects x {rounds} rounds, CPU per read"
        )
        for label, cls, prefix in kinds:

            async def reads(cls: type[Any] = cls, prefix: str = prefix) -> None:
                for _ in range(rounds):
                    for i in range(objects):
                        await cache.get(cls, f"{prefix}{i}", namespace)

            print(_row(label, _cpu_per_call(reads, objects * rounds)))
        loop.run_until_complete(cache.stop())
        loop.run_until_complete(rest.aclose())
    finally:
        env.stop()
        loop.close()


def _measure_decoding(kinds: list[tuple[str, type[Any], str]], objects: int) -> None:
    if importlib.util.find_spec("opgen.runtime.decoding") is None:
        print("(no opgen.runtime.decoding in this tree: the split is not measured)")
        return
    ray_cls, sample = _example()
    sample_widget = widget("w", "ns", message="hello")
    sample_widget.status = WidgetStatus(replicas=1, observed_generation=1)
    rt.conditions.set_condition(
        sample_widget.status.conditions, type="Ready", status="True", reason="Ready"
    )
    bodies = {
        Widget: sample_widget.model_dump(mode="json", by_alias=True, exclude_none=True),
        ray_cls: sample,
    }
    print(f"\nper object, no server ({objects} objects, CPU per object)")
    for label, cls, _prefix in kinds:
        _split(label, cls, copy.deepcopy(bodies[cls]), objects)


def _split(label: str, cls: type[Any], data: dict[str, Any], objects: int) -> None:
    from opgen.runtime.decoding import Decoder

    data["metadata"].update(
        {
            "namespace": "ns",
            "uid": "8c4d7a52-9c1e-4b7e-a6a4-0c8f3e1d2b9a",
            "resourceVersion": "12345",
            "generation": 1,
            "creationTimestamp": "2026-01-01T00:00:00Z",
        }
    )
    rtype = resource_type(cls)
    raw = msgspec.json.encode(rtype.with_kind(data))
    decoder = Decoder(rtype)
    prepared = decoder.prepare(raw)
    assert isinstance(prepared, bytes), "expected a pickle of the validated object"

    def timed(call: Callable[[], Any]) -> list[float]:
        samples = []
        for _ in range(REPEATS):
            began = time.process_time()
            for _ in range(objects):
                call()
            samples.append((time.process_time() - began) / objects * 1e6)
        return samples

    print(f" {label}: JSON {len(raw)} B, pickle {len(prepared)} B")
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("validate the JSON (a version's first read)", lambda: rtype.decode_json(raw)),
        ("validate and pickle (its second read)", lambda: decoder.prepare(raw)),
        (
            "copy from the pickle (each read after)",
            lambda: decoder.fresh(raw, prepared),
        ),
    ]
    for name, call in steps:
        print(_row(name, timed(call)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cached_read")
    parser.add_argument("--objects", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv if argv is not None else [])
    ray_cls, _ = _example()
    kinds: list[tuple[str, type[Any], str]] = [
        ("Widget (tests/runtime/kinds.py)", Widget, "w"),
        ("RayCluster (the example)", ray_cls, "r"),
    ]
    _measure_reads(kinds, args.objects, args.rounds)
    _measure_decoding(kinds, args.objects)


if __name__ == "__main__":
    main(sys.argv[1:])
