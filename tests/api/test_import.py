"""`opgen.api` stays light: importing it never pulls in the generator."""

from __future__ import annotations

from tests.fresh import in_fresh_interpreter

FORBIDDEN = (
    "opgen.load",
    "opgen.schema",
    "opgen.render",
    "opgen.write",
    "opgen.cli",
    "typer",
    "jinja2",
    "black",
)


def test_import_opgen_api_alone() -> None:
    code = (
        "import sys, opgen.api\n"
        f"bad = sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r}))\n"
        "print(','.join(bad))\n"
    )
    assert in_fresh_interpreter(code) == ""


def test_cli_help_does_not_import_pydantic_or_the_engine() -> None:
    code = (
        "import sys\n"
        "from opgen.cli import app\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('pydantic', 'opgen.schema', 'opgen.load', 'opgen.render', 'yaml')))\n"
        "print(','.join(bad))\n"
    )
    assert in_fresh_interpreter(code) == ""
