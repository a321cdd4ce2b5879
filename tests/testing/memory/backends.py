"""One scenario, two API servers: raw requests through a transport, answers summarized.

A scenario sends requests through `Api.send` (paths with `{ns}` for the test's
namespace); each answer is kept as a summary of what a client relies on:
the status code; for a refusal its reason, details and causes (field and
reason); for an object its kind, name, generation, finalizers, owners (without their uids), spec, status,
labels, whether the server set uid, creationTimestamp and deletionTimestamp,
its `managedFields` (manager, operation, apiVersion, subresource and field set
of each entry; not their times, nor for kinds Go code defaults) and its resourceVersion. resourceVersions are compared by their order (the
rank among those the scenario saw): envtest's etcd counts writes of every
test, the memory server only its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from opgen.runtime.seams import Transport

__all__ = [
    "Api",
    "Scenario",
    "Version",
    "assert_same_answers",
    "assert_same_outcomes",
    "create_namespace",
    "ranked",
]

_UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _masked(text: str) -> str:
    """`text` without uids and times (a conflict names an updater's time)."""
    return _TIME.sub("<time>", _UID.sub("<uid>", text))


def managed_fields(meta: dict[str, Any]) -> list[tuple[str, ...]]:
    """An object's managedFields without their times, in a fixed order: the
    server orders entries by time, which two backends do not share."""
    return sorted(
        (
            entry.get("manager", ""),
            entry.get("operation", ""),
            entry.get("apiVersion", ""),
            entry.get("subresource", ""),
            _masked(json.dumps(entry.get("fieldsV1"), sort_keys=True)),
        )
        for entry in meta.get("managedFields") or ()
    )


@dataclass(frozen=True)
class Version:
    """A resourceVersion, compared by rank once a scenario ends."""

    value: int
    of_list: bool = False
    """A list's: envtest's counts every write in etcd (other tests', the API
    server's own leases), so it is compared as "at or after the object
    versions before it"."""


@dataclass
class Api:
    """A backend for one scenario: a transport and the test's namespace."""

    transport: Transport
    namespace: str
    go_defaulted: frozenset[str] = frozenset()
    """Built-in kinds whose spec is not compared: Go code defaults it (a
    Deployment's strategy), which the memory server does not reproduce."""
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)

    def path(self, template: str) -> str:
        return template.replace("{ns}", self.namespace)

    async def send(
        self,
        method: str,
        template: str,
        body: Any = None,
        content_type: str | None = None,
        *,
        note: str = "",
    ) -> dict[str, Any]:
        """Send a request, keep its summary, return the answer's document."""
        data = None if body is None else json.dumps(body).encode()
        if data is not None and content_type is None:
            content_type = "application/json"
        answer = await self.transport.send(
            method, self.path(template), body=data, content_type=content_type
        )
        try:
            document: dict[str, Any] = json.loads(answer.body) if answer.body else {}
        except ValueError:
            document = {"text": answer.body.decode()}
        summary = {"request": note or f"{method} {template}", "code": answer.status}
        summary.update(summarize(document, self.namespace, self.go_defaulted))
        self.outcomes.append(summary)
        self.answers.append(document)
        return document

    async def events(
        self, template: str, since: str, until: int, query: str = ""
    ) -> None:
        """Keep the summaries of the watch events after `since` (with `query`'s
        selectors), up to the one at resourceVersion `until` (the scenario's last
        write)."""
        path = (
            self.path(template)
            + f"?watch=true&resourceVersion={since}&timeoutSeconds=60{query}"
        )
        async with self.transport.stream("GET", path, read_timeout=None) as stream:
            async for line in stream.lines():
                event = json.loads(line)
                obj = event["object"]
                summary = {
                    "event": event["type"],
                    **summarize(obj, self.namespace, self.go_defaulted),
                }
                self.outcomes.append(summary)
                if int(obj["metadata"].get("resourceVersion", 0)) >= until:
                    return


Scenario = Callable[[Api], Awaitable[None]]


def summarize(
    document: dict[str, Any], namespace: str, go_defaulted: frozenset[str] = frozenset()
) -> dict[str, Any]:
    if "text" in document:
        return {"text": document["text"]}
    if document.get("kind") == "Status":
        details = document.get("details") or {}
        return {
            "reason": document.get("reason"),
            "status": document.get("status"),
            "details": {k: details.get(k) for k in ("name", "group", "kind")},
            "causes": sorted(
                (c.get("field"), c.get("reason")) for c in details.get("causes") or []
            ),
            "message": _masked(_message(document)),
            "cause_messages": sorted(
                _masked(str(c.get("message"))) for c in details.get("causes") or []
            ),
        }
    if "items" in document:
        return {
            "kind": document.get("kind"),
            "items": [
                item["metadata"].get("generateName") or item["metadata"]["name"]
                for item in document["items"]
            ],
            "item_kinds": sorted({item.get("kind", "") for item in document["items"]}),
            "resourceVersion": Version(
                int(document["metadata"]["resourceVersion"]), of_list=True
            ),
            "continue": {None: "absent", "": "empty"}.get(
                document["metadata"].get("continue"), "a token"
            ),
            "remaining": document["metadata"].get("remainingItemCount"),
        }
    meta = document.get("metadata") or {}
    return {
        "kind": document.get("kind"),
        "name": meta.get("generateName") or meta.get("name"),
        "namespaced": meta.get("namespace") == namespace,
        "generation": meta.get("generation"),
        "finalizers": meta.get("finalizers"),
        "owners": [
            (r.get("kind"), r.get("name"), r.get("blockOwnerDeletion"))
            for r in meta.get("ownerReferences") or ()
        ],
        "labels": meta.get("labels"),
        "set": sorted(
            key
            for key in ("uid", "creationTimestamp", "deletionTimestamp")
            if key in meta
        ),
        "deletionGracePeriodSeconds": meta.get("deletionGracePeriodSeconds"),
        "spec": (
            "not compared"
            if document.get("kind") in go_defaulted
            else document.get("spec")
        ),
        "status": document.get("status"),
        "data": document.get("data"),
        "containers": _containers(document),
        "managedFields": (
            "not compared"  # they name the fields Go code defaults
            if document.get("kind") in go_defaulted
            else managed_fields(meta)
        ),
        "resourceVersion": Version(int(meta.get("resourceVersion") or 0)),
    }


def _containers(document: dict[str, Any]) -> list[Any] | None:
    """A pod template's containers as sent (name, image, env, ports): compared
    even where Go code defaults the rest of the spec."""
    template = document.get("template") or (document.get("spec") or {}).get("template")
    if not isinstance(template, dict):
        return None
    return [
        (
            c.get("name"),
            c.get("image"),
            [(e.get("name"), e.get("value")) for e in c.get("env") or ()],
            [p.get("containerPort") for p in c.get("ports") or ()],
        )
        for c in (template.get("spec") or {}).get("containers") or ()
    ]


def _message(document: dict[str, Any]) -> str:
    """A refusal's message, its list of causes in a fixed order: the server
    lists them in Go's map order, which varies from one request to the next."""
    message = str(document.get("message"))
    if "json: cannot unmarshal" in message:  # the Go type is not the memory server's
        message = message.partition(" of type ")[0]
    causes = (document.get("details") or {}).get("causes") or []
    head, bracket, _ = message.partition(" is invalid: [")
    listed = sorted(
        {
            (
                f"{c.get('field')}: {c.get('message')}"
                if c.get("field")
                else str(c.get("message"))
            )
            for c in causes
        }
    )
    if bracket and all(part in message for part in listed):
        return f"{head} is invalid: [{', '.join(listed)}]"
    return message


def ranked(outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The outcomes with every object's resourceVersion replaced by its rank among
    them, and a list's by the rank of the newest object version it includes."""
    versions = [o["resourceVersion"] for o in outcomes if "resourceVersion" in o]
    seen = sorted({v.value for v in versions if not v.of_list})
    rank = {value: position for position, value in enumerate(seen)}

    def placed(version: Version) -> Any:
        if not version.of_list:
            return rank[version.value]
        return ("at or after", sum(value <= version.value for value in seen) - 1)

    return [
        {
            key: placed(value) if isinstance(value, Version) else value
            for key, value in outcome.items()
        }
        for outcome in outcomes
    ]


async def create_namespace(transport: Transport, name: str) -> None:
    """The namespace `name` (the memory server starts with none but `default`)."""
    await transport.send(
        "POST",
        "/api/v1/namespaces",
        body=json.dumps({"metadata": {"name": name}}).encode(),
    )


def assert_same_answers(
    seed: int, expected: list[dict[str, Any]], got: list[dict[str, Any]]
) -> None:
    """Print how many of a sequence's answers agree, and fail naming every
    request whose answers differ (envtest's first)."""
    agreeing = sum(e == g for e, g in zip(expected, got, strict=True))
    print(f"seed {seed}: {agreeing}/{len(expected)} answers agree")
    differences = [
        f"{e['request']}:\n  envtest: {e}\n  memory:  {g}"
        for e, g in zip(expected, got, strict=True)
        if e != g
    ]
    assert not differences, "\n".join(differences)


def assert_same_outcomes(real: Api, memory: Api) -> None:
    """Fail naming every answer (or watch event), and which of its keys, where
    a scenario's run on the memory server differs from its run on envtest."""
    expected, got = ranked(real.outcomes), ranked(memory.outcomes)
    differences = [
        f"{e.get('request') or e.get('event')}: {key}\n"
        f"  envtest: {e.get(key)}\n  memory:  {g.get(key)}"
        for e, g in zip(expected, got, strict=False)
        for key in sorted({*e, *g})
        if e.get(key) != g.get(key)
    ]
    assert not differences, "\n".join(differences)
    assert len(got) == len(expected)
