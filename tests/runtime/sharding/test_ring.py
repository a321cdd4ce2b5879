"""The consistent hash ring: the same placement in every process, an even split,
and a member's arrival or departure moving only its own share."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections import Counter

from opgen.runtime.sharding.ring import HashRing

KEYS = [str(uuid.UUID(int=i * 7919 + 1)) for i in range(3000)]
MEMBERS = ["shard-0", "shard-1", "shard-2"]


def split(ring: HashRing) -> Counter[str | None]:
    return Counter(ring.owner(key) for key in KEYS)


def test_an_empty_ring_places_nothing() -> None:
    assert HashRing([]).owner("anything") is None


def test_placement_is_the_same_in_another_process_and_for_any_member_order() -> None:
    here = [HashRing(MEMBERS).owner(key) for key in KEYS[:50]]
    assert here == [HashRing(reversed(MEMBERS)).owner(key) for key in KEYS[:50]]
    code = (
        "from opgen.runtime.sharding.ring import HashRing;"
        f"print(' '.join(str(HashRing({MEMBERS!r}).owner(k)) for k in {KEYS[:50]!r}))"
    )
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert there == here


def test_three_members_split_three_thousand_keys_within_ten_percent() -> None:
    counts = split(HashRing(MEMBERS))
    assert set(counts) == set(MEMBERS)
    for count in counts.values():
        assert abs(count - 1000) <= 100, counts


def test_more_virtual_nodes_split_more_evenly() -> None:
    def spread(virtual_nodes: int) -> int:
        counts = split(HashRing(MEMBERS, virtual_nodes)).values()
        return max(counts) - min(counts)

    assert spread(1) > spread(256)


def test_a_new_member_takes_keys_only_from_the_others_and_about_its_share() -> None:
    before = HashRing(MEMBERS)
    after = HashRing([*MEMBERS, "shard-3"])
    moved = [key for key in KEYS if before.owner(key) != after.owner(key)]
    assert all(after.owner(key) == "shard-3" for key in moved)
    assert 0.15 * len(KEYS) <= len(moved) <= 0.35 * len(KEYS)


def test_a_departing_member_gives_away_only_its_own_keys() -> None:
    before = HashRing(MEMBERS)
    after = HashRing(MEMBERS[:2])
    for key in KEYS:
        if before.owner(key) != "shard-2":
            assert after.owner(key) == before.owner(key)
        else:
            assert after.owner(key) in MEMBERS[:2]
