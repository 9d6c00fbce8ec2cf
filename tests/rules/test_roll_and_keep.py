"""Roll and keep (seed 001): keep counts, ruleset, rolls, opposed actions, extended actions.

Odds (brute force, icepool, Hypothesis, chi-square) are in test_roll_and_keep_odds.py.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import core
from rules import roll_and_keep as rk

# The seed's example character: "3 black mana and 2 blue mana".
SEED_MANA = {"Black": 3, "Blue": 2}


# --- the seed's worked example ----------------------------------------------------------------


def test_seed_example_lie_keeps_four():
    # "roll his Cunning stat + 1 for the Deceit speciality, and keep 4 dice (3 Black mana + 1)"
    assert rk.keep_count(attribute="Cunning", mana=SEED_MANA, specialities=1) == 4


def test_seed_example_enchantment_text_keeps_two():
    # "just roll his Intelligence stat (with no bonus dice), and keep 2 dice (2 Blue mana)"
    assert rk.keep_count(attribute="Intelligence", mana=SEED_MANA) == 2


def test_seed_example_resist_fire_keeps_two():
    # "5 total mana divided by the 3 colours he doesn't have, rounded down to 1, +1"
    assert rk.keep_count(attribute="Endurance", mana=SEED_MANA, specialities=1) == 2


def test_seed_example_staff_strike_keeps_one():
    # "roll his basic Strength dice and keep 1": 5 // 3 = 1, no speciality
    assert rk.keep_count(attribute="Strength", mana=SEED_MANA) == 1


def test_seed_example_as_dice_pools():
    # Cunning 3 + Deceit: roll 4, keep 4. Endurance 2 + Elemental Damage: roll 3, keep 2.
    lie = rk.dice_pool(attribute="cunning", attribute_value=3, mana=SEED_MANA, specialities=1)
    assert (lie.rolled, lie.kept, lie.keep_count) == (4, 4, 4)
    fire = rk.dice_pool(attribute="Endurance", attribute_value=2, mana=SEED_MANA, specialities=1)
    assert (fire.rolled, fire.kept) == (3, 2)


def test_seed_race_example_second_character_wins_by_one():
    # Endurance 3 rolls 3 dice; Endurance 5 + long-distance running rolls 6; difficulty 7.
    # "The first character gets 2 kept successes, the second character 3 … wins … by 1".
    first = rk.score_dice(faces=[8, 7, 2], kept=3, difficulty=7)
    second = rk.score_dice(faces=[9, 1, 7, 10, 3, 5], kept=3, difficulty=7)
    assert (first.successes, second.successes) == (2, 3)
    contest = rk.resolve_directly_opposed(own=first, opponent=second)
    assert contest.net == -1
    assert contest.winner == "opponent"
    assert contest.margin == 1
    back = rk.resolve_directly_opposed(own=second, opponent=first)
    assert (back.net, back.winner, back.margin) == (1, "own", 1)


def test_seed_race_rolls_three_and_six_dice():
    contest = rk.roll_directly_opposed(
        attribute_value=3,
        kept=2,
        opponent_attribute_value=5,
        opponent_specialities=1,
        opponent_kept=3,
        difficulty=7,
        rng=random.Random(7),
    )
    assert len(contest.own.dice) == 3
    assert len(contest.opponent.dice) == 6
    assert sum(d.kept for d in contest.opponent.dice) == 3
    assert contest.net == contest.own.successes - contest.opponent.successes


def test_seed_indirectly_opposed_examples():
    # "Finesse 5 … Acuity 2 would roll 5 dice at a difficulty of 2"
    assert rk.indirect_difficulty(passive_attribute_value=2) == 2
    # "Acuity 4 and an Acute Hearing speciality, it would have a difficulty of 5"
    assert rk.indirect_difficulty(passive_attribute_value=4, passive_specialities=1) == 5
    result = rk.roll_indirectly_opposed(
        attribute_value=5, kept=5, passive_attribute_value=2, rng=random.Random(3)
    )
    assert (result.rolled, result.difficulty) == (5, 2)
    assert result.successes == sum(1 for d in result.dice if d.value >= 2)


def test_tie_has_no_winner():
    a = rk.score_dice(faces=[7, 2], kept=2, difficulty=6)
    b = rk.score_dice(faces=[9, 1, 1], kept=1, difficulty=6)
    contest = rk.resolve_directly_opposed(own=a, opponent=b)
    assert (contest.net, contest.winner, contest.margin) == (0, None, 0)


# --- keep_count rules ----------------------------------------------------------------------------


def test_several_linked_colours_take_the_largest():
    links = {"Cunning": ["Black", "Blue"]}
    assert rk.keep_count(attribute="Cunning", mana=SEED_MANA, links=links) == 3
    assert rk.keep_count(attribute="Cunning", mana={"Blue": 2, "Red": 4}, links=links) == 2


def test_linked_colour_without_mana_falls_back_to_division():
    # Red 4, Green 2: 6 total over 3 colours without mana = 2
    assert rk.keep_count(attribute="Cunning", mana={"Red": 4, "Green": 2}) == 2


def test_every_colour_owned_divides_by_at_least_one():
    mana = dict.fromkeys(["White", "Blue", "Black", "Red", "Green"], 1)
    assert rk.keep_count(attribute="Strength", mana=mana, links={"Strength": []}) == 5


def test_no_mana_keeps_one_plus_specialities():
    assert rk.keep_count(attribute="Acuity", mana={}) == 1
    assert rk.keep_count(attribute="Acuity", mana={}, specialities=2) == 3


def test_names_match_case_insensitively():
    assert rk.keep_count(attribute="cUNNING", mana={"black": 3}) == 3


def test_custom_links_can_name_a_new_attribute():
    assert rk.keep_count(attribute="Luck", mana={"Green": 2}, links={"luck": "green"}) == 2


def test_custom_ruleset_colours_and_links():
    ruleset = {
        "colours": ["Gold", "Silver"],
        "attributes": ["Cunning"],
        "links": {"Cunning": "Silver"},
    }
    assert rk.keep_count(attribute="Cunning", mana={"Silver": 4}, ruleset=ruleset) == 4
    # 3 total mana over the 1 colour without mana
    assert rk.keep_count(attribute="Cunning", mana={"Gold": 3}, ruleset=ruleset) == 3


def test_cap_kept_never_exceeds_rolled():
    assert rk.cap_kept(rolled=3, kept=5) == 3
    assert rk.cap_kept(rolled=0, kept=4) == 0
    assert rk.cap_kept(rolled=6, kept=2) == 2
    pool = rk.dice_pool(attribute="Cunning", attribute_value=2, mana={"Black": 5})
    assert (pool.rolled, pool.kept, pool.keep_count) == (2, 2, 5)
    empty = rk.dice_pool(attribute="Cunning", attribute_value=0, mana={"Black": 5})
    assert (empty.rolled, empty.kept) == (0, 0)


@given(
    mana=st.dictionaries(
        st.sampled_from(["White", "Blue", "Black", "Red", "Green"]), st.integers(0, 12)
    ),
    attribute=st.sampled_from(rk.DEFAULT_RULESET["attributes"]),
    specialities=st.integers(0, 4),
)
@settings(max_examples=150, deadline=None)
def test_keep_count_properties(mana, attribute, specialities):
    k = rk.keep_count(attribute=attribute, mana=mana, specialities=specialities)
    assert k >= 1 + specialities
    (colour,) = rk.DEFAULT_RULESET["links"][attribute]
    if mana.get(colour, 0) > 0:
        assert k == mana[colour] + specialities
    else:
        assert k - specialities <= max(1, sum(mana.values()))


# --- difficulty and degrees -------------------------------------------------------------------


def test_difficulty_ladder_from_the_seed():
    ladder = {
        "Easy": 3,
        "Routine": 4,
        "Straightforward": 5,
        "Standard": 6,
        "Challenging": 7,
        "Difficult": 8,
        "Extremely difficult": 9,
        "Virtually impossible": 10,
    }
    for name, number in ladder.items():
        assert rk.difficulty_value(name) == number
        assert rk.difficulty_value(name.upper()) == number
    assert rk.difficulty_value(4) == 4


def test_degree_names_from_the_seed():
    names = {1: "Marginal", 2: "Moderate", 3: "Complete", 4: "Exceptional", 5: "Phenomenal"}
    for successes, name in names.items():
        assert rk.degree_name(successes) == name
    assert rk.degree_name(9) == "Phenomenal"
    assert rk.degree_name(0) == "Failure"
    assert rk.degree_name(0, botch=True) == "Botch"


def test_custom_ladder_and_degrees():
    ruleset = {"difficulties": {"Trivial": 2}, "degrees": ["Fine", "Great"]}
    assert rk.difficulty_value("trivial", ruleset=ruleset) == 2
    assert rk.degree_name(7, ruleset=ruleset) == "Great"
    result = rk.score_dice(faces=[2, 2], kept=1, difficulty="Trivial", ruleset=ruleset)
    assert (result.successes, result.degree) == (1, "Fine")
    with pytest.raises(core.UnknownNameError):
        rk.difficulty_value("Easy", ruleset=ruleset)


# --- reading and rolling dice -----------------------------------------------------------------


def test_score_dice_keeps_the_highest_and_flags_every_die():
    result = rk.score_dice(faces=[3, 9, 1, 6, 9], kept=2, difficulty="Standard")
    assert [d.value for d in result.dice] == [3, 9, 1, 6, 9]
    assert [d.kept for d in result.dice] == [False, True, False, False, True]
    assert (result.rolled, result.kept, result.successes) == (5, 2, 2)
    assert (result.degree, result.botch, result.succeeded) == ("Moderate", False, True)


def test_dropped_success_does_not_count():
    # keep 1 of [7, 8] at difficulty 8: the kept 8 is the only success
    result = rk.score_dice(faces=[7, 8], kept=1, difficulty=8)
    assert result.successes == 1
    assert [d.kept for d in result.dice] == [False, True]


def test_botch_counts_a_dropped_one():
    # "roll a 1 with no accompanying successes": the 1 here is dropped, still a botch
    result = rk.score_dice(faces=[5, 1], kept=1, difficulty=6)
    assert (result.successes, result.botch, result.degree) == (0, True, "Botch")
    plain = rk.score_dice(faces=[5, 2], kept=1, difficulty=6)
    assert (plain.botch, plain.degree) == (False, "Failure")
    saved = rk.score_dice(faces=[6, 1], kept=1, difficulty=6)
    assert (saved.successes, saved.botch) == (1, False)


def test_equal_to_difficulty_succeeds():
    assert rk.score_dice(faces=[6], kept=1, difficulty=6).successes == 1
    assert rk.score_dice(faces=[5], kept=1, difficulty=6).successes == 0


def test_roll_keeps_k_highest_of_n():
    rng = random.Random(11)
    for _ in range(200):
        result = rk.roll(attribute_value=4, specialities=1, kept=2, difficulty=6, rng=rng)
        assert result.rolled == 5 and len(result.dice) == 5
        kept = sorted((d.value for d in result.dice if d.kept), reverse=True)
        assert kept == sorted((d.value for d in result.dice), reverse=True)[:2]
        assert result.successes == sum(v >= 6 for v in kept)
        assert all(d.sides == 10 and 1 <= d.value <= 10 for d in result.dice)


def test_roll_caps_kept_and_handles_empty_pool():
    result = rk.roll(attribute_value=2, kept=5, difficulty=3, rng=random.Random(1))
    assert result.kept == 2 and all(d.kept for d in result.dice)
    empty = rk.roll(attribute_value=0, kept=3, difficulty=3, rng=random.Random(1))
    assert (empty.dice, empty.kept, empty.successes, empty.botch) == ((), 0, 0, False)


def test_roll_with_seeded_rng_is_reproducible_and_json_ready():
    a = rk.roll(attribute_value=6, kept=3, difficulty="Difficult", rng=random.Random(5))
    b = rk.roll(attribute_value=6, kept=3, difficulty="Difficult", rng=random.Random(5))
    assert a == b
    data = json.loads(json.dumps(a.to_dict()))
    assert data["difficulty"] == 8
    assert [d["kept"] for d in data["dice"]].count(True) == 3


def test_roll_defaults_to_system_random():
    result = rk.roll(attribute_value=3, kept=1, difficulty=5)
    assert len(result.dice) == 3


def test_indirect_difficulty_over_ten_allows_no_success():
    # Acuity 9 + 2 specialities: difficulty 11, a d10 can't meet it
    result = rk.roll_indirectly_opposed(
        attribute_value=8,
        kept=8,
        passive_attribute_value=9,
        passive_specialities=2,
        rng=random.Random(2),
    )
    assert (result.difficulty, result.successes) == (11, 0)
    assert result.botch == any(d.value == 1 for d in result.dice)
    odds = rk.indirect_odds(rolled=8, kept=8, passive_attribute_value=9, passive_specialities=2)
    assert odds.at_least_one_success == 0
    assert odds.botch == 1 - Fraction(9, 10) ** 8


# --- extended actions -------------------------------------------------------------------------


def test_extended_action_accumulates_to_target():
    action = rk.ExtendedAction(target=5)
    assert (action.accumulated, action.status, action.finished) == (0, "in_progress", False)
    action = action.add_round(2)
    assert (action.accumulated, action.remaining, action.finished) == (2, 3, False)
    roll_result = rk.score_dice(faces=[9, 9, 8, 1], kept=3, difficulty=8)
    done = action.add_round(roll_result)
    assert (done.accumulated, done.succeeded, done.failed, done.remaining) == (5, True, False, 0)
    assert done.last_round == rk.ExtendedRound(successes=3, botch=False)
    assert action.accumulated == 2  # the old object is unchanged
    with pytest.raises(core.IllegalMoveError, match="already succeeded"):
        done.add_round(1)


def test_extended_action_fails_under_the_minimum():
    action = rk.ExtendedAction(target=6, minimum=2).add_round(3)
    failed = action.add_round(rk.score_dice(faces=[1, 4], kept=2, difficulty=5))
    assert failed.status == rk.ExtendedStatus.FAILED
    assert failed.failed and failed.finished and not failed.succeeded
    assert failed.accumulated == 3
    assert failed.last_round == rk.ExtendedRound(successes=0, botch=True)
    with pytest.raises(core.IllegalMoveError, match="already failed"):
        failed.add_round(4)


def test_extended_round_under_minimum_fails_even_if_it_would_reach_target():
    action = rk.ExtendedAction(target=4, minimum=2).add_round(3).add_round(1)
    assert (action.status, action.accumulated) == ("failed", 3)


def test_extended_action_round_trips_through_json():
    action = rk.ExtendedAction(target=7, minimum=1).add_round(2).add_round(3)
    data = json.loads(json.dumps(action.to_dict()))
    assert data["accumulated"] == 5 and data["status"] == "in_progress"
    again = rk.ExtendedAction.from_dict(data)
    assert again == action
    assert again.add_round(2).succeeded


@given(
    target=st.integers(1, 12),
    minimum=st.none() | st.integers(0, 3),
    rounds=st.lists(st.integers(0, 6), max_size=8),
)
@settings(max_examples=100, deadline=None)
def test_extended_action_properties(target, minimum, rounds):
    action = rk.ExtendedAction(target=target, minimum=minimum)
    for successes in rounds:
        if action.finished:
            break
        action = action.add_round(successes)
    assert rk.ExtendedAction.from_dict(action.to_dict()) == action
    # the rule replayed by hand: a round under the minimum fails without counting
    total, status = 0, "in_progress"
    for successes in rounds:
        if status != "in_progress":
            break
        if minimum is not None and successes < minimum:
            status = "failed"
        else:
            total += successes
            status = "succeeded" if total >= target else status
    assert (action.accumulated, action.status) == (total, status)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({}, "target"),
        ([], "target"),
        ({"target": 0}, "at least 1"),
        ({"target": 3, "minimum": -1}, "at least 0"),
        ({"target": 3, "rounds": "abc"}, "must be a list"),
        ({"target": 3, "rounds": [{"botch": True}]}, "successes"),
        ({"target": 3, "rounds": [{"successes": 1, "botch": "no"}]}, "true or false"),
        ({"target": 3, "rounds": [{"successes": -1}]}, "at least 0"),
        ({"target": 3, "rounds": [{"successes": 1}], "accumulated": 2}, "disagree"),
        ({"target": 3, "rounds": [{"successes": 3}], "status": "failed"}, "disagrees"),
        ({"target": 1, "rounds": [{"successes": 1}, {"successes": 1}]}, "already succeeded"),
    ],
)
def test_extended_action_from_bad_dict(data, match):
    with pytest.raises(core.RulesError, match=match):
        rk.ExtendedAction.from_dict(data)


def test_extended_action_bad_rounds():
    with pytest.raises(core.RulesError, match="at least 0"):
        rk.ExtendedAction(target=3).add_round(-2)
    with pytest.raises(core.RulesError, match="whole number"):
        rk.ExtendedAction(target=3).add_round(True)
    with pytest.raises(core.RulesError, match="tuple of rounds"):
        rk.ExtendedAction(target=3, rounds=[1, 2])


# --- ruleset ----------------------------------------------------------------------------------


def test_default_ruleset_is_valid_json_data():
    ruleset = rk.validate_ruleset(None)
    assert ruleset["colours"] == ["White", "Blue", "Black", "Red", "Green"]
    assert ruleset["links"]["Finesse"] == ["Black"]
    assert ruleset["links"]["Acuity"] == ["Blue"]
    assert json.loads(json.dumps(rk.DEFAULT_RULESET)) == rk.DEFAULT_RULESET


def test_validate_ruleset_merges_and_normalises():
    ruleset = rk.validate_ruleset({"links": {"cunning": ["black", "BLUE"], "Strength": "red"}})
    assert ruleset["links"] == {"Cunning": ["Black", "Blue"], "Strength": ["Red"]}
    assert ruleset["difficulties"]["Easy"] == 3


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ("colours", "mapping of fields"),
        ({"dice": 12}, "Unknown ruleset field"),
        ({"colours": "Black"}, "'colours' must be a list"),
        ({"colours": []}, "at least one"),
        ({"colours": ["Black", "black"]}, "twice"),
        ({"attributes": ["Cunning", 3]}, "must be text"),
        ({"links": {"Cunning": "Purple"}}, "Unknown colour"),
        ({"links": {"Luck": "Black"}}, "Unknown attribute"),
        ({"links": ["Cunning"]}, "must map each attribute"),
        ({"links": {"Cunning": 3}}, "colour or a list"),
        ({"links": {"Cunning": "Black", "cunning": "Blue"}}, "twice"),
        ({"colours": ["White", "Blue"]}, "Unknown colour"),
        ({"difficulties": {"Easy": 11}}, "at most 10"),
        ({"difficulties": {"Easy": "3"}}, "whole number"),
        ({"difficulties": {}}, "difficulties"),
        ({"degrees": []}, "at least one"),
    ],
)
def test_validate_ruleset_rejects_bad_fields(data, match):
    with pytest.raises(core.RulesError, match=match):
        rk.validate_ruleset(data)


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"attribute": "Luck", "mana": {}}, core.UnknownNameError, "Unknown attribute"),
        ({"attribute": 5, "mana": {}}, core.UnknownNameError, "Unknown attribute"),
        ({"attribute": "Cunning", "mana": {"Purple": 1}}, core.UnknownNameError, "colour"),
        ({"attribute": "Cunning", "mana": {"Black": -1}}, core.OutOfRangeError, "at least 0"),
        ({"attribute": "Cunning", "mana": {"Black": 1.5}}, core.RulesError, "whole number"),
        ({"attribute": "Cunning", "mana": [3]}, core.RulesError, "Mana must map"),
        ({"attribute": "Cunning", "mana": {"Black": 1, "black": 2}}, core.RulesError, "twice"),
        (
            {"attribute": "Cunning", "mana": {}, "specialities": -1},
            core.OutOfRangeError,
            "specialities",
        ),
        (
            {"attribute": "Cunning", "mana": {}, "links": {"Cunning": "Purple"}},
            core.UnknownNameError,
            "colour",
        ),
        ({"attribute": "Cunning", "mana": {}, "links": "Black"}, core.RulesError, "must map"),
    ],
)
def test_keep_count_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        rk.keep_count(**kwargs)


@pytest.mark.parametrize(
    ("difficulty", "error", "match"),
    [
        (0, core.OutOfRangeError, "at least 1"),
        (11, core.OutOfRangeError, "at most 10"),
        ("Impossible", core.UnknownNameError, "Unknown difficulty"),
        (True, core.RulesError, "number from 1 to 10"),
        (6.0, core.RulesError, "number from 1 to 10"),
        (None, core.RulesError, "number from 1 to 10"),
    ],
)
def test_bad_difficulty(difficulty, error, match):
    with pytest.raises(error, match=match):
        rk.difficulty_value(difficulty)
    with pytest.raises(error, match=match):
        rk.roll(attribute_value=2, kept=1, difficulty=difficulty, rng=random.Random(0))
    with pytest.raises(error, match=match):
        rk.success_distribution(rolled=2, kept=1, difficulty=difficulty)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"attribute_value": -1, "kept": 1}, core.OutOfRangeError, "attribute value"),
        ({"attribute_value": 2, "specialities": -1, "kept": 1}, core.OutOfRangeError, "special"),
        ({"attribute_value": 2, "kept": -1}, core.OutOfRangeError, "kept"),
        ({"attribute_value": "3", "kept": 1}, core.RulesError, "whole number"),
        ({"attribute_value": 100, "specialities": 1, "kept": 1}, core.PoolTooLargeError, "most"),
    ],
)
def test_roll_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        rk.roll(difficulty=5, rng=random.Random(0), **kwargs)


def test_odds_errors():
    with pytest.raises(core.PoolTooLargeError):
        rk.success_distribution(rolled=core.MAX_POOL + 1, kept=1, difficulty=5)
    with pytest.raises(core.OutOfRangeError):
        rk.botch_probability(rolled=-1, kept=1, difficulty=5)
    with pytest.raises(core.OutOfRangeError):
        rk.odds(rolled=3, kept=-1, difficulty=5)
    with pytest.raises(core.RulesError):
        rk.direct_contest_odds(rolled=3, kept=1, opponent_rolled=3, opponent_kept="2", difficulty=5)
    with pytest.raises(core.OutOfRangeError, match="opponent"):
        rk.direct_contest_distribution(
            rolled=3, kept=1, opponent_rolled=-3, opponent_kept=2, difficulty=5
        )
    with pytest.raises(core.OutOfRangeError, match="passive"):
        rk.indirect_odds(rolled=3, kept=1, passive_attribute_value=-1)
    with pytest.raises(core.OutOfRangeError, match="passive"):
        rk.indirect_difficulty(passive_attribute_value=2, passive_specialities=-1)
    with pytest.raises(core.OutOfRangeError):
        rk.cap_kept(rolled=2, kept=-1)
    with pytest.raises(core.OutOfRangeError, match="opponent"):
        rk.roll_directly_opposed(
            attribute_value=2,
            kept=1,
            opponent_attribute_value=-2,
            opponent_kept=1,
            difficulty=5,
            rng=random.Random(0),
        )


def test_score_dice_errors():
    with pytest.raises(core.OutOfRangeError, match="face"):
        rk.score_dice(faces=[0, 5], kept=1, difficulty=5)
    with pytest.raises(core.OutOfRangeError, match="face"):
        rk.score_dice(faces=[11], kept=1, difficulty=5)
    with pytest.raises(core.RulesError, match="list of d10 faces"):
        rk.score_dice(faces="55", kept=1, difficulty=5)
    with pytest.raises(core.OutOfRangeError, match="kept"):
        rk.score_dice(faces=[5], kept=-1, difficulty=5)
    with pytest.raises(core.PoolTooLargeError):
        rk.score_dice(faces=[5] * (core.MAX_POOL + 1), kept=1, difficulty=5)


def test_resolve_directly_opposed_errors():
    a = rk.score_dice(faces=[7], kept=1, difficulty=6)
    b = rk.score_dice(faces=[7], kept=1, difficulty=7)
    with pytest.raises(core.RulesError, match="same difficulty"):
        rk.resolve_directly_opposed(own=a, opponent=b)
    with pytest.raises(core.RulesError, match="opponent roll must be a roll result"):
        rk.resolve_directly_opposed(own=a, opponent=3)


def test_degree_name_errors():
    with pytest.raises(core.OutOfRangeError):
        rk.degree_name(-1)
