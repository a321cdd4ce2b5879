"""Rendering jinja2 templates from `opgen/templates/`, and formatting Python output.

Templates receive the view-models of `opgen.render.views` and only loop,
substitute, and test a flag of a view (`{% if resource.namespaced %}`) to
include or leave out text; every decision is made in Python before rendering,
and code text is written in the templates, never assembled in Python. Generated Python goes through
black so that a generated project passes `black --check` as generated.

Black's output is kept in opgen's cache directory (`opgen.cachedir`), in
a file named by a hash of the source, the line length and the installed black
(its module file, size and time): `opgen generate` in a project whose
generated Python did not change formats nothing, and never imports black (a
tenth of a second).
"""

from __future__ import annotations

import functools
import hashlib
import os
import textwrap
from typing import Any

import jinja2

from opgen.cachedir import cache_dir, installed, write_atomically

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
    options: dict[str, Any] = {
        "undefined": jinja2.StrictUndefined,
        "keep_trailing_newline": True,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "autoescape": False,
        "variable_start_string": variable[0],
        "variable_end_string": variable[1],
        "block_start_string": block[0],
        "block_end_string": block[1],
        "comment_start_string": comment[0],
        "comment_end_string": comment[1],
    }
    return jinja2.Environment(
        loader=jinja2.PackageLoader("opgen", "templates"),
        bytecode_cache=_KeptTemplates(options),
        **options,
    )


class _KeptTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept in opgen's cache directory, as jinja2 keeps them:
    by template name, for the Python version, rewritten when the template's
    source differs; in a directory named by jinja2's version and the
    environment's options, which change the compiled code and not the source.
    A directory that cannot be written only costs the time."""

    def __init__(self, options: dict[str, Any]) -> None:
        made_by = f"{jinja2.__version__} {sorted(options.items(), key=str)!r}"
        digest = hashlib.sha256(made_by.encode()).hexdigest()[:16]
        directory = cache_dir(os.environ) / "templates" / digest
        super().__init__(str(directory))
        self._writable = True
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            self._writable = False

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if self._writable:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                self._writable = False


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
    black = _installed_black()
    if black is None:
        return _black(source, line_length)
    key = hashlib.sha256(f"{line_length}\0{source}".encode()).hexdigest()
    path = cache_dir(os.environ) / "black" / black / key[:2] / key
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    formatted = _black(source, line_length)
    write_atomically(path, formatted.encode("utf-8"))
    return formatted


def _black(source: str, line_length: int) -> str:
    import black
    from black.mode import TargetVersion

    mode = black.Mode(target_versions={TargetVersion.PY310}, line_length=line_length)
    return black.format_str(source, mode=mode)


_FORMAT = 1
"""Bumped when what `format_python` asks of black changes."""


@functools.cache
def _installed_black() -> str | None:
    """A fingerprint of the installed black and of what is asked of it."""
    black = installed("black")
    return None if black is None else f"{black}-{_FORMAT}"


def format_python_lines(source: str, indent: str = "") -> str:
    """Black-format a run of statements that will sit at `indent` in a file."""
    if not source.strip():
        return ""
    formatted = format_python(textwrap.dedent(source), line_length=88 - len(indent))
    return textwrap.indent(formatted, indent)
