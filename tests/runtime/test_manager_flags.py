"""Every flag of the generated manager's main.py reaches `rt.ManagerOptions`.

A flag that is parsed but never used is worse than no flag: the test scaffolds a
project, sets each flag to a non-default value, and checks that the options
built from the flags change accordingly — and that `--help` lists no other flag.
"""

from __future__ import annotations

import importlib
import logging
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
        {"metrics.bind_address": ":8443"},
    ),
    "--metrics-secure": (["--metrics-secure=false"], {"metrics.secure": False}),
    "--metrics-cert-path": (
        ["--metrics-cert-path=/certs"],
        {"metrics.cert_path": "/certs"},
    ),
    "--metrics-cert-name": (
        ["--metrics-cert-name=c.pem"],
        {"metrics.cert_name": "c.pem"},
    ),
    "--metrics-cert-key": (["--metrics-cert-key=k.pem"], {"metrics.cert_key": "k.pem"}),
    "--health-probe-bind-address": (
        ["--health-probe-bind-address=:9000"],
        {"probes.bind_address": ":9000"},
    ),
    "--leader-elect": (["--leader-elect"], {"leader_election.name": "*"}),
    "--webhook-port": (["--webhook-port=10443"], {"webhook.port": 10443}),
    "--webhook-cert-path": (
        ["--webhook-cert-path=/webhook-certs"],
        {"webhook.cert_path": "/webhook-certs"},
    ),
    "--webhook-cert-name": (
        ["--webhook-cert-name=c.pem"],
        {"webhook.cert_name": "c.pem"},
    ),
    "--webhook-cert-key": (["--webhook-cert-key=k.pem"], {"webhook.cert_key": "k.pem"}),
}
"""Per flag: the arguments, and the option each sets (a dotted path) and its value
("*": any value, where the default has none)."""
LOGGING_FLAGS = {
    "--log-level",
    "--zap-log-level",
    "--zap-encoder",
    "--zap-devel",
    "--zap-time-encoding",
    "--zap-stacktrace-level",
}
NOT_MANAGER_OPTIONS = {"--help", "--enable-http2", *LOGGING_FLAGS}


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


def option(options: rt.ManagerOptions, path: str) -> object:
    """The option at a dotted path, e.g. "metrics.secure"; None past a group that is None."""
    value: object = options
    for name in path.split("."):
        value = getattr(value, name) if value is not None else None
    return value


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
    for path, value in expected.items():
        if value == "*":
            assert option(default, path) is None, flag
            assert option(given, path), flag
            continue
        assert option(default, path) != value, f"{flag}: pick a non-default value"
        assert option(given, path) == value, flag


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


@pytest.mark.parametrize(
    ("argv", "elected", "secure"),
    [
        ([], False, True),
        (["--leader-elect"], True, True),
        (["--leader-elect=true", "--metrics-secure=false"], True, False),
        (["--leader-elect=True", "--metrics-secure=FALSE"], True, False),
        (["--leader-elect=1", "--metrics-secure=0"], True, False),
        (["--leader-elect=t", "--metrics-secure=f"], True, False),
        (["--leader-elect=false", "--metrics-secure=true"], False, True),
        (["--no-leader-elect", "--no-metrics-secure"], False, False),
        (["--leader-elect", "--no-leader-elect"], False, True),
    ],
)
def test_boolean_flags_take_go_and_python_spellings(
    main_module: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    elected: bool,
    secure: bool,
) -> None:
    """What Kubebuilder's charts and patches pass (`--metrics-secure=false`) works."""
    monkeypatch.setenv("WATCH_NAMESPACE", "default")
    built = options(main_module, argv)
    assert (built.leader_election is not None) is elected
    assert built.metrics.secure is secure


@pytest.mark.parametrize(
    "argv",
    [
        ["--leader-elect=yes"],
        ["--metrics-secure=off"],
        ["--no-leader-elect=true"],
        ["--enable-http2"],
        ["--enable-http2=true"],
        ["--zap-log-level=loud"],
        ["--zap-encoder=xml"],
    ],
)
def test_bad_flag_values_are_usage_errors(
    main_module: ModuleType, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main_module.parse_args(argv)
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert argv[0].split("=")[0] in error or "invalid" in error, error


def test_http2_stays_off(main_module: ModuleType) -> None:
    """`--enable-http2=false` is accepted (as Kubebuilder's manifests pass it); true is
    refused above, since the servers speak HTTP/1.1 only."""
    assert main_module.parse_args([]).enable_http2 is False
    assert main_module.parse_args(["--enable-http2=false"]).enable_http2 is False


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], rt.logs.LogOptions()),
        (
            ["--zap-encoder=json"],
            rt.logs.LogOptions(encoder="json", time_encoding="epoch"),
        ),
        (["--log-level=DEBUG"], rt.logs.LogOptions(level=logging.DEBUG)),
        (["--zap-log-level=error"], rt.logs.LogOptions(level=logging.ERROR)),
        (["--zap-log-level=3"], rt.logs.LogOptions(level=logging.DEBUG)),
        (
            ["--zap-devel"],
            rt.logs.LogOptions(level=logging.DEBUG, stacktrace_level=logging.WARNING),
        ),
        (
            ["--zap-devel", "--zap-log-level=info", "--zap-stacktrace-level=panic"],
            rt.logs.LogOptions(stacktrace_level=logging.CRITICAL),
        ),
        (
            ["--zap-encoder=json", "--zap-time-encoding=rfc3339nano"],
            rt.logs.LogOptions(encoder="json", time_encoding="rfc3339nano"),
        ),
    ],
)
def test_logging_flags_build_the_log_options(
    main_module: ModuleType, argv: list[str], expected: rt.logs.LogOptions
) -> None:
    assert rt.logs.LogOptions.from_flags(main_module.parse_args(argv)) == expected


def test_defaults_are_kubebuilders(
    main_module: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCH_NAMESPACE", "default")
    default = options(main_module, [])
    assert default.metrics.bind_address == "0"
    assert default.metrics.secure is True
    assert default.probes.bind_address == ":8081"
    assert default.leader_election is None
    elected = options(main_module, ["--leader-elect"])
    assert elected.leader_election is not None and elected.leader_election.name


def test_the_library_defaults_agree_with_the_flags(
    main_module: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the library and the generated flags both state a default, they agree —
    except the metrics address, off in the generated manager as in Kubebuilder's
    (`config/default` sets :8443, the library's default)."""
    monkeypatch.setenv("WATCH_NAMESPACE", "default")
    flags, library = options(main_module, []), rt.ManagerOptions()
    assert flags.metrics.secure == library.metrics.secure
    assert flags.metrics.cert_name == library.metrics.cert_name
    assert flags.metrics.cert_key == library.metrics.cert_key
    assert flags.metrics.cert_path == library.metrics.cert_path
    assert flags.probes == library.probes
    assert flags.webhook == library.webhook
    assert flags.metrics.bind_address == "0" != library.metrics.bind_address
