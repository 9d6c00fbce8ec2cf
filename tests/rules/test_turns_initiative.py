"""The turn tracker as an initiative order (any game's turns): entries sorted by initiative,
ties to the entry added first, the turn moving down the order and back up it."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import core
from rules.turns import INITIATIVE_RANGE, Participant, TurnTracker, initiative_order


def order_of(*entries):
    """``entries``: (id, name, initiative or None), added in this order."""
    tracker = TurnTracker()
    for entry, name, initiative in entries:
        tracker, _ = tracker.add_entry(entry, name=name, initiative=initiative)
    return tracker


def names(tracker):
    return [tracker.participant(pid).name for pid in tracker.order]


def test_entries_sort_highest_first_and_ties_go_to_the_entry_added_first():
    tracker = order_of(
        ("7", "Ayla", 12), ("n1", "Goblin 1", 15), ("n2", "Goblin 2", 12), ("8", "Bram", None)
    )
    assert tracker.by_initiative
    assert names(tracker) == ["Goblin 1", "Ayla", "Goblin 2", "Bram"]
    # Every entry is its own turn.
    assert all(tracker.members(pid) == (pid,) for pid in tracker.order)


def test_setting_an_initiative_resorts_and_the_current_entry_keeps_its_turn():
    tracker = order_of(("a", "Ayla", 10), ("b", "Bram", 5), ("c", "Cyr", None))
    tracker, _ = tracker.start()
    tracker, _ = tracker.end_turn()
    assert tracker.current_team == "b"
    tracker, event = tracker.set_initiative("c", 20)
    assert event.message == "Cyr: initiative 20."
    assert names(tracker) == ["Cyr", "Ayla", "Bram"]
    assert tracker.current_team == "b"  # Bram still has the turn, now third
    tracker, event = tracker.end_turn()
    assert (tracker.round, tracker.current_team, event.new_round) == (2, "c", True)
    assert event.message == "Round 2. Turn: Cyr."


def test_the_turn_moves_down_the_order_and_back_up_it_with_the_round():
    tracker = order_of(("a", "Ayla", 10), ("b", "Bram", 5))
    tracker, event = tracker.start()
    assert (tracker.round, tracker.current_team) == (1, "a")
    assert event.message == "Round 1. Turn: Ayla."
    with pytest.raises(core.IllegalMoveError, match="first turn of round 1"):
        tracker.previous_turn()
    tracker, _ = tracker.end_turn()
    tracker, _ = tracker.end_turn()
    assert (tracker.round, tracker.current_team) == (2, "a")
    tracker, event = tracker.previous_turn()
    assert (tracker.round, tracker.current_team) == (1, "b")
    assert event.message == "Back to round 1. Turn: Bram."
    tracker, event = tracker.previous_turn()
    assert (tracker.round, tracker.current_team, event.message) == (1, "a", "Back to: Ayla.")


def test_names_are_unique_any_case_and_bounded_numbers():
    tracker = order_of(("n1", "Goblin", 3))
    with pytest.raises(core.IllegalMoveError, match="already in the order"):
        tracker.add_entry("n2", name="goblin")
    with pytest.raises(core.RulesError, match="initiative"):
        tracker.add_entry("n2", name="Ogre", initiative=INITIATIVE_RANGE[1] + 1)
    with pytest.raises(core.RulesError, match="initiative"):
        tracker.set_initiative("n1", True)
    with pytest.raises(core.UnknownNameError):
        tracker.set_initiative("n9", 4)


def test_a_team_tracker_takes_no_initiative_entries_and_vice_versa():
    teams, _ = TurnTracker().add_participant("a", team="Heroes")
    with pytest.raises(core.IllegalMoveError, match="by teams"):
        teams.add_entry("n1", name="Goblin")
    with pytest.raises(core.IllegalMoveError, match="by teams"):
        teams.set_initiative("a", 3)
    with pytest.raises(core.RulesError, match="its own turn"):
        TurnTracker(
            participants=(Participant(id="a", name="A", team="Heroes"),),
            order=("Heroes",),
            by_initiative=True,
        )


def test_an_initiative_order_survives_storage():
    tracker = order_of(("a", "Ayla", 10), ("n1", "Goblin 2", None))
    tracker, _ = tracker.start()
    stored = json.loads(json.dumps(tracker.to_dict()))
    assert TurnTracker.from_dict(stored) == tracker
    # A team tracker stored before initiative existed reads as before.
    old = {"participants": [{"id": "a", "name": "A", "team": "Heroes"}], "order": ["Heroes"]}
    assert (
        TurnTracker.from_dict(old) == TurnTracker().add_participant("a", name="A", team="Heroes")[0]
    )


entries = st.lists(
    st.one_of(st.none(), st.integers(min_value=-5, max_value=5)), min_size=1, max_size=8
)


@settings(max_examples=200, deadline=None)
@given(initiatives=entries, seed=st.randoms(use_true_random=False))
def test_the_order_is_sorted_stable_and_independent_of_when_initiatives_came(initiatives, seed):
    people = [
        Participant(id=str(i), name=f"E{i}", team=str(i), initiative=v)
        for i, v in enumerate(initiatives)
    ]
    order = initiative_order(people)
    assert sorted(order) == sorted(p.id for p in people)
    by_id = {p.id: p for p in people}
    for first, second in zip(order, order[1:], strict=False):
        a, b = by_id[first], by_id[second]
        if a.initiative is None:
            assert b.initiative is None and int(a.id) < int(b.id)
        elif b.initiative is not None:
            # Higher first; a tie goes to the entry added first.
            assert (a.initiative, -int(a.id)) > (b.initiative, -int(b.id))
    # Set the initiatives one by one, in any order: the tracker ends on the same order.
    tracker = TurnTracker()
    for p in people:
        tracker, _ = tracker.add_entry(p.id, name=p.name)
    shuffled = [p for p in people if p.initiative is not None]
    seed.shuffle(shuffled)
    for p in shuffled:
        tracker, _ = tracker.set_initiative(p.id, p.initiative)
    assert tracker.order == order


@settings(max_examples=100, deadline=None)
@given(size=st.integers(1, 5), moves=st.lists(st.booleans(), max_size=30))
def test_next_then_previous_comes_back_where_it_was(size, moves):
    tracker = order_of(*[(str(i), f"E{i}", i) for i in range(size)])
    tracker, _ = tracker.start()
    for forward in moves:
        if forward or (tracker.round, tracker.turn) == (1, 0):
            after, _ = tracker.end_turn()
            back, _ = after.previous_turn()
        else:
            after, _ = tracker.previous_turn()
            back, _ = after.end_turn()
        assert (back.round, back.turn) == (tracker.round, tracker.turn)
        # Each turn is one step: rounds count every entry once.
        steps = lambda t: (t.round - 1) * size + t.turn  # noqa: E731
        assert abs(steps(after) - steps(tracker)) == 1
        tracker = after
