"""Default plural of a kind.

Must agree with the plural the CRD engine gives a kind (file names such as
`config/crd/bases/<group>_<plural>.yaml` depend on it).
"""

from __future__ import annotations

_IRREGULAR = {
    "person": "people",
    "man": "men",
    "woman": "women",
    "child": "children",
    "foot": "feet",
    "tooth": "teeth",
    "mouse": "mice",
    "goose": "geese",
}
_UNCHANGED = ("sheep", "fish", "series", "species", "deer", "news", "data", "metadata")


def default_plural(kind: str) -> str:
    """`RayCluster` → `rayclusters`, `Policy` → `policies`, `Ingress` → `ingresses`."""
    word = kind.lower()
    for singular, plural in _IRREGULAR.items():
        if word.endswith(singular):
            return word[: -len(singular)] + plural
    if word.endswith(_UNCHANGED):
        return word
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"
