"""The informer stores each version as its JSON and validates it at its first read
(no API server: the scripted transport of `test_scripted_manager`): a version
nothing reads (a status change the predicates filter out, one replaced before a
reconcile) is never validated; one read once is validated once and copied never,
and one read many times is validated twice (the second read keeps a copy)."""

from __future__ import annotations

import asyncio
import json
import pickle
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from pydantic import model_validator
from typing_extensions import Self

import opgen.api as op
from opgen import runtime as rt
from opgen.runtime.decoding import DecodeError, FieldProblem
from opgen.runtime.informer import Informer
from opgen.runtime.resources import resource_type
from opgen.runtime.rest import RestClient
from opgen.runtime.store import Entry
from tests.runtime import strict_kinds
from tests.runtime.helpers import eventually, sample
from tests.runtime.kinds import WidgetSpec, WidgetStatus
from tests.runtime.test_scripted_manager import ScriptedApi, widget

VALIDATED: list[str] = []
"""The resourceVersion of every (counting) Widget validated, in order."""


@op.kind(group="test.opgen.dev", version="v1")
@op.subresource_status()
class Widget(op.CustomResource[WidgetSpec, WidgetStatus]):
    """The test Widget, recording each validation (the kind is the class name)."""

    @model_validator(mode="after")
    def _counted(self) -> Self:
        VALIDATED.append(self.metadata.resource_version or "")
        return self


@asynccontextmanager
async def synced(api: ScriptedApi, kind: type[Any]) -> AsyncIterator[Informer]:
    rest = RestClient(api, rt.ClientOptions(qps=0))
    informer = Informer(rest, resource_type(kind))
    task = asyncio.create_task(informer.run())
    try:
        await informer.wait_for_sync()
        await api.watching.wait()
        yield informer
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await rest.aclose()


async def modified(
    api: ScriptedApi, informer: Informer, version: str, **spec: Any
) -> Entry:
    """Send a MODIFIED event of Widget ns/a at `version`; the entry once stored."""
    obj = widget("a", replicas=1)
    obj["metadata"]["resourceVersion"] = version
    obj["spec"].update(spec)
    (watch,) = api.watches
    watch.events.put_nowait(json.dumps({"type": "MODIFIED", "object": obj}))

    def stored() -> Entry | None:
        entry = informer.store.get(("ns", "a"))
        return entry if entry and entry.resource_version == version else None

    await eventually(stored, message=f"version {version} stored")
    entry = stored()
    assert entry is not None
    return entry


async def test_only_a_read_validates_a_stored_version_and_at_most_twice() -> None:
    VALIDATED.clear()
    api = ScriptedApi(widget("a", replicas=1))
    async with synced(api, Widget) as informer:
        await modified(api, informer, "10", replicas=2)  # replaced before a read
        entry = await modified(api, informer, "11", replicas=3)
        assert VALIDATED == [], "storing a version validates nothing"
        first = informer.fresh(entry)
        assert VALIDATED == ["11"]
        second, third, fourth = (informer.fresh(entry) for _ in range(3))
        assert VALIDATED == ["11", "11"], "the reads after the second copy"
        assert len({id(first), id(second), id(third), id(fourth)}) == 4
        assert first == second == third == fourth
        assert first.spec.replicas == 3


async def test_the_first_read_keeps_no_copy_and_the_second_keeps_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pickled: list[object] = []
    unpickled: list[bytes] = []
    # decoding looks up pickle.dumps and pickle.loads at each call: patched, they count
    dumps, loads = pickle.dumps, pickle.loads

    def counted_dumps(obj: object, protocol: int) -> bytes:
        pickled.append(obj)
        return dumps(obj, protocol=protocol)

    def counted_loads(data: bytes) -> Any:
        unpickled.append(data)
        return loads(data)

    monkeypatch.setattr(pickle, "dumps", counted_dumps)
    monkeypatch.setattr(pickle, "loads", counted_loads)
    api = ScriptedApi(widget("a", replicas=1))
    async with synced(api, Widget) as informer:
        entry = await modified(api, informer, "11", replicas=3)
        first = informer.fresh(entry)
        assert (pickled, unpickled) == ([], []), "the first read copies nothing"
        assert not isinstance(entry.decoded, bytes)
        first.spec.replicas = 7  # a reconciler may change what it read
        second = informer.fresh(entry)
        assert len(pickled) == 1 and unpickled == []
        assert isinstance(entry.decoded, bytes), "the second read keeps a copy"
        second.spec.replicas = 8
        third = informer.fresh(entry)
        assert len(pickled) == 1 and len(unpickled) == 1
        assert third.spec.replicas == 3
        assert len({id(first), id(second), id(third)}) == 3


async def test_a_kind_that_cannot_be_pickled_hands_out_copies_too() -> None:
    @op.kind(group="test.opgen.dev", version="v1")
    @op.subresource_status()
    class Widget(op.CustomResource[WidgetSpec, WidgetStatus]):
        """Defined inside a function: pickle cannot find the class by its name."""

    api = ScriptedApi(widget("a", replicas=1))
    async with synced(api, Widget) as informer:
        entry = await modified(api, informer, "11", replicas=3)
        first = informer.fresh(entry)
        first.spec.replicas = 7
        second = informer.fresh(entry)
        second.spec.replicas = 8
        assert informer.fresh(entry).spec.replicas == 3


async def test_an_object_that_does_not_fit_is_found_at_its_first_read() -> None:
    api = ScriptedApi(widget("a", replicas=0))
    async with synced(api, strict_kinds.Widget) as informer:
        gauge = ("opgen_cache_undecodable_objects", str(informer.rtype))

        def undecodable() -> float:
            return sample(informer.rest.metrics, gauge[0], kind=gauge[1])

        bad = informer.store.get(("ns", "a"))
        assert bad is not None
        assert undecodable() == 0, "not judged until read"
        problems = (
            FieldProblem(
                "spec.replicas",
                "op.Minimum(1)",
                "must be greater than or equal to 1",
                0,
            ),
        )
        for _ in range(2):
            with pytest.raises(DecodeError) as caught:
                informer.fresh(bad)
            assert caught.value.problems == problems
        assert undecodable() == 1

        # a version that fits replaces it: what the old version was stays its own
        fixed = await modified(api, informer, "10", replicas=1)
        assert undecodable() == 0
        with pytest.raises(DecodeError):
            informer.fresh(bad)
        assert undecodable() == 0, "a replaced version is not counted"
        assert informer.fresh(fixed).spec.replicas == 1
