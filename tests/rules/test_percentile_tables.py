"""Percentile (seed 004): modifier table, campaign rulesets, retries, slump/zone, plot points."""

from __future__ import annotations

import json
import random

import pytest

from rules import core
from rules import percentile as pc
from tests.rules.stats import chi_square_p_value
from tests.support.dice import dice


def result_with_total(total: int, kind_fn=pc.roll) -> pc.ManeuverResult:
    """A maneuver whose die shows 50 and whose SV makes the wanted total."""
    return kind_fn(skill_value=total - 50, rng=dice(100, 50))


# --- the modifier table --------------------------------------------------------------------------


def test_columns_read_perception_then_magic():
    # RULES-NOTES: the last two columns are Perception, Magic.
    assert pc.COLUMNS == ("Movement", "Items", "Influence", "Perception", "Magic")
    table = pc.modifier_table()
    assert "Perception, Magic" in table["note"]
    assert table["columns"] == list(pc.COLUMNS)


@pytest.mark.parametrize(
    ("condition", "column", "value"),
    [
        # Transcribed by hand from the seed's table (five numbers per row, last two read as
        # Perception, Magic).
        ("Concentrated Node", "Magic", 40),
        ("Concentrated Node", "Perception", 0),
        ("Low", "Magic", -30),
        ("High", "Magic", 20),
        ("Routine", "Influence", 30),
        ("Sheer Folly", "Movement", -50),
        ("Impossible", "Magic", -70),
        ("Lost 25-50% of Hp", "Influence", -5),
        ("Lost 25-50% of Hp", "Magic", -7),
        ("Lost 76-99% of Hp", "Magic", -40),
        ("Stunned", "Movement", -25),
        ("Stunned", "Magic", -50),
        ("Loud Noise", "Perception", -35),
        ("Loud Noise", "Magic", -10),
        ("Character Running", "Items", -40),
        ("Character Running", "Magic", -50),
        ("Inferior", "Items", -40),
        ("Inferior", "Perception", -20),
        ("Excellent", "Movement", 7),
        ("Smooth", "Magic", 10),
        ("Obstructed", "Magic", -40),
        ("Steep", "Influence", -5),
    ],
)
def test_table_entries(condition, column, value):
    assert pc.modifier(condition=condition, column=column) == value


def test_names_match_case_insensitively():
    assert pc.modifier(condition="concentrated NODE", column="magic") == 40


def test_encumbrance_uses_the_total_penalty():
    # Seed: "Total Penalty = X | X | X | 0 | 0 | X / 4"; -65 / 4 = -16.25, toward zero -16.
    values = [pc.modifier(condition="Encumbrance", column=c, total_penalty=-65) for c in pc.COLUMNS]
    assert values == [-65, -65, 0, 0, -16]
    row = pc.modifier_table()["groups"][5]["rows"][0]
    assert row["label"] == "Total Penalty = X"
    assert row["values"]["Magic"] == {"formula": "total_penalty/4"}


def test_bleeding_is_per_hit():
    # Seed: "Bleeding, per hit/round | -10 | -5 | -10 | -10 | -5".
    assert pc.modifier(condition="Bleeding", column="Movement", count=3) == -30
    assert pc.modifier(condition="Bleeding", column="Items", count=0) == 0
    with pytest.raises(core.RulesError, match="not counted per hit"):
        pc.modifier(condition="Stunned", column="Movement", count=2)


def test_table_modifiers_are_labelled():
    mods = pc.table_modifiers(
        ["Hard", ("Bleeding", 2), "Encumbrance"], column="Movement", total_penalty=-20
    )
    assert mods == (
        pc.Modifier("Hard (Movement)", -10),
        pc.Modifier("Bleeding x2 (Movement)", -20),
        pc.Modifier("Encumbrance (Movement)", -20),
    )
    assert pc.table_modifiers("Easy", column="Items") == (pc.Modifier("Easy (Items)", 20),)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"condition": "Drunk", "column": "Magic"}, core.UnknownNameError, "Unknown condition"),
        ({"condition": "Hard", "column": "Stealth"}, core.UnknownNameError, "Unknown column"),
        (
            {"condition": "Hard", "column": "Magic", "total_penalty": 10},
            core.OutOfRangeError,
            "at most 0",
        ),
        (
            {"condition": "Bleeding", "column": "Magic", "count": -1},
            core.OutOfRangeError,
            "at least 0",
        ),
        ({"condition": 3, "column": "Magic"}, core.UnknownNameError, "condition"),
    ],
)
def test_modifier_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        pc.modifier(**kwargs)


def test_campaign_overrides_and_custom_rows():
    rules = {
        "modifier_overrides": {"concentrated node": {"magic": 50}},
        "custom_modifiers": {"Fog": {"perception": -25}},
    }
    assert pc.modifier(condition="Concentrated Node", column="Magic", ruleset=rules) == 50
    assert pc.modifier(condition="Concentrated Node", column="Items", ruleset=rules) == 0
    assert pc.modifier(condition="fog", column="Perception", ruleset=rules) == -25
    assert pc.modifier(condition="fog", column="Magic", ruleset=rules) == 0
    table = pc.modifier_table(rules)
    assert table["groups"][-1]["group"] == "Campaign"
    json.dumps(table)  # JSON-ready for the UI
    assert pc.modifier(condition="Concentrated Node", column="Magic") == 40  # defaults untouched


@pytest.mark.parametrize(
    ("rules", "match"),
    [
        ({"modifier_overrides": {"Nowhere": {"Magic": 1}}}, "condition in ruleset field"),
        ({"modifier_overrides": {"Hard": {"Flying": 1}}}, "column in ruleset field"),
        ({"modifier_overrides": {"Hard": {"Magic": "x"}}}, "whole number"),
        ({"modifier_overrides": {"Hard": {"Magic": {"formula": "mana*2"}}}}, "unknown formula"),
        ({"custom_modifiers": {"Hard": {"Magic": 1}}}, "already in the table"),
        ({"custom_modifiers": {"Fog": 3}}, "must map columns"),
    ],
)
def test_bad_table_overrides(rules, match):
    with pytest.raises(core.RulesError, match=match):
        pc.validate_ruleset(rules)


# --- rulesets -------------------------------------------------------------------------------------


def test_default_ruleset_is_json_and_validates_to_itself():
    json.dumps(pc.DEFAULT_RULESET)
    normal = pc.validate_ruleset(None)
    assert normal["retry_penalty"] == -25  # seed
    assert (normal["slump_modifier"], normal["zone_modifier"]) == (-50, 50)  # seed
    assert normal["development_points_per_plot_point"] == 6  # seed
    assert normal["plot_point_cancel_seconds"] == 15  # RULES-NOTES: a default kept in data
    assert pc.validate_ruleset({"plot_point_cancel_seconds": 0})["plot_point_cancel_seconds"] == 0
    assert pc.validate_ruleset(normal) == normal


def test_ruleset_merges_one_entry():
    rules = pc.validate_ruleset({"plot_point_uses": {"clue": {"cost": 2}}})
    assert rules["plot_point_uses"]["clue"]["cost"] == 2
    assert rules["plot_point_uses"]["clue"]["gm_approval"] is True
    assert rules["plot_point_uses"]["saved_action"]["cost"] == 1
    # What callers get back is theirs to change; the defaults stay put.
    pc.plot_point_uses()["change_roll"]["cost"] = 9
    pc.validate_ruleset(None)["retry_penalty"] = 0
    assert pc.plot_point_uses()["change_roll"]["cost"] == 1
    assert pc.retry_penalty(failures=1) == -25


@pytest.mark.parametrize(
    ("rules", "match"),
    [
        ({"retry_penalty": 25}, "'retry_penalty'"),
        ({"retry_penalty": "-25"}, "'retry_penalty'"),
        ({"zone_ends_on": ["oops"]}, "band in ruleset field 'zone_ends_on'"),
        ({"zone_ends_on": "failure"}, "'zone_ends_on' must be a list"),
        ({"running_percent": {"success": 100}}, "'running_percent'"),
        ({"running_percent": {"fumble": -1}}, "'running_percent'"),
        ({"max_pace": 0}, "'max_pace'"),
        ({"plot_point_uses": {"bribe": {"text": "x"}}}, "needs a cost"),
        ({"plot_point_uses": {"change_roll": {"cost": 2}}}, "different numbers"),
        ({"plot_point_uses": {"clue": {"gm_approval": "yes"}}}, "true or false"),
        ({"development_points_per_plot_point": 0}, "development_points"),
        ({"plot_point_cancel_seconds": -1}, "'plot_point_cancel_seconds'"),
        ({"plot_point_cancel_seconds": 301}, "'plot_point_cancel_seconds'"),
        ({"retry_penalties": -25}, "Unknown ruleset field 'retry_penalties'"),
        ([("retry_penalty", -25)], "must be a mapping"),
    ],
)
def test_bad_rulesets(rules, match):
    with pytest.raises(core.RulesError, match=match):
        pc.validate_ruleset(rules)


# --- retries --------------------------------------------------------------------------------------


def test_retry_penalty_is_cumulative():
    assert pc.retry_penalty(failures=0) == 0
    assert pc.retry_penalty(failures=3) == -75  # seed: cumulative -25 per failure
    assert pc.retry_penalty(failures=2, ruleset={"retry_penalty": -10}) == -20
    with pytest.raises(core.OutOfRangeError):
        pc.retry_penalty(failures=-1)


def test_retry_attempt_tracks_failures_and_resets():
    attempt = pc.RetryAttempt("Tomalfson", "pick the vault lock")
    attempt = pc.record_attempt(attempt, result_with_total(50))  # failure
    attempt = pc.record_attempt(attempt, result_with_total(95))  # near success: try again
    assert attempt.failures == 2 and attempt.penalty() == -50
    assert pc.record_attempt(attempt, result_with_total(120)).failures == 2  # success
    again = pc.roll(skill_value=40, retry_failures=attempt.failures, rng=dice(100, 50))
    assert again.total == 50 + 40 - 50
    assert pc.RetryAttempt.from_dict(attempt.to_dict()) == attempt
    assert pc.reset_attempt(attempt).failures == 0
    with pytest.raises(core.RulesError, match="missing"):
        pc.RetryAttempt.from_dict({"task": "x"})
    with pytest.raises(core.RulesError, match="text"):
        pc.RetryAttempt(3, "x")


# --- slump and zone -------------------------------------------------------------------------------

STREAK_CASES = [
    # (state before, total, state after); bands from Chart 14.1 by hand
    ("normal", -40, "slump"),  # extraordinary failure
    ("normal", 300, "zone"),  # extraordinary success
    ("normal", 50, "normal"),
    ("slump", 105, "slump"),  # unrelated success "fails at the intended effect"
    ("slump", 95, "slump"),  # near success is not a full success
    ("slump", 120, "normal"),  # success
    ("slump", 200, "normal"),  # critical success
    ("slump", 300, "zone"),  # extraordinary success ends the slump and starts the zone
    ("zone", 85, "zone"),  # partial success is not a failure
    ("zone", 105, "zone"),
    ("zone", 50, "normal"),  # failure
    ("zone", 0, "normal"),  # fumble
    ("zone", -40, "slump"),  # extraordinary failure
    ("slump", -40, "slump"),
]


@pytest.mark.parametrize(("before", "total", "after"), STREAK_CASES)
def test_slump_and_zone(before, total, after):
    streak = pc.SkillStreak("Tomalfson", "Climbing", before)
    new, change = pc.record_streak(streak, result_with_total(total))
    assert new.state == after
    assert (change.before, change.after, change.changed) == (before, after, before != after)
    assert streak.state == before  # immutable


def test_streak_modifier_applies_to_rolls():
    slump = pc.SkillStreak("Tomalfson", "Climbing", "slump")
    assert slump.modifier() == -50
    result = pc.roll(skill_value=40, condition=slump, rng=dice(100, 50))
    assert (result.condition, result.condition_modifier, result.total) == ("slump", -50, 40)
    zone = pc.SkillStreak.from_dict({"character": "T", "skill": "Climbing", "state": "ZONE"})
    assert zone.state == "zone" and zone.modifier() == 50
    assert pc.SkillStreak.from_dict(zone.to_dict()) == zone
    assert pc.roll(skill_value=0, condition="normal", rng=dice(100, 50)).condition is None


def test_streak_ruleset_can_end_zone_on_near_success():
    rules = {"zone_ends_on": ["near_success", "failure", "fumble", "extraordinary_failure"]}
    zone = pc.SkillStreak("T", "Climbing", "zone")
    assert pc.record_streak(zone, result_with_total(95), ruleset=rules)[0].state == "normal"


def test_streak_errors():
    with pytest.raises(core.UnknownNameError, match="streak state"):
        pc.SkillStreak("T", "Climbing", "hot")
    with pytest.raises(core.RulesError, match="lacks its character"):
        pc.SkillStreak.from_dict({"state": "zone"})
    poison = pc.potency_roll(potency=300, resistance=0, rng=dice(100, 50))
    with pytest.raises(core.IllegalMoveError, match="not the character's own action"):
        pc.record_streak(pc.SkillStreak("T", "Resist"), poison)


# --- plot points ----------------------------------------------------------------------------------


def test_spending_reduces_available_not_total():
    points = pc.PlotPoints(available=2, total=3)
    points, spend = pc.spend_plot_points(points, use="change_roll")
    assert (points.available, points.total) == (1, 3)
    assert (spend.use, spend.points) == ("change_roll", 1)
    points, spend = pc.spend_plot_points(points, use="saved_action")
    assert (points.available, points.total) == (0, 3)


def test_overdraw_is_refused():
    with pytest.raises(core.IllegalMoveError) as info:
        pc.spend_plot_points(pc.PlotPoints(0, 2), use="change_roll")
    assert str(info.value) == "Not enough plot points: you have 0 and this costs 1."
    with pytest.raises(core.IllegalMoveError, match="you have 1 and this costs 2"):
        pc.spend_plot_points(pc.PlotPoints(1, 2), use="undo_wound")


def test_narrative_uses_need_the_gm():
    points = pc.PlotPoints(5, 5)
    with pytest.raises(core.IllegalMoveError, match="The GM must agree"):
        pc.spend_plot_points(points, use="clue")
    with pytest.raises(core.IllegalMoveError, match="The GM must agree"):
        pc.spend_plot_points(points, use="coincidence")
    after, spend = pc.spend_plot_points(points, use="clue", cost=3, gm_approved=True)
    assert (after.available, spend.points, spend.gm_approved) == (2, 3, True)
    after, spend = pc.spend_plot_points(points, use="Coincidence", gm_approved=True)
    assert spend.points == 1  # default when the GM names no cost
    # Wounds are the player's to claim (the seed attaches no GM condition).
    assert pc.spend_plot_points(points, use="lessen_wound")[0].available == 4
    assert pc.spend_plot_points(points, use="undo_wound")[0].available == 3
    with pytest.raises(core.OutOfRangeError):
        pc.spend_plot_points(points, use="clue", cost=0, gm_approved=True)
    with pytest.raises(core.RulesError, match="costs 2 plot point"):
        pc.spend_plot_points(points, use="undo_wound", cost=1)
    with pytest.raises(core.UnknownNameError, match="plot point use"):
        pc.spend_plot_points(points, use="teleport")


def test_cancel_costs_the_same_amount():
    theirs = pc.PlotPoints(3, 3)
    theirs, spend = pc.spend_plot_points(theirs, use="undo_wound")
    mine, cancel = pc.cancel_plot_point_spend(pc.PlotPoints(2, 4), spend=spend)
    assert (mine.available, mine.total) == (0, 4)
    assert (cancel.use, cancel.points, cancel.cancels) == ("cancel", 2, "undo_wound")
    assert theirs.available == 1  # spent points never return
    with pytest.raises(core.IllegalMoveError, match="you have 1 and this costs 2"):
        pc.cancel_plot_point_spend(pc.PlotPoints(1, 1), spend=spend.to_dict())
    with pytest.raises(core.RulesError, match="needs its use"):
        pc.cancel_plot_point_spend(pc.PlotPoints(1, 1), spend={"use": "clue"})
    with pytest.raises(core.OutOfRangeError, match="at least 1"):
        pc.cancel_plot_point_spend(pc.PlotPoints(1, 1), spend={"use": "clue", "points": 0})


def test_development_points_buy_plot_points():
    points = pc.gain_development_points(pc.PlotPoints(0, 1), count=13)
    points = pc.buy_plot_points(points, count=2)  # 6 development points each (seed)
    assert (points.available, points.total, points.development_points) == (2, 3, 1)
    with pytest.raises(core.IllegalMoveError, match="you have 1 and 1 plot point"):
        pc.buy_plot_points(points)
    assert pc.award_plot_points(points, count=2) == pc.PlotPoints(4, 5, 1)


def test_plot_points_round_trip_and_validation():
    points = pc.PlotPoints(1, 3, 4)
    assert pc.PlotPoints.from_dict(points.to_dict()) == points
    with pytest.raises(core.OutOfRangeError, match="at most 3"):
        pc.PlotPoints(4, 3)
    with pytest.raises(core.RulesError, match="need 'available'"):
        pc.PlotPoints.from_dict({"total": 3})
    with pytest.raises(core.RulesError):
        pc.spend_plot_points({"available": 1, "total": 1}, use="change_roll")


def test_change_roll_one_point():
    original = pc.roll(skill_value=30, modifiers=[("Hard", -10)], rng=dice(100, 3, 50))
    assert original.total == 3 - 50 + 20
    changed = pc.change_roll(original, new_value=95, points=1)
    assert [d.face for d in changed.roll.dice] == [95]
    assert changed.roll.dice[0].chosen
    assert (changed.total, changed.band, changed.mm) == (115, "success", 100)
    assert changed.plot_points_spent == 1 and changed.original_roll == original.roll
    assert changed.modifiers == original.modifiers
    assert pc.ManeuverResult.from_dict(changed.to_dict()) == changed
    for bad in (5, 96):
        with pytest.raises(core.OutOfRangeError, match="For 1 plot point"):
            pc.change_roll(original, new_value=bad, points=1)
    with pytest.raises(core.RulesError, match="costs 1 plot point"):
        pc.change_roll(original, new_value=50, points=3)
    with pytest.raises(core.RulesError, match="Only a maneuver"):
        pc.change_roll(original.to_dict(), new_value=50, points=1)


def test_change_roll_two_points_goes_open_ended():
    original = pc.roll(skill_value=20, rng=dice(100, 40))
    up = pc.change_roll(original, new_value=100, points=2, rng=dice(100, 97, 30))
    assert [d.face for d in up.roll.dice] == [100, 97, 30]
    assert up.total == 100 + 97 + 30 + 20
    down = pc.change_roll(up, new_value=1, points=2, rng=dice(100, 99, 10))
    assert down.total == 1 - 109 + 20
    assert down.band == "extraordinary_failure"
    assert (down.plot_points_spent, down.original_roll) == (4, original.roll)
    plain = pc.change_roll(
        original,
        new_value=50,
        points=2,
        rng=dice(
            100,
        ),
    )
    assert plain.total == 70
    assert pc.change_roll(original, new_value=5, points=2, rng=dice(100, 20)).total == 5


@pytest.mark.parametrize(("value", "seed"), [(97, 11), (3, 12)])
def test_change_roll_continuation_frequencies(value, seed):
    rng = random.Random(seed)
    original = pc.roll(skill_value=60, rng=dice(100, 50))
    samples = [
        pc.change_roll(original, new_value=value, points=2, rng=rng).band for _ in range(4000)
    ]
    expected = pc.change_roll_distribution(new_value=value, modifier=60)
    assert chi_square_p_value(samples, expected) > 0.001
