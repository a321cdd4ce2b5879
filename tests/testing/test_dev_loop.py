"""`make cluster`'s report and clean-up, as the local loop needs them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from opgen.cli.envtest import _report_ready
from opgen.testing.controlplane.devcluster import (
    ClusterInfo,
    Published,
    publish,
    unpublish,
)


def info(tmp_path: Path) -> ClusterInfo:
    published = Published(
        tmp_path / "config", merged=True, created=True, previous_context=None
    )
    return ClusterInfo(
        "https://127.0.0.1:6443", ("tigers.zoo.example.com",), published, {}
    )


@pytest.mark.parametrize("webhooks", [True, False])
def test_next_steps_mention_local_webhooks_when_there_are_webhooks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], webhooks: bool
) -> None:
    _report_ready(info(tmp_path), None, None, webhooks)
    out = capsys.readouterr().out
    steps = out[out.index("In another terminal:") :]
    assert ("make install-local-webhooks WEBHOOK_HOST=127.0.0.1" in steps) is webhooks
    if webhooks:
        assert steps.index("install-local-webhooks") < steps.index("make run")


ADMIN = {
    "clusters": [{"name": "envtest", "cluster": {"server": "https://127.0.0.1:6443"}}],
    "users": [{"name": "envtest", "user": {"token": "t"}}],
    "contexts": [
        {"name": "envtest", "context": {"cluster": "envtest", "user": "envtest"}}
    ],
}


@pytest.mark.parametrize("before", [None, "", "apiVersion: v1\nkind: Config\n"])
def test_no_empty_kubeconfig_is_left_behind(tmp_path: Path, before: str | None) -> None:
    path = tmp_path / ".kube" / "config"
    if before is not None:
        path.parent.mkdir()
        path.write_text(before)
    unpublish(publish(ADMIN, path))
    assert not path.exists()


def test_a_kubeconfig_with_the_users_entries_stays(tmp_path: Path) -> None:
    path = tmp_path / "config"
    mine = {
        "apiVersion": "v1",
        "kind": "Config",
        "preferences": {"colors": True},
        "clusters": [],
        "users": [],
        "contexts": [],
    }
    path.write_text(yaml.safe_dump(mine))
    unpublish(publish(ADMIN, path))
    assert yaml.safe_load(path.read_text()) == mine
