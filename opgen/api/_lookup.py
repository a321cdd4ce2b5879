"""`op.Minimun(1)`: a name `opgen.api` does not have, reported with what was meant.

Python's own `AttributeError` names the module and stops there. The error
raised here is still an `AttributeError` (so `hasattr` and `getattr(...,
default)` behave), and also a `MarkerError`, which the loader reports with
the file and line of the types file.
"""

from __future__ import annotations

from collections.abc import Sequence

from opgen.errors import MarkerError

__all__ = ["UnknownNameError", "unknown_name"]


class UnknownNameError(MarkerError, AttributeError):
    """`op.<name>` for a name opgen.api does not define."""


def unknown_name(name: str, known: Sequence[str]) -> AttributeError:
    """The error for `op.<name>`; private and dunder names get a plain AttributeError."""
    if name.startswith("_"):
        return AttributeError(f"module 'opgen.api' has no attribute {name!r}")
    import difflib  # only for a misspelt name: not loaded with every operator

    by_folded = {candidate.lower(): candidate for candidate in known}
    close = difflib.get_close_matches(name.lower(), list(by_folded), n=1, cutoff=0.7)
    guess = f"; did you mean op.{by_folded[close[0]]}?" if close else ""
    return UnknownNameError(
        f"op.{name} is not part of opgen.api{guess}",
        hint="docs/markers.md lists every marker, decorator and type `op` offers",
    )
