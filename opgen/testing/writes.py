"""What a reconciler writes: `recording_writes(client)` lists every write a block sends.

The scaffolded "a converged object costs no writes" test runs one reconcile
inside it: a write to the object, its status or any child (an owned
StatefulSet updated on every pass, the classic hot loop) is listed as
`<method> <Kind> <namespace>/<name>`, so the test fails naming it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from opgen import runtime as rt
from opgen.runtime import resources

__all__ = ["WRITE_METHODS", "recording_writes"]

WRITE_METHODS = (
    "create",
    "update",
    "update_status",
    "patch",
    "patch_status",
    "apply",
    "apply_status",
    "delete",
    "delete_collection",
)


@contextlib.contextmanager
def recording_writes(client: rt.Client) -> Iterator[list[str]]:
    """Within the block, every write `client` sends is appended to the list yielded
    (and still sent)."""
    writes: list[str] = []
    originals = {name: getattr(client, name) for name in WRITE_METHODS}
    for name, method in originals.items():
        setattr(client, name, _recorded(name, method, writes))
    try:
        yield writes
    finally:
        for name in originals:
            delattr(client, name)


def _recorded(
    name: str, method: Callable[..., Awaitable[Any]], writes: list[str]
) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def recorded(target: Any, *args: Any, **kwargs: Any) -> Any:
        writes.append(f"{name} {_describe(target, kwargs.get('namespace'))}")
        return await method(target, *args, **kwargs)

    return recorded


def _describe(target: Any, namespace: Any) -> str:
    if isinstance(target, type):  # delete_collection(kind, namespace)
        return f"{target.__name__} {namespace or ''}".rstrip()
    meta = resources.metadata(target)
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{type(target).__name__} {where}{meta.get('name', '')}"
