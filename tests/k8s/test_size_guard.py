"""The size guard with Kubernetes' own types: pod templates are what make CRDs big."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from opgen.cli import app

FIELDS = "\n".join(
    f"    group{n}: op.k8s.PodTemplateSpec | None = None" for n in range(6)
)
SIX_TEMPLATES = f'''
import opgen.api as op


class FleetSpec(op.Model):
{FIELDS}


@op.kind(group="fleet.opgen.dev", version="v1")
class Fleet(op.CustomResource[FleetSpec, None]):
    """Six pod templates."""
'''


def test_six_pod_templates_are_refused_and_fit_without_descriptions(
    tmp_path: Path,
) -> None:
    types = tmp_path / "fleet_types.py"
    types.write_text(SIX_TEMPLATES)
    out = tmp_path / "out"
    runner = CliRunner()
    refused = runner.invoke(
        app, ["generate", "crd", "--types", str(types), "--out", str(out)]
    )
    assert refused.exit_code == 1
    assert "over the 1.5 MiB etcd limit" in refused.stderr
    assert "--max-description-length" in refused.stderr
    assert not out.exists()

    args = ["generate", "crd", "--types", str(types), "--out", str(out)]
    written = runner.invoke(app, [*args, "--max-description-length", "0"])
    assert written.exit_code == 0, written.stderr
    assert "over 256 KiB" in written.stderr and "--server-side" in written.stderr
    assert (out / "fleet.opgen.dev_fleets.yaml").is_file()
