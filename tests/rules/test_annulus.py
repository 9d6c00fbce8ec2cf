"""Annulus (seed 000): the chain, the GM's solver, check odds and the ruleset.

The challenge object and its moves are tested in test_annulus_challenge.py.
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import annulus, core
from tests.rules.stats import chi_square_p_value

# --- the chain ---------------------------------------------------------------------------------


def test_seed_examples_solved():
    # Seed: "a sequence of [1][2][3] is a valid solution, as is [3][2][1] and [1][2][1]".
    assert annulus.is_solved([1, 2, 3])
    assert annulus.is_solved([3, 2, 1])
    assert annulus.is_solved([1, 2, 1])


def test_seed_example_797_not_solved_and_one_adjustment_away():
    # Seed: "[7][9][7], the three numbers are not a valid sequence"; "change the above example
    # into this: [7][8][7] with just one action".
    assert not annulus.is_solved([7, 9, 7])
    assert annulus.is_solved([7, 8, 7])
    assert annulus.min_adjustments([7, 9, 7], []) == 1


def test_seed_example_setup_row_is_not_solved():
    # Seed: "[7][9][7][3][11][5]": 9-7, 7-3, 3-11, 11-5 all differ by more than 1.
    assert not annulus.is_solved([7, 9, 7, 3, 11, 5])


@pytest.mark.parametrize("value", [1, 7, 12])
def test_single_die_is_solved(value):
    # Seed: "only one die, then it is automatically considered solved no matter what number".
    assert annulus.is_solved([value])
    assert annulus.min_adjustments([value], []) == 0
    assert annulus.min_adjustments([value], [0]) == 0


def test_empty_chain_is_solved():
    assert annulus.is_solved([])
    assert annulus.min_adjustments([], []) == 0


def test_equal_neighbours_are_not_solved():
    assert not annulus.is_solved([4, 4])


def test_min_adjustments_hand_worked():
    # [7][9][7][3][11][5], worked by hand: 7 8 7 6 7 6 costs 0+1+0+3+4+1 = 9. Nothing is
    # cheaper: with the fourth die at y the tail (11, 5) costs at least 5, the head (7, 9, 7)
    # at least 1, and |y - 3| + head is smallest (3 + 1) at y = 6.
    assert annulus.min_adjustments([7, 9, 7, 3, 11, 5], []) == 9
    assert annulus.is_solved([7, 8, 7, 6, 7, 6])
    # Jammed 9 in the middle: both 7s must move to 8 (2 adjustments).
    assert annulus.min_adjustments([7, 9, 7], [1]) == 2
    # Same with a list of flags.
    assert annulus.min_adjustments([7, 9, 7], [False, True, False]) == 2
    # Two adjacent jammed dice more than 1 apart: no solution (seed's own example).
    assert annulus.min_adjustments([3, 7], [0, 1]) is None
    # Jammed 5 ... 9 three apart: gap 3, difference 4: impossible.
    assert annulus.min_adjustments([5, 1, 1, 9], {0, 3}) is None
    # Jammed 5 and 6 two apart: parity makes it impossible.
    assert annulus.min_adjustments([5, 1, 6], [0, 2]) is None
    # A wall at 1: a jammed 1 forces neighbours to 2.
    assert annulus.min_adjustments([1, 1, 1], [0, 2]) == 1


def _plain_solved(chain):
    return all(abs(a - b) == 1 for a, b in zip(chain, chain[1:], strict=False))


def _bfs_min(values, jammed):
    """Brute force: breadth-first search over every chain reachable by single adjustments."""
    start = tuple(values)
    if _plain_solved(start):
        return 0
    seen = {start}
    frontier = [start]
    depth = 0
    while frontier:
        depth += 1
        nxt = []
        for state in frontier:
            for i, v in enumerate(state):
                if i in jammed:
                    continue
                for w in (v - 1, v + 1):
                    if 1 <= w <= annulus.FACES:
                        t = state[:i] + (w,) + state[i + 1 :]
                        if t not in seen:
                            if _plain_solved(t):
                                return depth
                            seen.add(t)
                            nxt.append(t)
        frontier = nxt
    return None


def _all_solved_min(values, jammed):
    """Brute force: the cheapest of every solved chain of that length (start x step signs)."""
    n = len(values)
    best = None
    for start in range(1, annulus.FACES + 1):
        for steps in itertools.product((1, -1), repeat=n - 1):
            target = list(itertools.accumulate(steps, initial=start))
            if not all(1 <= w <= annulus.FACES for w in target):
                continue
            if any(target[i] != values[i] for i in jammed):
                continue
            cost = sum(abs(v - w) for v, w in zip(values, target, strict=True))
            best = cost if best is None else min(best, cost)
    return best


@st.composite
def chains_with_jams(draw, max_size=4):
    values = draw(st.lists(st.integers(1, 12), min_size=1, max_size=max_size))
    jammed = draw(st.sets(st.integers(0, len(values) - 1)))
    return values, jammed


@settings(max_examples=60, deadline=None)
@given(chains_with_jams())
def test_min_adjustments_matches_breadth_first_search(case):
    values, jammed = case
    assert annulus.min_adjustments(values, jammed) == _bfs_min(values, jammed)


@settings(max_examples=40, deadline=None)
@given(chains_with_jams(max_size=8))
def test_min_adjustments_matches_every_solved_chain(case):
    values, jammed = case
    assert annulus.min_adjustments(values, jammed) == _all_solved_min(values, jammed)


def test_seed_row_against_every_solved_chain():
    assert _all_solved_min([7, 9, 7, 3, 11, 5], set()) == 9


@settings(max_examples=200)
@given(chains_with_jams(max_size=12))
def test_min_adjustments_none_exactly_when_the_pairwise_rule_says_so(case):
    values, jammed = case
    stuck = {i: values[i] for i in jammed}
    allowed = annulus.jams_allow_solution(len(values), stuck)
    assert (annulus.min_adjustments(values, jammed) is not None) == allowed


@settings(max_examples=200)
@given(chains_with_jams(max_size=12))
def test_min_adjustments_zero_exactly_when_solved(case):
    values, jammed = case
    assert (annulus.min_adjustments(values, jammed) == 0) == annulus.is_solved(values)


@settings(max_examples=100)
@given(chains_with_jams(max_size=12), st.integers(0, 11))
def test_jamming_more_never_makes_it_cheaper(case, extra):
    values, jammed = case
    extra %= len(values)
    free = annulus.min_adjustments(values, jammed)
    more = annulus.min_adjustments(values, jammed | {extra})
    if more is not None:
        assert free is not None and free <= more


def test_pairwise_rule_hand_cases():
    # RULES-NOTES: |a - b| <= j - i and (j - i - |a - b|) even.
    assert annulus.jams_allow_solution(3, {0: 5, 2: 7})
    assert not annulus.jams_allow_solution(3, {0: 5, 2: 9})
    assert not annulus.jams_allow_solution(3, {0: 5, 2: 6})
    assert not annulus.jams_allow_solution(2, {0: 3, 1: 7})
    assert annulus.jams_allow_solution(2, {0: 3, 1: 4})
    assert annulus.jams_allow_solution(6, {})


# --- chain errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([0, 1], "at least 1"),
        ([12, 13], "at most 12"),
        ([1, "2"], "whole number"),
        ([1, True], "whole number"),
        ("123", "list of die numbers"),
        (5, "list of die numbers"),
    ],
)
def test_bad_chain(values, message):
    with pytest.raises(core.RulesError, match=message):
        annulus.is_solved(values)
    with pytest.raises(core.RulesError, match=message):
        annulus.min_adjustments(values, [])


@pytest.mark.parametrize(
    ("jammed", "message"),
    [
        ([3], "at most 2"),
        ([-1], "at least 0"),
        ([True, False], "one per die"),
        ("0", "list of positions"),
        (7, "list of positions"),
        ([0, "1"], "whole number"),
    ],
)
def test_bad_jammed(jammed, message):
    with pytest.raises(core.RulesError, match=message):
        annulus.min_adjustments([1, 2, 3], jammed)


def test_min_adjustments_accepts_none_for_no_jams():
    assert annulus.min_adjustments([7, 9, 7], None) == 1


@pytest.mark.parametrize(
    ("length", "jams", "message"),
    [
        (13, {}, "at most 12"),
        (3, [0], "map a position"),
        (3, {5: 1}, "at most 2"),
        (3, {0: 13}, "at most 12"),
    ],
)
def test_bad_pairwise_rule_input(length, jams, message):
    with pytest.raises(core.RulesError, match=message):
        annulus.jams_allow_solution(length, jams)


# --- check odds ------------------------------------------------------------------------------


def _brute_at_least(dice, needed, sides, target):
    hits = total = 0
    for faces in itertools.product(range(1, sides + 1), repeat=dice):
        total += 1
        hits += sum(1 for f in faces if f >= target) >= needed
    return Fraction(hits, total)


@pytest.mark.parametrize("dice", range(0, 6))
@pytest.mark.parametrize("needed", range(0, 7))
def test_check_probability_matches_brute_force(dice, needed):
    assert annulus.check_probability(dice=dice, needed=needed) == _brute_at_least(
        dice, needed, 6, 4
    )


@pytest.mark.parametrize(("sides", "target"), [(4, 2), (8, 8), (3, 1), (10, 6)])
def test_check_probability_other_dice_brute_force(sides, target):
    for dice in range(4):
        for needed in range(5):
            assert annulus.check_probability(
                dice=dice, needed=needed, sides=sides, target=target
            ) == _brute_at_least(dice, needed, sides, target)


def test_check_probability_hand_worked():
    # 4 dice at 4+ (each 1/2): at least 2 is 1 - (1 + 4) / 16 = 11/16.
    assert annulus.check_probability(dice=4, needed=2) == Fraction(11, 16)
    # 3 dice needing 5: impossible; needing 0: certain.
    assert annulus.check_probability(dice=3, needed=5) == 0
    assert annulus.check_probability(dice=3, needed=0) == 1


def _icepool_at_least(dice, needed, sides, target):
    return (dice @ (icepool.d(sides) >= target)).probability(">=", needed)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 20),
    st.integers(0, 8),
    st.integers(2, 12).flatmap(lambda s: st.tuples(st.just(s), st.integers(1, s))),
)
def test_check_probability_matches_icepool(dice, needed, die):
    sides, target = die
    ours = annulus.check_probability(dice=dice, needed=needed, sides=sides, target=target)
    assert ours == _icepool_at_least(dice, needed, sides, target)


@settings(max_examples=80)
@given(st.integers(0, 20), st.integers(0, 8))
def test_check_probability_monotone(dice, needed):
    p = annulus.check_probability(dice=dice, needed=needed)
    assert 0 <= p <= 1
    assert annulus.check_probability(dice=dice + 1, needed=needed) >= p
    assert annulus.check_probability(dice=dice, needed=needed + 1) <= p
    assert annulus.check_probability(dice=dice, needed=needed, target=5) <= p


@settings(max_examples=50)
@given(st.integers(0, 20), st.integers(1, 10))
def test_successes_distribution_sums_to_one(dice, sides):
    dist = annulus.successes_distribution(dice=dice, sides=sides, target=sides)
    assert sum(dist.values()) == 1
    assert all(0 <= k <= dice for k in dist)


def test_difficulty_and_perks_move_the_odds_the_right_way():
    order = ["easy", "medium", "hard", "impossible"]
    for perks in range(0, 6):
        odds = [annulus.op_check_probability(difficulty=d, perk_dice=perks) for d in order]
        assert odds == sorted(odds, reverse=True)
        assert odds[0] > odds[-1]
    for d in order:
        odds = [annulus.op_check_probability(difficulty=d, perk_dice=p) for p in range(8)]
        assert odds == sorted(odds)


def test_op_and_challenge_check_pools_follow_the_seed():
    # Seed: the op check is "a four-die check"; other checks "are made with three dice".
    assert annulus.op_check_probability(difficulty="Medium") == _brute_at_least(4, 3, 6, 4)
    assert annulus.op_check_probability(difficulty="easy", perk_dice=2) == _brute_at_least(
        6, 2, 6, 4
    )
    assert annulus.challenge_check_probability(difficulty="HARD") == _brute_at_least(3, 4, 6, 4)
    assert annulus.challenge_check_probability(difficulty="hard", perk_dice=1) == _brute_at_least(
        4, 4, 6, 4
    )


def test_toolkit_check_probability_uses_the_ability_data():
    assert annulus.toolkit_check_probability(
        ability="calibrate", difficulty="medium"
    ) == _brute_at_least(3, 3, 6, 4)
    custom = {"toolkit": [{"name": "Crowbar", "effect": "reroll", "dice": 5, "needed": 1}]}
    assert annulus.toolkit_check_probability(
        ability="crowbar", difficulty="impossible", perk_dice=1, ruleset=custom
    ) == _brute_at_least(6, 1, 6, 4)


def test_odds_follow_the_ruleset_die():
    rules = {"check_die_sides": 8, "check_target": 7}
    assert annulus.op_check_probability(difficulty="easy", ruleset=rules) == _brute_at_least(
        4, 2, 8, 7
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dice": -1, "needed": 1}, "at least 0"),
        ({"dice": core.MAX_POOL + 1, "needed": 1}, "the most this table rolls"),
        ({"dice": 3, "needed": -1}, "at least 0"),
        ({"dice": 3, "needed": 1, "sides": 0}, "at least 1"),
        ({"dice": 3, "needed": 1, "target": 7}, "at most 6"),
        ({"dice": 3, "needed": 1, "target": 0}, "at least 1"),
        ({"dice": "3", "needed": 1}, "whole number"),
    ],
)
def test_check_probability_errors(kwargs, message):
    with pytest.raises(core.RulesError, match=message):
        annulus.check_probability(**kwargs)


def test_odds_errors():
    with pytest.raises(core.UnknownNameError, match="Unknown difficulty 'trivial'"):
        annulus.op_check_probability(difficulty="trivial")
    with pytest.raises(core.RulesError, match="at least 0"):
        annulus.challenge_check_probability(difficulty="easy", perk_dice=-1)
    with pytest.raises(core.PoolTooLargeError):
        annulus.op_check_probability(difficulty="easy", perk_dice=core.MAX_POOL)
    with pytest.raises(core.UnknownNameError, match="Unknown toolkit ability"):
        annulus.toolkit_check_probability(ability="Hammer", difficulty="easy")


# --- check rolls -------------------------------------------------------------------------------


def test_roll_check_keeps_every_die_and_counts_successes():
    rng = random.Random(7)
    for _ in range(50):
        check = annulus.roll_check(dice=3, perk_dice=2, needed=3, rng=rng)
        assert len(check.dice) == 5
        faces = [d.value for d in check.dice]
        assert check.successes == sum(f >= 4 for f in faces)
        assert check.passed == (check.successes >= 3)
        assert all(d.sides == 6 and d.rolled == d.value for d in check.dice)
        json.dumps(check.to_dict())


def test_roll_check_chi_square():
    rng = random.Random(20240601)
    samples = [annulus.roll_check(dice=5, needed=0, rng=rng).successes for _ in range(4000)]
    expected = annulus.successes_distribution(dice=5)
    assert chi_square_p_value(samples, expected) > 0.001


def test_roll_check_chi_square_other_die():
    rng = random.Random(99)
    samples = [
        annulus.roll_check(dice=3, needed=0, sides=10, target=8, rng=rng).successes
        for _ in range(3000)
    ]
    expected = annulus.successes_distribution(dice=3, sides=10, target=8)
    assert chi_square_p_value(samples, expected) > 0.001


def test_roll_check_errors():
    with pytest.raises(core.PoolTooLargeError):
        annulus.roll_check(dice=60, perk_dice=60, needed=1, rng=random.Random(1))
    with pytest.raises(core.RulesError, match="training-perk dice"):
        annulus.roll_check(dice=3, perk_dice=-1, needed=1, rng=random.Random(1))
    with pytest.raises(core.RulesError, match="at most 6"):
        annulus.roll_check(dice=3, needed=1, target=9, rng=random.Random(1))


def test_roll_check_uses_system_random_by_default():
    check = annulus.roll_check(dice=3, needed=1)
    assert len(check.dice) == 3


# --- ruleset -----------------------------------------------------------------------------------


def test_default_ruleset_is_json_and_follows_the_notes():
    rules = annulus.validate_ruleset(None)
    assert json.loads(json.dumps(annulus.DEFAULT_RULESET)) == annulus.DEFAULT_RULESET
    assert rules["difficulties"] == {"easy": 2, "medium": 3, "hard": 4, "impossible": 5}
    assert rules["challenge_types"] == ["Knowledge", "Finesse", "Force", "Perception"]
    assert (rules["check_die_sides"], rules["check_target"]) == (6, 4)
    assert (rules["challenge_check_dice"], rules["op_check_dice"]) == (3, 4)
    assert (rules["chain_length"], rules["mask_die_sides"], rules["hidden_face"]) == (6, 6, 1)
    assert {t["effect"] for t in rules["toolkit"]} == set(annulus.EFFECTS)


def test_validate_ruleset_returns_a_copy():
    rules = annulus.validate_ruleset(None)
    rules["difficulties"]["easy"] = 99
    assert annulus.validate_ruleset(None)["difficulties"]["easy"] == 2


def test_validate_ruleset_merges_over_defaults():
    rules = annulus.validate_ruleset({"chain_length": 8, "difficulties": {"Tricky": 1}})
    assert rules["chain_length"] == 8
    assert rules["difficulties"] == {"Tricky": 1}
    assert rules["op_check_dice"] == 4
    assert annulus.difficulty_needed("tricky", ruleset=rules) == 1


def test_toolkit_entries_are_normalised():
    rules = annulus.validate_ruleset({"toolkit": [{"name": "Pry", "effect": "UNJAM"}]})
    assert rules["toolkit"] == [
        {"name": "Pry", "effect": "unjam", "dice": None, "needed": None, "description": ""}
    ]
    (tool,) = annulus.toolkit_abilities(ruleset=rules)
    assert tool.name == "Pry" and tool.check_dice(rules) == 3 and tool.check_needed(4) == 4


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "must be a mapping"),
        ({"colour": 1}, "Unknown ruleset field"),
        ({"difficulties": []}, "'difficulties' must map"),
        ({"difficulties": {}}, "'difficulties' must map"),
        ({"difficulties": {"Easy": 2, "easy": 3}}, "names 'easy' twice"),
        ({"difficulties": {"easy": -1}}, "difficulty 'easy' must be at least 0"),
        ({"difficulties": {"": 2}}, "not a name"),
        ({"challenge_types": "Knowledge"}, "'challenge_types' must be a list"),
        ({"challenge_types": []}, "at least one"),
        ({"challenge_types": ["Force", "force"]}, "twice"),
        ({"challenge_types": [3]}, "not a name"),
        ({"check_die_sides": 0}, "'check_die_sides' must be at least 1"),
        ({"check_target": 7}, "'check_target' must be at most 6"),
        ({"challenge_check_dice": -1}, "'challenge_check_dice' must be at least 0"),
        ({"op_check_dice": "4"}, "'op_check_dice' must be a whole number"),
        ({"chain_length": 13}, "'chain_length' must be at most 12"),
        ({"chain_length": 0}, "'chain_length' must be at least 1"),
        ({"mask_die_sides": 0}, "'mask_die_sides' must be at least 1"),
        ({"hidden_face": 7}, "'hidden_face' must be at most 6"),
        ({"toolkit": "Calibrate"}, "'toolkit' must be a list"),
        ({"toolkit": ["Calibrate"]}, "not an ability"),
        ({"toolkit": [{"name": "X", "effect": "unjam", "uses": 1}]}, "unknown field"),
        ({"toolkit": [{"effect": "unjam"}]}, "needs a 'name'"),
        ({"toolkit": [{"name": "X", "effect": "unjam"}] * 2}, "names 'X' twice"),
        ({"toolkit": [{"name": "X", "effect": "explode"}]}, "Unknown effect"),
        ({"toolkit": [{"name": "X", "effect": "unjam", "dice": -1}]}, "at least 0"),
        ({"toolkit": [{"name": "X", "effect": "unjam", "needed": -2}]}, "at least 0"),
        ({"toolkit": [{"name": "X", "effect": "unjam", "description": 3}]}, "must be text"),
    ],
)
def test_bad_ruleset(data, message):
    with pytest.raises(core.RulesError, match=message):
        annulus.validate_ruleset(data)


def test_empty_toolkit_is_allowed():
    assert annulus.validate_ruleset({"toolkit": []})["toolkit"] == []


# --- training perks ----------------------------------------------------------------------------


def test_training_dice_match_any_type_and_take_the_larger():
    perks = {"finesse": 2, "Knowledge": 1, "Force": 3}
    assert annulus.training_dice(types="Finesse", perks=perks) == 2
    # Two-type challenge, trained in both: the larger perk (our reading, documented).
    assert annulus.training_dice(types=["Knowledge", "Finesse"], perks=perks) == 2
    assert annulus.training_dice(types=["Perception"], perks=perks) == 0
    assert annulus.training_dice(types=["Perception"], perks=None) == 0


@pytest.mark.parametrize(
    ("types", "perks", "message"),
    [
        ("Magic", {}, "Unknown challenge type"),
        (["Force", "Finesse", "Knowledge"], {}, "one or two types"),
        ([], {}, "one or two types"),
        (["Force", "force"], {}, "must be different"),
        (3, {}, "a name or a list"),
        ("Force", [("Force", 1)], "must map"),
        ("Force", {"Force": -1}, "at least 0"),
    ],
)
def test_training_dice_errors(types, perks, message):
    with pytest.raises(core.RulesError, match=message):
        annulus.training_dice(types=types, perks=perks)


def test_public_api_names_exist():
    import inspect

    assert list(inspect.signature(annulus.is_solved).parameters) == ["values"]
    assert list(inspect.signature(annulus.min_adjustments).parameters) == ["values", "jammed"]
    params = inspect.signature(annulus.check_probability).parameters
    assert [(n, p.kind, p.default) for n, p in params.items()] == [
        ("dice", inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.empty),
        ("needed", inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.empty),
        ("sides", inspect.Parameter.KEYWORD_ONLY, 6),
        ("target", inspect.Parameter.KEYWORD_ONLY, 4),
    ]
