"""Names for the objects a test creates: unique to the test, short whatever the namespace.

A test's namespace (the plugin's `namespace` fixture) says which test made it
and ends with a random token; `object_name(base, namespace)` is `base` and
that token, cut to `NAME_LENGTH` characters. Kubernetes allows 63 in label
values and Service names; the rest is room for the names an operator derives
from its object's (`<name>-headless`, a StatefulSet's pod and revision labels).
"""

from __future__ import annotations

__all__ = ["NAME_LENGTH", "object_name"]

NAME_LENGTH = 40


def object_name(base: str, namespace: str) -> str:
    """`base-<token of namespace>`, at most `NAME_LENGTH` characters."""
    token = namespace.rsplit("-", 1)[-1][:8]
    stem = base[: NAME_LENGTH - len(token) - 1].rstrip("-.")
    return f"{stem}-{token}" if stem else token
