"""Input validation: good values pass, bad ones say what is wrong and how to fix it."""

from __future__ import annotations

import pytest

from opgen.errors import ProjectError
from opgen.load import builtin_kinds
from opgen.project import validate
from opgen.project.coregroups import CORE_GROUPS, find_core_type, k8s_module


@pytest.mark.parametrize("value", ["example.com", "io", "a-b.c-d.example", "x1.y2"])
def test_good_domains(value: str) -> None:
    assert validate.domain(value) == value


@pytest.mark.parametrize(
    "value", ["", "Example.com", "-a.com", "a_b.com", "a..b", "a.com.", "x" * 254]
)
def test_bad_domains(value: str) -> None:
    with pytest.raises(ProjectError, match="invalid --domain") as caught:
        validate.domain(value)
    assert caught.value.hint


@pytest.mark.parametrize("value", ["v1", "v1alpha1", "v2beta3", "v10", "v3alpha12"])
def test_good_versions(value: str) -> None:
    assert validate.version(value) == value


@pytest.mark.parametrize(
    "value", ["1", "v0", "V1", "v1alpha", "v1gamma1", "v1alpha0", "v01", "v1beta1x"]
)
def test_bad_versions(value: str) -> None:
    with pytest.raises(ProjectError, match="invalid --version"):
        validate.version(value)


@pytest.mark.parametrize("value", ["RayCluster", "A", "CronJob2", "HTTPRoute"])
def test_good_kinds(value: str) -> None:
    assert validate.kind(value) == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("rayCluster", "UpperCamelCase"),
        ("Ray_Cluster", "UpperCamelCase"),
        ("Ray-Cluster", "UpperCamelCase"),
        ("None", "reserved"),
        ("True", "reserved"),
        ("Exception", "reserved"),
        ("List", "reserved"),
        ("CustomResource", "reserved"),
        ("RayClusterList", "ending in 'List'"),
        ("A" * 64, "longer than 63"),
    ],
)
def test_bad_kinds(value: str, message: str) -> None:
    with pytest.raises(ProjectError, match=message):
        validate.kind(value)


def test_group_checks() -> None:
    assert validate.group("ray", domain_name="example.com") == "ray"
    assert validate.group("my-group.sub", domain_name="example.com") == "my-group.sub"
    with pytest.raises(ProjectError, match="DNS-1123"):
        validate.group("Ray", domain_name="example.com")
    with pytest.raises(ProjectError, match="Python keyword"):
        validate.group("import", domain_name="example.com")
    with pytest.raises(ProjectError, match="longer than 253"):
        validate.group(
            "a" * 60 + "." + "b" * 60 + "." + "c" * 60 + "." + "d" * 60,
            domain_name="example.com",
        )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Ray", "DNS-1123 label"),
        ("ray_operator", "DNS-1123 label"),
        ("1ray", "not a Python identifier"),
        ("opgen", "taken by opgen"),
        ("tests", "taken by opgen"),
        ("aiohttp", "a package the operator imports"),
        ("prometheus-client", "a package the operator imports"),
        ("x" * 57, "at most 56"),
    ],
)
def test_bad_project_names(value: str, message: str) -> None:
    with pytest.raises(ProjectError, match=message):
        validate.project_name(value, from_directory=False)


def test_project_name_from_directory_says_so() -> None:
    with pytest.raises(ProjectError, match="from the directory name") as caught:
        validate.project_name("My Project", from_directory=True)
    assert "--project-name" in str(caught.value)


def test_owner_is_one_line() -> None:
    assert validate.owner(None) is None
    assert validate.owner("The Authors") == "The Authors"
    with pytest.raises(ProjectError, match="one non-empty line"):
        validate.owner("a\nb")


def test_every_core_group_maps_to_an_op_k8s_module() -> None:
    for group in CORE_GROUPS:
        version = "v2" if group == "autoscaling" else "v1"
        assert builtin_kinds(k8s_module(group, version)), group


def test_core_types_come_from_op_k8s() -> None:
    deployment = find_core_type("apps", "v1", "Deployment")
    assert (deployment.group, deployment.plural, deployment.namespaced) == (
        "apps",
        "deployments",
        True,
    )
    namespace = find_core_type("core", "v1", "Namespace")
    assert (namespace.group, namespace.namespaced) == ("", False)
    with pytest.raises(ProjectError, match="has no kind 'Deploymnt'"):
        find_core_type("apps", "v1", "Deploymnt")
    with pytest.raises(ProjectError, match=r"op\.k8s has no kinds of apps/v9"):
        find_core_type("apps", "v9", "Deployment")
    with pytest.raises(ProjectError, match="has no kind 'DeploymentScale'"):
        find_core_type("apps", "v1", "DeploymentScale")


@pytest.mark.parametrize(
    "value", ["1widgets", "Widgets", "wid_gets", "w" * 64, "widgets-"]
)
def test_bad_plurals(value: str) -> None:
    # The API server wants a DNS-1035 label: "1widgets" would pass create api
    # and then be refused by the checker at the first `opgen generate`.
    with pytest.raises(ProjectError, match="DNS-1035 label"):
        validate.plural(value)


def test_good_plurals() -> None:
    assert validate.plural("rayclusters") == "rayclusters"
    assert validate.plural("ray-clusters2") == "ray-clusters2"


def test_every_runtime_dependency_is_reserved() -> None:
    """A project package named like a package its operator imports would shadow it."""
    import re
    from importlib.metadata import packages_distributions, requires

    runtime = {
        re.split(r"[^A-Za-z0-9_.-]", line, maxsplit=1)[0].lower().replace("_", "-")
        for line in requires("opgen") or ()
        if "extra ==" not in line
    }
    imported = {
        module
        for module, distributions in packages_distributions().items()
        if any(d.lower().replace("_", "-") in runtime for d in distributions)
        and module.isidentifier()
        and not module.startswith("_")
    }
    assert imported - validate.RESERVED_PACKAGES == set()
