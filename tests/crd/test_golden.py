"""One golden CRD per marker and per special type (tests/crd/cases → tests/crd/golden)."""

from __future__ import annotations

import pytest

from tests.crd import golden


def test_every_case_has_a_golden_file_and_back() -> None:
    made = set(golden.generated())
    expected = {path.name for path in golden.golden_crd_paths()}
    if golden.UPDATE:
        for stale in expected - made:
            (golden.GOLDEN_DIR / stale).unlink()
        for name, content in golden.generated().items():
            (golden.GOLDEN_DIR / name).write_text(content, encoding="utf-8")
        return
    assert made == expected


@pytest.mark.parametrize("name", sorted(golden.generated()))
def test_golden(name: str) -> None:
    path = golden.GOLDEN_DIR / name
    if golden.UPDATE:
        pytest.skip("golden files are being rewritten")
    assert path.exists(), f"no golden file for {name}; run with OPGEN_UPDATE_GOLDEN=1"
    assert golden.parse(golden.generated()[name]) == golden.parse(
        path.read_text(encoding="utf-8")
    )
