"""No cluster to talk to is one line naming the kubeconfig or the server (issue 23)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from opgen import runtime as rt
from opgen.runtime.kubeconfig import ConfigError, KubeConfig, load_config


def kubeconfig(server: str) -> str:
    return (
        "apiVersion: v1\nkind: Config\ncurrent-context: gone\n"
        f"clusters:\n- name: gone\n  cluster:\n    server: {server}\n"
        "contexts:\n- name: gone\n  context:\n    cluster: gone\n    user: gone\n"
        "users:\n- name: gone\n  user:\n    token: abc\n"
    )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "not found"),
        ("", "it is empty"),
        ("apiVersion: v1\nkind: Config\n", "it is empty"),
        ("clusters: []\ncontexts: []\nusers: []\n", "it is empty"),
    ],
)
def test_no_kubeconfig_or_no_context_is_no_cluster(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    content: str | None,
    problem: str,
) -> None:
    path = tmp_path / "config"
    if content is not None:
        path.write_text(content)
    monkeypatch.setenv("KUBECONFIG", str(path))
    with pytest.raises(rt.NoCluster) as missing:
        rt.Manager.from_env()
    message = str(missing.value)
    assert message.startswith(
        f"no cluster to connect to: kubeconfig $KUBECONFIG={path}: "
    )
    assert problem in message and "`make cluster`" in message
    assert "\n" not in message
    assert isinstance(missing.value, ConfigError)  # what callers caught before


def test_no_current_context_says_how_to_name_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config"
    path.write_text(
        kubeconfig("https://127.0.0.1:6443").replace("current-context: gone\n", "")
    )
    monkeypatch.setenv("KUBECONFIG", str(path))
    with pytest.raises(rt.NoCluster) as missing:
        rt.Manager.from_env()
    assert str(missing.value) == (
        f"no cluster to connect to: kubeconfig $KUBECONFIG={path}: it names no "
        "current-context; name a context, or set one with "
        "`kubectl config use-context NAME`"
    )


async def test_check_cluster_names_a_server_that_does_not_answer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config"
    server = f"https://127.0.0.1:{closed_port()}"
    path.write_text(kubeconfig(server))
    manager = rt.Manager.from_kubeconfig(path)
    with pytest.raises(rt.NoCluster) as unreachable:
        await manager.check_cluster()
    message = str(unreachable.value)
    assert message.startswith(
        f'cannot reach the API server {server} (context "gone" of {path}): '
    )
    assert "is the cluster running?" in message and "`make cluster`" in message


async def test_check_cluster_leaves_a_config_without_a_file_alone() -> None:
    """In a cluster (service account) there is no kubeconfig file: `run()` waits
    out an API server that is down instead."""
    config = load_config(
        KubeConfig.from_dict(
            {
                "clusters": [
                    {
                        "name": "c",
                        "cluster": {"server": f"https://127.0.0.1:{closed_port()}"},
                    }
                ],
                "contexts": [{"name": "c", "context": {"cluster": "c"}}],
                "current-context": "c",
            }
        )
    )
    assert config.fname is None
    manager = rt.Manager(config)
    await manager.check_cluster()
    await manager.rest.aclose()
