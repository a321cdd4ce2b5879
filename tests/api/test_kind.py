"""Kind-level decorators and how opgen reads them back (`opgen.engine.reading`)."""

from __future__ import annotations

import pytest

import opgen.api as op
from opgen.engine.reading import ResourceInfo, kind_markers, resource_info
from opgen.errors import MarkerError
from opgen.model.kinds import KindNames, ScaleSubresource


class Spec(op.Model):
    replicas: int = 1


class Status(op.Model):
    replicas: int = 0
    selector: str = ""


@op.kind(group="ray.io", version="v1", short_names=["rayc"], categories=["ray"])
@op.subresource_status()
@op.subresource_scale(".spec.replicas", ".status.replicas", ".status.selector")
@op.print_column(name="A", type="integer", json_path=".spec.replicas")
@op.print_column(name="B", type="integer", json_path=".status.replicas", priority=1)
class RayCluster(op.CustomResource[Spec, Status]):
    pass


@op.kind(
    group="policy.example.com",
    version="v1alpha1",
    scope="Cluster",
    plural="policies",
    singular="pol",
)
class NetworkPolicy(op.CustomResource[Spec, None]):
    pass


def test_resource_info() -> None:
    info = resource_info(RayCluster)
    assert isinstance(info, ResourceInfo)
    assert (
        info.group,
        info.version,
        info.kind,
        info.plural,
        info.singular,
        info.namespaced,
        info.status_subresource,
        info.scale,
        info.short_names,
        info.categories,
    ) == (
        "ray.io",
        "v1",
        "RayCluster",
        "rayclusters",
        "raycluster",
        True,
        True,
        (".spec.replicas", ".status.replicas", ".status.selector"),
        ("rayc",),
        ("ray",),
    )
    assert info.api_version == "ray.io/v1"
    # The same values the loader puts into the kind's IR.
    assert info.names == KindNames(
        kind="RayCluster",
        plural="rayclusters",
        singular="raycluster",
        list_kind="RayClusterList",
        short_names=("rayc",),
        categories=("ray",),
    )
    assert info.kind_version.scale == ScaleSubresource(
        ".spec.replicas", ".status.replicas", ".status.selector"
    )


def test_resource_info_with_explicit_names() -> None:
    info = resource_info(NetworkPolicy)
    assert (info.plural, info.singular, info.namespaced, info.scale) == (
        "policies",
        "pol",
        False,
        None,
    )


def test_resource_info_needs_a_kind() -> None:
    class Loose(op.CustomResource[Spec, None]):
        pass

    with pytest.raises(MarkerError, match="is not a kind") as raised:
        resource_info(Loose)
    assert raised.value.hint is not None and "@op.kind" in raised.value.hint


def test_print_columns_keep_source_order() -> None:
    columns = kind_markers(RayCluster).columns
    assert [c.name for c in columns] == ["A", "B"]
    assert columns[1].column_priority == 1


def test_kind_markers_are_not_inherited() -> None:
    class Sub(RayCluster):
        pass

    assert not kind_markers(Sub).any


def test_a_decorator_twice_is_an_error() -> None:
    @op.kind(group="a.example.com", version="v1")
    @op.kind(group="b.example.com", version="v1")
    class Twice(op.CustomResource[Spec, None]):
        pass

    with pytest.raises(MarkerError, match="appears twice"):
        kind_markers(Twice)
