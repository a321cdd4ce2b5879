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
