"""`opgen generate` refuses an `@op.rbac` resource that does not exist (issue 23)."""

from __future__ import annotations

import pytest

import opgen.api as op
from opgen.engine.reading import rbac_rules
from opgen.errors import MarkerError
from opgen.model.kinds import Kind, KindNames, KindVersion, SourceRef
from opgen.model.rbac import RbacRule
from opgen.project.config import ImportedCrd
from opgen.project.rbac import check_rbac_resources

SOURCE = SourceRef(file="pkg/controller/thing_controller.py", module="m", cls="R")
HINT = "a resource of an API opgen does not know goes in custom_resources="

RAYCLUSTER = Kind(
    group="ray.io",
    names=KindNames(
        kind="RayCluster",
        plural="rayclusters",
        singular="raycluster",
        list_kind="RayClusterList",
    ),
    scope="Namespaced",
    versions=(KindVersion(version="v1", source=SOURCE),),
)
CERTIFICATE = ImportedCrd(
    crd="certificates.cert-manager.io", kind="Certificate", versions=("v1",)
)


def check(groups: tuple[str, ...], *resources: str) -> None:
    rule = RbacRule(verbs=("get",), groups=groups, resources=resources, source=SOURCE)
    check_rbac_resources([rule], [RAYCLUSTER], [CERTIFICATE])


@pytest.mark.parametrize(
    ("groups", "resources"),
    [
        (("apps",), ("deployments", "deployments/scale", "statefulsets/status")),
        (("core",), ("pods", "pods/log", "secrets", "configmaps/status")),
        (("",), ("services", "persistentvolumeclaims")),
        (("coordination.k8s.io",), ("leases",)),
        (("events.k8s.io",), ("events",)),
        (("ray.io",), ("rayclusters", "rayclusters/status", "rayclusters/finalizers")),
        (("cert-manager.io",), ("certificates", "certificates/status")),
        (("",), ("users", "groups", "nodes/stats")),
        (("certificates.k8s.io",), ("signers",)),
        (("apps",), ("*", "*/scale", "deployments/*")),
        (("*",), ("deployments", "rayclusters")),
        # Another API's group: opgen cannot know its resources.
        (("monitoring.coreos.com",), ("servicemonitors",)),
        (("networking.istio.io",), ("virtualservices",)),
        (("metrics.k8s.io",), ("pods",)),
    ],
)
def test_resources_that_exist_pass(
    groups: tuple[str, ...], resources: tuple[str, ...]
) -> None:
    check(groups, *resources)


@pytest.mark.parametrize(
    ("groups", "resource", "message"),
    [
        (
            ("apps",),
            "deploymnets",
            "@op.rbac(groups=['apps'], resources=['deploymnets']): group 'apps' has "
            "no resource 'deploymnets'; did you mean 'deployments'?",
        ),
        (
            ("app",),
            "deployments",
            "@op.rbac(groups=['app'], resources=['deployments']): there is no API "
            "group 'app'; did you mean groups=['apps']?",
        ),
        (
            ("apps",),
            "configmaps",
            "@op.rbac(groups=['apps'], resources=['configmaps']): group 'apps' has "
            "no resource 'configmaps'; did you mean groups=['core'] (configmaps is "
            "the core group's)?",
        ),
        (
            ("core",),
            "configmap",
            "the core group has no resource 'configmap'; did you mean 'configmaps'?",
        ),
        (
            ("ray.io",),
            "rayclusterz/status",
            "group 'ray.io' has no resource 'rayclusterz'; did you mean "
            "'rayclusters/status'?",
        ),
        (
            ("cert-manager.io",),
            "certificate",
            "group 'cert-manager.io' has no resource 'certificate'; did you mean "
            "'certificates'?",
        ),
        (
            ("core",),
            "pods/lgo",
            "pods has no subresource 'lgo' (it has attach, binding, ",
        ),
        (
            ("*",),
            "deploymnets",
            "no API group has a resource 'deploymnets'; did you mean 'deployments' "
            "(in group 'apps')?",
        ),
    ],
)
def test_a_resource_that_does_not_exist_is_refused(
    groups: tuple[str, ...], resource: str, message: str
) -> None:
    with pytest.raises(MarkerError) as refused:
        check(groups, resource)
    text = str(refused.value)
    assert text.startswith("pkg/controller/thing_controller.py: R: @op.rbac("), text
    assert message in text
    assert f"{HINT}[{resource!r}]" in text


def test_custom_resources_are_granted_unchecked() -> None:
    @op.rbac(
        groups=["apps"],
        resources=["deployments"],
        custom_resources=["deploymentz"],
        verbs=["get"],
    )
    class Reconciler:
        pass

    (rule,) = rbac_rules(Reconciler)
    assert rule.resources == ("deployments", "deploymentz")
    assert rule.custom_resources == ("deploymentz",)
    check_rbac_resources([rule], [], [])
    with pytest.raises(MarkerError):
        check_rbac_resources(
            [RbacRule(verbs=("get",), groups=("apps",), resources=rule.resources)],
            [],
            [],
        )


def test_only_custom_resources_make_a_rule() -> None:
    @op.rbac(groups=["example.org"], custom_resources=["gadgets"], verbs=["get"])
    class Reconciler:
        pass

    (rule,) = rbac_rules(Reconciler)
    assert rule.resources == ("gadgets",)
