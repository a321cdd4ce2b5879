"""Installing CustomResourceDefinitions and waiting until they can be used.

CRDs are sent exactly as written (server-side apply of the raw document,
never through a typed model that could drop or reshape fields), so what the
API server judges is the file itself; a rejection is reported with the
server's own message. Installed means: the `Established` condition is true
and every served version answers a list request (discovery has caught up).

The requests go through the runtime's transport (`opgen.runtime.transport`),
on an event loop of their own in a worker thread, so these functions can be
called from synchronous code and from a coroutine alike.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import time
import urllib.parse
from collections.abc import Coroutine, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, Union

import yaml

from opgen.errors import EnvtestError
from opgen.runtime.kubeconfig import ConfigSource
from opgen.runtime.transport import Transport

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's loader where PyYAML has it: a generated CRD is large."""
__all__ = [
    "FIELD_MANAGER",
    "CrdDocument",
    "CrdSource",
    "install_crds",
    "load_crds",
    "message_of",
    "run",
    "uninstall_crds",
]

CrdSource = Union[str, "os.PathLike[str]", Mapping[str, Any]]
FIELD_MANAGER = "opgen-envtest"
CRD_KIND = "CustomResourceDefinition"
POLL_SECONDS = 0.1
CRDS_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

T = TypeVar("T")


@dataclass(frozen=True)
class CrdDocument:
    """One CRD and where it came from (for messages)."""

    body: Mapping[str, Any]
    origin: str

    @property
    def name(self) -> str:
        metadata = self.body.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if not isinstance(name, str) or not name:
            raise EnvtestError(
                f"a CustomResourceDefinition in {self.origin} has no metadata.name"
            )
        return name


def _crd_files(directory: Path) -> list[Path]:
    return sorted(
        path
        for path in directory.iterdir()
        if path.suffix in (".yaml", ".yml", ".json")
    )


def _documents_in(path: Path) -> list[CrdDocument]:
    try:
        loaded = list(yaml.load_all(path.read_text(), Loader=_LOADER))
    except (OSError, yaml.YAMLError) as error:
        raise EnvtestError(f"cannot read CRDs from {path}: {error}") from error
    return [
        CrdDocument(body=document, origin=str(path))
        for document in loaded
        if isinstance(document, dict) and document.get("kind") == CRD_KIND
    ]


def load_crds(sources: Iterable[CrdSource]) -> list[CrdDocument]:
    """CRDs from files, directories (their *.yaml, *.yml, *.json) and in-memory dicts.

    Documents of other kinds in a file are skipped, as envtest does; a file
    named explicitly that holds no CRD at all is an error.
    """
    documents: list[CrdDocument] = []
    for source in sources:
        if isinstance(source, Mapping):
            if source.get("kind") != CRD_KIND:
                raise EnvtestError(f"not a {CRD_KIND}: kind={source.get('kind')!r}")
            documents.append(CrdDocument(body=source, origin="<object>"))
            continue
        path = Path(source)
        if path.is_dir():
            for file in _crd_files(path):
                documents += _documents_in(file)
        elif path.is_file():
            found = _documents_in(path)
            if not found:
                raise EnvtestError(f"{path} holds no {CRD_KIND}")
            documents += found
        else:
            raise EnvtestError(f"CRD path {path} does not exist")
    return documents


def _conditions(crd: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    status = crd.get("status") or {}
    return {
        str(condition.get("type")): condition
        for condition in status.get("conditions") or []
        if isinstance(condition, Mapping)
    }


def message_of(body: bytes) -> str:
    """The `message` of a `Status` answer, else the answer itself."""
    try:
        status = json.loads(body)
    except ValueError:
        status = None
    if isinstance(status, dict) and status.get("message"):
        return str(status["message"])
    return body.decode("utf-8", "replace")[:500]


def run(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` on an event loop of its own (a caller may be running one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, work).result()


def _crd_path(name: str) -> str:
    return f"{CRDS_PATH}/{urllib.parse.quote(name, safe='')}"


async def _wait_established(
    transport: Transport, crd: CrdDocument, deadline: float
) -> None:
    while True:
        answer = await transport.send("GET", _crd_path(crd.name))
        if answer.status != 200:
            raise EnvtestError(f"cannot read CRD {crd.name}: {message_of(answer.body)}")
        conditions = _conditions(json.loads(answer.body))
        names = conditions.get("NamesAccepted")
        if names is not None and names.get("status") == "False":
            raise EnvtestError(
                f"the API server did not accept the names of CRD {crd.name} ({crd.origin}): "
                f"{names.get('message')}"
            )
        if conditions.get("Established", {}).get("status") == "True":
            return
        if time.monotonic() >= deadline:
            raise EnvtestError(
                f"CRD {crd.name} ({crd.origin}) did not become Established in time; "
                f"conditions: {list(conditions.values())}"
            )
        await asyncio.sleep(POLL_SECONDS)


async def _wait_served(transport: Transport, crd: CrdDocument, deadline: float) -> None:
    spec = crd.body["spec"]
    for version in spec.get("versions") or []:
        if not version.get("served", True):
            continue
        path = f"/apis/{spec['group']}/{version['name']}/{spec['names']['plural']}"
        while True:
            answer = await transport.send("GET", f"{path}?limit=1")
            if answer.status == 200:
                break
            # Until discovery catches up the server answers 404.
            if answer.status != 404 or time.monotonic() >= deadline:
                raise EnvtestError(
                    f"{crd.name} version {version['name']} is Established but not served: "
                    f"{answer.status} {message_of(answer.body)}"
                )
            await asyncio.sleep(POLL_SECONDS)


def install_crds(
    config: ConfigSource, sources: Iterable[CrdSource], timeout: float
) -> list[str]:
    """Apply every CRD, then wait until each is Established and served; return their names.
    `config`: the admin's kubeconfig."""
    return run(_install(config, load_crds(sources), timeout))


async def _install(
    config: ConfigSource, crds: list[CrdDocument], timeout: float
) -> list[str]:
    transport = Transport.from_kubeconfig(config)
    try:
        for crd in crds:
            query = urllib.parse.urlencode(
                {"fieldManager": FIELD_MANAGER, "force": "true"}
            )
            answer = await transport.send(
                "PATCH",
                f"{_crd_path(crd.name)}?{query}",
                body=json.dumps(crd.body).encode(),
                content_type="application/apply-patch+yaml",
            )
            if answer.status >= 400:
                raise EnvtestError(
                    f"the API server rejected CRD {crd.name} ({crd.origin}): {message_of(answer.body)}",
                    hint="fix the CRD (or the types it is generated from) as the message says",
                )
        deadline = time.monotonic() + timeout
        for crd in crds:
            await _wait_established(transport, crd, deadline)
            await _wait_served(transport, crd, deadline)
        return [crd.name for crd in crds]
    finally:
        await transport.aclose()


def uninstall_crds(
    config: ConfigSource, sources: Iterable[CrdSource], timeout: float
) -> None:
    """Delete the CRDs (and so all their objects) and wait until they are gone.
    `config`: the admin's kubeconfig."""
    run(_uninstall(config, load_crds(sources), timeout))


async def _uninstall(
    config: ConfigSource, crds: list[CrdDocument], timeout: float
) -> None:
    transport = Transport.from_kubeconfig(config)
    try:
        for crd in crds:
            answer = await transport.send("DELETE", _crd_path(crd.name))
            if answer.status >= 400 and answer.status != 404:
                raise EnvtestError(
                    f"cannot delete CRD {crd.name}: {message_of(answer.body)}"
                )
        deadline = time.monotonic() + timeout
        for crd in crds:
            while True:
                answer = await transport.send("GET", _crd_path(crd.name))
                if answer.status == 404:
                    break
                if answer.status >= 400:
                    raise EnvtestError(
                        f"cannot read CRD {crd.name}: {message_of(answer.body)}"
                    )
                if time.monotonic() >= deadline:
                    raise EnvtestError(f"CRD {crd.name} was not deleted in time")
                await asyncio.sleep(POLL_SECONDS)
    finally:
        await transport.aclose()
