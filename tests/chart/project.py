"""Projects with a Helm chart, scaffolded through the CLI, for the chart's tests."""

from __future__ import annotations

from pathlib import Path

from tests.scaffold.conftest import api_args, opgen

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
}
"""Project shapes: init's arguments and the `create api` command lines."""


def project_with_chart(root: Path, shape: str) -> Path:
    """A project of `shape` in `root`, generated, with `opgen create chart` run."""
    init, creates = SHAPES[shape]
    root.mkdir(parents=True)
    for args in [init, *creates, ("generate",), ("create", "chart")]:
        run = opgen(root, *args)
        assert run.exit_code == 0, f"opgen {' '.join(args)}:\n{run.stdout}{run.stderr}"
    return root


def name_of(shape: str) -> str:
    init, _ = SHAPES[shape]
    return init[init.index("--project-name") + 1]
