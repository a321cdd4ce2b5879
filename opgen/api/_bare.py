"""Decorator factories refuse being used bare: `@op.subresource_status` without `()`.

Written without its call, a factory receives the class it was meant to
decorate, and Python's own complaint is a `TypeError` about positional
arguments. `needs_call` turns that into a marker error naming the class and
saying what to write.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from opgen.errors import Location, MarkerError

__all__ = ["needs_call"]

P = ParamSpec("P")
R = TypeVar("R")


def needs_call(func: Callable[P, R]) -> Callable[P, R]:
    """Wrap the decorator factory `func` so that `@op.<func>` without a call is refused."""
    name = func.__name__
    required = [
        p.name
        for p in inspect.signature(func).parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    written = f"@op.{name}({', '.join(f'{p}=...' for p in required)})"

    @functools.wraps(func)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        if len(args) == 1 and not kwargs and isinstance(args[0], type):
            raise MarkerError(
                f"@op.{name} is used without parentheses, so it was handed the class "
                "instead of its arguments",
                location=Location(cls=args[0].__qualname__),
                hint=f"write {written}",
            )
        return func(*args, **kwargs)

    return checked
