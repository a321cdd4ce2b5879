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
from typing import Any, TypedDict

import black
import jinja2
from black.mode import TargetVersion


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("opgen", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


@functools.cache
def _chart_environment() -> jinja2.Environment:
    """For the Helm chart's files, whose own `{{ ... }}` must pass through:
    `[[ ... ]]` substitutes and `[% ... %]` tests a flag."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("opgen", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        **CHART_DELIMITERS,
    )


class _Delimiters(TypedDict):
    variable_start_string: str
    variable_end_string: str
    block_start_string: str
    block_end_string: str
    comment_start_string: str
    comment_end_string: str


CHART_DELIMITERS: _Delimiters = {
    "variable_start_string": "[[",
    "variable_end_string": "]]",
    "block_start_string": "[%",
    "block_end_string": "%]",
    "comment_start_string": "[#",
    "comment_end_string": "#]",
}
"""The delimiters of the templates under `opgen/templates/chart/`."""


def render_chart(template: str, **view: Any) -> str:
    """Render a template under `opgen/templates/chart/` (Helm text passes through)."""
    return _chart_environment().get_template(template).render(**view)


def render(template: str, **view: Any) -> str:
    """Render `template` (a path under `opgen/templates/`) with the view-model."""
    text = _environment().get_template(template).render(**view)
    if template.endswith(".py.j2"):
        return format_python(text)
    return text


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
