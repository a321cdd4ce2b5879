"""Go's RE2 in Python: POSIX classes inside brackets."""

from __future__ import annotations

import pytest

from opgen.engine.goregex import go_regex

# controller-tools' CronJob test API's patternObject.
URL = r"^$|^((https):\/\/?)[^\s()<>]+(?:\([\w\d]+\)|([^[:punct:]\s]|\/?))$"


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (URL, "https://example.com", True),
        (URL, "https://x(ab)", True),
        # Python alone reads `[^[:punct:]\s]` as the class `[^[:punct:]` and
        # the literals `\s]`, and would match this; Go does not.
        (URL, "https://Xgã\n]", False),
        (r"^[[:alpha:]]+$", "abcXYZ", True),
        (r"^[[:alpha:]]+$", "ab1", False),
        (r"^[[:digit:][:upper:]]+$", "A1B2", True),
        (r"^[^[:space:]]+$", "a\tb", False),
        (r"^[[:xdigit:]]+$", "0fA9", True),
        (r"^[[:punct:]]+$", "[]\\^-`~", True),
    ],
)
def test_posix_classes_match_as_in_go(pattern: str, text: str, matches: bool) -> None:
    assert bool(go_regex(pattern).match(text)) is matches
