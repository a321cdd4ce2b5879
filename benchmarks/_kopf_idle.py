"""The kopf side of `benchmarks/runtime_install.py`: a kopf operator for the same kind.

Runs with `kopf run --standalone runtime/_kopf_login.py _kopf_idle.py` (the
login is the runtime benchmark's) in kopf's own virtualenv (kopf is not an
opgen dependency). One handler for RayCluster objects,
which the benchmark never creates: what is measured is kopf starting and
idling with one watch, as the opgen manager does.
"""

from __future__ import annotations

from typing import Any

import kopf


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_: Any) -> None:
    settings.posting.enabled = False


@kopf.on.create("ray.example.com", "v1", "rayclusters")
def created(name: str, **_: Any) -> dict[str, str]:
    return {"seen": name}
