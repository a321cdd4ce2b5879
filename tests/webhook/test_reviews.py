"""The review handlers without a network: patches, refusals, conversions, declarations."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgen.api as op
from opgen import runtime as rt
from opgen.engine.reading import webhook_declarations
from opgen.errors import MarkerError
from opgen.model.webhooks import AdmissionWebhook
from opgen.runtime.metrics import Metrics
from opgen.runtime.webhook import PRESERVED_ANNOTATION, jsonpatch
from opgen.runtime.webhook.admission import AdmissionHandler
from opgen.runtime.webhook.conversion import ConversionHandler
from tests.webhook import kinds_v1alpha1
from tests.webhook.handlers import GizmoConversion, PetDefaulter, PetValidator
from tests.webhook.kinds_v1 import Gizmo, Pet
from tests.webhook.serving import review

# --- JSON patches -------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=12,
)


def apply(document: Any, patch: list[dict[str, Any]]) -> Any:
    """RFC 6902 add/remove/replace, as the API server applies them."""
    document = copy.deepcopy(document)
    for op_ in patch:
        tokens = [
            t.replace("~1", "/").replace("~0", "~") for t in op_["path"].split("/")[1:]
        ]
        if not tokens:
            document = op_["value"]
            continue
        parent = document
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last: Any = int(tokens[-1]) if isinstance(parent, list) else tokens[-1]
        if op_["op"] == "remove":
            del parent[last]
        elif op_["op"] == "add" and isinstance(parent, list):
            parent.insert(last, op_["value"])
        else:
            if op_["op"] == "replace" and not isinstance(parent, list):
                assert last in parent, f"replace of a missing member {op_['path']}"
            parent[last] = op_["value"]
    return document


@given(json_values, json_values)
@settings(max_examples=300, derandomize=True, database=None, deadline=None)
def test_the_patch_turns_one_document_into_the_other(a: Any, b: Any) -> None:
    assert jsonpatch.same(apply(a, jsonpatch.diff(a, b)), b)


@given(json_values, json_values)
@settings(max_examples=200, derandomize=True, database=None, deadline=None)
def test_nothing_changed_carries_nothing_over(sent: Any, dump: Any) -> None:
    assert jsonpatch.carry_over(sent, dump, copy.deepcopy(dump)) is sent


@given(json_values, json_values, json_values)
@settings(max_examples=300, derandomize=True, database=None, deadline=None)
def test_parts_kept_by_identity_patch_as_copies_would(
    sent: Any, before: Any, after: Any
) -> None:
    wanted = jsonpatch.carry_over(sent, before, after)
    patch = jsonpatch.diff(sent, wanted)
    assert patch == jsonpatch.diff(sent, copy.deepcopy(wanted))
    assert jsonpatch.same(apply(sent, patch), wanted)


def _json_equal(a: Any, b: Any) -> bool:
    """JSON equality walked value by value: what `jsonpatch.same` must answer."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(
            _json_equal(x, y) for x, y in zip(a, b, strict=True)
        )
    return bool(a == b)


def _retyped(value: Any, draw: Any) -> Any:
    """`value` with some numbers and booleans swapped for their Python equals
    (`1`, `1.0`, `True`) and some dicts' keys reordered: equal in Python, not
    always in JSON."""
    if isinstance(value, dict):
        keys = list(value)
        if draw(st.booleans()):
            keys.reverse()
        return {k: _retyped(value[k], draw) for k in keys}
    if isinstance(value, list):
        return [_retyped(v, draw) for v in value]
    if type(value) in (bool, int, float) and value in (0, 1) and draw(st.booleans()):
        return draw(st.sampled_from([bool(value), int(value), float(value)]))
    return value


@given(json_values, st.data())
@settings(max_examples=400, derandomize=True, database=None, deadline=None)
def test_json_equality_is_the_walked_one(a: Any, data: st.DataObject) -> None:
    b = _retyped(a, data.draw)
    assert jsonpatch.same(a, b) == _json_equal(a, b)
    assert jsonpatch.same(a, copy.deepcopy(a)) == _json_equal(a, a)


def _carried(sent: Any, before: Any, after: Any) -> Any:
    """`carry_over` walked key by key with `_json_equal`: what it must answer."""
    if _json_equal(before, after):
        return sent
    if isinstance(before, dict) and isinstance(after, dict) and isinstance(sent, dict):
        result = dict(sent)
        for key in [*after, *(k for k in before if k not in after)]:
            if key not in after:
                result.pop(key, None)
            elif key not in before or key not in sent:
                if key not in before or not _json_equal(before[key], after[key]):
                    result[key] = after[key]
            else:
                result[key] = _carried(sent[key], before[key], after[key])
        return result
    if (
        isinstance(before, list)
        and isinstance(after, list)
        and isinstance(sent, list)
        and len(before) == len(after) == len(sent)
    ):
        return [_carried(s, b, a) for s, b, a in zip(sent, before, after, strict=True)]
    return after


@given(json_values, json_values, st.data())
@settings(max_examples=400, derandomize=True, database=None, deadline=None)
def test_carry_over_is_the_walked_one(
    sent: Any, before: Any, data: st.DataObject
) -> None:
    after = data.draw(st.one_of(json_values, st.just(_retyped(before, data.draw))))
    assert _json_equal(
        jsonpatch.carry_over(sent, before, after), _carried(sent, before, after)
    )
    assert _json_equal(
        jsonpatch.carry_over(before, before, after), _carried(before, before, after)
    )


def test_a_nan_is_no_json_value_equal_to_itself() -> None:
    nan = float("nan")
    assert not jsonpatch.same([nan], [nan])
    assert not jsonpatch.same({"a": nan}, {"a": nan})
    assert jsonpatch.same({"banana": 1.5}, {"banana": 1.5})


def test_json_equality_tells_true_from_one() -> None:
    assert not jsonpatch.same(True, 1)
    assert not jsonpatch.same(1, 1.0)
    assert jsonpatch.diff({"a": 1}, {"a": True}) == [
        {"op": "replace", "path": "/a", "value": True}
    ]


# --- admission ----------------------------------------------------------------


def _run(handler: Any, body: bytes) -> tuple[int, dict[str, Any]]:
    answer = asyncio.run(handler.review(body))
    return answer.status, answer.document["response"]


def _admission(handler: object) -> AdmissionHandler:
    (declaration,) = webhook_declarations(type(handler))
    assert isinstance(declaration, AdmissionWebhook)
    return AdmissionHandler(declaration, handler, Metrics(), timeout=30)


def _pet_request(operation: str = "CREATE", **fields: Any) -> dict[str, Any]:
    obj = {
        "apiVersion": "webhook.opgen.dev/v1",
        "kind": "Pet",
        "metadata": {"name": "rex", "namespace": "ns", "uid": "o-1", "x-meta": 1},
        "spec": {"name": "rex", "tags": ["a"], "unknownToPython": {"keep": True}},
    }
    obj.update(fields)
    return {
        "uid": "r-1",
        "kind": {"group": "webhook.opgen.dev", "version": "v1", "kind": "Pet"},
        "operation": operation,
        "name": "rex",
        "namespace": "ns",
        "object": obj,
        "oldObject": copy.deepcopy(obj) if operation != "CREATE" else None,
    }


def test_the_patch_holds_the_defaulters_changes_and_nothing_else() -> None:
    request = _pet_request()
    status, response = _run(
        _admission(PetDefaulter()), review("AdmissionReview", request)
    )
    assert status == 200 and response["allowed"] is True
    patch = json.loads(base64.b64decode(response["patch"]))
    assert sorted(patch, key=lambda p: p["path"]) == [
        {"op": "add", "path": "/metadata/labels", "value": {"pet": "rex"}},
        {"op": "add", "path": "/spec/owner", "value": "nobody"},
    ]
    patched = apply(request["object"], patch)
    assert patched["spec"]["unknownToPython"] == {"keep": True}
    assert patched["metadata"]["x-meta"] == 1


def test_deletes_and_connects_are_not_defaulted() -> None:
    for operation in ("DELETE", "CONNECT"):
        request = _pet_request(operation)
        _, response = _run(
            _admission(PetDefaulter()), review("AdmissionReview", request)
        )
        assert response == {"uid": "r-1", "allowed": True}


def test_an_object_of_another_kind_or_shape_is_refused_with_400() -> None:
    handler = _admission(PetDefaulter())
    request = _pet_request()
    request["kind"] = {"group": "apps", "version": "v1", "kind": "Deployment"}
    _, response = _run(handler, review("AdmissionReview", request))
    assert response["allowed"] is False and response["status"]["code"] == 400
    assert "admits Pet" in response["status"]["message"]
    request = _pet_request(spec={"name": 5, "age": "old"})
    _, response = _run(_admission(PetValidator()), review("AdmissionReview", request))
    assert response["status"]["code"] == 400
    assert "spec.age" in response["status"]["message"]


@pytest.mark.parametrize(
    "document",
    [
        {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"},
        {"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview"},
        {"apiVersion": "admission.k8s.io/v1", "kind": "ConversionReview"},
        ["not", "an", "object"],
        "text",
    ],
    ids=["good", "old version", "other kind", "a list", "a string"],
)
def test_a_review_handed_over_as_a_document_is_answered_as_its_json_is(
    document: Any,
) -> None:
    # the memory server hands its reviews over as documents (`answer`), the
    # webhook server reads them from bodies (`review`): the same answers
    if isinstance(document, dict):
        document = {**document, "request": _pet_request("UPDATE")}
    for handler in (_admission(PetDefaulter()), _admission(PetValidator())):
        from_json = asyncio.run(handler.review(json.dumps(document).encode()))
        handed = asyncio.run(handler.answer(copy.deepcopy(document)))
        assert (handed.status, handed.document) == (
            from_json.status,
            from_json.document,
        )
    conversion = json.loads(
        review(
            "ConversionReview",
            {
                "uid": "c-1",
                "desiredAPIVersion": "webhook.opgen.dev/v1",
                "objects": [_gizmo("v1alpha1", {"size": 3})],
            },
        )
    )
    for sent in (document, conversion):
        from_json = asyncio.run(_conversion().review(json.dumps(sent).encode()))
        handed = asyncio.run(_conversion().answer(copy.deepcopy(sent)))
        assert (handed.status, handed.document) == (
            from_json.status,
            from_json.document,
        )
    assert from_json.document["response"]["result"] == {"status": "Success"}


def test_a_defaulter_passes_what_it_cannot_decode_to_the_schema() -> None:
    """The API server's schema validation runs after the defaulters and names the
    field as the user wrote it: the defaulter lets the object through unchanged."""
    request = _pet_request(spec={"name": 5, "age": "old"})
    _, response = _run(_admission(PetDefaulter()), review("AdmissionReview", request))
    assert response == {"uid": "r-1", "allowed": True}


def test_a_refusal_without_causes_is_forbidden_and_warnings_pass_through() -> None:
    @op.webhook(Pet, mutating=False)
    class Refuses:
        async def validate_create(self, obj: Pet) -> list[str]:
            raise rt.webhook.Denied("pets are closed today")

        async def validate_update(self, old: Pet, new: Pet) -> list[str]:
            return ["careful", "very careful"]

        async def validate_delete(self, obj: Pet) -> list[str]:
            return []

    handler = _admission(Refuses())
    _, response = _run(handler, review("AdmissionReview", _pet_request()))
    assert response["allowed"] is False
    assert response["status"] == {
        "code": 403,
        "reason": "Forbidden",
        "message": "pets are closed today",
    }
    _, response = _run(handler, review("AdmissionReview", _pet_request("UPDATE")))
    assert response == {
        "uid": "r-1",
        "allowed": True,
        "warnings": ["careful", "very careful"],
    }


def test_field_causes_read_like_the_api_servers_own() -> None:
    request = _pet_request(spec={"name": "rex", "age": 99})
    _, response = _run(_admission(PetValidator()), review("AdmissionReview", request))
    status = response["status"]
    assert (status["code"], status["reason"]) == (422, "Invalid")
    assert status["message"] == (
        'Pet.webhook.opgen.dev "rex" is invalid: spec.age: Invalid value: 99: '
        "no pet lives that long"
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": "Invalid value: 99: no pet lives that long",
            "field": "spec.age",
        }
    ]


def test_the_request_is_available_to_the_handler() -> None:
    seen: list[rt.webhook.AdmissionRequest] = []

    @op.webhook(Pet, mutating=True)
    class Looks:
        async def default(self, obj: Pet) -> None:
            seen.append(rt.webhook.admission_request())

    request = _pet_request()
    request["userInfo"] = {"username": "ann", "groups": ["devs"]}
    request["dryRun"] = True
    _run(_admission(Looks()), review("AdmissionReview", request))
    assert [(r.uid, r.operation, r.username, r.groups, r.dry_run) for r in seen] == [
        ("r-1", "CREATE", "ann", ("devs",), True)
    ]
    with pytest.raises(LookupError):
        rt.webhook.admission_request()


# --- conversion ---------------------------------------------------------------


def _conversion() -> ConversionHandler:
    handler = ConversionHandler(Metrics())
    (declaration,) = webhook_declarations(GizmoConversion)
    handler.add(declaration, GizmoConversion())  # type: ignore[arg-type]
    return handler


def _gizmo(version: str, spec: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"webhook.opgen.dev/{version}",
        "kind": "Gizmo",
        "metadata": {"name": "g", "uid": "o-1", "resourceVersion": "7", **metadata},
        "spec": spec,
    }


def _convert(objects: list[Any], desired: str) -> tuple[int, dict[str, Any]]:
    body = review(
        "ConversionReview",
        {"uid": "c-1", "desiredAPIVersion": desired, "objects": objects},
    )
    return _run(_conversion(), body)


def test_objects_convert_in_order_keeping_their_metadata() -> None:
    objects = [
        _gizmo("v1alpha1", {"size": 2}),
        _gizmo("v1", {"replicas": 9}),
        _gizmo("v1alpha1", {"size": 3}, name="h", managedFields=[{"manager": "x"}]),
    ]
    status, response = _convert(objects, "webhook.opgen.dev/v1")
    assert status == 200 and response["uid"] == "c-1"
    assert response["result"] == {"status": "Success"}
    converted = response["convertedObjects"]
    assert [(o["apiVersion"], o["spec"]["replicas"]) for o in converted] == [
        ("webhook.opgen.dev/v1", 2),
        ("webhook.opgen.dev/v1", 9),
        ("webhook.opgen.dev/v1", 3),
    ]
    assert converted[1] is objects[1] or converted[1] == objects[1]
    assert converted[2]["metadata"] == objects[2]["metadata"]


def test_fields_the_spoke_lacks_come_back_unless_the_spoke_changed_them() -> None:
    _, response = _convert(
        [_gizmo("v1", {"replicas": 1, "color": "red", "label": "x"})],
        "webhook.opgen.dev/v1alpha1",
    )
    (spoke,) = response["convertedObjects"]
    assert spoke["spec"] == {"size": 1, "label": "x"}
    annotation = spoke["metadata"]["annotations"][PRESERVED_ANNOTATION]
    assert json.loads(annotation) == [{"hub": "red", "path": "/spec/color"}]
    spoke["spec"]["size"] = 4
    _, response = _convert([spoke], "webhook.opgen.dev/v1")
    (hub,) = response["convertedObjects"]
    assert hub["spec"] == {"replicas": 4, "label": "x", "color": "red"}
    assert "annotations" not in hub["metadata"]


def test_a_malformed_preservation_annotation_is_ignored() -> None:
    spoke = _gizmo(
        "v1alpha1", {"size": 1}, annotations={PRESERVED_ANNOTATION: "{not json"}
    )
    _, response = _convert([spoke], "webhook.opgen.dev/v1")
    (hub,) = response["convertedObjects"]
    assert hub["spec"] == {"replicas": 1}


@pytest.mark.parametrize(
    ("objects", "desired", "message"),
    [
        ([_gizmo("v2", {})], "webhook.opgen.dev/v1", "no conversion for version v2"),
        ([_gizmo("v1", {})], "other.dev/v1", "to another group"),
        (
            [{"apiVersion": "x/v1", "kind": "Thing"}],
            "x/v2",
            "no conversions are registered",
        ),
        ([_gizmo("v1alpha1", {"size": "many"})], "webhook.opgen.dev/v1", "not a valid"),
        ([5], "webhook.opgen.dev/v1", "is a int"),
    ],
)
def test_what_cannot_be_converted_fails_the_review_with_a_reason(
    objects: list[Any], desired: str, message: str
) -> None:
    status, response = _convert(objects, desired)
    assert status == 200 and response["uid"] == "c-1"
    assert response["result"]["status"] == "Failure"
    assert message in response["result"]["message"]


def test_a_raising_converter_fails_the_review_and_counts_a_panic() -> None:
    @op.conversion(hub=Gizmo, spoke=kinds_v1alpha1.Gizmo)
    class Broken:
        def convert_to_hub(self, spoke: kinds_v1alpha1.Gizmo) -> Gizmo:
            raise ZeroDivisionError("lost count")

        def convert_from_hub(self, hub: Gizmo) -> kinds_v1alpha1.Gizmo:
            return kinds_v1alpha1.Gizmo(spec=kinds_v1alpha1.GizmoSpec())

    metrics = Metrics()
    handler = ConversionHandler(metrics)
    (declaration,) = webhook_declarations(Broken)
    handler.add(declaration, Broken())  # type: ignore[arg-type]
    body = review(
        "ConversionReview",
        {
            "uid": "c-2",
            "desiredAPIVersion": "webhook.opgen.dev/v1",
            "objects": [_gizmo("v1alpha1", {"size": 1})],
        },
    )
    _, response = _run(handler, body)
    assert response["result"] == {
        "status": "Failure",
        "message": "conversion failed: lost count",
    }
    value = metrics.registry.get_sample_value(
        "controller_runtime_conversion_webhook_panics_total"
    )
    assert value == 1


# --- declarations -------------------------------------------------------------


def test_declarations_default_like_kubebuilder() -> None:
    (declaration,) = webhook_declarations(PetValidator)
    assert isinstance(declaration, AdmissionWebhook)
    assert declaration.path == "/validate-webhook-opgen-dev-v1-pet"
    assert declaration.name == "vpet-v1.webhook.opgen.dev"
    assert (declaration.failure_policy, declaration.side_effects) == ("Fail", "None")
    assert declaration.operations == ("CREATE", "UPDATE", "DELETE")
    assert declaration.source is not None and declaration.source.cls == "PetValidator"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"failure_policy": "sometimes"},
            "failure_policy='sometimes' is not one of Fail, Ignore",
        ),
        (
            {"side_effects": "Some"},
            "side_effects='Some' is not one of None, NoneOnDryRun",
        ),
        ({"timeout_seconds": 31}, "must be an integer from 1 to 30"),
        ({"operations": ["PATCH"]}, "operations='PATCH' is not one of"),
        ({"operations": []}, "at least one operation"),
        ({"path": "no-slash"}, "must start with '/'"),
        ({"path": "/convert"}, "taken by the manager"),
        ({"admission_review_versions": ["v1beta1"]}, "must include 'v1'"),
    ],
)
def test_bad_declarations_are_marker_errors(
    arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(MarkerError, match=message.replace("(", r"\(")):
        op.webhook(Pet, mutating=True, **arguments)


def test_handler_classes_are_checked_where_they_are_declared() -> None:
    with pytest.raises(MarkerError, match="needs the method"):

        @op.webhook(Pet, mutating=False)
        class Missing:
            async def validate_create(self, obj: Pet) -> list[str]:
                return []

    with pytest.raises(MarkerError, match="must be `async def`"):

        @op.webhook(Pet, mutating=True)
        class Blocking:
            def default(self, obj: Pet) -> None:
                return None

    with pytest.raises(MarkerError, match="not async"):

        @op.conversion(hub=Gizmo, spoke=kinds_v1alpha1.Gizmo)
        class Async:
            async def convert_to_hub(self, spoke: Any) -> Any:
                return spoke

            async def convert_from_hub(self, hub: Any) -> Any:
                return hub

    with pytest.raises(MarkerError, match="same kind"):
        op.conversion(hub=Gizmo, spoke=Pet)
    with pytest.raises(MarkerError, match="is not a kind"):
        op.webhook(dict, mutating=True)
    with pytest.raises(MarkerError, match="reinvocation_policy"):
        op.webhook(Pet, mutating=False, reinvocation_policy="IfNeeded")
