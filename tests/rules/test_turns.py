"""The generic turn tracker (seed 003 "The Action Economy"), usable by every system."""

import ast
import json
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import core
from rules.turns import TurnTracker


def tracker_with(*people):
    """``people``: (id, team) pairs, team None for a team of one."""
    tracker = TurnTracker()
    for character, team in people:
        tracker, _ = tracker.add_participant(character, team=team)
    return tracker


@pytest.fixture
def scene():
    # Two heroes act together; two goblins act together; an owl is a team of one.
    tracker = tracker_with(
        ("ayla", "Heroes"), ("bram", "heroes"), ("gob1", "Goblins"), ("gob2", "Goblins")
    )
    tracker, _ = tracker.add_participant("owl", name="The Owl")
    return tracker


def test_teams_take_turns_together(scene):
    assert scene.order == ("Heroes", "Goblins", "owl")  # "heroes" joined the existing team
    assert scene.members("Heroes") == ("ayla", "bram")
    tracker, event = scene.start()
    assert (event.kind, event.round, event.team, event.new_round) == ("started", 1, "Heroes", True)
    # "the characters on a team may act in any order they please"
    tracker, _ = tracker.take_action("bram")
    assert tracker.waiting() == ("ayla",)
    tracker, event = tracker.take_action("ayla")
    assert event.character == "ayla" and tracker.waiting() == ()
    with pytest.raises(
        core.IllegalMoveError, match="It is not gob1's turn: the turn belongs to Heroes"
    ):
        tracker.take_action("gob1")
    tracker, event = tracker.end_turn()
    assert (event.team, event.round, event.new_round) == ("Goblins", 1, False)
    assert tracker.can_act("gob2") and not tracker.can_act("ayla")


def test_one_action_per_turn(scene):
    tracker, _ = scene.start()
    tracker, _ = tracker.take_action("ayla")
    with pytest.raises(core.IllegalMoveError, match="ayla has already taken an action this turn"):
        tracker.take_action("ayla")
    # The next time the Heroes' turn comes round, ayla may act again.
    for _ in range(3):
        tracker, _ = tracker.end_turn()
    assert tracker.current_team == "Heroes" and tracker.can_act("ayla")


def test_rounds_count_complete_sets_of_turns(scene):
    tracker, _ = scene.start()
    rounds = []
    for _ in range(7):
        tracker, event = tracker.end_turn()
        rounds.append((event.team, event.round, event.new_round))
    assert rounds == [
        ("Goblins", 1, False),
        ("owl", 1, False),
        ("Heroes", 2, True),
        ("Goblins", 2, False),
        ("owl", 2, False),
        ("Heroes", 3, True),
        ("Goblins", 3, False),
    ]


def test_reaction_once_per_round_refreshed_at_own_turn(scene):
    tracker, _ = scene.start()
    # Heroes' turn: a goblin reacts to ayla's action.
    tracker, _ = tracker.take_action("ayla")
    tracker, event = tracker.use_reaction("gob1")
    assert event.kind == "reaction" and not tracker.can_react("gob1")
    with pytest.raises(core.IllegalMoveError, match="gob1 has already reacted this round"):
        tracker.use_reaction("gob1")
    # A reaction may be used on one's own turn too; ayla's is then spent until her next turn.
    tracker, _ = tracker.use_reaction("ayla")
    # Goblins' turn begins: gob1's reaction comes back ("beginning and ending with yours").
    tracker, event = tracker.end_turn()
    assert event.refreshed == ("gob1",) and tracker.can_react("gob1")
    assert not tracker.can_react("ayla")
    with pytest.raises(
        core.IllegalMoveError, match="comes back when the turn of Heroes begins again"
    ):
        tracker.use_reaction("ayla")
    tracker, event = tracker.end_turn()  # owl
    assert event.refreshed == () and not tracker.can_react("ayla")
    tracker, event = tracker.end_turn()  # Heroes again, round 2
    assert event.refreshed == ("ayla",) and tracker.can_react("ayla")


def test_movement_is_free_on_own_turn(scene):
    tracker, _ = scene.start()
    assert tracker.can_move("ayla") and tracker.can_move("bram")
    tracker, _ = tracker.take_action("ayla")
    assert tracker.can_move("ayla")  # moving does not use the action
    assert not tracker.can_move("owl")  # off-turn movement is a reaction


def test_nothing_happens_before_the_start(scene):
    assert scene.current_team is None
    assert not scene.can_act("ayla") and not scene.can_react("ayla") and not scene.can_move("ayla")
    for move in (scene.take_action, scene.use_reaction):
        with pytest.raises(core.IllegalMoveError, match="have not started"):
            move("ayla")
    with pytest.raises(core.IllegalMoveError, match="have not started"):
        scene.end_turn()
    with pytest.raises(core.IllegalMoveError, match="at least one participant"):
        TurnTracker().start()
    tracker, _ = scene.start()
    with pytest.raises(core.IllegalMoveError, match="already started"):
        tracker.start()


def test_unknown_and_duplicate_participants(scene):
    with pytest.raises(core.UnknownNameError, match="'zed' is not taking turns here"):
        scene.take_action("zed")
    with pytest.raises(core.IllegalMoveError, match="ayla is already taking turns here"):
        scene.add_participant("ayla")
    with pytest.raises(core.RulesError, match="non-empty name"):
        scene.add_participant("")
    with pytest.raises(core.RulesError, match="A team must be a non-empty name"):
        scene.add_participant("zed", team="  ")


def test_set_order(scene):
    tracker, event = scene.set_order(["owl", "goblins", "HEROES"])
    assert tracker.order == ("owl", "Goblins", "Heroes") and event.kind == "order_set"
    started, _ = tracker.start()
    assert started.current_team == "owl"
    # Mid-round the team whose turn it is keeps it.
    moved, _ = started.set_order(["Heroes", "owl", "Goblins"])
    assert moved.current_team == "owl"
    moved, event = moved.end_turn()
    assert event.team == "Goblins"
    with pytest.raises(core.RulesError, match="every team exactly once"):
        scene.set_order(["Heroes", "Goblins"])
    with pytest.raises(core.RulesError, match="every team exactly once"):
        scene.set_order(["Heroes", "Goblins", "owl", "owl"])
    with pytest.raises(core.UnknownNameError, match="Unknown team 'Dragons'"):
        scene.set_order(["Heroes", "Goblins", "Dragons"])
    with pytest.raises(core.RulesError, match="list of names"):
        scene.set_order("Heroes")


def test_joining_mid_round(scene):
    tracker, _ = scene.start()
    tracker, _ = tracker.add_participant("cora", team="heroes")
    assert tracker.can_act("cora")  # joined the team whose turn it is
    tracker, _ = tracker.add_participant("troll", team="Trolls")
    assert tracker.order[-1] == "Trolls" and tracker.can_react("troll")


def test_removing_participants(scene):
    tracker, _ = scene.start()
    tracker, _ = tracker.take_action("ayla")
    tracker, _ = tracker.use_reaction("gob1")
    # Removing one hero leaves the team and the turn in place.
    tracker, event = tracker.remove_participant("ayla")
    assert event.kind == "left" and tracker.current_team == "Heroes" and tracker.acted == ()
    # Removing the last hero passes the turn to the Goblins, with gob1's reaction refreshed.
    tracker, event = tracker.remove_participant("bram")
    assert tracker.order == ("Goblins", "owl")
    assert (tracker.current_team, tracker.round, event.refreshed) == ("Goblins", 1, ("gob1",))
    # Removing a team that already had its turn keeps the current team's turn.
    tracker, _ = tracker.end_turn()  # owl
    tracker, _ = tracker.remove_participant("gob1")
    tracker, _ = tracker.remove_participant("gob2")
    assert tracker.current_team == "owl" and tracker.round == 1
    # The current team going away passes the turn to the next team in the same round...
    tracker, _ = tracker.add_participant("newt")
    tracker, _ = tracker.add_participant("yak")
    tracker, _ = tracker.remove_participant("owl")
    assert (tracker.order, tracker.current_team, tracker.round) == (("newt", "yak"), "newt", 1)
    # ... and when it was last in the order, to the first team in a new round.
    tracker, _ = tracker.end_turn()
    tracker, event = tracker.remove_participant("yak")
    assert (tracker.current_team, tracker.round, event.new_round) == ("newt", 2, True)
    tracker, _ = tracker.remove_participant("newt")
    assert tracker == TurnTracker()


def test_remove_before_start(scene):
    tracker, _ = scene.remove_participant("owl")
    assert tracker.order == ("Heroes", "Goblins") and not tracker.started


def test_round_trip_through_json(scene):
    tracker, _ = scene.start()
    tracker, _ = tracker.take_action("bram")
    tracker, _ = tracker.use_reaction("owl")
    stored = json.loads(json.dumps(tracker.to_dict()))
    assert TurnTracker.from_dict(stored) == tracker
    assert TurnTracker.from_dict(TurnTracker().to_dict()) == TurnTracker()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"participants": "x"}, "list of mappings"),
        ({"participants": [{"id": "a"}]}, "missing its 'team'"),
        ({"order": ["Heroes", "Goblins"]}, "must list each team once"),
        ({"order": "Heroes"}, "list of names"),
        ({"round": -1}, "The round must be at least 0"),
        ({"turn": 9}, "The turn must be at most 2"),
        ({"acted": ["gob1"]}, "Only members of the team whose turn it is"),
        ({"reacted": ["zed"]}, "Only participants"),
        ({"round": 0, "acted": ["ayla"]}, "before the start"),
    ],
)
def test_bad_stored_trackers(scene, change, message):
    tracker, _ = scene.start()
    with pytest.raises(core.RulesError, match=message):
        TurnTracker.from_dict({**tracker.to_dict(), **change})


def test_bad_stored_tracker_types():
    with pytest.raises(core.RulesError, match="must be a mapping"):
        TurnTracker.from_dict([])
    doubled = {"participants": [{"id": "a", "team": "x"}] * 2, "order": ["x"]}
    with pytest.raises(core.RulesError, match="appears twice"):
        TurnTracker.from_dict(doubled)


def test_no_system_imports():
    # The tracker serves every system, so it must not depend on any one of them.
    tree = ast.parse(pathlib.Path(core.__file__).with_name("turns.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert {m for m in imported if m.startswith("rules")} == {"rules.core"}


moves = st.lists(
    st.tuples(st.sampled_from(["act", "react", "end"]), st.sampled_from(["a", "b", "c", "d"])),
    max_size=40,
)


@settings(max_examples=80, deadline=None)
@given(moves=moves)
def test_invariants_under_any_moves(moves):
    tracker = tracker_with(("a", "Red"), ("b", "Red"), ("c", "Blue"), ("d", None))
    tracker, _ = tracker.start()
    actions_this_turn: set[str] = set()
    for move, who in moves:
        before = tracker
        try:
            if move == "act":
                tracker, _ = tracker.take_action(who)
            elif move == "react":
                tracker, _ = tracker.use_reaction(who)
            else:
                tracker, _ = tracker.end_turn()
        except core.IllegalMoveError:
            assert tracker == before  # a refused move changes nothing
            if move == "act":
                assert not before.can_act(who)
            else:
                assert move == "react" and not before.can_react(who)
            continue
        if move == "end":
            actions_this_turn = set()
        elif move == "act":
            assert who not in actions_this_turn
            actions_this_turn.add(who)
        assert set(tracker.acted) == actions_this_turn
        assert len(set(tracker.reacted)) == len(tracker.reacted)
        assert TurnTracker.from_dict(json.loads(json.dumps(tracker.to_dict()))) == tracker
