"""Slots and their assignment, as pure functions: where an object goes, the
balanced target with the fewest moves, and the safe next step."""

from __future__ import annotations

from collections import Counter

import pytest

from opgen import runtime as rt
from opgen.runtime.sharding.assignment import (
    Assignment,
    Holder,
    MemberState,
    balanced,
    next_step,
)
from opgen.runtime.sharding.protocol import format_slots, parse_slots, slot_of

S = 128
A, B, C, D = (Holder(n, f"{n}-1") for n in "abcd")
OWNER_KINDS = frozenset({("test.opgen.dev/v1", "Widget")})


def states(*holders: Holder, generation: int = 0) -> dict[str, MemberState]:
    return {h.name: MemberState(h, frozenset(), generation) for h in holders}


def counts(slots: dict[int, Holder]) -> Counter[str]:
    return Counter(h.name for h in slots.values())


def test_slots_are_written_as_ranges_and_read_back() -> None:
    assert format_slots([7, 0, 1, 2, 9, 10, 3]) == "0-3,7,9-10"
    assert parse_slots("0-3,7,9-10") == {0, 1, 2, 3, 7, 9, 10}
    assert parse_slots("") == parse_slots(None) == frozenset()


def test_an_owned_child_takes_its_owners_slot_from_its_owner_reference() -> None:
    options = rt.ShardingOptions(ring="widgets")
    owner = {"uid": "u-owner", "namespace": "ns"}
    child = {
        "uid": "u-child",
        "namespace": "ns",
        "ownerReferences": [
            {"apiVersion": "test.opgen.dev/v1", "kind": "Widget", "uid": "u-owner",
             "controller": True},
        ],
    }  # fmt: skip
    assert slot_of(child, options, OWNER_KINDS) == slot_of(owner, options)
    # an owner of another kind, or not the controller, does not place it
    assert slot_of(child, options) == slot_of({"uid": "u-child"}, options)
    by_namespace = rt.ShardingOptions(ring="widgets", hash_key="namespace")
    assert slot_of({"uid": "x", "namespace": "ns"}, by_namespace) == slot_of(
        {"uid": "y", "namespace": "ns"}, by_namespace
    )


def test_uids_spread_evenly_over_the_slots() -> None:
    options = rt.ShardingOptions(ring="widgets", slots=S)
    found = Counter(slot_of({"uid": f"uid-{i}"}, options) for i in range(12_800))
    assert set(found) == set(range(S))
    assert max(found.values()) < 2 * 100 and min(found.values()) > 100 // 2


def test_the_balanced_assignment_gives_each_member_floor_or_ceil() -> None:
    target = balanced(Assignment(), frozenset({A, B, C}), S)
    assert sorted(target) == list(range(S))
    assert sorted(counts(target).values()) == [42, 43, 43]
    assert balanced(Assignment(), frozenset({C, B, A}), S) == target


def test_a_member_joining_takes_slots_only_from_the_others_to_itself() -> None:
    three = balanced(Assignment(), frozenset({A, B, C}), S)
    four = balanced(Assignment(1, three), frozenset({A, B, C, D}), S)
    moved = {k for k in range(S) if three[k] != four[k]}
    assert all(four[k] == D for k in moved)
    assert len(moved) == S // 4
    assert sorted(counts(four).values()) == [32] * 4


def test_a_member_leaving_moves_only_its_own_slots() -> None:
    four = balanced(Assignment(), frozenset({A, B, C, D}), S)
    three = balanced(Assignment(1, four), frozenset({A, B, C}), S)
    moved = {k for k in range(S) if four[k] != three[k]}
    assert moved == {k for k, h in four.items() if h == D}


def test_a_live_members_slot_is_taken_from_it_before_it_is_given() -> None:
    current = Assignment(3, {k: A for k in range(S)})
    step = next_step(current, states(A, B, generation=3), S)
    assert set(step.values()) == {A}
    assert len(step) == S // 2  # the other half assigned to nobody, for now


def test_a_slot_is_given_only_once_no_other_member_claims_it() -> None:
    current = Assignment(4, {k: A for k in range(S // 2)})
    members = states(A, B, generation=4)
    members["a"] = MemberState(A, frozenset(range(S // 2 + 1)), 4)  # still one more
    step = next_step(current, members, S)
    assert S // 2 not in step
    assert all(step[k] == B for k in range(S // 2 + 1, S))


def test_a_slot_is_given_only_once_every_member_followed_the_assignment() -> None:
    """A member that has not acknowledged the generation that took a slot from it
    may still claim it from the one before."""
    current = Assignment(4, {k: A for k in range(S // 2)})
    members = states(A, B, generation=4)
    members["a"] = MemberState(A, frozenset(range(S // 2)), 3)
    assert set(next_step(current, members, S).values()) == {A}


def test_a_dead_members_slots_go_to_the_survivors_in_one_step() -> None:
    three = balanced(Assignment(), frozenset({A, B, C}), S)
    current = Assignment(5, three)
    members = {
        h.name: MemberState(h, frozenset(k for k, o in three.items() if o == h), 5)
        for h in (A, B)
    }
    step = next_step(current, members, S)
    assert sorted(step) == list(range(S))
    assert {h for k, h in step.items() if three[k] == C} <= {A, B}
    assert all(step[k] == three[k] for k in range(S) if three[k] != C)


def test_a_new_process_of_a_member_gets_none_of_its_predecessors_slots_at_once() -> (
    None
):
    """Its slots go like a dead member's, to whoever the balance says: the new
    process is another holder."""
    old = Assignment(2, {k: A for k in range(S)})
    again = Holder("a", "a-2")
    step = next_step(old, states(again, generation=0), S)
    assert set(step.values()) == {again}


@pytest.mark.parametrize("members", [1, 2, 3, 5, 7])
def test_the_steps_reach_the_balance_and_no_slot_is_ever_held_twice(
    members: int,
) -> None:
    """Members that follow each step: claims never overlap, and the ring settles."""
    holders = [Holder(f"m{i}", "1") for i in range(members)]
    current = Assignment(1, {k: holders[0] for k in range(S)})
    claims = {h: current.of(h) for h in holders}
    acked = dict.fromkeys(holders, 1)
    for _ in range(10):
        live = {h.name: MemberState(h, claims[h], acked[h]) for h in holders}
        step = next_step(current, live, S)
        if step == dict(current.slots):
            break
        current = Assignment(current.generation + 1, step)
        for h in holders:
            claims[h], acked[h] = current.of(h), current.generation
        seen = [k for h in holders for k in claims[h]]
        assert len(seen) == len(set(seen))
    assert sorted(current.slots) == list(range(S))
    spread = Counter(h.name for h in current.slots.values())
    assert max(spread.values()) - min(spread.values()) <= 1


def test_the_assignment_reads_back_what_it_wrote() -> None:
    three = balanced(Assignment(), frozenset({A, B, C}), S)
    written = Assignment(7, three)
    assert Assignment.decode(7, written.encode()) == written
