"""Scaffold marker regions: splicing, reading, and loud errors for broken markers."""

from __future__ import annotations

import re

import pytest

from opgen.errors import ScaffoldError
from opgen.write import Region, read_regions, splice, wrap

TEXT = """\
import os

# +opgen:scaffold:imports
from a import b
# +opgen:scaffold:imports:end


def main() -> None:
    user_code()
    # +opgen:scaffold:setup
    # +opgen:scaffold:setup:end
    more_user_code()
"""


def test_splice_replaces_only_region_content() -> None:
    new = splice(
        TEXT,
        (
            Region("imports", "from a import b\nfrom c import d\n"),
            Region("setup", "    x()\n"),
        ),
        path="main.py",
    )
    assert new == TEXT.replace(
        "from a import b\n", "from a import b\nfrom c import d\n"
    ).replace("    # +opgen:scaffold:setup\n", "    # +opgen:scaffold:setup\n    x()\n")
    assert read_regions(new, path="main.py") == {
        "imports": "from a import b\nfrom c import d\n",
        "setup": "    x()\n",
    }


def test_splice_to_empty_and_back_is_identity() -> None:
    emptied = splice(TEXT, (Region("imports", ""),), path="main.py")
    assert "from a import b" not in emptied
    assert (
        splice(emptied, (Region("imports", "from a import b\n"),), path="main.py")
        == TEXT
    )


def test_wrap_adds_markers_with_indent() -> None:
    assert (
        wrap(Region("x", "  a\n"), "  ")
        == "  # +opgen:scaffold:x\n  a\n  # +opgen:scaffold:x:end\n"
    )


def test_region_text_must_end_with_newline() -> None:
    with pytest.raises(ValueError):
        Region("x", "no newline")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (TEXT.replace("# +opgen:scaffold:imports:end\n", ""), "is never closed"),
        (TEXT.replace("# +opgen:scaffold:imports\n", ""), "has no begin line"),
        (TEXT + "# +opgen:scaffold:imports\n", "appears more than once"),
        (
            TEXT.replace("from a import b\n", "# +opgen:scaffold:imports\n"),
            "appears twice without its ':end' line",
        ),
        (
            TEXT.replace("scaffold:setup", "scaffold:setpu"),
            "'# +opgen:scaffold:setup' not found",
        ),
    ],
)
def test_broken_markers_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(ScaffoldError, match=re.escape(message)) as caught:
        splice(text, (Region("imports", ""), Region("setup", "")), path="pkg/main.py")
    assert "pkg/main.py" in str(caught.value)
    assert caught.value.hint
