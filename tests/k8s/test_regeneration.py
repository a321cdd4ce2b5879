"""opgen/api/k8s/ is exactly what the pinned kube-apiserver gives (CI fails on drift).

The same code as `make core-types`, in memory: envtest's kube-apiserver's
/openapi/v3 documents and the Go declarations of k8s.io/api at the same
release (the Go module proxy, cached by Go) → the modules, byte for byte.
"""

from __future__ import annotations

import pytest

from opgen.cli.core_types import REPOSITORY, core_types
from opgen.testing import KUBERNETES_VERSION, Environment

pytestmark = pytest.mark.envtest


def test_regenerating_gives_the_committed_files(envtest: Environment) -> None:
    files = core_types(envtest)
    committed = sorted((REPOSITORY / "opgen" / "api" / "k8s").glob("*.py"))
    assert [f.path.name for f in files] == [p.name for p in committed]
    for file in files:
        on_disk = file.target(REPOSITORY).read_text(encoding="utf-8")
        assert (
            file.content == on_disk
        ), f"{file.path} is out of date: run `make core-types` and commit the result"


def test_the_modules_record_the_kubernetes_release() -> None:
    import opgen.api.k8s as k8s

    assert k8s.KUBERNETES_VERSION == KUBERNETES_VERSION
    source = (REPOSITORY / "opgen" / "api" / "k8s" / "core_v1.py").read_text()
    assert f"v{KUBERNETES_VERSION}" in source
    assert "/openapi/v3/api/v1" in source and "DO NOT EDIT" in source
