"""Installing CustomResourceDefinitions and waiting until they can be used.

CRDs are sent exactly as written (server-side apply of the raw document,
never through a typed model that could drop or reshape fields), so what the
API server judges is the file itself; a rejection is reported with the
server's own message. Installed means: the `Established` condition is true
and every served version answers a list request (discovery has caught up).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Union, cast

import httpx2
import yaml
from lightkube import ApiError, Client
from lightkube.core import resource as lightkube_resource
from lightkube.generic_resource import Generic

from opgen.errors import EnvtestError

__all__ = [
    "FIELD_MANAGER",
    "CrdDocument",
    "CrdSource",
    "install_crds",
    "load_crds",
    "uninstall_crds",
]

CrdSource = Union[str, "os.PathLike[str]", Mapping[str, Any]]
FIELD_MANAGER = "opgen-envtest"
CRD_KIND = "CustomResourceDefinition"
POLL_SECONDS = 0.1
_ALL_VERBS = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "post",
    "put",
    "watch",
]


class _RawCustomResourceDefinition(lightkube_resource.GlobalResource, Generic):  # type: ignore[misc]
    """A CRD as a plain dict: sent and read back without a model in between."""

    _api_info: ClassVar[lightkube_resource.ApiInfo] = lightkube_resource.ApiInfo(  # type: ignore[misc]
        resource=lightkube_resource.ResourceDef("apiextensions.k8s.io", "v1", CRD_KIND),
        plural="customresourcedefinitions",
        verbs=_ALL_VERBS,
    )


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
        loaded = list(yaml.safe_load_all(path.read_text()))
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


def _served_resource(body: Mapping[str, Any], version: str) -> type[Any]:
    spec = body["spec"]
    base: type[Any] = (
        lightkube_resource.NamespacedResourceG
        if spec.get("scope", "Namespaced") == "Namespaced"
        else lightkube_resource.GlobalResource
    )
    info = lightkube_resource.ApiInfo(
        resource=lightkube_resource.ResourceDef(
            spec["group"], version, spec["names"]["kind"]
        ),
        plural=spec["names"]["plural"],
        verbs=_ALL_VERBS,
    )
    return type(spec["names"]["kind"], (base, Generic), {"_api_info": info})


def _wait_established(client: Client, crd: CrdDocument, deadline: float) -> None:
    while True:
        current = cast(
            Mapping[str, Any], client.get(_RawCustomResourceDefinition, crd.name)
        )
        conditions = _conditions(current)
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
        time.sleep(POLL_SECONDS)


def _wait_served(client: Client, crd: CrdDocument, deadline: float) -> None:
    for version in crd.body["spec"].get("versions") or []:
        if not version.get("served", True):
            continue
        resource = _served_resource(crd.body, version["name"])
        while True:
            try:
                next(iter(client.list(resource, chunk_size=1)), None)
                break
            except httpx2.HTTPStatusError as error:
                # Until discovery catches up the server answers a plain-text 404,
                # which lightkube passes on as the transport's error, not ApiError.
                if error.response.status_code != 404 or time.monotonic() >= deadline:
                    raise EnvtestError(
                        f"{crd.name} version {version['name']} is Established but not served: "
                        f"{error}"
                    ) from error
            time.sleep(POLL_SECONDS)


def install_crds(
    client: Client, sources: Iterable[CrdSource], timeout: float
) -> list[str]:
    """Apply every CRD, then wait until each is Established and served; return their names."""
    crds = load_crds(sources)
    for crd in crds:
        try:
            client.apply(
                _RawCustomResourceDefinition(**crd.body),
                field_manager=FIELD_MANAGER,
                force=True,
            )
        except ApiError as error:
            raise EnvtestError(
                f"the API server rejected CRD {crd.name} ({crd.origin}): {error.status.message}",
                hint="fix the CRD (or the types it is generated from) as the message says",
            ) from error
    deadline = time.monotonic() + timeout
    for crd in crds:
        _wait_established(client, crd, deadline)
        _wait_served(client, crd, deadline)
    return [crd.name for crd in crds]


def uninstall_crds(
    client: Client, sources: Iterable[CrdSource], timeout: float
) -> None:
    """Delete the CRDs (and so all their objects) and wait until they are gone."""
    crds = load_crds(sources)
    for crd in crds:
        try:
            client.delete(_RawCustomResourceDefinition, crd.name)
        except ApiError as error:
            if error.status.code != 404:
                raise EnvtestError(
                    f"cannot delete CRD {crd.name}: {error.status.message}"
                ) from error
    deadline = time.monotonic() + timeout
    for crd in crds:
        while True:
            try:
                client.get(_RawCustomResourceDefinition, crd.name)
            except ApiError as error:
                if error.status.code == 404:
                    break
                raise EnvtestError(
                    f"cannot read CRD {crd.name}: {error.status.message}"
                ) from error
            if time.monotonic() >= deadline:
                raise EnvtestError(f"CRD {crd.name} was not deleted in time")
            time.sleep(POLL_SECONDS)
