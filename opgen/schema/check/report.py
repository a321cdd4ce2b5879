"""Problems found by the checker, with the schema path and the Python origin.

Paths are written the way the API server writes them
(`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`), so a
message can be compared with the server's own refusal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from opgen.engine.cel.check import CheckMemo
from opgen.errors import Diagnostic, Location, SchemaError

__all__ = ["Problem", "Report"]


@dataclass(frozen=True)
class Problem:
    """One broken rule."""

    path: str
    detail: str
    location: Location | None = None
    hint: str | None = None
    opgen_only: bool = False
    """True for opgen's own stricter rules (the API server would accept this)."""

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


@dataclass
class Report:
    """Collects problems and warnings while the checker walks a CRD."""

    origins: dict[int, Location] = field(default_factory=dict)
    default_location: Location | None = None
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    cel: CheckMemo = field(default_factory=CheckMemo)
    """The CEL checks made of this CRD's rules, asked again by the cost budget."""

    def where(self, node: object) -> Location | None:
        return self.origins.get(id(node), self.default_location)

    def error(
        self,
        path: str,
        detail: str,
        node: object = None,
        hint: str | None = None,
        *,
        opgen_only: bool = False,
    ) -> None:
        self.errors.append(Problem(path, detail, self.where(node), hint, opgen_only))

    def warn(
        self, path: str, detail: str, node: object = None, hint: str | None = None
    ) -> None:
        self.warnings.append(Problem(path, detail, self.where(node), hint))

    def raise_first(self) -> None:
        """Raise the first error as a SchemaError (mentioning how many more there are)."""
        if not self.errors:
            return
        first = self.errors[0]
        more = len(self.errors) - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        verdict = (
            "opgen refuses this CRD (the API server would accept it, but it "
            "would not work as written)"
            if first.opgen_only
            else "the API server would refuse this CRD"
        )
        raise SchemaError(
            f"{verdict}: {first}{suffix}",
            location=first.location,
            hint=first.hint,
        )

    def diagnostics(self) -> list[Diagnostic]:
        return [
            Diagnostic(str(w), location=w.location, hint=w.hint) for w in self.warnings
        ]


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def key(path: str, name: str) -> str:
    return f"{path}[{name}]"


def index(path: str, position: int) -> str:
    return f"{path}[{position}]"
