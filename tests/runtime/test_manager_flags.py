"""Every flag of the generated manager's main.py reaches `rt.ManagerOptions`.

A flag that is parsed but never used is worse than no flag: the test scaffolds a
project, sets each flag to a non-default value, and checks that the options
built from the flags change accordingly — and that `--help` lists no other flag.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from opgen import runtime as rt
from opgen.cli import app

FLAGS: dict[str, tuple[list[str], dict[str, object]]] = {
    "--metrics-bind-address": (
        ["--metrics-bind-address=:8443"],
        {"metrics_bind_address": ":8443"},
    ),
    "--metrics-secure": (["--no-metrics-secure"], {"metrics_secure": False}),
    "--metrics-cert-path": (
        ["--metrics-cert-path=/certs"],
        {"metrics_cert_path": "/certs"},
    ),
    "--metrics-cert-name": (
        ["--metrics-cert-name=c.pem"],
        {"metrics_cert_name": "c.pem"},
    ),
    "--metrics-cert-key": (["--metrics-cert-key=k.pem"], {"metrics_cert_key": "k.pem"}),
    "--health-probe-bind-address": (
        ["--health-probe-bind-address=:9000"],
        {"health_probe_bind_address": ":9000"},
    ),
    "--leader-elect": (["--leader-elect"], {"leader_election": True}),
}
NOT_MANAGER_OPTIONS = {"--help", "--log-level"}


@pytest.fixture(scope="module", params=["cluster", "namespaced"])
def main_module(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp(request.param)
    args = [
        "init",
        "--domain",
        "example.com",
        "--project-name",
        f"flags-{request.param}",
    ]
    if request.param == "namespaced":
        args.append("--namespaced")
    previous = Path.cwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(app, args)
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    package = f"flags_{request.param}"
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(f"{package}.main")
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n.split(".")[0] == package]:
            del sys.modules[name]


def options(module: ModuleType, argv: list[str]) -> rt.ManagerOptions:
    built = module.manager_options(module.parse_args(argv))
    assert isinstance(built, rt.ManagerOptions)
    return built


@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_each_flag_changes_the_manager_options(
    main_module: ModuleType, flag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCH_NAMESPACE", "default")
    argv, expected = FLAGS[flag]
    default = options(main_module, [])
    given = options(main_module, argv)
    for field, value in expected.items():
        assert getattr(default, field) != value, f"{flag}: pick a non-default value"
        assert getattr(given, field) == value, flag


def test_help_lists_only_flags_that_are_wired(
    main_module: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main_module.parse_args(["--help"])
    shown = set(re.findall(r"--[a-z][a-z0-9-]+", capsys.readouterr().out))
    shown = {
        flag.removeprefix("--no-") and flag.replace("--no-", "--") for flag in shown
    }
    assert shown == set(FLAGS) | NOT_MANAGER_OPTIONS
    assert "--enable-http2" not in shown and "--webhook-port" not in shown


def test_defaults_are_kubebuilders(
    main_module: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCH_NAMESPACE", "default")
    default = options(main_module, [])
    assert default.metrics_bind_address == "0"
    assert default.metrics_secure is True
    assert default.health_probe_bind_address == ":8081"
    assert default.leader_election is False
    assert default.leader_election_id
