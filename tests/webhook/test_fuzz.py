"""The webhook server against generated malformed requests: 1,600 of them.

Hypothesis draws 1,200 bodies (600 of each review kind): bytes that are no
JSON, JSON that is no object, and reviews with fields missing, of the wrong
type or holding nonsense, some with objects that almost fit the kind. Each
goes over TLS to the running server (the same keep-alive connection while
the server keeps it). Every answer must be an HTTP 200 or 4xx whose body is
a well-formed review of the endpoint's kind.

It also draws 400 malformed HTTP requests, each on a connection of its own:
request lines, headers, line endings, `Content-Length` and bodies mangled.
Each must be answered with a 200 or 4xx, or (a head never completed) the
connection closed once the server's read timeout passes: never a 5xx, never
a hang.

The server must answer its readiness check at the end, and nothing may be
logged as an error. Deterministic for a given command line
(`derandomize=True`, no database).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.webhook.handlers import GizmoConversion, PetDefaulter, PetValidator
from tests.webhook.serving import Client, ServerThread

EXAMPLES = 600
MUTATE = "/mutate-webhook-opgen-dev-v1-pet"
VALIDATE = "/validate-webhook-opgen-dev-v1-pet"

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=20,
)


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The value, or something of another type, or nothing (key left out)."""
    return st.one_of(value, json_values, st.just(_MISSING))


_MISSING = object()


def _shaped(
    fields: dict[str, st.SearchStrategy[Any]],
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({k: _maybe(v) for k, v in fields.items()}).map(
        lambda d: {k: v for k, v in d.items() if v is not _MISSING}
    )


pet_objects = _shaped(
    {
        "apiVersion": st.sampled_from(["webhook.opgen.dev/v1", "v1", ""]),
        "kind": st.sampled_from(["Pet", "Gizmo", ""]),
        "metadata": _shaped({"name": st.text(max_size=10), "labels": json_values}),
        "spec": _shaped(
            {
                "name": st.text(max_size=10),
                "age": st.integers(-5, 100),
                "owner": st.text(max_size=5),
                "tags": st.lists(st.text(max_size=3), max_size=3),
            }
        ),
    }
)
admission_requests = _shaped(
    {
        "uid": st.text(max_size=8),
        "kind": _shaped(
            {
                "group": st.sampled_from(["webhook.opgen.dev", "apps"]),
                "version": st.sampled_from(["v1", "v2"]),
                "kind": st.sampled_from(["Pet", "Crash"]),
            }
        ),
        "operation": st.sampled_from(
            ["CREATE", "UPDATE", "DELETE", "CONNECT", "EXPLODE"]
        ),
        "name": st.text(max_size=6),
        "object": pet_objects,
        "oldObject": pet_objects,
        "userInfo": json_values,
        "dryRun": json_values,
    }
)
gizmos = _shaped(
    {
        "apiVersion": st.sampled_from(
            [
                "webhook.opgen.dev/v1",
                "webhook.opgen.dev/v1alpha1",
                "webhook.opgen.dev/v9",
                "x",
            ]
        ),
        "kind": st.sampled_from(["Gizmo", "Pet"]),
        "metadata": _shaped(
            {
                "name": st.text(max_size=6),
                "annotations": st.dictionaries(
                    st.sampled_from(["conversion.opgen.dev/hub-fields", "a"]),
                    st.text(max_size=30) | json_values.map(json.dumps),
                    max_size=2,
                ),
            }
        ),
        "spec": _shaped(
            {
                "size": st.integers(-3, 3),
                "replicas": st.integers(-3, 3),
                "color": st.text(max_size=4),
                "label": st.text(max_size=4),
            }
        ),
    }
)
conversion_requests = _shaped(
    {
        "uid": st.text(max_size=8),
        "desiredAPIVersion": st.sampled_from(
            ["webhook.opgen.dev/v1", "webhook.opgen.dev/v1alpha1", "other/v1", "v1"]
        ),
        "objects": st.lists(gizmos, max_size=4),
    }
)


def _reviews(kind: str, requests: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    api_version = (
        "admission.k8s.io/v1"
        if kind == "AdmissionReview"
        else "apiextensions.k8s.io/v1"
    )
    whole = _shaped(
        {
            "apiVersion": st.sampled_from(
                [api_version, "v1", "admission.k8s.io/v1beta1"]
            ),
            "kind": st.sampled_from([kind, "AdmissionReview", "ConversionReview"]),
            "request": requests,
        }
    )
    return st.one_of(
        whole.map(lambda d: json.dumps(d).encode()),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=200),
        whole.map(lambda d: json.dumps(d).encode()[: max(1, len(json.dumps(d)) // 2)]),
    )


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(PetDefaulter(), PetValidator(), GizmoConversion()) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: ServerThread) -> Iterator[Client]:
    client = Client(server)
    yield client
    client.close()


@pytest.fixture(autouse=True)
def no_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.ERROR)
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, errors[0].getMessage()


def _check(kind: str, status: int, document: Any) -> None:
    assert status == 200 or 400 <= status < 500, status
    assert isinstance(document, dict) and document.get("kind") == kind
    response = document.get("response")
    assert isinstance(response, dict) and isinstance(response.get("uid"), str)
    if kind == "AdmissionReview":
        assert isinstance(response.get("allowed"), bool)
        if response["allowed"] is False:
            assert isinstance(response["status"]["message"], str)
    else:
        result = response.get("result")
        assert isinstance(result, dict) and result.get("status") in (
            "Success",
            "Failure",
        )
        if result["status"] == "Success":
            assert isinstance(response.get("convertedObjects"), list)


SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(body=_reviews("AdmissionReview", admission_requests), mutating=st.booleans())
def test_malformed_admission_reviews_get_well_formed_answers(
    client: Client, body: bytes, mutating: bool
) -> None:
    reply = client.post(MUTATE if mutating else VALIDATE, body)
    _check("AdmissionReview", reply.status, reply.json())


@SETTINGS
@given(body=_reviews("ConversionReview", conversion_requests))
def test_malformed_conversion_reviews_get_well_formed_answers(
    client: Client, body: bytes
) -> None:
    reply = client.post("/convert", body)
    _check("ConversionReview", reply.status, reply.json())


def test_the_server_still_serves(server: ServerThread, client: Client) -> None:
    assert server.call(server.server.check_ready) is None
    sample = server.metrics.registry.get_sample_value
    answered = sum(
        sample(
            "controller_runtime_webhook_requests_total", {"webhook": path, "code": code}
        )
        or 0
        for path in (MUTATE, VALIDATE, "/convert")
        for code in ("200", "400")
    )
    assert answered >= 2 * EXAMPLES


RAW_EXAMPLES = 400

_printable = st.characters(min_codepoint=0, max_codepoint=0x2FF)
_weird = st.text(_printable, max_size=12)
MANGLED = {
    "method": st.sampled_from(["GET", "post", "PO ST", "", "PRI", "CONNECT"]) | _weird,
    "target": st.sampled_from(["/", "", "*", "//x", "/%zz", "/convert?x"]) | _weird,
    "version": st.sampled_from(
        ["HTTP/1.0", "HTTP/2.0", "HTTP/1.1 x", "http/1.1", "HTTP/1", ""]
    )
    | _weird,
    "eol": st.sampled_from(["\n", "\r", "\r\r\n"]),
    "content-type": st.sampled_from(["text/plain", "application/json5", ""]) | _weird,
    "content-length": st.sampled_from(
        ["-1", "2x", " 5", "8000000", "99999999999999999999", "0x10", ""]
    )
    | _weird,
    "header": st.tuples(
        st.sampled_from(["Transfer-Encoding", "Expect", "Connection", "", " X", "X "])
        | _weird,
        st.sampled_from(["chunked", "100-continue", "close", "gzip, chunked"]) | _weird,
    ),
}
"""What one malformed request gets wrong (one part at a time, so every check is reached)."""


@st.composite
def raw_requests(draw: st.DrawFn) -> bytes:
    """A review POST with one or two parts mangled, or its head or body cut short."""
    wrong = set(draw(st.lists(st.sampled_from([*MANGLED, "body", "end"]), max_size=2)))
    part = {name: draw(MANGLED[name]) for name in MANGLED if name in wrong}
    eol = part.get("eol", "\r\n")
    assert isinstance(eol, str)
    body = draw(st.binary(max_size=64) | st.just(b'{"kind": "AdmissionReview"}'))
    length = len(body) + (draw(st.sampled_from([-1, 5])) if "body" in wrong else 0)
    lines = [
        f"{part.get('method', 'POST')} {part.get('target', MUTATE)} "
        f"{part.get('version', 'HTTP/1.1')}",
        "Host: 127.0.0.1",
        f"Content-Type: {part.get('content-type', 'application/json')}",
        f"Content-Length: {part.get('content-length', max(length, 0))}",
    ]
    if "header" in part:
        lines.append("{}: {}".format(*part["header"]))
    head = eol.join(lines) + eol
    if "end" not in wrong:  # else the head never ends: closed after the read timeout
        head += eol
    return head.encode("utf-8") + body


@pytest.fixture(scope="module")
def impatient_server() -> Iterator[ServerThread]:
    """The server with short read and body timeouts, so unfinished requests end quickly."""
    server = ServerThread(PetDefaulter(), PetValidator(), GizmoConversion())
    server.server.read_timeout = 0.3
    server.server.body_timeout = 0.3
    with server as running:
        yield running


def _first_status(tls: Any) -> int | None:
    """The first final status the server sends (after any `100 Continue`), or None
    when it closes the connection without one."""
    received = b""
    while True:
        while b"\r\n" not in received:
            chunk = tls.recv(65536)
            if not chunk:
                return None
            received += chunk
        line, _, received = received.partition(b"\r\n")
        version, code, *_ = line.split(b" ", 2)
        assert version.startswith(b"HTTP/"), line
        if int(code) != 100:
            return int(code)
        received = received.partition(b"\r\n\r\n")[2]


@settings(SETTINGS, max_examples=RAW_EXAMPLES)
@given(request=raw_requests())
def test_malformed_http_requests_get_a_4xx_or_a_close(
    impatient_server: ServerThread, request: bytes
) -> None:
    with impatient_server.raw() as tls:
        tls.sendall(request)
        status = _first_status(tls)
    event(f"answered {status}" if status else "closed without an answer")
    assert status is None or status == 200 or 400 <= status < 500, status


def test_the_impatient_server_still_serves(impatient_server: ServerThread) -> None:
    assert impatient_server.call(impatient_server.server.check_ready) is None
    client = Client(impatient_server)
    assert client.post("/convert", b"[]").status == 400
    client.close()
