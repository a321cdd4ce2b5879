"""Secure metrics against the API server: HTTPS, TokenReview + SubjectAccessReview.

The ClusterRoles are the ones `opgen init` scaffolds (config/rbac/metrics_auth_role.yaml,
metrics_reader_role.yaml); the manager itself runs as a service account that has
only the auth role, as it does in a deployed project.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from typer.testing import CliRunner

from opgen import api as op
from opgen import runtime as rt
from opgen.cli import app
from opgen.runtime import tls
from opgen.runtime.kubeconfig import KubeConfig
from opgen.testing import Environment
from tests.runtime.helpers import eventually, kubeconfig_for, running, token_for

pytestmark = pytest.mark.envtest


def scaffolded_roles(root: Path) -> dict[str, dict[str, Any]]:
    """The metrics ClusterRoles of a freshly initialised project, by file stem."""
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(
            app, ["init", "--domain", "example.com", "--project-name", "metrics-test"]
        )
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    rbac = root / "config" / "rbac"
    return {
        stem: yaml.safe_load((rbac / f"{stem}.yaml").read_text())
        for stem in ("metrics_auth_role", "metrics_reader_role")
    }


@pytest.fixture
async def accounts(
    client: rt.Client, namespace: str, tmp_path: Path
) -> AsyncIterator[dict[str, str]]:
    """Tokens of three service accounts: the manager (metrics-auth-role), a reader
    (metrics-reader) and a stranger (no role)."""
    roles = scaffolded_roles(tmp_path)
    created: list[op.k8s.ClusterRole | op.k8s.ClusterRoleBinding] = []
    tokens = {
        who: await token_for(client, who, namespace)
        for who in ("manager", "reader", "stranger")
    }
    try:
        for stem, who in (
            ("metrics_auth_role", "manager"),
            ("metrics_reader_role", "reader"),
        ):
            role = op.k8s.ClusterRole.model_validate(roles[stem])
            name = f"{namespace}-{role.metadata.name}"
            role.metadata.name = name
            created.append(await client.create(role))
            binding = op.k8s.ClusterRoleBinding(
                metadata=op.ObjectMeta(name=name),
                role_ref=op.k8s.RoleRef(
                    api_group="rbac.authorization.k8s.io", kind="ClusterRole", name=name
                ),
                subjects=[
                    op.k8s.rbac_v1.Subject(
                        kind="ServiceAccount", name=who, namespace=namespace
                    )
                ],
            )
            created.append(await client.create(binding))
        yield tokens
    finally:
        for made in reversed(created):
            await client.delete(made)


def secure_manager(envtest: Environment, token: str, **metrics: Any) -> rt.Manager:
    return rt.Manager(
        KubeConfig.from_dict(kubeconfig_for(envtest, {"token": token})),
        rt.ManagerOptions(
            metrics=rt.MetricsOptions(bind_address="127.0.0.1:0", **metrics),
            probes=rt.ProbeOptions(bind_address="0"),
        ),
    )


@dataclass(frozen=True)
class Scraped:
    status: int
    text: str
    http_version: str


async def scrape(
    url: str, token: str | None, verify: ssl.SSLContext | bool = False
) -> Scraped:
    """GET `url` with `token` as bearer; `verify`: False, or the CA to trust."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        aiohttp.ClientSession() as http,
        http.get(url, headers=headers, ssl=verify) as answer,
    ):
        assert answer.version is not None
        version = f"HTTP/{answer.version.major}.{answer.version.minor}"
        return Scraped(answer.status, await answer.text(), version)


async def test_metrics_need_a_token_with_the_reader_role(
    envtest: Environment, accounts: dict[str, str]
) -> None:
    manager = secure_manager(envtest, accounts["manager"])
    async with running(manager):
        # the self-signed certificate is made in a child process meanwhile
        await eventually(lambda: manager.metrics_address is not None)
        server = manager.metrics_server
        assert server is not None and server.scheme == "https"
        url = f"https://127.0.0.1:{server.port}/metrics"

        allowed = await scrape(url, accounts["reader"])
        assert allowed.status == 200, allowed.text
        assert "rest_client_requests_total" in allowed.text
        assert allowed.http_version == "HTTP/1.1"

        forbidden = await scrape(url, accounts["stranger"])
        assert forbidden.status == 403, forbidden.text
        assert "system:serviceaccount:" in forbidden.text

        assert (await scrape(url, None)).status == 401
        assert (await scrape(url, "not-a-token")).status == 401
        # answers are cached: the same reader again costs no review
        reviews = manager.rest.counts["create"]
        assert (await scrape(url, accounts["reader"])).status == 200
        assert manager.rest.counts["create"] == reviews
        with pytest.raises(aiohttp.ClientError):  # plain HTTP is not served
            await scrape(f"http://127.0.0.1:{server.port}/metrics", None)


async def test_metrics_certificate_from_a_folder_is_served_and_reloaded(
    envtest: Environment, accounts: dict[str, str], tmp_path: Path
) -> None:
    certs = tmp_path / "certs"
    certs.mkdir()

    def write_certificate(common_name: str) -> ssl.SSLContext:
        cert, key = tls.self_signed_certificate(common_name, ["127.0.0.1"])
        (certs / "tls.crt").write_bytes(cert)
        (certs / "tls.key").write_bytes(key)
        return ssl.create_default_context(cadata=cert.decode())

    first = write_certificate("first")
    manager = secure_manager(envtest, accounts["manager"], cert_path=str(certs))
    async with running(manager):
        assert manager.metrics_server is not None
        assert manager.metrics_certificate is not None
        url = f"https://127.0.0.1:{manager.metrics_server.port}/metrics"
        assert (await scrape(url, accounts["reader"], verify=first)).status == 200

        second = write_certificate("second")
        assert manager.metrics_certificate.reload()
        assert (await scrape(url, accounts["reader"], verify=second)).status == 200
        with pytest.raises(aiohttp.ClientError):  # the first certificate is gone
            await scrape(url, accounts["reader"], verify=first)


async def test_a_metrics_port_in_use_stops_the_manager_with_the_error(
    envtest: Environment, accounts: dict[str, str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        manager = secure_manager(envtest, accounts["manager"])
        manager.options = dataclasses.replace(
            manager.options,
            metrics=rt.MetricsOptions(bind_address=f"127.0.0.1:{port}"),
        )
        with pytest.raises(OSError):
            await manager.run(install_signal_handlers=False)
