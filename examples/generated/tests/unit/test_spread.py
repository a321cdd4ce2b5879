# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The spread of `spec.workerReplicas` over the worker groups (ray_operator.api.v1.spread).

Each test states one clause of the rule with a worked example; the last ones
check the properties every spread has, over many generated specs.
"""

from __future__ import annotations

import random

from ray_operator.api.v1.raycluster_types import RayClusterSpec, WorkerGroupSpec
from ray_operator.api.v1.spread import Group, share, spread


def spec(total: int | None, *groups: tuple[str, int, int, int]) -> RayClusterSpec:
    """A spec with `total` workers over groups of (name, replicas, min, max)."""
    return RayClusterSpec(
        image="rayproject/ray:2.9.0",
        worker_replicas=total,
        worker_groups=[
            WorkerGroupSpec(
                group_name=name, replicas=replicas, min_replicas=low, max_replicas=high
            )
            for name, replicas, low, high in groups
        ],
    )


SMALL = ("small", 2, 0, 10)
LARGE = ("large", 1, 0, 4)


def test_groups_adding_up_to_the_total_run_their_replicas() -> None:
    assert spread(spec(3, SMALL, LARGE)) == {"small": 2, "large": 1}


def test_an_unset_total_is_the_sum_of_the_groups() -> None:
    assert spread(spec(None, SMALL, LARGE)) == {"small": 2, "large": 1}


def test_growth_goes_in_proportion_to_the_room_above_the_replicas() -> None:
    # Room: small 10 - 2 = 8, large 4 - 1 = 3. Two more workers: shares of
    # 16/11 and 6/11 start at 1 and 0; the one left goes to the most room per
    # worker gained: small 8/2 = 4 against large 3/1 = 3.
    assert spread(spec(5, SMALL, LARGE)) == {"small": 4, "large": 1}
    # Six more: 48/11 and 18/11 start at 4 and 1; the last to small (8/5 > 3/2).
    assert spread(spec(9, SMALL, LARGE)) == {"small": 7, "large": 2}
    # Eleven more fill both rooms exactly.
    assert spread(spec(14, SMALL, LARGE)) == {"small": 10, "large": 4}


def test_shrinking_goes_in_proportion_to_the_room_above_the_minimum() -> None:
    # Room: small 2 - 0, large 1 - 0; two fewer: shares of 4/3 and 2/3 start
    # at 1 and 0; the one left ties at 2/2 = 1/1 and comes off the earlier group.
    assert spread(spec(1, SMALL, LARGE)) == {"small": 0, "large": 1}
    assert spread(spec(0, SMALL, LARGE)) == {"small": 0, "large": 0}


def test_a_group_at_its_minimum_keeps_it() -> None:
    pinned = ("pinned", 2, 2, 6)
    assert spread(spec(2, pinned, ("spot", 3, 0, 6))) == {"pinned": 2, "spot": 0}


def test_on_a_tie_the_earlier_group_moves_first() -> None:
    assert spread(spec(3, ("a", 1, 0, 9), ("b", 1, 0, 9))) == {"a": 2, "b": 1}
    assert spread(spec(1, ("a", 1, 0, 9), ("b", 1, 0, 9))) == {"a": 0, "b": 1}


def test_a_total_outside_the_bounds_is_held_to_them() -> None:
    # The CRD's CEL rules refuse such a spec, so it is built unchecked
    # (model_construct); the spread still gives an answer for any.
    assert spread(unchecked(99, SMALL, LARGE)) == {"small": 10, "large": 4}
    assert spread(unchecked(0, ("a", 3, 2, 5))) == {"a": 2}


def unchecked(total: int, *groups: tuple[str, int, int, int]) -> RayClusterSpec:
    """A spec like `spec`'s, built without the validation (and CEL rules) it fails."""
    return RayClusterSpec.model_construct(
        image="rayproject/ray:2.9.0",
        worker_replicas=total,
        worker_groups=[
            WorkerGroupSpec.model_construct(
                group_name=name, replicas=replicas, min_replicas=low, max_replicas=high
            )
            for name, replicas, low, high in groups
        ],
    )


def test_without_groups_every_worker_runs_in_one() -> None:
    assert spread(RayClusterSpec(image="ray", worker_replicas=4)) == {"workers": 4}
    assert spread(RayClusterSpec(image="ray")) == {"workers": 0}


def random_groups(rng: random.Random) -> list[Group]:
    groups = []
    for i in range(rng.randint(1, 6)):
        low = rng.randint(0, 5)
        high = low + rng.randint(0, 20)
        groups.append(Group(f"g{i}", rng.randint(low, high), low, high))
    return groups


def test_every_spread_adds_up_keeps_bounds_and_moves_one_way() -> None:
    rng = random.Random(16)
    for _ in range(500):
        groups = random_groups(rng)
        lowest = sum(g.min_replicas for g in groups)
        highest = sum(g.max_replicas for g in groups)
        declared = sum(g.replicas for g in groups)
        previous = share(lowest, groups)
        for total in range(lowest, highest + 1):
            shares = share(total, groups)
            assert sum(shares) == total, (groups, total)
            for g, n in zip(groups, shares, strict=True):
                assert g.min_replicas <= n <= g.max_replicas, (groups, total)
                # Growing only adds to a group, shrinking only takes from one.
                assert n >= g.replicas if total >= declared else n <= g.replicas
            # One more worker never takes one from any group.
            assert all(a >= b for a, b in zip(shares, previous, strict=True)), (
                groups,
                total,
            )
            previous = shares
