"""Decoding stored objects (no API server): validated once, copied on every read;
objects that do not fit their model become a `DecodeError` with what is needed to
act on them anyway."""

from __future__ import annotations

import enum
import pickle
from typing import Annotated, Any

import msgspec
import pytest
from pydantic import Strict, model_validator

import opgen.api as op
from opgen import runtime as rt
from opgen.api.k8s import ConfigMap
from opgen.runtime import decoding, resources
from opgen.runtime.decoding import DecodeError, Decoder, FieldProblem, Undecodable
from opgen.runtime.resources import resource_type
from tests.runtime import kinds, strict_kinds


def stored(replicas: int = 2, **spec: Any) -> bytes:
    """A Widget as the informer stores it: server metadata, a status, a finalizer."""
    data = {
        "apiVersion": "test.opgen.dev/v1",
        "kind": "Widget",
        "metadata": {
            "name": "w",
            "namespace": "ns",
            "uid": "8c4d7a52-9c1e-4b7e-a6a4-0c8f3e1d2b9a",
            "resourceVersion": "42",
            "generation": 3,
            "finalizers": ["test.opgen.dev/cleanup"],
        },
        "spec": {"replicas": replicas, "message": "hi", **spec},
        "status": {
            "replicas": 1,
            "observedGeneration": 2,
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "Done",
                    "message": "",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                    "observedGeneration": 2,
                }
            ],
        },
    }
    return msgspec.json.encode(data)


def test_a_valid_object_is_validated_once_and_every_read_is_a_fresh_copy() -> None:
    decoder = Decoder(resource_type(strict_kinds.Widget))
    raw = stored()
    prepared = decoder.prepare(raw)
    assert isinstance(prepared, bytes)
    first = decoder.fresh(raw, prepared)
    assert first == strict_kinds.Widget.model_validate_json(raw)
    first.spec.message = "changed"
    assert first.status is not None
    first.status.conditions.clear()
    second = decoder.fresh(raw, prepared)
    assert second.spec.message == "hi"
    assert second.status is not None and len(second.status.conditions) == 1
    # what was set stays what was set: apply's exclude_unset sees the same fields
    assert second.model_dump(exclude_unset=True) == (
        strict_kinds.Widget.model_validate_json(raw).model_dump(exclude_unset=True)
    )


def test_a_stored_object_that_does_not_fit_is_kept_as_its_problems() -> None:
    rtype = resource_type(strict_kinds.Widget)
    decoder = Decoder(rtype)
    raw = stored(replicas=0)
    prepared = decoder.prepare(raw)
    assert isinstance(prepared, Undecodable)
    assert prepared.problems == (
        FieldProblem(
            "spec.replicas",
            "op.Minimum(1)",
            "must be greater than or equal to 1",
            0,
        ),
    )
    with pytest.raises(DecodeError) as caught:
        decoder.fresh(raw, prepared)
    error = caught.value
    assert (error.kind, error.namespace, error.name) == ("Widget", "ns", "w")
    assert (error.resource_version, error.uid) == (
        "42",
        "8c4d7a52-9c1e-4b7e-a6a4-0c8f3e1d2b9a",
    )
    assert str(error) == (
        "Widget ns/w (resourceVersion 42) does not fit tests.runtime.strict_kinds.Widget: "
        "spec.replicas: must be greater than or equal to 1 (op.Minimum(1); got 0)"
    )
    assert error.data["spec"]["replicas"] == 0
    assert error.metadata["finalizers"] == ["test.opgen.dev/cleanup"]


def test_a_partial_decode_keeps_the_metadata_and_every_field_that_fits() -> None:
    error = _decode_error(strict_kinds.Widget, stored(replicas=0))
    partial = error.partial(strict_kinds.Widget)
    assert isinstance(partial, strict_kinds.Widget)
    assert partial.metadata.name == "w" and partial.metadata.resource_version == "42"
    assert rt.finalizers.has(partial, "test.opgen.dev/cleanup")
    assert not hasattr(partial, "spec"), "the spec does not fit: it is left unset"
    assert partial.status is not None and partial.status.observed_generation == 2
    # what a status write of it sends: no spec
    encoded = resource_type(strict_kinds.Widget).encode_obj(partial)
    assert "spec" not in encoded and encoded["status"]["observedGeneration"] == 2
    with pytest.raises(TypeError, match="about a Widget"):
        error.partial(kinds.Widget)


def test_problems_name_every_field_and_the_message_counts_the_rest() -> None:
    class Many(op.Model):
        a: int = 0
        b: int = 0
        c: int = 0
        d: int = 0

    @op.kind(group="test.opgen.dev", version="v1")
    class Thing(op.CustomResource[Many, None]):
        """A kind defined in a function: it cannot be pickled."""

    rtype = resource_type(Thing)
    raw = msgspec.json.encode(
        {
            "apiVersion": "test.opgen.dev/v1",
            "kind": "Thing",
            "metadata": {"name": "t", "resourceVersion": "7"},
            "spec": {"a": "x", "b": "y", "c": [1], "d": {}},
        }
    )
    error = _decode_error(Thing, raw)
    assert [p.path for p in error.problems] == ["spec.a", "spec.b", "spec.c", "spec.d"]
    assert {p.rule for p in error.problems} == {"int_parsing", "int_type"}
    assert str(error).endswith("; and 1 more")
    assert error.namespace is None and error.object_name == "t"
    good = msgspec.json.encode(
        {
            "apiVersion": "test.opgen.dev/v1",
            "kind": "Thing",
            "metadata": {"name": "t"},
            "spec": {"a": 1},
        }
    )
    decoder = Decoder(rtype)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(rtype.decode_json(good))
    prepared = decoder.prepare(good)
    first, second = decoder.fresh(good, prepared), decoder.fresh(good, prepared)
    assert first == second and first is not second
    assert first.spec is not second.spec


def test_builtin_kinds_are_built_on_read_and_their_failures_are_decode_errors() -> None:
    rtype = resource_type(ConfigMap)
    decoder = Decoder(rtype)
    good = msgspec.json.encode(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c"},
            "data": {"k": "v"},
        }
    )
    # the API server validated it: nothing is kept, each read builds the object
    assert decoder.prepare(good) is None
    assert decoder.fresh(good, None).data == {"k": "v"}
    bad = msgspec.json.encode(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c", "creationTimestamp": "yesterday"},
            "data": {"k": "v"},
        }
    )
    with pytest.raises(DecodeError) as caught:
        decoder.fresh(bad, decoder.prepare(bad))
    assert caught.value.kind == "ConfigMap" and caught.value.name == "c"
    partial = caught.value.partial(ConfigMap)
    assert partial.data == {"k": "v"}


def test_a_model_validator_that_raises_anything_is_a_decode_failure() -> None:
    class Spec(op.Model):
        size: int = 0

    @op.kind(group="test.opgen.dev", version="v1")
    class Brittle(op.CustomResource[Spec, None]):
        """A kind whose own validator has a bug."""

        @model_validator(mode="after")
        def _check(self) -> Brittle:
            raise KeyError("size")

    raw = msgspec.json.encode(
        {
            "apiVersion": "test.opgen.dev/v1",
            "kind": "Brittle",
            "metadata": {"name": "b"},
            "spec": {"size": 1},
        }
    )
    prepared = Decoder(resource_type(Brittle)).prepare(raw)
    assert isinstance(prepared, Undecodable)
    assert prepared.problems == (FieldProblem("", "KeyError", "'size'"),)


def test_a_write_answer_that_does_not_fit_refreshes_the_metadata_alone() -> None:
    error = _decode_error(strict_kinds.Widget, stored(replicas=0))
    partial = error.partial(strict_kinds.Widget)
    answer = msgspec.json.decode(stored(replicas=0))
    answer["metadata"]["resourceVersion"] = "43"
    answer["metadata"]["finalizers"] = []
    answer["metadata"]["managedFields"] = [{"manager": "opgen"}]
    rtype = resource_type(strict_kinds.Widget)
    refreshed = decoding.refresh(partial, rtype, msgspec.json.encode(answer))
    assert refreshed is partial
    assert partial.metadata.resource_version == "43"
    assert not rt.finalizers.has(partial, "test.opgen.dev/cleanup")
    assert partial.metadata.managed_fields is None
    assert resources.metadata(partial)["name"] == "w"


def _decode_error(kind: type[Any], raw: bytes) -> DecodeError:
    with pytest.raises(DecodeError) as caught:
        decoding.decode(resource_type(kind), raw)
    return caught.value


class _Phase(enum.Enum):
    UP = "Up"


class _StrictPhaseSpec(op.Model):
    phase: Annotated[_Phase, Strict()] | None = None


@op.kind(group="test.opgen.dev", version="v1")
class StrictPhase(op.CustomResource[_StrictPhaseSpec, None]):
    """A kind with a strict field: JSON text is still taken for its enum."""


def test_a_decode_of_json_agrees_with_pydantic_json_mode() -> None:
    raw = stored(replicas=3)
    decoded = resource_type(kinds.Widget).decode_json(raw)
    assert decoded == kinds.Widget.model_validate_json(raw)
    assert not resources._strict_anywhere(kinds.Widget)
    # a strict field takes an enum's value as JSON text only: decoded in JSON mode
    phased = msgspec.json.encode(
        {
            "apiVersion": "test.opgen.dev/v1",
            "kind": "StrictPhase",
            "metadata": {"name": "t", "namespace": "ns"},
            "spec": {"phase": "Up"},
        }
    )
    assert resources._strict_anywhere(StrictPhase)
    obj = resource_type(StrictPhase).decode_json(phased)
    assert obj.spec.phase is _Phase.UP
    with pytest.raises(DecodeError) as error:
        decoding.decode(resource_type(kinds.Widget), b"{not json")
    assert [p.rule for p in error.value.problems] == ["json_invalid"]
