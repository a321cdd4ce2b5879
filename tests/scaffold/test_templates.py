"""The templates take their data from `opgen.render.views` under names that say what it is."""

from __future__ import annotations

from importlib import resources

from jinja2 import meta

from opgen.render import scaffold
from opgen.render.templating import template_environment

TEMPLATES = resources.files("opgen") / "templates"

VIEWS = {"project", "resource", "module", "webhook", "spoke"}
"""A `ProjectView`, a `ResourceView`, a `ClientModuleView`, a `WebhookView`, a
`SpokeView`."""
REGIONS = set(scaffold._TEMPLATE_SLOTS.values())
"""The scaffold-marker regions of the injected files, each one string."""


def _templates() -> dict[str, str]:
    found = {}
    stack = [TEMPLATES]
    while stack:
        folder = stack.pop()
        for entry in folder.iterdir():
            if entry.is_dir():
                stack.append(entry)
            elif entry.name.endswith(".j2"):
                found[str(entry).split("/templates/", 1)[1]] = entry.read_text()
    return found


def test_every_template_reads_only_the_views_and_the_regions() -> None:
    used = {
        name: meta.find_undeclared_variables(template_environment(name).parse(source))
        for name, source in sorted(_templates().items())
    }
    assert len(used) > 30
    strays = {name: names - VIEWS - REGIONS for name, names in used.items()}
    assert {name: names for name, names in strays.items() if names} == {}


def test_region_slots_appear_only_in_the_files_that_hold_markers() -> None:
    injected = {
        "project/main.py.j2",
        scaffold._WEBHOOK_TEMPLATE,
        scaffold._WEBHOOK_TEST_TEMPLATE,
        *scaffold._INJECTED_TEMPLATES.values(),
    }
    for name, source in _templates().items():
        names = meta.find_undeclared_variables(template_environment(name).parse(source))
        if name not in injected:
            assert not names & REGIONS, name
