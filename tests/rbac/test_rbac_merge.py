"""RBAC normalisation against the facts of controller-tools' pkg/rbac testdata.

The markers below are the same rules as that testdata's controller (written as
`RbacRule`s); the expected objects are the facts its role.yaml records: one
ClusterRole and six Roles, merges of verbs, resources, groups and URLs, the
`*` collapse, `core` → "", and per-marker `role_name`.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import yaml

from opgen.model import RbacRule
from opgen.render.rbac import normalize_rules, render_role, role_documents

GOLDEN = Path(__file__).parent / "golden" / "role.yaml"


def r(
    verbs: str,
    groups: str = "",
    resources: str = "",
    names: str = "",
    urls: str = "",
    namespace: str | None = None,
    role_name: str | None = None,
) -> RbacRule:
    def split(value: str) -> tuple[str, ...]:
        return tuple(value.split(";")) if value else ()

    return RbacRule(
        verbs=split(verbs),
        groups=tuple("" if g == '""' else g for g in split(groups)),
        resources=split(resources),
        resource_names=split(names),
        urls=split(urls),
        namespace=namespace,
        role_name=role_name,
    )


MARKERS = [
    r("get;watch;create", "batch.io", "cronjobs"),
    r("get;update;patch", "batch.io", "cronjobs/status"),
    r("get", "art", "jobs"),
    r("get", "wave", "jobs", namespace="zoo"),
    r("watch", "batch;batch;batch", "jobs/status"),
    r("create;get", "batch;cron", "jobs/status"),
    r("get", "art", "jobs", namespace="zoo"),
    r("get;create", "cron;batch", "jobs/status"),
    r("watch;watch", "batch", "jobs/status"),
    r("get", "art", "jobs", namespace="park"),
    r("get;watch", "batch.io", "cronjobs", names="foo;bar;baz"),
    r("get;list", "deduplicate-verbs", "some"),
    r("get", "deduplicate-verbs", "some"),
    r("list", "deduplicate-verbs", "some"),
    r("create", "deduplicate-resources", "one"),
    r("create", "deduplicate-resources", "two"),
    r("create", "deduplicate-resources", "three"),
    r("patch", "deduplicate-groups1", "foo"),
    r("patch", "deduplicate-groups2", "foo"),
    r("patch", "deduplicate-groups3", "foo"),
    r("get;list", "deduplicate-all", "foo;bar"),
    r("get", "deduplicate-all", "foo"),
    r("list", "deduplicate-all", "bar"),
    r("get;update;patch", "deduplicate-groups4", "xyz"),
    r("*", "deduplicate-groups4", "xyz"),
    r("get;list", "deduplicate-all-group", "foo;bar"),
    r("get", "not-deduplicate-resources", "some"),
    r("list", "not-deduplicate-resources", "another"),
    r("get", "not-deduplicate-groups1", "some"),
    r("list", "not-deduplicate-groups2", "some"),
    r("get", urls="/url-to-duplicate"),
    r("get", urls="/another/url-to-duplicate"),
    r("list", "core", "deduplicate"),
    r("list", '""', "me"),
    r("list;get", 'core;"";some-other-to-deduplicate-with-core', "me"),
    r("get;update;patch;create", "deduplicate-groups5", "abc", namespace="here"),
    r("*", "deduplicate-groups5", "abc", namespace="here"),
    r(
        "get;list;watch;update;patch",
        "apps",
        "deployments",
        namespace="infrastructure",
        role_name="infra-deployment-manager",
    ),
    r(
        "get;list;watch",
        '""',
        "secrets",
        namespace="users",
        role_name="user-secrets-reader",
    ),
    r(
        "get;list",
        "apps",
        "statefulsets",
        namespace="infrastructure",
        role_name="infra-deployment-manager",
    ),
    r("get;list", "monitoring", "prometheuses", namespace="observability"),
]


def rule(
    groups: list[str], resources: list[str], verbs: list[str], **extra: list[str]
) -> dict[str, list[str]]:
    entry = {"apiGroups": groups}
    if "resourceNames" in extra:
        entry["resourceNames"] = extra["resourceNames"]
    entry["resources"] = resources
    entry["verbs"] = verbs
    return entry


CLUSTER_RULES = [
    {
        "nonResourceURLs": ["/another/url-to-duplicate", "/url-to-duplicate"],
        "verbs": ["get"],
    },
    rule([""], ["deduplicate", "me"], ["list"]),
    rule(["", "some-other-to-deduplicate-with-core"], ["me"], ["get", "list"]),
    rule(["art"], ["jobs"], ["get"]),
    rule(["batch"], ["jobs/status"], ["watch"]),
    rule(["batch", "cron"], ["jobs/status"], ["create", "get"]),
    rule(["batch.io"], ["cronjobs"], ["create", "get", "watch"]),
    rule(
        ["batch.io"],
        ["cronjobs"],
        ["get", "watch"],
        resourceNames=["bar", "baz", "foo"],
    ),
    rule(["batch.io"], ["cronjobs/status"], ["get", "patch", "update"]),
    rule(["deduplicate-all", "deduplicate-all-group"], ["bar", "foo"], ["get", "list"]),
    rule(
        ["deduplicate-groups1", "deduplicate-groups2", "deduplicate-groups3"],
        ["foo"],
        ["patch"],
    ),
    rule(["deduplicate-groups4"], ["xyz"], ["*"]),
    rule(["deduplicate-resources"], ["one", "three", "two"], ["create"]),
    rule(["deduplicate-verbs"], ["some"], ["get", "list"]),
    rule(["not-deduplicate-groups1", "not-deduplicate-resources"], ["some"], ["get"]),
    rule(["not-deduplicate-groups2"], ["some"], ["list"]),
    rule(["not-deduplicate-resources"], ["another"], ["list"]),
]


def role(
    name: str, namespace: str, rules: list[dict[str, list[str]]]
) -> dict[str, object]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": name, "namespace": namespace},
        "rules": rules,
    }


EXPECTED = [
    {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "manager-role"},
        "rules": CLUSTER_RULES,
    },
    role("manager-role", "here", [rule(["deduplicate-groups5"], ["abc"], ["*"])]),
    role(
        "infra-deployment-manager",
        "infrastructure",
        [
            rule(
                ["apps"], ["deployments"], ["get", "list", "patch", "update", "watch"]
            ),
            rule(["apps"], ["statefulsets"], ["get", "list"]),
        ],
    ),
    role(
        "manager-role",
        "observability",
        [rule(["monitoring"], ["prometheuses"], ["get", "list"])],
    ),
    role("manager-role", "park", [rule(["art"], ["jobs"], ["get"])]),
    role(
        "user-secrets-reader",
        "users",
        [rule([""], ["secrets"], ["get", "list", "watch"])],
    ),
    role("manager-role", "zoo", [rule(["art", "wave"], ["jobs"], ["get"])]),
]


def test_controller_tools_testdata_facts() -> None:
    assert role_documents(MARKERS) == EXPECTED


def test_rendered_file_parses_back_to_the_same_objects() -> None:
    file = render_role(MARKERS, namespaced_default=None)
    assert str(file.path) == "config/rbac/role.yaml"
    assert file.content.startswith("# Code generated by opgen")
    assert list(yaml.safe_load_all(file.content)) == EXPECTED


def test_rendered_file_matches_golden_bytes() -> None:
    """Formatting (key order, list style, quoting) is pinned by a golden file.

    It is controller-gen's (go-yaml's) formatting, the same dumper as the CRDs:
    documents opened by `---`, sorted keys, dashes level with their key, the
    core group as `""` and the wildcard verb as `'*'`.

    Regenerate with: OPGEN_UPDATE_GOLDEN=1 pytest tests/rbac
    """
    content = render_role(MARKERS, namespaced_default=None).content
    assert '  - ""\n' in content and "  - '*'\n" in content
    if os.environ.get("OPGEN_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(content)
    assert content == GOLDEN.read_text()


@pytest.mark.parametrize("seed", range(5))
def test_output_does_not_depend_on_marker_order(seed: int) -> None:
    shuffled = list(MARKERS)
    random.Random(seed).shuffle(shuffled)
    assert role_documents(shuffled) == EXPECTED


def test_star_collapses_only_its_own_rule() -> None:
    rules = normalize_rules([r("get;*", "a", "x"), r("get", "a", "y")])
    assert rules == [rule(["a"], ["x"], ["*"]), rule(["a"], ["y"], ["get"])]


def test_role_name_without_namespace_is_a_separate_cluster_role() -> None:
    docs = role_documents([r("get", "a", "x"), r("list", "b", "y", role_name="reader")])
    assert [(d["kind"], d["metadata"]) for d in docs] == [
        ("ClusterRole", {"name": "manager-role"}),
        ("ClusterRole", {"name": "reader"}),
    ]


def test_empty_rule_set_gives_a_placeholder_role() -> None:
    cluster = yaml.safe_load(render_role([], namespaced_default=None).content)
    assert cluster == {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "manager-role"},
        "rules": [],
    }
    namespaced = yaml.safe_load(render_role([], namespaced_default="system").content)
    assert namespaced["kind"] == "Role"
    assert namespaced["metadata"] == {"name": "manager-role", "namespace": "system"}


def test_namespaced_markers_make_roles_and_cluster_rules_stay_apart() -> None:
    docs = role_documents(
        [
            r("get", "apps", "deployments", namespace="ops-system"),
            r("get", "apps", "deployments"),
        ]
    )
    assert [d["kind"] for d in docs] == ["ClusterRole", "Role"]
    assert docs[1]["metadata"] == {"name": "manager-role", "namespace": "ops-system"}
