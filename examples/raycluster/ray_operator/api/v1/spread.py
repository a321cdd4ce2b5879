# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""How `spec.workerReplicas`, the total number of workers, is spread over the groups.

The rule (also in `RayClusterSpec.worker_replicas`'s description):

1. The total is `spec.workerReplicas`; unset, the sum of the groups' replicas.
   It is kept between the sums of the groups' minReplicas and maxReplicas
   (CEL refuses a spec outside them; this keeps the rule total for any spec).
2. When the groups' replicas add up to the total, each group runs its replicas.
3. Otherwise the difference is shared in proportion to each group's room:
   growing, its maxReplicas minus its replicas; shrinking, its replicas minus
   its minReplicas. It is shared by the D'Hondt method: one worker at a time
   goes to (or comes from) the group with the most room per worker it has
   already gained (or lost), room / (moved + 1); on a tie, the earlier group
   in `spec.workerGroups`.
4. So every group moves about the same fraction of its way to its maximum
   (or minimum), none passes it, and one more worker never takes one from
   any group (nor one fewer adds one): `kubectl scale` up by one starts one
   pod and stops none.
5. Without worker groups every worker runs in one group, `workers`.

The result depends on the spec alone, never on what runs now: the same spec
always gives the same Deployments. `kubectl scale` changes only the total;
editing a group's replicas changes the total with it (the defaulting webhook
sets `workerReplicas` to the new sum), so the two never contradict each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ray_operator.api.v1.raycluster_types import MAX_REPLICAS, RayClusterSpec

DEFAULT_GROUP = "workers"
"""The group every worker runs in when the spec has no worker groups."""


@dataclass(frozen=True)
class Group:
    """What the rule reads of one worker group."""

    name: str
    replicas: int
    min_replicas: int = 0
    max_replicas: int = MAX_REPLICAS


def groups_of(spec: RayClusterSpec) -> list[Group]:
    """The spec's worker groups; one `workers` group holding every worker without any."""
    if not spec.worker_groups:
        total = spec.worker_replicas or 0
        return [Group(DEFAULT_GROUP, total)]
    return [
        Group(g.group_name, g.replicas, g.min_replicas, g.max_replicas)
        for g in spec.worker_groups
    ]


def declared_total(spec: RayClusterSpec) -> int:
    """`spec.workerReplicas`, or the sum of the groups' replicas when it is unset."""
    if spec.worker_replicas is not None:
        return spec.worker_replicas
    return sum(g.replicas for g in spec.worker_groups)


def spread(spec: RayClusterSpec) -> dict[str, int]:
    """Workers per group name, in the order of the groups."""
    groups = groups_of(spec)
    return dict(
        zip((g.name for g in groups), share(declared_total(spec), groups), strict=True)
    )


def share(total: int, groups: Sequence[Group]) -> list[int]:
    """`total` workers over `groups` by the module's rule, in their order."""
    lowest = sum(g.min_replicas for g in groups)
    highest = sum(g.max_replicas for g in groups)
    total = min(max(total, lowest), highest)
    base = [min(max(g.replicas, g.min_replicas), g.max_replicas) for g in groups]
    difference = total - sum(base)
    if difference == 0:
        return base
    if difference > 0:
        room = [g.max_replicas - b for g, b in zip(groups, base, strict=True)]
    else:
        room = [b - g.min_replicas for g, b in zip(groups, base, strict=True)]
    moved = _apportion(abs(difference), room)
    sign = 1 if difference > 0 else -1
    return [b + sign * m for b, m in zip(base, moved, strict=True)]


def _apportion(amount: int, room: Sequence[int]) -> list[int]:
    """`amount` split in proportion to `room` (sum(room) >= amount) by D'Hondt.

    D'Hondt gives every group at least the floor of its exact share, so it
    starts there and hands out the few left (fewer than the groups) by the
    method's own priority. A group with no room left is never picked: while
    any has room, its priority is at least 1, more than a full one's.
    """
    whole = sum(room)
    moved = [amount * r // whole for r in room]
    for _ in range(amount - sum(moved)):
        open_groups = [i for i, r in enumerate(room) if moved[i] < r]
        # The largest room / (moved + 1), compared without division; ties: earliest.
        best = open_groups[0]
        for i in open_groups[1:]:
            if room[i] * (moved[best] + 1) > room[best] * (moved[i] + 1):
                best = i
        moved[best] += 1
    return moved
