"""Rendering jinja2 templates from `opgen/templates/`, and formatting Python output.

Templates receive the view-models of `opgen.render.views` and only loop,
substitute, and test a flag of a view (`{% if resource.namespaced %}`) to
include or leave out text; every decision is made in Python before rendering,
and code text is written in the templates, never assembled in Python. Generated Python goes through
black so that a generated project passes `black --check` as generated.
"""

from __future__ import annotations

import functools
import textwrap
from typing import Any

import black
import jinja2
from black.mode import TargetVersion

CHART_TEMPLATES = "chart/"
"""The Helm chart's templates: Helm's own `{{ ... }}` must pass through them, so
they substitute with `[[ ... ]]`, test flags with `[% ... %]` and comment with
`[# ... #]`."""


@functools.cache
def _environment(*, helm: bool) -> jinja2.Environment:
    variable, block, comment = (
        (("[[", "]]"), ("[%", "%]"), ("[#", "#]"))
        if helm
        else (("{{", "}}"), ("{%", "%}"), ("{#", "#}"))
    )
    return jinja2.Environment(
        loader=jinja2.PackageLoader("opgen", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        variable_start_string=variable[0],
        variable_end_string=variable[1],
        block_start_string=block[0],
        block_end_string=block[1],
        comment_start_string=comment[0],
        comment_end_string=comment[1],
    )


def template_environment(template: str) -> jinja2.Environment:
    """The jinja2 environment `template` (a path under `opgen/templates/`) renders in."""
    return _environment(helm=template.startswith(CHART_TEMPLATES))


def render(template: str, **view: Any) -> str:
    """Render `template` (a path under `opgen/templates/`) with the view-model."""
    text = template_environment(template).get_template(template).render(**view)
    if template.endswith(".py.j2"):
        return format_python(text)
    return text


def render_statement(template: str, **view: Any) -> str:
    """Render a template holding one top-level Python statement (a class, an
    assignment) and black-format it alone. Joined with two blank lines after a
    formatted module head, such statements are the module black would write;
    formatting them one by one lets a module with thousands of lines, or many
    modules sharing classes, format each distinct statement once."""
    text = template_environment(template).get_template(template).render(**view)
    return _format_statement(text)


@functools.lru_cache(maxsize=8192)
def _format_statement(text: str) -> str:
    return format_python(text)


def format_python(source: str, *, line_length: int = 88) -> str:
    """Black-format Python source (black's defaults, Python 3.10 target)."""
    mode = black.Mode(target_versions={TargetVersion.PY310}, line_length=line_length)
    return black.format_str(source, mode=mode)


def format_python_lines(source: str, indent: str = "") -> str:
    """Black-format a run of statements that will sit at `indent` in a file."""
    if not source.strip():
        return ""
    formatted = format_python(textwrap.dedent(source), line_length=88 - len(indent))
    return textwrap.indent(formatted, indent)
