"""Environment options that need no running control plane."""

from __future__ import annotations

import re

import pytest

from opgen.errors import EnvtestError
from opgen.testing import Environment
from opgen.testing.plugin import namespace_name


def test_timeouts_default_to_60_and_20_seconds() -> None:
    environment = Environment(environ={})
    assert (environment.start_timeout, environment.stop_timeout) == (60.0, 20.0)


@pytest.mark.parametrize(
    ("text", "seconds"), [("90s", 90.0), ("2m", 120.0), ("45", 45.0), ("1500ms", 1.5)]
)
def test_timeouts_follow_envtests_variables(text: str, seconds: float) -> None:
    environment = Environment(
        environ={
            "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT": text,
            "KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT": text,
        }
    )
    assert (environment.start_timeout, environment.stop_timeout) == (seconds, seconds)


def test_an_explicit_timeout_wins_over_the_variable() -> None:
    environment = Environment(
        start_timeout=5, environ={"KUBEBUILDER_CONTROLPLANE_START_TIMEOUT": "2m"}
    )
    assert environment.start_timeout == 5


def test_a_malformed_timeout_is_an_error() -> None:
    with pytest.raises(EnvtestError, match="is not a duration"):
        Environment(environ={"KUBEBUILDER_CONTROLPLANE_START_TIMEOUT": "soon"})


def test_an_unstarted_environment_says_so() -> None:
    environment = Environment(environ={})
    assert not environment.started
    with pytest.raises(EnvtestError, match="not started"):
        _ = environment.kubeconfig_path
    environment.stop()  # stopping what never started is harmless


@pytest.mark.parametrize(
    ("test_name", "pattern"),
    [
        ("test_reconcile[Case_1]", r"^t-test-reconcile-case-1-[0-9a-f]{6}$"),
        ("___", r"^t-[0-9a-f]{6}$"),
        ("test_" + "x" * 100, r"^t-test-x{35}-[0-9a-f]{6}$"),
    ],
)
def test_namespace_names_are_valid_and_unique(test_name: str, pattern: str) -> None:
    first, second = namespace_name(test_name), namespace_name(test_name)
    assert first != second
    assert len(first) <= 63
    assert re.match(pattern, first)
