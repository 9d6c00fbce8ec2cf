"""Annulus (seed 000): the operation challenge as a value object, its views and its moves."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import annulus, core
from rules.annulus import Challenge, ChallengeStatus
from tests.rules.stats import chi_square_p_value
from tests.support.dice import Faces

PASS_EASY = (4, 4, 1, 1)  # two successes on the four-die op check: passes "easy" (needs 2)
FAIL_EASY = (1, 1, 1, 4)  # one success: fails "easy"


def make(values, *, hidden=(), jammed=(), difficulty="easy", types="Finesse"):
    return Challenge.create(
        difficulty=difficulty, types=types, values=values, hidden=hidden, jammed=jammed
    )


# --- setup ----------------------------------------------------------------------------------------


def test_seed_hidden_mask_example():
    # Seed: mask "[5][3][4][3][1][2]": "one of the dice in the challenge is hidden, so the GM
    # rolls five 12-sided dice in plain view". The d12s are the seed's "7, 9, 7, 3, 11, and 5";
    # RULES-NOTES: the hidden position's d12 is rolled too (here the 11, position 4).
    rng = Faces(5, 3, 4, 3, 1, 2, 7, 9, 7, 3, 11, 5)
    challenge = annulus.setup_challenge(difficulty="Medium", types=["Knowledge"], rng=rng)
    assert challenge.mask == (5, 3, 4, 3, 1, 2)
    assert challenge.hidden_indices() == (4,)
    assert challenge.visible_indices() == (0, 1, 2, 3, 5)
    assert challenge.visible_values() == (7, 9, 7, 3, 5)
    assert len(challenge.visible_values()) == 5
    assert challenge.values == (7, 9, 7, 3, 11, 5)
    assert challenge.needed == 3 and challenge.difficulty == "medium"
    assert challenge.status is ChallengeStatus.IN_PROGRESS


def test_seed_row_with_no_hidden_dice():
    # Seed: "[7][9][7][3][11][5]" "(assuming no dice start hidden)".
    rng = Faces(2, 3, 4, 5, 6, 2, 7, 9, 7, 3, 11, 5)
    challenge = annulus.setup_challenge(difficulty="easy", types="Force", rng=rng)
    assert challenge.visible_values() == (7, 9, 7, 3, 11, 5)
    assert challenge.hidden == ()


def test_setup_length_and_types():
    rng = random.Random(3)
    challenge = annulus.setup_challenge(
        difficulty="IMPOSSIBLE", types=("finesse", "KNOWLEDGE"), length=12, rng=rng
    )
    assert challenge.length == 12 and challenge.needed == 5
    assert challenge.types == ("Finesse", "Knowledge")
    assert annulus.setup_challenge(difficulty="easy", types="Force", length=1, rng=rng).length == 1


def test_setup_uses_ruleset_length_and_mask():
    rules = {"chain_length": 9, "mask_die_sides": 2, "hidden_face": 2}
    challenge = annulus.setup_challenge(
        difficulty="easy", types="Force", ruleset=rules, rng=random.Random(5)
    )
    assert challenge.length == 9
    assert all(face in (1, 2) for face in challenge.mask)
    assert challenge.hidden == tuple(i for i, f in enumerate(challenge.mask) if f == 2)


def test_setup_uses_system_random_by_default():
    assert annulus.setup_challenge(difficulty="easy", types="Force").length == 6


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"difficulty": "trivial", "types": "Force"}, "Unknown difficulty"),
        ({"difficulty": "easy", "types": "Magic"}, "Unknown challenge type"),
        ({"difficulty": "easy", "types": ["Force", "Finesse", "Knowledge"]}, "one or two"),
        ({"difficulty": "easy", "types": "Force", "length": 0}, "at least 1"),
        ({"difficulty": "easy", "types": "Force", "length": 13}, "at most 12"),
    ],
)
def test_setup_errors(kwargs, message):
    with pytest.raises(core.RulesError, match=message):
        annulus.setup_challenge(**kwargs, rng=random.Random(1))


def test_setup_chi_square_hidden_count_and_dice():
    rng = random.Random(424242)
    setups = [
        annulus.setup_challenge(difficulty="easy", types="Force", rng=rng) for _ in range(3000)
    ]
    # "Any of the six-sided dice that display a result of 1 ... are considered hidden".
    hidden_counts = [len(c.hidden) for c in setups]
    assert chi_square_p_value(hidden_counts, annulus.hidden_count_distribution()) > 0.001
    masks = [face for c in setups for face in c.mask]
    assert chi_square_p_value(masks, core.die(6)) > 0.001
    values = [v for c in setups for v in c.values]
    assert chi_square_p_value(values, core.die(12)) > 0.001
    positions = [i for c in setups for i in c.hidden]
    uniform = {i: Fraction(1, 6) for i in range(6)}
    assert chi_square_p_value(positions, uniform) > 0.001


def test_hidden_count_distribution():
    dist = annulus.hidden_count_distribution()
    assert sum(dist.values()) == 1
    assert dist[0] == Fraction(5, 6) ** 6
    assert annulus.hidden_count_distribution(length=1) == {0: Fraction(5, 6), 1: Fraction(1, 6)}
    with pytest.raises(core.RulesError, match="at most 12"):
        annulus.hidden_count_distribution(length=13)


# --- views ----------------------------------------------------------------------------------


def test_player_view_has_no_trace_of_hidden_dice():
    challenge = make([7, 9, 7, 3, 11, 5], hidden=[4], jammed=[1])
    view = challenge.player_view()
    assert view["values"] == [7, 9, 7, 3, 5]
    assert view["jammed"] == [1]
    assert view["pairs_ok"] == [False, False, False, False]
    assert "11" not in json.dumps(view["values"])
    assert not {"hidden", "mask", "length", "origin_values", "origin_hidden"} & set(view)


@st.composite
def layouts(draw):
    """Two layouts with the same visible dice and different hidden dice (none jammed)."""
    visible = draw(st.lists(st.integers(1, 12), min_size=2, max_size=6))
    if annulus.is_solved(visible):
        visible[0] = visible[1]  # keep the visible chain unsolved: no status difference
    out = []
    for _ in range(2):
        chain = list(visible)
        hidden = []
        for _ in range(draw(st.integers(0, 12 - len(visible)))):
            pos = draw(st.integers(0, len(chain)))
            chain.insert(pos, draw(st.integers(1, 12)))
            hidden = [h + (h >= pos) for h in hidden] + [pos]
        out.append(make(chain, hidden=hidden))
    return out


@settings(max_examples=80)
@given(layouts())
def test_player_view_depends_only_on_visible_dice(pair):
    a, b = pair
    assert a.values != b.values or a.hidden != b.hidden or a == b
    assert a.status is b.status is ChallengeStatus.IN_PROGRESS  # no jams, visible unsolved
    assert a.player_view() == b.player_view()
    assert a.player_view()["values"] == list(a.visible_values())


def test_gm_view_has_everything():
    challenge = make([7, 9, 7, 3, 11, 5], hidden=[4])
    view = challenge.gm_view()
    assert view["values"] == [7, 9, 7, 3, 11, 5]
    assert view["hidden"] == [4]
    assert view["visible_indices"] == [0, 1, 2, 3, 5]
    assert view["visible_values"] == [7, 9, 7, 3, 5]
    # Judged over the players' chain 7 9 7 3 5 (RULES-NOTES "Failure"): 7 8 7 6 5 by hand,
    # 1 + 3 = 4 adjustments (the whole row, hidden 11 included, would need 9).
    assert view["remaining_adjustments"] == 4
    assert view["solvable"] is True
    assert view["can_reveal"] is False
    assert view["status"] == "in_progress"
    json.dumps(view)


def test_pairs_ok_for_the_ui():
    challenge = make([7, 8, 10, 9, 2], hidden=[2])
    assert challenge.pairs_ok() == (True, True, False)  # 7-8, 8-9, 9-2 (visible order)
    assert challenge.chain_pairs_ok() == (True, False, True, False)


def test_position_mapping():
    challenge = make([1, 2, 3, 4], hidden=[1])
    assert challenge.position_of(1) == 2
    assert challenge.visible_index_of(3) == 2
    assert challenge.visible_index_of(1) is None
    with pytest.raises(core.RulesError, match="at most 2"):
        challenge.position_of(3)
    with pytest.raises(core.RulesError, match="at most 3"):
        challenge.visible_index_of(4)


def test_layout_is_the_setup_secret():
    rng = Faces(5, 3, 4, 3, 1, 2, 7, 9, 7, 3, 11, 5)
    challenge = annulus.setup_challenge(difficulty="easy", types="Force", rng=rng)
    moved, _ = annulus.adjust(challenge, position=1, direction=-1, rng=Faces(*PASS_EASY))
    assert moved.values[1] == 8
    assert moved.layout() == {
        "mask": [5, 3, 4, 3, 1, 2],
        "hidden": [4],
        "values": [7, 9, 7, 3, 11, 5],
    }


# --- round trip --------------------------------------------------------------------------------


def test_round_trip_through_json():
    challenge = make([7, 9, 7, 3, 11, 5], hidden=[4], jammed=[0])
    challenge, _ = annulus.use_toolkit(
        challenge, ability="Shake Loose", position=1, rng=Faces(1, 1, 1)
    )
    data = json.loads(json.dumps(challenge.to_dict()))
    again = Challenge.from_dict(data)
    assert again == challenge
    assert again.unavailable_abilities == ("Shake Loose",)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "red"}, "unknown field"),
        ({"values": [1, 13, 1, 2, 3, 4]}, "at most 12"),
        ({"values": []}, "1 to 12 dice"),
        ({"values": list(range(1, 13)) + [1]}, "1 to 12 dice"),
        ({"hidden": [9]}, "at most 5"),
        ({"hidden": [2, 2]}, "twice"),
        ({"jammed": [4]}, "hidden die cannot be jammed"),
        ({"jammed": "0"}, "list of positions"),
        ({"needed": -1}, "at least 0"),
        ({"difficulty": ""}, "difficulty must be a name"),
        ({"types": []}, "one or two types"),
        ({"types": ["Force", "force"]}, "same thing twice"),
        ({"types": [3]}, "not a name"),
        ({"unavailable_abilities": "Calibrate"}, "list of names"),
        ({"mask": [1, 2]}, "one die per position"),
        ({"mask": 5}, "list of d6 results"),
        ({"mask": [0, 1, 1, 1, 1, 1]}, "at least 1"),
        ({"origin_values": [1, 2]}, "as many dice"),
        ({"origin_hidden": [3]}, "hidden at setup"),
        ({"values": [7, 9, 7, 3, 10, 5]}, "cannot have changed"),
    ],
)
def test_from_dict_rejects_bad_data(change, message):
    data = make([7, 9, 7, 3, 11, 5], hidden=[4]).to_dict()
    data.update(change)
    with pytest.raises(core.RulesError, match=message):
        Challenge.from_dict(data)


def test_from_dict_needs_a_mapping_with_the_core_fields():
    with pytest.raises(core.RulesError, match="must be a mapping"):
        Challenge.from_dict([1, 2])
    with pytest.raises(core.RulesError, match="lacks field"):
        Challenge.from_dict({"difficulty": "easy", "needed": 2, "types": ["Force"]})


def test_create_errors():
    with pytest.raises(core.UnknownNameError, match="Unknown difficulty"):
        make([1, 2], difficulty="tough")
    with pytest.raises(core.RulesError, match="list of die numbers"):
        make("12")


# --- status ------------------------------------------------------------------------------------


def test_seed_adjustment_797_to_787():
    # Seed: "[7][9][7]" -> "[7][8][7] with just one action"; the op check passes first.
    challenge = make([7, 9, 7])
    after, result = annulus.adjust(challenge, position=1, direction=-1, rng=Faces(*PASS_EASY))
    assert after.values == (7, 8, 7)
    assert result.before == 9 and result.after == 8 and not result.jammed
    assert result.check.successes == 2 and result.check.passed
    assert len(result.check.dice) == 4  # "a four-die check"
    assert after.status is ChallengeStatus.SOLVED
    assert challenge.values == (7, 9, 7)  # the old value is untouched


def test_failed_op_check_jams_the_die_and_keeps_its_number():
    # Seed: "If the check fails, the die jams and its number is not changed."
    challenge = make([7, 9, 7])
    after, result = annulus.adjust(challenge, position=1, direction=-1, rng=Faces(*FAIL_EASY))
    assert after.values == (7, 9, 7)
    assert after.jammed == (1,) and result.jammed and result.after == 9
    # "A jammed die cannot be manipulated any further in any way."
    with pytest.raises(core.IllegalMoveError, match="jammed"):
        annulus.adjust(after, position=1, direction=-1, rng=Faces(*PASS_EASY))
    # Still solvable around it: both 7s go to 8.
    assert after.status is ChallengeStatus.IN_PROGRESS
    assert after.remaining_adjustments == 2


def test_perk_dice_join_the_op_check():
    challenge = make([7, 9, 7], difficulty="hard")
    _, result = annulus.adjust(
        challenge, position=1, direction=-1, perk_dice=2, rng=Faces(4, 4, 4, 1, 5, 1)
    )
    assert len(result.check.dice) == 6 and result.check.perk_dice == 2
    assert result.check.successes == 4 and result.check.passed  # hard needs 4


def test_two_adjacent_jammed_dice_too_far_apart_fail():
    # Seed: "two adjacent dice with numbers more than 1 point apart both jam".
    challenge = make([3, 7, 4], jammed=[0, 1])
    assert challenge.status is ChallengeStatus.FAILED
    assert challenge.finished and not challenge.solvable
    assert challenge.remaining_adjustments is None


def test_failure_through_jamming_during_play():
    challenge = make([3, 5, 4], jammed=[0])
    after, _ = annulus.adjust(challenge, position=1, direction=1, rng=Faces(*FAIL_EASY))
    assert after.jammed == (0, 1)
    assert after.status is ChallengeStatus.FAILED
    with pytest.raises(core.IllegalMoveError, match="over"):
        annulus.adjust(after, position=2, direction=1, rng=Faces(*PASS_EASY))


def test_failure_across_a_hidden_position():
    # RULES-NOTES: jammed 5 and 9, adjacent in view: the players can never solve them.
    challenge = make([5, 1, 9], hidden=[1], jammed=[0, 2])
    assert challenge.status is ChallengeStatus.FAILED


def test_a_chain_the_players_cannot_solve_fails_though_a_hidden_die_would_bridge_it():
    # The review's stuck case: visible [4][6] both jammed with a hidden die between them in
    # truth. Judged over the whole chain it stayed "in progress" forever (no reveal can come,
    # the visible chain never solves). Judged as the players know it, it fails at once.
    stuck = make([4, 9, 6], hidden=[1], jammed=[0, 2])
    assert not stuck.solvable and stuck.remaining_adjustments is None
    assert stuck.status is ChallengeStatus.FAILED and not stuck.can_reveal
    assert make([5, 11, 7], hidden=[1], jammed=[0, 2]).status is ChallengeStatus.FAILED


def test_a_solved_visible_chain_waits_for_the_reveal_then_is_judged_again():
    # The review's leaky case: visible [5][6] jammed and solved, a hidden die between them.
    # It used to report "failed" while the players' chain looked solved (telling them a hidden
    # die exists). Now it waits for the GM, who is prompted to reveal.
    parity = make([5, 1, 6], hidden=[1], jammed=[0, 2])
    assert parity.visible_solved and parity.status is ChallengeStatus.IN_PROGRESS
    assert parity.awaiting_reveal and parity.can_reveal
    assert parity.player_view()["status"] == "in_progress"
    # After the reveal the chain in view is 5 1 6 with 5 and 6 jammed, two apart: unsolvable.
    after, _ = annulus.reveal(parity, position=1)
    assert after.visible_values() == (5, 1, 6)
    assert after.status is ChallengeStatus.FAILED
    # A die revealed past the jammed ones leaves a solvable chain: 5 6 7 1, the 1 to 6 or 8.
    tail, _ = annulus.reveal(make([5, 6, 7, 1], hidden=[3], jammed=[0, 2]), position=3)
    assert tail.status is ChallengeStatus.IN_PROGRESS and tail.remaining_adjustments == 5


@settings(max_examples=150)
@given(
    values=st.lists(st.integers(1, 12), min_size=1, max_size=7),
    flags=st.lists(st.sampled_from(["free", "hidden", "jammed"]), min_size=7, max_size=7),
)
def test_status_never_depends_on_what_players_cannot_see(values, flags):
    # Two challenges with the same visible chain (values, jams) but different hidden dice show
    # players the same status: the reading never tells them more than they see.
    flags = flags[: len(values)]
    hidden = [i for i, f in enumerate(flags) if f == "hidden"]
    jammed = [i for i, f in enumerate(flags) if f == "jammed"]
    one = make(values, hidden=hidden, jammed=jammed)
    other_values = [(v % 12) + 1 if i in hidden else v for i, v in enumerate(values)]
    other = make(other_values, hidden=hidden, jammed=jammed)
    assert one.player_view() == other.player_view()
    # ...and it never hangs: in progress means a move is left (an adjustment or a reveal).
    if one.status is ChallengeStatus.IN_PROGRESS:
        assert one.can_reveal or one.remaining_adjustments


def test_solved_needs_no_hidden_die_left():
    challenge = make([1, 2, 3, 9], hidden=[3])
    assert challenge.visible_solved and challenge.status is ChallengeStatus.IN_PROGRESS
    assert challenge.can_reveal


def test_whole_chain_solved_only_when_nothing_hidden():
    assert make([4, 5, 4]).status is ChallengeStatus.SOLVED
    assert make([4, 5, 4], hidden=[1]).status is ChallengeStatus.IN_PROGRESS


# --- reveal ------------------------------------------------------------------------------------


def test_reveal_refused_while_the_visible_chain_is_unsolved():
    # Seed: hidden dice are revealed "only when all visible dice are solved".
    challenge = make([7, 9, 7, 3, 11, 5], hidden=[4])
    with pytest.raises(core.IllegalMoveError, match="visible dice are solved"):
        annulus.reveal(challenge, position=4)


def test_reveal_inserts_the_die_at_its_place():
    challenge = make([1, 2, 9, 3, 4, 11], hidden=[2, 5])
    assert challenge.visible_values() == (1, 2, 3, 4)
    # "The GM can reveal multiple hidden dice in any order they please."
    after, result = annulus.reveal(challenge, position=5)
    assert after.visible_values() == (1, 2, 3, 4, 11)
    assert result.player_view() == {"visible_index": 4, "value": 11}
    assert result.position == 5
    assert not after.can_reveal  # one at a time: 4-11 is unsolved now
    with pytest.raises(core.IllegalMoveError, match="visible dice are solved"):
        annulus.reveal(after, position=2)


def test_reveal_of_the_last_die_can_solve_the_challenge():
    # (A hidden die inside the chain can't already fit: its neighbours would need to differ by
    # 1 from each other and from it, against parity. So it sits at the end here.)
    challenge = make([1, 2, 3, 4], hidden=[3])
    after, result = annulus.reveal(challenge, position=3)
    assert result.visible_index == 3
    assert after.status is ChallengeStatus.SOLVED


def test_reveal_errors():
    challenge = make([1, 2, 3, 4], hidden=[2])
    with pytest.raises(core.IllegalMoveError, match="not hidden"):
        annulus.reveal(challenge, position=1)
    with pytest.raises(core.RulesError, match="at most 3"):
        annulus.reveal(challenge, position=4)
    with pytest.raises(core.IllegalMoveError, match="over"):
        annulus.reveal(make([5, 1, 9], hidden=[1], jammed=[0, 2]), position=1)


# --- adjust errors and the pre-rolled variant ----------------------------------------------------


@pytest.mark.parametrize(
    ("position", "direction", "error", "message"),
    [
        (4, 1, core.IllegalMoveError, "not in play"),
        (0, 1, core.IllegalMoveError, "jammed"),
        (1, 0, core.RulesError, r"\+1 or -1"),
        (1, 2, core.RulesError, r"\+1 or -1"),
        (1, True, core.RulesError, r"\+1 or -1"),
        (2, 1, core.OutOfRangeError, "cannot go to 13"),
        (3, -1, core.OutOfRangeError, "cannot go to 0"),
        (6, 1, core.OutOfRangeError, "at most 5"),
        ("1", 1, core.RulesError, "whole number"),
    ],
)
def test_adjust_refusals_roll_no_dice(position, direction, error, message):
    challenge = make([7, 9, 12, 1, 11, 5], hidden=[4], jammed=[0])
    rng = Faces()  # any roll would fail: refusals happen before the op check
    with pytest.raises(error, match=message):
        annulus.adjust(challenge, position=position, direction=direction, rng=rng)


def test_adjust_needs_a_challenge():
    with pytest.raises(core.RulesError, match="not an operation challenge"):
        annulus.adjust({"values": [1]}, position=0, direction=1, rng=Faces())


def test_apply_adjustment_with_a_pre_rolled_check():
    challenge = make([7, 9, 7])
    check = annulus.op_check(challenge, perk_dice=1, rng=Faces(4, 4, 1, 1, 1))
    assert check.kind == "op_check" and check.passed
    after, result = annulus.apply_adjustment(challenge, position=1, direction=-1, check=check)
    assert after.values == (7, 8, 7) and result.check is check


def test_apply_adjustment_refuses_a_foreign_or_forged_check():
    challenge = make([7, 9, 7])
    other = annulus.challenge_check(challenge, rng=Faces(4, 4, 4))
    with pytest.raises(core.RulesError, match="needs its own op check"):
        annulus.apply_adjustment(challenge, position=1, direction=-1, check=other)
    failed = annulus.op_check(challenge, rng=Faces(*FAIL_EASY))
    forged = annulus.CheckResult(**{**failed.__dict__, "passed": True})
    with pytest.raises(core.RulesError, match="does not match"):
        annulus.apply_adjustment(challenge, position=1, direction=-1, check=forged)
    hard = annulus.op_check(make([7, 9, 7], difficulty="hard"), rng=Faces(*PASS_EASY))
    with pytest.raises(core.RulesError, match="does not match"):
        annulus.apply_adjustment(challenge, position=1, direction=-1, check=hard)


def test_adjust_chi_square_against_op_check_odds():
    rng = random.Random(8080)
    challenge = make([6, 6, 6], difficulty="medium")
    jams = [
        annulus.adjust(challenge, position=1, direction=1, perk_dice=1, rng=rng)[1].jammed
        for _ in range(3000)
    ]
    passing = annulus.op_check_probability(difficulty="medium", perk_dice=1)
    assert chi_square_p_value(jams, {False: passing, True: 1 - passing}) > 0.001


def test_op_and_challenge_check_chi_square():
    rng = random.Random(31337)
    challenge = make([6, 6], difficulty="hard")
    ops = [annulus.op_check(challenge, rng=rng).successes for _ in range(3000)]
    assert chi_square_p_value(ops, annulus.successes_distribution(dice=4)) > 0.001
    checks = [annulus.challenge_check(challenge, perk_dice=2, rng=rng).passed for _ in range(3000)]
    p = annulus.challenge_check_probability(difficulty="hard", perk_dice=2)
    assert chi_square_p_value(checks, {True: p, False: 1 - p}) > 0.001


# --- toolkit -----------------------------------------------------------------------------------


def test_toolkit_set_value():
    challenge = make([7, 9, 3], difficulty="medium")
    after, result = annulus.use_toolkit(
        challenge, ability="calibrate", position=2, value=8, rng=Faces(4, 5, 6)
    )
    assert result.applied and result.check.passed and len(result.check.dice) == 3
    assert (result.before, result.after, result.visible_index) == (3, 8, 2)
    assert after.values == (7, 9, 8)


def test_toolkit_failure_makes_the_ability_unavailable_and_nothing_else():
    # Seed: "that ability becomes unavailable ... but the challenge is otherwise unaffected".
    challenge = make([7, 9, 3], difficulty="medium")
    after, result = annulus.use_toolkit(
        challenge, ability="Calibrate", position=2, value=8, rng=Faces(4, 5, 1)
    )
    assert not result.applied and result.now_unavailable
    assert after.values == challenge.values and after.jammed == challenge.jammed
    assert after.unavailable_abilities == ("Calibrate",)
    assert not after.ability_available("calibrate")
    with pytest.raises(core.IllegalMoveError, match="failed earlier"):
        annulus.use_toolkit(after, ability="Calibrate", position=2, value=8, rng=Faces())
    # Other abilities still work.
    again, res = annulus.use_toolkit(
        after, ability="Shake Loose", position=2, rng=Faces(6, 6, 6, 10)
    )
    assert res.applied and again.values == (7, 9, 10)


def test_toolkit_unjam_is_the_one_way_a_jammed_die_moves_again():
    challenge = make([3, 7, 4], jammed=[0, 1])
    assert challenge.status is ChallengeStatus.FAILED  # over: no toolkit either
    with pytest.raises(core.IllegalMoveError, match="over"):
        annulus.use_toolkit(challenge, ability="Free the Jam", position=1, rng=Faces())
    challenge = make([3, 7, 4], jammed=[1])
    after, result = annulus.use_toolkit(
        challenge, ability="Free the Jam", position=1, rng=Faces(4, 4, 1)
    )
    assert result.applied and after.jammed == () and after.values == (3, 7, 4)
    moved, _ = annulus.adjust(after, position=1, direction=-1, rng=Faces(*PASS_EASY))
    assert moved.values == (3, 6, 4)


def test_toolkit_reveal_works_before_the_chain_is_solved():
    challenge = make([7, 9, 7, 3, 11, 5], hidden=[4])
    after, result = annulus.use_toolkit(challenge, ability="Survey", rng=Faces(4, 4, 1))
    assert result.applied and after.hidden == ()
    assert result.player_view()["visible_index"] == 4 and result.after == 11
    assert "position" not in result.player_view()
    # GM's choice among several hidden dice.
    two = make([1, 5, 2, 9], hidden=[1, 3])
    after, result = annulus.use_toolkit(two, ability="Survey", position=3, rng=Faces(4, 4, 1))
    assert after.hidden == (1,) and result.position == 3
    # Leftmost when the GM does not choose.
    after, result = annulus.use_toolkit(two, ability="Survey", rng=Faces(4, 4, 1))
    assert after.hidden == (3,) and result.position == 1


def test_toolkit_reveal_with_nothing_hidden_is_not_refused():
    # Refusing would tell the player that no hidden die exists; the check is rolled as usual.
    challenge = make([7, 9, 7])
    after, result = annulus.use_toolkit(challenge, ability="Survey", rng=Faces(4, 4, 1))
    assert result.check.passed and not result.applied and not result.now_unavailable
    assert after == challenge


def test_toolkit_reroll_chi_square():
    rng = random.Random(555)
    challenge = make([6, 6, 6], difficulty="easy")
    outcomes = []
    for _ in range(3000):
        _, result = annulus.use_toolkit(challenge, ability="Shake Loose", position=0, rng=rng)
        outcomes.append(result.after if result.applied else "failed")
    p = annulus.toolkit_check_probability(ability="Shake Loose", difficulty="easy")
    expected = dict.fromkeys(range(1, 13), p / 12) | {"failed": 1 - p}
    assert chi_square_p_value(outcomes, expected) > 0.001


def test_toolkit_check_follows_the_ability_data():
    rules = {
        "toolkit": [{"name": "Lever", "effect": "reroll", "dice": 5, "needed": 1}],
    }
    challenge = make([6, 6], difficulty="impossible")
    _, result = annulus.use_toolkit(
        challenge, ability="lever", position=0, perk_dice=1, ruleset=rules,
        rng=Faces(1, 1, 1, 1, 1, 4, 7),
    )  # fmt: skip
    assert len(result.check.dice) == 6 and result.check.needed == 1 and result.applied
    assert result.after == 7


def test_apply_toolkit_with_a_pre_rolled_check():
    challenge = make([7, 9, 3], difficulty="easy")
    check = annulus.toolkit_check(challenge, ability="Calibrate", rng=Faces(4, 4, 1))
    after, result = annulus.apply_toolkit(
        challenge, ability="Calibrate", check=check, position=2, value=6
    )
    assert after.values == (7, 9, 6) and result.check is check
    op = annulus.op_check(challenge, rng=Faces(*PASS_EASY))
    with pytest.raises(core.RulesError, match="needs its own toolkit check"):
        annulus.apply_toolkit(challenge, ability="Calibrate", check=op, position=2, value=6)


@pytest.mark.parametrize(
    ("ability", "position", "value", "error", "message"),
    [
        ("Hammer", 1, None, core.UnknownNameError, "Unknown toolkit ability"),
        ("Calibrate", 1, None, core.RulesError, "whole number"),
        ("Calibrate", 1, 13, core.OutOfRangeError, "at most 12"),
        ("Calibrate", 0, 5, core.IllegalMoveError, "jammed"),
        ("Calibrate", 3, 5, core.IllegalMoveError, "not in play"),
        ("Shake Loose", 3, None, core.IllegalMoveError, "not in play"),
        ("Shake Loose", 1, 4, core.RulesError, "does not take a number"),
        ("Shake Loose", None, None, core.RulesError, "whole number"),
        ("Free the Jam", 1, None, core.IllegalMoveError, "not jammed"),
        ("Free the Jam", 9, None, core.OutOfRangeError, "at most 4"),
        ("Survey", 1, None, core.IllegalMoveError, "not hidden"),
        ("Survey", 7, None, core.OutOfRangeError, "at most 4"),
    ],
)
def test_toolkit_refusals_roll_no_dice(ability, position, value, error, message):
    challenge = make([7, 9, 7, 1, 5], hidden=[3], jammed=[0])
    with pytest.raises(error, match=message):
        annulus.use_toolkit(challenge, ability=ability, position=position, value=value, rng=Faces())


def test_toolkit_abilities_default_set():
    tools = annulus.toolkit_abilities()
    assert [t.effect for t in tools] == ["set_value", "unjam", "reveal", "reroll"]
    assert all(t.description for t in tools)


# --- the invariant: jammed dice never change ---------------------------------------------------

moves = st.lists(
    st.tuples(
        st.sampled_from(["adjust", "reveal", "Calibrate", "Free the Jam", "Survey", "Shake Loose"]),
        st.sampled_from(["any", "jammed", "hidden", "none"]),  # which die the move aims at
        st.integers(0, 11),
        st.sampled_from([1, -1]),
        st.integers(1, 12),
        st.integers(0, 2**32),
        st.integers(0, 3),
    ),
    max_size=25,
)


@st.composite
def challenges(draw):
    values = draw(st.lists(st.integers(1, 12), min_size=1, max_size=8))
    hidden = draw(st.sets(st.integers(0, len(values) - 1), max_size=len(values) - 1))
    free = [i for i in range(len(values)) if i not in hidden]
    jammed = draw(st.sets(st.sampled_from(free), min_size=1, max_size=3))
    difficulty = draw(st.sampled_from(["easy", "medium", "hard", "impossible"]))
    challenge = make(values, hidden=hidden, jammed=jammed, difficulty=difficulty)
    if challenge.finished:  # keep one jam: one jammed die alone never makes a chain fail
        challenge = make(values, hidden=hidden, jammed=[min(jammed)], difficulty=difficulty)
    return challenge


def _aim(challenge, target, index):
    pool = {"jammed": challenge.jammed, "hidden": challenge.hidden}.get(target)
    if target == "none":
        return None
    if pool:
        return pool[index % len(pool)]
    return index % challenge.length


@settings(max_examples=150, deadline=None)
@given(challenges(), moves)
def test_jammed_dice_never_change_unless_freed(challenge, plan):
    for kind, target, index, direction, value, seed, perks in plan:
        rng = random.Random(seed)
        before = challenge
        position = _aim(challenge, target, index)
        try:
            if kind == "adjust":
                challenge, result = annulus.adjust(
                    challenge, position=position, direction=direction, perk_dice=perks, rng=rng
                )
            elif kind == "reveal":
                challenge, result = annulus.reveal(challenge, position=position)
            else:
                effect = {"Calibrate": "set_value", "Shake Loose": "reroll"}.get(kind)
                challenge, result = annulus.use_toolkit(
                    challenge,
                    ability=kind,
                    position=position,
                    value=value if effect == "set_value" else None,
                    perk_dice=perks,
                    rng=rng,
                )
        except core.RulesError:
            continue
        freed = (
            isinstance(result, annulus.ToolkitResult)
            and result.effect == "unjam"
            and result.applied
        )
        for pos in before.jammed:
            assert challenge.values[pos] == before.values[pos]
            if not (freed and result.position == pos):
                assert pos in challenge.jammed
        # Hidden dice never change while hidden, and no die leaves 1..12.
        for pos in challenge.hidden:
            assert challenge.values[pos] == before.values[pos]
        assert set(challenge.hidden) <= set(before.hidden)
        assert Challenge.from_dict(json.loads(json.dumps(challenge.to_dict()))) == challenge


@settings(max_examples=60, deadline=None)
@given(challenges())
def test_status_agrees_with_the_pairwise_rule(challenge):
    # RULES-NOTES "Failure": the pairwise rule over the visible chain (hidden positions out).
    visible = challenge.visible_values()
    stuck = {k: visible[k] for k in challenge.visible_jammed()}
    allowed = annulus.jams_allow_solution(len(visible), stuck)
    if challenge.status is ChallengeStatus.FAILED:
        assert not allowed
    else:
        assert allowed
