"""Projects with a Helm chart, scaffolded through the CLI, for the chart's tests."""

from __future__ import annotations

from pathlib import Path

from tests.scaffold.conftest import api_args, opgen

WEBHOOK = (
    "create", "webhook", "--group", "animals", "--version", "v1", "--kind", "Tiger",
    "--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1alpha1",
)  # fmt: skip
STORAGE_VERSION = (
    "zoo/api/v1/tiger_types.py",
    "@op.kind(",
    "@op.storage_version()\n@op.kind(",
)
"""The edit a converting kind needs before `create webhook`: its hub is stored."""

SHAPES: dict[str, tuple[tuple[str, ...], list[tuple[str, ...]]]] = {
    "single": (
        ("init", "--domain", "example.com", "--project-name", "ray-operator"),
        [api_args("ray", "v1", "RayCluster")],
    ),
    "namespaced": (
        ("init", "--domain", "example.com", "--project-name", "shop", "--namespaced"),
        [api_args("shop", "v1alpha1", "Order")],
    ),
    "multigroup": (
        (
            "init",
            "--domain",
            "fleet.example.com",
            "--project-name",
            "fleet-operator",
            "--multigroup",
        ),
        [
            api_args("ray", "v1", "RayCluster"),
            api_args("batch", "v1alpha1", "CronTab", "--cluster"),
            api_args("apps", "v1", "Deployment", "--no-resource"),
        ],
    ),
    "webhooks": (
        ("init", "--domain", "example.com", "--project-name", "zoo"),
        [
            api_args("animals", "v1", "Tiger"),
            api_args("animals", "v1alpha1", "Tiger"),
            ("edit-file", *STORAGE_VERSION),
            WEBHOOK,
        ],
    ),
}
"""Project shapes: init's arguments and the commands after it (`edit-file PATH
OLD NEW` edits a file between them)."""


def project_with_chart(root: Path, shape: str) -> Path:
    """A project of `shape` in `root`, generated, with `opgen create chart` run."""
    init, creates = SHAPES[shape]
    root.mkdir(parents=True)
    for args in [init, *creates, ("generate",), ("create", "chart")]:
        if args[0] == "edit-file":
            path, old, new = args[1:]
            source = root / path
            source.write_text(source.read_text().replace(old, new, 1))
            continue
        run = opgen(root, *args)
        assert run.exit_code == 0, f"opgen {' '.join(args)}:\n{run.stdout}{run.stderr}"
    return root


def name_of(shape: str) -> str:
    init, _ = SHAPES[shape]
    return init[init.index("--project-name") + 1]
