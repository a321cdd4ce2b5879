"""`construct.trusted`: an instance made without validation is what validation makes."""

from __future__ import annotations

from opgen.api import OwnerReference
from opgen.runtime import construct


def test_a_trusted_instance_is_the_validated_one() -> None:
    values = {
        "api_version": "ray.io/v1",
        "block_owner_deletion": True,
        "controller": True,
        "kind": "RayCluster",
        "name": "demo",
        "uid": "u1",
    }
    made = construct.trusted(OwnerReference, dict(values))
    validated = OwnerReference(**values)
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set
    assert repr(made) == repr(validated)
    assert made.model_dump(mode="json", by_alias=True) == validated.model_dump(
        mode="json", by_alias=True
    )
    made.name = "changed"  # an instance like any other: assignable, copied alone
    assert made.model_copy(deep=True).name == "changed" and validated.name == "demo"
