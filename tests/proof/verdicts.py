"""Pydantic's verdict next to the API server's, for one request body.

`compare` sends a body to the server (`dryRun=All`) and to the kind's
Pydantic model, and reports every way they disagree: one accepts what the
other refuses; the server refuses the model's own dump of an object Pydantic
accepted; or, once both accept, the object the server would store (with the
CRD's defaults applied) parses to something other than what Pydantic built
(with the model's defaults).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from tests.proof.api import RawApi
from tests.proof.catalogue import ProofCrd, resource_path

__all__ = ["Comparison", "Tally", "compare", "wire"]

_TYPE_META = ("apiVersion", "kind", "metadata")


def wire(obj: Any) -> dict[str, Any]:
    """A model's dump in the form sent to the API server."""
    dumped: dict[str, Any] = obj.model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    return dumped


def _content(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in _TYPE_META}


@dataclass
class Comparison:
    """The outcome for one body."""

    pydantic_accepts: bool
    server_accepts: bool
    problems: list[str] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return not self.problems


def compare(
    api: RawApi,
    crd: ProofCrd,
    version: str,
    namespace: str,
    body: dict[str, Any],
) -> Comparison:
    model = crd.model(version)
    path = resource_path(crd, version, namespace if crd.namespaced else None)
    try:
        obj = model.model_validate(body)
        pydantic_error = ""
    except ValidationError as error:
        obj = None
        pydantic_error = str(error).replace("\n", " | ")
    verdict = api.create(path, body)
    result = Comparison(obj is not None, verdict.accepted)
    shown = json.dumps(body, ensure_ascii=False)[:500]
    if obj is None and verdict.accepted:
        result.problems.append(
            f"Pydantic refuses, the server accepts: {shown}\n  Pydantic: {pydantic_error[:500]}"
        )
    elif obj is not None and not verdict.accepted:
        result.problems.append(
            f"Pydantic accepts, the server refuses: {shown}\n  server: {verdict.message[:500]}"
        )
    elif obj is not None:
        dumped = wire(obj)
        again = api.create(path, dumped)
        if not again.accepted:
            result.problems.append(
                f"the server refuses the model's dump {json.dumps(dumped)[:500]}\n"
                f"  server: {again.message[:500]}"
            )
        stored = _content(wire(model.model_validate(verdict.body)))
        if stored != _content(dumped):
            result.problems.append(
                f"defaults differ for {shown}\n  server: {json.dumps(stored)[:500]}\n"
                f"  Pydantic: {json.dumps(_content(dumped))[:500]}"
            )
    return result


@dataclass
class Tally:
    """Counts for the summary line."""

    cases: int = 0
    valid: int = 0
    invalid: int = 0
    mismatches: int = 0
    seconds: float = 0.0
    per_model: Counter[str] = field(default_factory=Counter)
    broken: Counter[str] = field(default_factory=Counter)

    def add(self, model: str, comparison: Comparison, breaks: list[str]) -> None:
        self.cases += 1
        self.per_model[model] += 1
        if comparison.server_accepts:
            self.valid += 1
        else:
            self.invalid += 1
        if not comparison.agree:
            self.mismatches += 1
        for item in breaks:
            self.broken[item.rsplit(": ", 1)[-1]] += 1

    def summary(self) -> str:
        kinds = ", ".join(
            f"{name} {count}" for name, count in sorted(self.broken.items())
        )
        return (
            f"Pydantic vs API server: {self.cases} cases over {len(self.per_model)} "
            f"kind versions ({self.valid} accepted, {self.invalid} refused by the server), "
            f"{self.mismatches} mismatches, {self.seconds:.1f} s; constraints broken: {kinds}"
        )
