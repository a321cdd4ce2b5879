"""Regenerate `opgen.api.k8s` from the pinned kube-apiserver: `make core-types`.

    python -m opgen.cli.core_types            # write opgen/api/k8s/
    python -m opgen.cli.core_types --check    # write nothing; exit 1 on drift

Starts envtest's kube-apiserver (`opgen.testing.Environment`, the release
`opgen.testing.KUBERNETES_VERSION` pins), reads its discovery of the kinds of
`opgen.openapi.kubernetes.GROUP_VERSIONS` (plural, scope, subresources) and the
`/openapi/v3` documents that define them and the types `ROOTS` lists, reads the Go
declarations of the same release from the Go module proxy (`k8s.io/api`,
`k8s.io/apimachinery`, `k8s.io/apiextensions-apiserver`, `k8s.io/kube-aggregator`
at `v0.Y.Z`), and renders the modules. This is opgen's
own development command, not part of the `opgen` CLI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from opgen.errors import OpgenError, SchemaError
from opgen.openapi.gotypes import GoType, parse_go_types
from opgen.openapi.kubernetes import (
    GROUP_VERSIONS,
    ROOTS,
    discovered_kinds,
    discovery_path,
    document_paths,
    go_package,
    kubernetes_models,
    merged_definitions,
)
from opgen.openapi.patching import patch_strategies
from opgen.render.core_types import (
    CoreTypesSource,
    core_type_files,
    patch_strategies_file,
)
from opgen.write.files import File

__all__ = [
    "GO_MODULES",
    "core_types",
    "fetch_discovery",
    "fetch_documents",
    "go_declarations",
    "main",
]

GO_MODULES = (
    "k8s.io/api",
    "k8s.io/apimachinery",
    "k8s.io/apiextensions-apiserver",
    "k8s.io/kube-aggregator",
)
"""The Go modules the core types are declared in (versioned `v0.Y.Z` for 1.Y.Z)."""

REPOSITORY = Path(__file__).resolve().parents[2]


def fetch_documents(server: Any, paths: Sequence[str]) -> dict[str, dict[str, Any]]:
    """GET `/openapi/v3/<path>` for each path from a running `Environment`."""
    return asyncio.run(
        _get_json(server, {path: f"openapi/v3/{path}" for path in paths})
    )


def fetch_discovery(
    server: Any, group_versions: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """The APIResourceList the server answers for each group/version (`/apis/apps/v1`)."""
    paths = {gv: discovery_path(gv) for gv in group_versions}
    return asyncio.run(_get_json(server, paths))


async def _get_json(server: Any, paths: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """GET `/<path>` for each entry of `paths`, by the same keys."""
    from opgen.runtime.transport import Transport

    transport = Transport.from_kubeconfig(server.kube_config())
    try:
        answers = {}
        for key, path in paths.items():
            answer = await transport.send("GET", f"/{path}")
            if answer.status != 200:
                raise SchemaError(
                    f"GET /{path} answered {answer.status}",
                    hint="the API server does not serve this group/version",
                )
            answers[key] = json.loads(answer.body)
        return answers
    finally:
        await transport.aclose()


def server_version(server: Any) -> str:
    """The API server's version, without its `v` (1.36.3)."""
    return asyncio.run(_server_version(server))


async def _server_version(server: Any) -> str:
    from opgen.runtime.transport import Transport

    transport = Transport.from_kubeconfig(server.kube_config())
    try:
        answer = await transport.send("GET", "/version")
    finally:
        await transport.aclose()
    return str(json.loads(answer.body)["gitVersion"]).removeprefix("v")


def go_declarations(
    packages: Sequence[str], version: str, env: Mapping[str, str] | None = None
) -> dict[str, dict[str, GoType]]:
    """The type declarations of each Go package (`k8s.io/api/core/v1`, ...) at
    the staging version of Kubernetes `version` (1.36.3 → v0.36.3)."""
    from opgen.testing.binaries.gomodules import module_dir

    minor_patch = version.split(".", 1)[1]
    roots = {
        module: module_dir(module, f"v0.{minor_patch}", env) for module in GO_MODULES
    }
    declarations: dict[str, dict[str, GoType]] = {}
    for package in sorted(packages):
        module = max((m for m in GO_MODULES if package.startswith(m + "/")), key=len)
        directory = roots[module] / package.removeprefix(module + "/")
        types: dict[str, GoType] = {}
        for source in sorted(directory.glob("*.go")):
            if source.name.endswith("_test.go") or "generated" in source.name:
                continue
            types.update(parse_go_types(source.read_text(encoding="utf-8")))
        declarations[package] = types
    return declarations


def core_types(server: Any, env: Mapping[str, str] | None = None) -> list[File]:
    """The files of `opgen/api/k8s/`, from a running `Environment` (in memory)."""
    from opgen.testing import KUBERNETES_VERSION

    version = server_version(server)
    if version != KUBERNETES_VERSION:
        raise SchemaError(
            f"the API server is Kubernetes {version}, but opgen pins {KUBERNETES_VERSION}",
            hint="regenerate against envtest's own kube-apiserver",
        )
    paths = document_paths()
    documents = fetch_documents(server, paths)
    kinds = discovered_kinds(fetch_discovery(server, GROUP_VERSIONS), documents)
    definitions = merged_definitions(documents)
    packages = {go_package(key) for key in definitions if key.startswith("io.k8s.")}
    wanted = {p for p in packages if p.startswith(tuple(m + "/" for m in GO_MODULES))}
    models = kubernetes_models(
        definitions, go_declarations(sorted(wanted), version, env), ROOTS, kinds
    )
    minor_patch = version.split(".", 1)[1]
    source = CoreTypesSource(
        kubernetes_version=version,
        documents=paths,
        go_modules=tuple(f"{m}@v0.{minor_patch}" for m in GO_MODULES),
    )
    files = [
        *core_type_files(models, source),
        patch_strategies_file(patch_strategies(documents), source),
    ]
    return sorted(files, key=lambda file: file.path.name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m opgen.cli.core_types",
        description="Regenerate opgen/api/k8s/ from the pinned kube-apiserver.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a file would change",
    )
    arguments = parser.parse_args(argv)
    from opgen.testing import Environment
    from opgen.write import plan

    try:
        with Environment() as server:
            files = core_types(server)
        changes = plan(files, REPOSITORY)
    except OpgenError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if arguments.check:
        drift = changes.drift()
        for change in drift:
            print(f"{change.action.value} {change.path}", file=sys.stderr)
        print("up to date" if not drift else f"{len(drift)} file(s) out of date")
        return 1 if drift else 0
    changes.apply()
    for line in changes.describe():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
