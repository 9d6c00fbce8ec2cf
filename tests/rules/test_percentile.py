"""Percentile (seed 004): Chart 14.1, exact open-ended odds, the roll functions, running."""

from __future__ import annotations

import copy
import random
import time
from fractions import Fraction
from functools import cache

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import core
from rules import percentile as pc
from tests.rules.stats import chi_square_p_value
from tests.support.dice import dice

N_ROLLS = 3000


# --- Chart 14.1 -----------------------------------------------------------------------------------

# Every edge of Chart 14.1, transcribed by hand from the seed (MM percent / SM outcome) and the
# RULES-NOTES edges (<= -26 Extraordinary Failure, -25..05 Fumble).
CHART_EDGES = [
    (-10_000, "extraordinary_failure", None),
    (-26, "extraordinary_failure", None),
    (-25, "fumble", None),
    (5, "fumble", None),
    (6, "failure", 0),
    (15, "failure", 0),
    (16, "failure", 10),
    (25, "failure", 10),
    (26, "failure", 20),
    (40, "failure", 20),
    (41, "failure", 30),
    (55, "failure", 30),
    (56, "failure", 40),
    (65, "failure", 40),
    (66, "failure", 50),
    (75, "failure", 50),
    (76, "failure", 60),
    (80, "failure", 60),
    (81, "partial_success", 70),
    (85, "partial_success", 70),
    (86, "partial_success", 80),
    (90, "partial_success", 80),
    (91, "near_success", 90),
    (100, "near_success", 90),
    (101, "unrelated_success", None),
    (110, "unrelated_success", None),
    (111, "success", 100),
    (130, "success", 100),
    (131, "success", 110),
    (160, "success", 110),
    (161, "success", 120),
    (175, "success", 120),
    (176, "critical_success", None),
    (250, "critical_success", None),
    (251, "extraordinary_success", None),
    (10_000, "extraordinary_success", None),
]


@pytest.mark.parametrize(("total", "band", "mm"), CHART_EDGES)
def test_chart_edges(total, band, mm):
    row = pc.chart(total)
    assert (row.band, row.mm, row.sm) == (band, mm, band)
    assert row.to_dict()["band"] == band


def test_chart_labels_are_the_seeds_words():
    assert pc.chart(85).label == "Partial Success"
    assert pc.chart(105).label == "Unrelated Success"
    assert pc.chart(300).label == "Extraordinary Success"


@pytest.mark.parametrize("bad", [31.0, "31", True, None])
def test_chart_rejects_non_integers(bad):
    with pytest.raises(core.RulesError, match="whole number"):
        pc.chart(bad)


@given(st.integers(-400, 400), st.integers(-400, 400))
@settings(max_examples=200)
def test_chart_is_monotone(a, b):
    low, high = sorted((a, b))
    ra, rb = pc.chart(low), pc.chart(high)
    assert pc.BANDS.index(ra.band) <= pc.BANDS.index(rb.band)
    if ra.mm is not None and rb.mm is not None:
        assert ra.mm <= rb.mm


# --- exact odds -----------------------------------------------------------------------------------


def test_band_distribution_at_zero_by_hand():
    dist = pc.band_distribution(modifier=0)
    # Worked by hand: Extraordinary Failure needs a first die d = 1..5 and then U >= d + 26,
    # i.e. (100 - (d + 25)) / 100 of the second die; sum over d: (74+73+72+71+70)/100/100.
    assert dist["extraordinary_failure"] == Fraction(360, 10_000)
    # Fumble is the rest of the 01-05 chains: 1/20 - 36/1000.
    assert dist["fumble"] == Fraction(14, 1000)
    # 06-80 Failure, 81-90 Partial Success: first die only.
    assert dist["failure"] == Fraction(75, 100)
    assert dist["partial_success"] == Fraction(10, 100)
    # Near Success: 91-95, plus d + U <= 100 with d = 96..99: (4+3+2+1)/100/100.
    assert dist["near_success"] == Fraction(5, 100) + Fraction(10, 10_000)
    assert sum(dist.values()) == 1


@cache
def brute_upward(depth: int) -> dict[int, Fraction]:
    """The upward open-ended d100 with at most ``depth`` dice (longer chains left out)."""
    if depth == 0:
        return {}
    out = {face: Fraction(1, 100) for face in range(1, 96)}
    for face in range(96, 101):
        for value, p in brute_upward(depth - 1).items():
            out[face + value] = out.get(face + value, Fraction(0)) + p / 100
    return out


def brute_bands(modifier: int, depth: int) -> dict[str, Fraction]:
    """Bands of open-ended d100 + modifier over chains of at most ``depth`` dice."""
    out = dict.fromkeys(pc.BANDS, Fraction(0))
    if depth == 0:
        return out
    for face in range(6, 96):
        out[pc.chart(face + modifier).band] += Fraction(1, 100)
    for face in range(1, 6):
        for value, p in brute_upward(depth - 1).items():
            out[pc.chart(face - value + modifier).band] += p / 100
    for face in range(96, 101):
        for value, p in brute_upward(depth - 1).items():
            out[pc.chart(face + value + modifier).band] += p / 100
    return out


@pytest.mark.parametrize("modifier", [0, 150, -150])
def test_band_distribution_against_truncated_brute_force(modifier):
    exact = pc.band_distribution(modifier=modifier)
    previous_gap = None
    for depth in range(1, 6):
        brute = brute_bands(modifier, depth)
        diff = {band: exact[band] - brute[band] for band in pc.BANDS}
        assert all(d >= 0 for d in diff.values())
        # Chains longer than k dice: a first die 96-100 (or 01-05), then k-1 dice of 96-100,
        # each 1/20: (1/20)^k per direction.
        tail = Fraction(1, 20) ** depth
        gap = sum(diff.values())
        assert gap == 2 * tail
        if previous_gap is not None:
            assert gap < previous_gap
        previous_gap = gap
        # Once k dice of 96+ already reach >= 251 and 01-05 minus (k-1) such dice <= -26,
        # every longer chain sits in the open bands, so the gap is exactly the two tails.
        if 96 * depth + 1 + modifier >= 251 and 5 - 96 * (depth - 1) - 1 + modifier <= -26:
            assert diff["extraordinary_success"] == tail
            assert diff["extraordinary_failure"] == tail
            assert all(diff[b] == 0 for b in pc.BANDS[1:-1])


def icepool_bands(modifier: int, *, first: int | None = None) -> dict[str, Fraction]:
    """The same question in icepool: explode 96-100 upward; 01-05 subtracts that roll."""
    depth = 4 + abs(modifier) // 96  # truncated chains then land in the open bands only
    up = icepool.d100.explode(range(96, 101), depth=depth)
    start = icepool.d100 if first is None else icepool.Die([first])
    die = start.map(lambda r: r + up if r >= 96 else (r - up if r <= 5 else r))
    bands = (die + modifier).map(lambda t: pc.chart(t).band)
    return {band: Fraction(bands.probability(band)) for band in pc.BANDS}


@pytest.mark.parametrize("modifier", [-200, -45, 0, 37, 110, 260])
def test_band_distribution_matches_icepool(modifier):
    assert pc.band_distribution(modifier=modifier) == icepool_bands(modifier)


@pytest.mark.parametrize(("value", "modifier"), [(97, 20), (100, -60), (2, 30), (5, 0), (50, 40)])
def test_change_roll_distribution_matches_icepool(value, modifier):
    assert pc.change_roll_distribution(new_value=value, modifier=modifier) == icepool_bands(
        modifier, first=value
    )


@given(st.integers(-pc.MAX_BONUS, pc.MAX_BONUS))
@settings(max_examples=60, deadline=None)
def test_band_distribution_sums_to_one(modifier):
    dist = pc.band_distribution(modifier=modifier)
    assert set(dist) == set(pc.BANDS)
    assert all(p >= 0 for p in dist.values())
    assert sum(dist.values()) == 1


@given(st.integers(-400, 400), st.integers(1, 100))
@settings(max_examples=100, deadline=None)
def test_higher_bonus_never_hurts(modifier, step):
    low, high = modifier, min(modifier + step, pc.MAX_BONUS)
    assert pc.success_or_better(modifier=low) <= pc.success_or_better(modifier=high)
    bad_low = pc.band_distribution(modifier=low)["extraordinary_failure"]
    assert bad_low >= pc.band_distribution(modifier=high)["extraordinary_failure"]


def test_success_or_better_excludes_unrelated_success():
    dist = pc.band_distribution(modifier=20)
    expected = dist["success"] + dist["critical_success"] + dist["extraordinary_success"]
    assert pc.success_or_better(modifier=20) == expected


def test_band_distribution_is_fast_uncached():
    for modifier in (-pc.MAX_BONUS, 0, pc.MAX_BONUS):
        best = float("inf")
        for _ in range(5):
            pc.clear_caches()
            start = time.perf_counter()
            pc.band_distribution(modifier=modifier)
            best = min(best, time.perf_counter() - start)
        assert best < 0.005


@pytest.mark.parametrize("bad", [pc.MAX_BONUS + 1, -pc.MAX_BONUS - 1])
def test_band_distribution_caps_the_bonus(bad):
    with pytest.raises(core.OutOfRangeError, match="at most|at least"):
        pc.band_distribution(modifier=bad)


def test_band_distribution_rejects_non_integers():
    with pytest.raises(core.RulesError, match="whole number"):
        pc.band_distribution(modifier="10")
    with pytest.raises(core.OutOfRangeError):
        pc.change_roll_distribution(new_value=0, modifier=0)


def test_maneuver_odds_adds_every_part():
    odds = pc.maneuver_odds(
        skill_value=60, modifiers=[("Hard", -10)], retry_failures=2, condition="zone"
    )
    # 60 - 10 - 2 x 25 + 50 (seed numbers)
    assert odds.modifier == 50
    assert odds.bands == pc.band_distribution(modifier=50)
    assert odds.success_or_better == pc.success_or_better(modifier=50)


# --- the open-ended roll --------------------------------------------------------------------------


def test_open_ended_chains_keep_every_die():
    up = pc.roll_open_ended(rng=dice(100, 98, 97, 40))
    assert [d.face for d in up.dice] == [98, 97, 40]
    assert [d.sign for d in up.dice] == [1, 1, 1]
    assert [d.exploded for d in up.dice] == [True, True, False]
    assert (up.direction, up.total) == ("up", 235)

    # 01-05 subtracts a roll that is itself open-ended upward: 3 - (99 + 20).
    down = pc.roll_open_ended(rng=dice(100, 3, 99, 20))
    assert [d.sign for d in down.dice] == [1, -1, -1]
    assert (down.direction, down.total) == ("down", -116)

    # ... and not further downward: a 2 after the first die just subtracts 2.
    assert pc.roll_open_ended(rng=dice(100, 4, 2)).total == 2
    plain = pc.roll_open_ended(rng=dice(100, 50))
    assert (plain.direction, plain.total, len(plain.dice)) == ("none", 50, 1)


def test_open_ended_chain_is_capped():
    with pytest.raises(core.PoolTooLargeError, match="extra dice"):
        pc.roll_open_ended(rng=dice(100, *[100] * (core.MAX_EXPLOSIONS + 5)))


def test_open_ended_round_trip_and_tamper_check():
    rolled = pc.roll_open_ended(rng=dice(100, 96, 50))
    assert pc.OpenEndedRoll.from_dict(rolled.to_dict()) == rolled
    with pytest.raises(core.RulesError, match="open-ended rule"):
        pc.OpenEndedRoll.from_dict({"dice": [{"face": 98}]})
    with pytest.raises(core.RulesError, match="open-ended rule"):
        pc.OpenEndedRoll.from_dict({"dice": [{"face": 50}, {"face": 30}]})
    with pytest.raises(core.RulesError, match="missing"):
        pc.OpenEndedRoll.from_dict({})


def test_roll_open_ended_frequencies():
    rng = random.Random(4)
    samples = [pc.chart(pc.roll_open_ended(rng=rng).total).band for _ in range(5000)]
    assert chi_square_p_value(samples, pc.band_distribution(modifier=0)) > 0.001


# --- maneuvers ------------------------------------------------------------------------------------


def test_roll_records_every_part():
    result = pc.roll(
        skill_value=60,
        modifiers={"Hard": -10},
        retry_failures=1,
        condition="zone",
        rng=dice(100, 20),
    )
    assert result.retry_penalty == -25
    assert (result.condition, result.condition_modifier) == ("zone", 50)
    assert result.modifiers == (pc.Modifier("Hard", -10),)
    assert result.total == 20 + 60 - 10 - 25 + 50  # 95
    assert (result.band, result.mm, result.sm) == ("near_success", 90, "near_success")
    assert result.bonus == 75
    assert not result.succeeded
    assert pc.ManeuverResult.from_dict(result.to_dict()) == result


def test_roll_frequencies():
    rng = random.Random(5)
    args = {"skill_value": 60, "modifiers": [("Hard", -10)], "retry_failures": 1}
    args["condition"] = "slump"
    samples = [pc.roll(**args, rng=rng).band for _ in range(N_ROLLS)]
    expected = pc.maneuver_odds(**args).bands
    assert chi_square_p_value(samples, expected) > 0.001


def test_perception_roll_is_secret_and_fair():
    rng = random.Random(6)
    mods = pc.table_modifiers(["Loud Noise"], column="Perception")
    results = [pc.perception_roll(skill_value=35, modifiers=mods, rng=rng) for _ in range(N_ROLLS)]
    assert all(r.secret and r.kind == "perception" for r in results)
    expected = pc.band_distribution(modifier=35 - 35)  # Loud Noise: -35 Perception (seed)
    assert chi_square_p_value([r.band for r in results], expected) > 0.001


def test_potency_roll_uses_resistance_and_favours_the_poison():
    result = pc.potency_roll(potency=40, resistance=-20, rng=dice(100, 95))
    assert result.modifiers[0] == pc.Modifier("Resistance", -20)
    assert result.total == 115 and result.succeeded  # success is the poison's
    rng = random.Random(7)
    samples = [pc.potency_roll(potency=40, resistance=-20, rng=rng).band for _ in range(N_ROLLS)]
    assert chi_square_p_value(samples, pc.band_distribution(modifier=20)) > 0.001


def test_breakage():
    # Seed: 5-10% of lift capacity (default 10%), or about 10% of the pounds of force.
    assert pc.breakage_potency(lift_capacity=300) == 30
    assert pc.breakage_potency(lift_capacity=300, percent=5) == 15
    assert pc.breakage_potency(force=255) == 26  # 25.5 rounds up
    with pytest.raises(core.RulesError, match="either"):
        pc.breakage_potency(lift_capacity=300, force=200)
    with pytest.raises(core.RulesError, match="either"):
        pc.breakage_potency()
    with pytest.raises(core.OutOfRangeError):
        pc.breakage_potency(lift_capacity=-1)
    # Iron: up to -75 (seed). Success = it breaks; the MM column says how thoroughly.
    result = pc.breakage_roll(potency=30, resistance=-75, rng=dice(100, 99, 97, 10))
    assert result.total == 99 + 97 + 10 + 30 - 75
    assert (result.band, result.mm) == ("success", 120)
    rng = random.Random(8)
    samples = [pc.breakage_roll(potency=30, resistance=0, rng=rng).band for _ in range(N_ROLLS)]
    assert chi_square_p_value(samples, pc.band_distribution(modifier=30)) > 0.001


def test_pure_chance_roll():
    assert pc.pure_chance_roll(chance=40, rng=dice(100, 71)).total == 111
    rng = random.Random(9)
    samples = [pc.pure_chance_roll(chance=40, rng=rng).band for _ in range(N_ROLLS)]
    assert chi_square_p_value(samples, pc.band_distribution(modifier=40)) > 0.001
    with pytest.raises(core.OutOfRangeError):
        pc.pure_chance_roll(chance=101)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"skill_value": "40"}, core.RulesError, "whole number"),
        ({"skill_value": 40, "modifiers": [("Hard",)]}, core.RulesError, "label, value"),
        ({"skill_value": 40, "modifiers": "Hard"}, core.RulesError, "list"),
        ({"skill_value": 40, "modifiers": [(3, 4)]}, core.RulesError, "label must be text"),
        ({"skill_value": 40, "retry_failures": -1}, core.OutOfRangeError, "at least 0"),
        ({"skill_value": 40, "condition": "lucky"}, core.UnknownNameError, "condition"),
        ({"skill_value": 900, "modifiers": {"x": 900}}, core.OutOfRangeError, "SV and mod"),
    ],
)
def test_roll_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        pc.roll(**kwargs, rng=random.Random(1))


def test_stored_result_must_be_consistent():
    data = pc.roll(skill_value=10, rng=dice(100, 50)).to_dict()
    tampered = copy.deepcopy(data)
    tampered["roll"]["dice"][0]["face"] = 100  # a lone 100 would have rolled on
    with pytest.raises(core.RulesError, match="open-ended rule"):
        pc.ManeuverResult.from_dict(tampered)
    data["total"] = 999  # the total is recomputed from the parts, never trusted
    assert pc.ManeuverResult.from_dict(data).total == 60
    del data["skill_value"]
    with pytest.raises(core.RulesError, match="skill_value"):
        pc.ManeuverResult.from_dict(data)
    with pytest.raises(core.RulesError, match="mapping"):
        pc.ManeuverResult.from_dict([1, 2])


# --- running --------------------------------------------------------------------------------------


def test_tomalfson_runs_in_armour():
    # Seed: roll 55, Quickness -9, Total Penalty -65, +110, -60 (pace 2) = 31 -> 20%;
    # 20% x 2 x Enc. MV 26 = 10.4.
    assert pc.chart(55 - 9 - 65 + 110 - 60).mm == 20
    assert pc.running_movement(roll=55, quickness=-9, total_penalty=-65, pace=2, mv=26) == 10.4


@pytest.mark.parametrize(
    ("roll", "expected"),
    [
        (20, 0.0),  # total -4: fumble, "failed to get anywhere"
        (-20, 0.0),  # total -44: extraordinary failure
        (130, 46.8),  # total 106: unrelated success -> 90% (default) x 52
        (250, 62.4),  # total 226: critical -> 120% (default) x 52
        (400, 62.4),  # total 376: extraordinary -> 120%
        (180, 57.2),  # total 156: 131-160 is 110% on the MM column, x 52
    ],
)
def test_running_results(roll, expected):
    got = pc.running_movement(roll=roll, quickness=-9, total_penalty=-65, pace=2, mv=26)
    assert got == pytest.approx(expected)


def test_running_fractional_pace():
    # Jogging (pace 1.5): -45; 55 + 110 - 45 = 120 -> 100% x 1.5 x 20 = 30.
    assert pc.running_movement(roll=55, quickness=0, total_penalty=0, pace=1.5, mv=20) == 30.0
    # Pace 1.25: -37.5 rounds down to -38: 55 + 110 - 38 = 127 -> 100%.
    assert pc.running_movement(roll=55, quickness=0, total_penalty=0, pace=1.25, mv=20) == 25.0
    # 58 + 110 - 38 = 130 -> still 100% (rounding the pace up to -37 would give 131 -> 110%).
    assert pc.running_movement(roll=58, quickness=0, total_penalty=0, pace=1.25, mv=20) == 25.0
    assert pc.running_movement(roll=59, quickness=0, total_penalty=0, pace=1.25, mv=20) == 27.5


def test_running_ruleset_decides_critical():
    rules = {"running_percent": {"critical_success": 150}}
    got = pc.running_movement(
        roll=250, quickness=-9, total_penalty=-65, pace=2, mv=26, ruleset=rules
    )
    assert got == pytest.approx(1.5 * 52)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"pace": 6}, "pace must be between 1"),
        ({"pace": 0.5}, "pace must be between 1"),
        ({"pace": "2"}, "must be a number"),
        ({"pace": float("nan")}, "finite"),
        ({"total_penalty": 65}, "at most 0"),
        ({"mv": -1}, "MV must be"),
        ({"quickness": 1.5}, "whole number"),
    ],
)
def test_running_errors(kwargs, match):
    args = {"roll": 55, "quickness": -9, "total_penalty": -65, "pace": 2, "mv": 26} | kwargs
    with pytest.raises(core.RulesError, match=match):
        pc.running_movement(**args)


def test_roll_running_frequencies_and_movement():
    rng = random.Random(10)
    args = {"quickness": 20, "total_penalty": -10, "pace": 2}
    results = [pc.roll_running(**args, mv=30, rng=rng) for _ in range(N_ROLLS)]
    for r in results[:200]:
        again = pc.running_movement(roll=r.maneuver.roll.total, **args, mv=30)
        assert r.movement == again
        assert r.maneuver.kind == "running"
    samples = [r.maneuver.band for r in results]
    assert chi_square_p_value(samples, pc.running_odds(**args)) > 0.001
    # 20 - 10 + 110 - 60
    assert pc.running_odds(**args) == pc.band_distribution(modifier=60)
