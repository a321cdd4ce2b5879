"""Names: English plurals, camelCase wire names, Kubernetes' DNS name rules.

`pluralize` gives the CRD plural of a kind the way Kubernetes users expect it
(`NetworkPolicy` → `networkpolicies`, `Ingress` → `ingresses`, `Person` →
`people`): only the last word of a CamelCase name is pluralised, and the result
is lower-cased. `is_dns1123_subdomain`, `is_dns1123_label` and
`dns1035_problem` are the API server's rules for groups, object names and
resource names, shared by the command-line checks and the CRD checker.
"""

from __future__ import annotations

import re

__all__ = [
    "dns1035_problem",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "pluralize",
    "split_words",
    "to_camel",
]

_IRREGULAR = {
    "child": "children",
    "foot": "feet",
    "goose": "geese",
    "louse": "lice",
    "man": "men",
    "mouse": "mice",
    "ox": "oxen",
    "person": "people",
    "tooth": "teeth",
    "woman": "women",
    "criterion": "criteria",
    "phenomenon": "phenomena",
    "datum": "data",
    "medium": "media",
    "index": "indices",
    "matrix": "matrices",
    "vertex": "vertices",
    "appendix": "appendices",
    "analysis": "analyses",
    "axis": "axes",
    "basis": "bases",
    "crisis": "crises",
    "diagnosis": "diagnoses",
    "hypothesis": "hypotheses",
    "parenthesis": "parentheses",
    "synopsis": "synopses",
    "thesis": "theses",
    "cactus": "cacti",
    "fungus": "fungi",
    "nucleus": "nuclei",
    "radius": "radii",
    "stimulus": "stimuli",
    "syllabus": "syllabi",
    "alumnus": "alumni",
    "octopus": "octopuses",
    "quiz": "quizzes",
    "leaf": "leaves",
    "loaf": "loaves",
    "thief": "thieves",
    "wolf": "wolves",
    "calf": "calves",
    "half": "halves",
    "knife": "knives",
    "life": "lives",
    "wife": "wives",
    "shelf": "shelves",
    "self": "selves",
    "elf": "elves",
    "hero": "heroes",
    "potato": "potatoes",
    "tomato": "tomatoes",
    "echo": "echoes",
    "veto": "vetoes",
    "torpedo": "torpedoes",
}

_UNCOUNTABLE = frozenset(
    {
        "aircraft",
        "bison",
        "data",
        "deer",
        "equipment",
        "feedback",
        "firmware",
        "fish",
        "hardware",
        "information",
        "metadata",
        "middleware",
        "money",
        "moose",
        "offspring",
        "rice",
        "salmon",
        "series",
        "sheep",
        "software",
        "species",
        "traffic",
        "trout",
    }
)

_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"(?i)([^aeiouy]|qu)y$", r"\1ies"),
        (r"(?i)(x|ch|sh|ss|zz)$", r"\1es"),
        (r"(?i)(us|as)$", r"\1es"),
        # Any other word ending in "s" (Endpoints, Settings, Metrics) is
        # already plural.
        (r"(?i)s$", r"s"),
        (r"(?i)z$", r"zes"),
        (r"$", r"s"),
    )
)

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")


def split_words(name: str) -> list[str]:
    """Split a CamelCase (or snake_case) name into its words."""
    words: list[str] = []
    for part in re.split(r"[_\-\s]+", name):
        words.extend(_WORD.findall(part))
    return words


def _pluralize_word(word: str) -> str:
    lower = word.lower()
    if lower in _UNCOUNTABLE:
        return word
    if lower in _IRREGULAR:
        plural = _IRREGULAR[lower]
        return word[0] + plural[1:] if word[:1].isupper() else plural
    for pattern, replacement in _RULES:
        if pattern.search(word):
            return pattern.sub(replacement, word, count=1)
    return word + "s"  # pragma: no cover - the last rule always matches


def pluralize(kind: str) -> str:
    """The lower-case English plural of a kind: `RayCluster` → `rayclusters`."""
    if not kind:
        raise ValueError("cannot pluralize an empty name")
    words = split_words(kind)
    if not words:
        return kind.lower() + "s"
    last = words[-1]
    head = kind[: kind.rfind(last)] if last in kind else kind
    return (head + _pluralize_word(last)).lower()


def to_camel(name: str) -> str:
    """`worker_replicas` → `workerReplicas` (the wire name of a field)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def is_dns1123_label(value: str) -> bool:
    """Lower-case letters, digits and '-', alphanumeric at both ends, at most 63."""
    return len(value) <= 63 and _DNS1123_LABEL.match(value) is not None


def is_dns1123_subdomain(value: str) -> bool:
    """DNS-1123 labels joined by dots, at most 253 characters (e.g. `ray.example.com`)."""
    return 0 < len(value) <= 253 and all(
        _DNS1123_LABEL.match(part) for part in value.split(".")
    )


def dns1035_problem(value: str) -> str | None:
    """Why `value` is not a DNS-1035 label (the rule for plurals, kinds, versions)."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _DNS1035_LABEL.match(value):
        return (
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
            "start with an alphabetic character, and end with an alphanumeric character"
        )
    return None
