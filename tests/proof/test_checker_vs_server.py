"""opgen's checker and a real API server agree on broken and valid CRDs.

For every broken CRD (tests/schema's table plus `bad_crds.EXTRA_REFUSED`) the
server refuses it and the checker reports a problem of its own (not merely an
`opgen_only` one) at a path the server's message quotes. opgen's stricter
rules (`OPGEN_ONLY`) are accepted by the server and reported by the checker
only as `opgen_only`. Suspicious but valid CRDs (`ACCEPTED`) pass both.

Requests use `fieldValidation=Strict`, as `kubectl` does by default: without
it the server silently drops unknown schema keys (see the last test), which
is why the checker refuses them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from opgen.schema.check import Problem, inspect_crd
from tests.proof.api import CRD_PATH, RawApi, Verdict
from tests.proof.bad_crds import ACCEPTED, OPGEN_ONLY, REFUSED, Case, build

_DECODE_FIELD = re.compile(r"Go struct field \S+\.([^.\s]+) of type")
_STRICT_FIELD = re.compile(r'unknown field "([^"]+)"')


def _ask(api: RawApi, case: Case) -> tuple[dict[str, Any], Verdict]:
    crd = build(case)
    verdict = api.create(CRD_PATH, crd, dry_run=not case.stored, strict=True)
    if case.stored and verdict.accepted:
        api.delete(f"{CRD_PATH}/{crd['metadata']['name']}")
    return crd, verdict


def _path_forms(problem: Problem, crd: dict[str, Any]) -> set[str]:
    """The checker's path as the server may print it.

    With one version the server reports the schema, columns, subresources and
    selectable fields hoisted to `spec.validation` / `spec.<field>`; strict
    decoding names the JSON path (`properties.spec` instead of `properties[spec]`).
    """
    path = problem.path
    forms = {path, re.sub(r"\[([^\]0-9][^\]]*)\]", r".\1", path)}
    if len(crd["spec"]["versions"]) == 1:
        hoisted = path.replace("spec.versions[0].schema.", "spec.validation.")
        for name in ("additionalPrinterColumns", "subresources", "selectableFields"):
            hoisted = hoisted.replace(f"spec.versions[0].{name}", f"spec.{name}")
        forms.add(hoisted)
    return forms


def _server_names_the_path(
    verdict: Verdict, problems: list[Problem], crd: dict[str, Any]
) -> bool:
    message = verdict.message
    if any(form in message for p in problems for form in _path_forms(p, crd)):
        return True
    # A decode error names the Go struct field: compare the schema key.
    decoded = _DECODE_FIELD.search(message)
    return decoded is not None and any(
        p.path.endswith(f".{decoded.group(1)}") for p in problems
    )


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_server_and_checker_both_refuse(raw_api: RawApi, name: str) -> None:
    case = REFUSED[name]
    crd, verdict = _ask(raw_api, case)
    problems = [p for p in inspect_crd(crd, {}, None).errors if not p.opgen_only]
    assert not verdict.accepted, f"the server accepted {name!r}"
    assert problems, f"the checker found nothing; the server said: {verdict.message}"
    if case.path_note is None:
        assert _server_names_the_path(verdict, problems, crd), (
            [str(p) for p in problems],
            verdict.message,
        )
    else:
        assert case.path_note and verdict.message


@pytest.mark.parametrize("name", sorted(OPGEN_ONLY))
def test_opgen_only_rules_are_accepted_by_the_server(
    raw_api: RawApi, name: str
) -> None:
    crd, verdict = _ask(raw_api, OPGEN_ONLY[name])
    problems = inspect_crd(crd, {}, None).errors
    assert verdict.accepted, verdict
    assert problems and all(p.opgen_only for p in problems), [str(p) for p in problems]


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_server_and_checker_both_accept(raw_api: RawApi, name: str) -> None:
    crd, verdict = _ask(raw_api, ACCEPTED[name])
    assert verdict.accepted, verdict
    assert [str(p) for p in inspect_crd(crd, {}, None).errors] == []


def test_without_strict_validation_unknown_schema_keys_vanish(raw_api: RawApi) -> None:
    # Why the checker refuses keys the server does not know: a plain request
    # succeeds and the key is silently dropped (kubectl's strict default refuses).
    case = REFUSED["unknown key const (strict)"]
    crd = build(case)
    lenient = raw_api.create(CRD_PATH, crd, dry_run=True)
    assert lenient.accepted, lenient
    stored = lenient.body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert "const" not in stored["properties"]["spec"]["properties"]["x"]
    assert _STRICT_FIELD.search(raw_api.create(CRD_PATH, crd, strict=True).message)
