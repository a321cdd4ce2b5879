"""@op.rbac on reconcilers."""

from __future__ import annotations

import pytest

import opgen.api as op
from opgen.engine.reading import rbac_rules
from opgen.errors import MarkerError
from opgen.model import RbacRule


@op.rbac(groups=["ray.io"], resources=["rayclusters"], verbs=["get", "list", "watch"])
@op.rbac(
    groups=["ray.io"],
    resources=["rayclusters/status"],
    verbs=["get", "update", "patch"],
)
@op.rbac(
    groups="",
    resources="configmaps",
    verbs="*",
    namespace="ray",
    role_name="ray-config",
)
@op.rbac(urls=["/metrics"], verbs=["get"])
class Reconciler:
    pass


def test_rules_in_source_order() -> None:
    rules = rbac_rules(Reconciler)
    assert [r.resources for r in rules] == [
        ("rayclusters",),
        ("rayclusters/status",),
        ("configmaps",),
        (),
    ]
    assert rules[2] == RbacRule(
        verbs=("*",),
        groups=("",),
        resources=("configmaps",),
        namespace="ray",
        role_name="ray-config",
        source=rules[2].source,
    )
    assert rules[3].urls == ("/metrics",)
    source = rules[0].source
    assert (
        source is not None
        and source.cls == "Reconciler"
        and source.file.endswith("test_rbac.py")
    )


def test_not_inherited() -> None:
    class Child(Reconciler):
        pass

    assert rbac_rules(Child) == ()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"verbs": []}, "at least one verb"),
        ({"verbs": ["get"]}, "give resources="),
        (
            {"verbs": ["get"], "urls": ["/x"], "resources": ["pods"]},
            "cannot be combined",
        ),
        (
            {"verbs": ["get"], "urls": ["/x"], "namespace": "a"},
            "only exist in the ClusterRole",
        ),
        ({"verbs": ["get", 3], "resources": ["pods"]}, "expected strings"),
    ],
)
def test_bad_rules(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(MarkerError, match=message):
        op.rbac(**arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"resources": ["pods"], "verbs": ["get", "lsit"]},
            "R: @op.rbac(verbs=...): 'lsit' is not a Kubernetes verb; did you mean 'list'?",
        ),
        (
            {"resources": ["pods"], "verbs": ["frobnicate"]},
            "a verb that only your API defines goes in custom_verbs=['frobnicate']",
        ),
        (
            {"urls": ["/metrics"], "verbs": ["list"]},
            "non-resource URLs take HTTP verbs: get, post, put, patch, delete, head, options",
        ),
        (
            {"resources": ["pods"], "verbs": ["get"], "custom_verbs": ["two words"]},
            "custom_verbs= holds 'two words', expected one word per verb",
        ),
    ],
)
def test_unknown_verbs_are_refused(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(MarkerError) as raised:

        @op.rbac(**arguments)  # type: ignore[arg-type]
        class R:
            pass

    assert message in str(raised.value)


def test_special_and_custom_verbs() -> None:
    @op.rbac(
        groups=["rbac.authorization.k8s.io"],
        resources=["roles"],
        verbs=["bind", "escalate"],
    )
    @op.rbac(
        groups=["example.com"],
        resources=["widgets"],
        verbs=["get"],
        custom_verbs=["frobnicate"],
    )
    @op.rbac(urls=["/healthz"], verbs=["get", "post"])
    class R:
        pass

    assert [rule.verbs for rule in rbac_rules(R)] == [
        ("bind", "escalate"),
        ("get", "frobnicate"),
        ("get", "post"),
    ]


def test_rbac_without_parentheses_is_refused() -> None:
    with pytest.raises(MarkerError) as raised:

        @op.rbac  # type: ignore[arg-type]
        class R:  # type: ignore[call-arg]
            pass

    assert "@op.rbac is used without parentheses" in str(raised.value)
    assert "write @op.rbac(verbs=...)" in str(raised.value)
