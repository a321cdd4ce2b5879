"""Pydantic's refusals while a types file runs, told the way opgen tells errors.

A field typed with a class Pydantic cannot validate fails when the model
class is defined, with Pydantic's advice to set `arbitrary_types_allowed`.
For a Kubernetes type that advice leads the wrong way (the CRD could still
not describe the class), and the error names neither the model nor the
field. `schema_generation_error` finds both in the source and says what to
do instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic.errors import PydanticSchemaGenerationError

from opgen.errors import LoadError, Location
from opgen.load.sourcelines import symbol_at

__all__ = ["schema_generation_error"]

_SUBJECT = re.compile(r"schema for (?:<class '(?P<cls>[\w.]+)'>|(?P<other>[^.]+))\.")


def schema_generation_error(
    error: PydanticSchemaGenerationError, file: Path, line: int, where: str
) -> LoadError:
    """The `LoadError` for `error`, raised at `line` of `file` (`where`: `file:line`)."""
    match = _SUBJECT.search(str(error))
    subject = ""
    if match is not None:
        subject = (match["cls"] or "").rsplit(".", 1)[-1] or (match["other"] or "")
    cls, field = symbol_at(file, line, mentioning=subject or None)
    location = Location(file=where, cls=cls, field=field)
    if match is not None and match["cls"]:
        return LoadError(
            f"{subject} is an arbitrary class with no Kubernetes schema",
            location=location,
            hint=f"make {subject} an op.Model subclass (it becomes a nested object), "
            "or use a plain type (str, int, list[...], dict[str, ...]); Pydantic's "
            "arbitrary_types_allowed would not help, since the CRD could not describe it",
        )
    return LoadError(
        f"this type has no Kubernetes schema ({subject or error})",
        location=location,
        hint="use an op.Model subclass or a plain type (str, int, list[...], dict[str, ...])",
    )
