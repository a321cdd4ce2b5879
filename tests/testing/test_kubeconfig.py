"""Existing-cluster mode: USE_EXISTING_CLUSTER is read like envtest reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from opgen.errors import EnvtestError
from opgen.testing.controlplane.kubeconfig import (
    admin_kubeconfig,
    existing_cluster_kubeconfig,
    server_of,
    use_existing_cluster,
)


@pytest.mark.parametrize("value", ["true", "True", "TRUE", "1", "t"])
def test_true_spellings(value: str) -> None:
    assert use_existing_cluster({"USE_EXISTING_CLUSTER": value})


@pytest.mark.parametrize("value", ["", "false", "0", "F"])
def test_false_spellings(value: str) -> None:
    assert not use_existing_cluster({"USE_EXISTING_CLUSTER": value})


def test_unset_means_false() -> None:
    assert not use_existing_cluster({})


def test_an_unknown_spelling_is_an_error() -> None:
    with pytest.raises(EnvtestError, match="neither true nor false"):
        use_existing_cluster({"USE_EXISTING_CLUSTER": "yes please"})


def test_admin_kubeconfig_points_at_the_server() -> None:
    config = admin_kubeconfig("https://127.0.0.1:6443", b"ca", b"cert", b"key")
    assert server_of(config) == "https://127.0.0.1:6443"
    assert config["users"][0]["user"]["client-certificate-data"] == "Y2VydA=="


def test_existing_cluster_kubeconfig_takes_the_first_kubeconfig_entry(
    tmp_path: Path,
) -> None:
    first = tmp_path / "first"
    first.write_text(
        yaml.safe_dump(admin_kubeconfig("https://kind.local:6443", b"ca", b"c", b"k"))
    )
    path, config = existing_cluster_kubeconfig(
        {"KUBECONFIG": f"{first}:{tmp_path / 'second'}"}
    )
    assert path == first
    assert server_of(config) == "https://kind.local:6443"


def test_existing_cluster_without_a_kubeconfig_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(EnvtestError, match="cannot be read"):
        existing_cluster_kubeconfig({"HOME": str(tmp_path)})
