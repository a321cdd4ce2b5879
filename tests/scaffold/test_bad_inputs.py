"""Bad inputs: each gives its message and exit code, and leaves the tree as it was."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.scaffold.conftest import (
    CREATE_RAY,
    DELETE_RAY,
    INIT,
    api_args,
    opgen,
    tree_hash,
)

Setup = Callable[[Path], Path]


def fresh(project: Path) -> Path:
    return project


def empty_dir(project: Path) -> Path:
    folder = project.parent / "empty"
    folder.mkdir()
    return folder


def with_ray(project: Path) -> Path:
    assert opgen(project, *CREATE_RAY).exit_code == 0
    return project


def edited_ray(project: Path) -> Path:
    with_ray(project)
    types = project / "ray_operator/api/v1/raycluster_types.py"
    types.write_text(types.read_text() + "# edited\n")
    return project


def dir_named(name: str) -> Setup:
    def setup(project: Path) -> Path:
        folder = project.parent / name
        folder.mkdir()
        return folder

    return setup


def non_empty(project: Path) -> Path:
    folder = empty_dir(project)
    (folder / "notes.txt").write_text("hello\n")
    return folder


def broken_marker(project: Path) -> Path:
    main = project / "ray_operator/main.py"
    main.write_text(main.read_text().replace("# +opgen:scaffold:controllers:end\n", ""))
    return project


def renamed_marker(project: Path) -> Path:
    kustomization = project / "config/rbac/kustomization.yaml"
    kustomization.write_text(
        kustomization.read_text().replace("scaffold:kind-roles", "scaffold:roles")
    )
    return project


def broken_project_file(project: Path) -> Path:
    (project / "PROJECT").write_text("version: '1'\ndomain: [\n")
    return project


def broken_controller(project: Path) -> Path:
    with_ray(project)
    controller = project / "ray_operator/controller/raycluster_controller.py"
    controller.write_text('"""A reconciler."""\n\nimport no_such_module\n')
    return project


def bad_marker_in_types(project: Path) -> Path:
    with_ray(project)
    types = project / "ray_operator/api/v1/raycluster_types.py"
    types.write_text(
        "from typing import Annotated\n"
        + types.read_text().replace(
            "foo: str | None = None", "foo: Annotated[int, op.MinLength(1)] = 0"
        )
    )
    return project


TYPES = "ray_operator/api/v1/raycluster_types.py"
CONTROLLER = "ray_operator/controller/raycluster_controller.py"


def edited(path: str, old: str, new: str, *, prelude: str = "") -> Setup:
    """The project with a kind, and `old` replaced by `new` in the file at `path`."""

    def setup(project: Path) -> Path:
        with_ray(project)
        file = project / path
        source = file.read_text()
        assert old in source, old
        file.write_text(prelude + source.replace(old, new, 1))
        return project

    return setup


FOO = "foo: str | None = None"


def at_line(path: str, rest: str) -> re.Pattern[str]:
    """`path:<line>: rest`, whatever the line."""
    return re.compile(re.escape(path) + r":\d+: " + re.escape(rest))


HELPER_CLASSES = (
    "import dataclasses\n\nimport pydantic\n\n\nclass Blob:\n    pass\n\n\n"
    "class Tls(pydantic.BaseModel):\n    secret_name: str = ''\n\n\n"
    "@dataclasses.dataclass\nclass Window:\n    start_hour: int = 0\n\n\n"
)


EDITED_PROJECT = "no longer matches what opgen made:\n  - "


def project_edited(old: str, new: str) -> Setup:
    """The project with a kind, and a hand edit of PROJECT."""
    return edited("PROJECT", old, new)


def namespaced_project(project: Path) -> Path:
    folder = empty_dir(project)
    assert opgen(folder, "init", "--domain", "x.io", "--namespaced").exit_code == 0
    return folder


CREATE = ("create", "api", "--group", "ray", "--version", "v1", "--kind")

CASES: list[tuple[str, Setup, tuple[str, ...], int, str | re.Pattern[str]]] = [
    (
        "init: bad domain",
        empty_dir,
        ("init", "--domain", "Example.COM"),
        1,
        "invalid --domain 'Example.COM'",
    ),
    (
        "init: bad project name",
        empty_dir,
        ("init", "--domain", "x.io", "--project-name", "My_Op"),
        1,
        "invalid project name 'My_Op'",
    ),
    (
        "init: folder name is not a name",
        dir_named("1-bad"),
        ("init", "--domain", "x.io"),
        1,
        "(from the directory name)",
    ),
    (
        "init: folder not empty",
        non_empty,
        ("init", "--domain", "x.io"),
        1,
        "is not empty (notes.txt)",
    ),
    ("init: already a project", fresh, INIT, 1, "already an opgen project"),
    (
        "init: unknown license",
        empty_dir,
        ("init", "--domain", "x.io", "--license", "gpl"),
        2,
        "Invalid value for '--license'",
    ),
    ("init: missing domain", empty_dir, ("init",), 2, "Missing option '--domain'"),
    (
        "init: owner on two lines",
        empty_dir,
        ("init", "--domain", "x.io", "--owner", "a\nb"),
        1,
        "invalid --owner",
    ),
    (
        "create: outside a project",
        empty_dir,
        (*CREATE, "RayCluster"),
        1,
        "is not an opgen project",
    ),
    (
        "create: bad version",
        fresh,
        api_args("ray", "v1.0", "RayCluster"),
        1,
        "invalid --version 'v1.0'",
    ),
    (
        "create: lower-case kind",
        fresh,
        (*CREATE, "rayCluster"),
        1,
        "invalid --kind 'rayCluster'",
    ),
    ("create: reserved kind", fresh, (*CREATE, "None"), 1, "the name is reserved"),
    ("create: list kind", fresh, (*CREATE, "RayClusterList"), 1, "ending in 'List'"),
    (
        "create: bad group",
        fresh,
        api_args("Ray", "v1", "RayCluster"),
        1,
        "invalid --group 'Ray'",
    ),
    (
        "create: bad plural",
        fresh,
        (*CREATE, "RayCluster", "--plural", "Ray_Clusters"),
        1,
        "invalid --plural 'Ray_Clusters'",
    ),
    (
        "create: duplicate kind",
        with_ray,
        CREATE_RAY,
        1,
        "RayCluster (ray/v1) already exists",
    ),
    (
        "create: second group, single-group",
        with_ray,
        api_args("batch", "v1", "Job"),
        1,
        "already has the group 'ray'",
    ),
    (
        "create: nothing to scaffold",
        fresh,
        (*CREATE, "RayCluster", "--no-resource", "--no-controller"),
        1,
        "nothing to scaffold",
    ),
    (
        "create: no-resource, unknown type",
        fresh,
        (*CREATE, "RayCluster", "--no-resource"),
        1,
        "neither in this project nor a built-in",
    ),
    (
        "create: no-resource, misspelt core kind",
        fresh,
        api_args("apps", "v1", "Deploymnt", "--no-resource"),
        1,
        "apps/v1 has no kind 'Deploymnt'",
    ),
    (
        "create: cluster-scoped kind in a --namespaced project",
        namespaced_project,
        (*CREATE, "RayCluster", "--cluster"),
        1,
        "RayCluster is cluster-scoped (--cluster), but this project is --namespaced",
    ),
    (
        "create: cluster-scoped core type in a --namespaced project",
        namespaced_project,
        api_args("core", "v1", "Node", "--no-resource"),
        1,
        "Node is a built-in cluster-scoped type, but this project is --namespaced",
    ),
    (
        "create: missing end marker",
        broken_marker,
        CREATE_RAY,
        1,
        "'# +opgen:scaffold:controllers' is never closed",
    ),
    (
        "create: renamed marker",
        renamed_marker,
        CREATE_RAY,
        1,
        "'# +opgen:scaffold:kind-roles' not found",
    ),
    (
        "create: broken PROJECT",
        broken_project_file,
        CREATE_RAY,
        1,
        "PROJECT is not valid YAML",
    ),
    (
        "generate: outside a project",
        empty_dir,
        ("generate",),
        1,
        "`opgen generate` must run in the root folder of a project made by `opgen init`",
    ),
    (
        "generate manifests: outside a project",
        empty_dir,
        ("generate", "manifests"),
        1,
        "opgen generate crd --types FILE.py --out DIR",
    ),
    (
        "generate --check: broken PROJECT",
        broken_project_file,
        ("generate", "--check"),
        1,
        "PROJECT is not valid YAML",
    ),
    (
        "generate: a controller that fails to import",
        broken_controller,
        ("generate",),
        1,
        "ray_operator/controller/raycluster_controller.py:3: ModuleNotFoundError: No module named 'no_such_module'",
    ),
    (
        "generate manifests: a marker on the wrong type",
        bad_marker_in_types,
        ("generate", "manifests"),
        1,
        "RayClusterSpec.foo: op.MinLength(1): applies to int-or-string or string values",
    ),
    (
        "generate: a field typed with an arbitrary class",
        edited(TYPES, FOO, "blob: Blob | None = None", prelude=HELPER_CLASSES),
        ("generate",),
        1,
        at_line(
            TYPES,
            "RayClusterSpec.blob: Blob is an arbitrary class with no Kubernetes "
            "schema\n  hint: make Blob an op.Model subclass",
        ),
    ),
    (
        "generate: a kind decorator without parentheses",
        edited(TYPES, "@op.subresource_status()", "@op.subresource_status"),
        ("generate",),
        1,
        at_line(
            TYPES,
            "RayCluster: @op.subresource_status is used without parentheses, so it "
            "was handed the class instead of its arguments\n"
            "  hint: write @op.subresource_status()",
        ),
    ),
    (
        "generate: a typo'd marker",
        edited(
            TYPES,
            FOO,
            "foo: Annotated[int, op.Minimun(1)] = 1",
            prelude="from typing import Annotated\n",
        ),
        ("generate",),
        1,
        at_line(
            TYPES,
            "RayClusterSpec.foo: op.Minimun is not part of opgen.api; did you mean "
            "op.Minimum?\n  hint: docs/markers.md lists every marker",
        ),
    ),
    (
        "generate: a dataclass inside the spec",
        edited(TYPES, FOO, "window: Window = Window()", prelude=HELPER_CLASSES),
        ("generate",),
        1,
        f"{TYPES}: RayClusterSpec.window: Window is a dataclass; opgen describes "
        "op.Model classes only (a dataclass's fields would keep their Python names "
        "on the wire, and its title would leak into the CRD)\n"
        "  hint: make it `class Window(op.Model)` with the same fields",
    ),
    (
        "generate: a plain pydantic.BaseModel inside the spec",
        edited(TYPES, FOO, "tls: Tls = Tls()", prelude=HELPER_CLASSES),
        ("generate",),
        1,
        f"{TYPES}: RayClusterSpec.tls: Tls is a pydantic.BaseModel, not an op.Model: "
        "its field secret_name would be 'secret_name' on the wire, not 'secretName'"
        "\n  hint: make it `class Tls(op.Model)`",
    ),
    (
        "generate: a typo'd RBAC verb",
        edited(CONTROLLER, '"get", "update", "patch"]', '"get", "updaet", "patch"]'),
        ("generate",),
        1,
        at_line(
            CONTROLLER,
            "RayClusterReconciler: @op.rbac(verbs=...): 'updaet' is not a Kubernetes "
            "verb; did you mean 'update'?\n  hint: the verbs are get, list, watch, "
            "create, update, patch, delete, deletecollection and '*'; some APIs add "
            "use, bind, escalate, impersonate, approve, sign; a verb that only your "
            "API defines goes in custom_verbs=['updaet']",
        ),
    ),
    (
        "generate: a typo'd RBAC resource",
        edited(CONTROLLER, 'resources=["events"]', 'resources=["evnets"]'),
        ("generate",),
        1,
        f"{CONTROLLER}: RayClusterReconciler: @op.rbac(groups=['events.k8s.io'], "
        "resources=['evnets']): group 'events.k8s.io' has no resource 'evnets'; "
        "did you mean 'events'?\n  hint: resources are the lower-case plurals "
        "`kubectl api-resources` lists, subresources as `deployments/scale`; a "
        "resource of an API opgen does not know goes in custom_resources=['evnets']",
    ),
    (
        "generate: PROJECT's domain edited by hand",
        project_edited("domain: example.com", "domain: example.org"),
        ("generate",),
        1,
        f"PROJECT: {EDITED_PROJECT}resources[0] RayCluster (ray/v1): PROJECT says "
        "ray.example.org/v1, but the types define RayCluster in ray.example.com (v1)"
        " (ray_operator/api/v1/raycluster_types.py should)\n  hint: if PROJECT was "
        "edited, restore it",
    ),
    (
        "generate --check: PROJECT's domain edited by hand",
        project_edited("domain: example.com", "domain: example.org"),
        ("generate", "--check"),
        1,
        f"{EDITED_PROJECT}resources[0] RayCluster (ray/v1): PROJECT says "
        "ray.example.org/v1, but the types define RayCluster in ray.example.com (v1)",
    ),
    (
        "create api: PROJECT's package edited by hand",
        project_edited("package: ray_operator", "package: ray_op"),
        api_args("ray", "v1", "RayJob"),
        1,
        f"{EDITED_PROJECT}package is 'ray_op', but projectName 'ray-operator' makes "
        "it 'ray_operator'",
    ),
    (
        "delete api: PROJECT's core flag edited by hand",
        project_edited("core: false", "core: true"),
        DELETE_RAY,
        1,
        f"{EDITED_PROJECT}resources[0] RayCluster (ray/v1): core is true, but 'ray' "
        "is not a Kubernetes group",
    ),
    (
        "generate: PROJECT's version edited by hand",
        project_edited("  version: v1\n", "  version: v2\n"),
        ("generate",),
        1,
        f"{EDITED_PROJECT}resources[0] RayCluster (ray/v2): PROJECT says "
        "ray.example.com/v2, but the types define RayCluster in ray.example.com (v1) "
        "(ray_operator/api/v2/raycluster_types.py should)",
    ),
    (
        "delete: unknown kind",
        with_ray,
        api_args("ray", "v1", "RayJob", verb="delete"),
        1,
        "RayJob (ray/v1) is not in this project",
    ),
    (
        "delete: edited file",
        edited_ray,
        DELETE_RAY,
        1,
        "you edited files",
    ),
]


@pytest.mark.parametrize(
    ("setup", "args", "code", "message"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_bad_input(
    project: Path,
    setup: Setup,
    args: tuple[str, ...],
    code: int,
    message: str | re.Pattern[str],
) -> None:
    cwd = setup(project)
    before = tree_hash(cwd.parent)
    run = opgen(cwd, *args)
    assert run.exit_code == code, run.stdout + run.stderr
    if isinstance(message, str):
        assert message in run.stderr
    else:
        assert message.search(run.stderr), run.stderr
    if code == 1:
        assert run.stderr.startswith("error: ")
        assert "hint: " in run.stderr
    assert tree_hash(cwd.parent) == before


def test_there_are_at_least_fifteen_cases() -> None:
    assert len(CASES) >= 15
