"""Roll and keep (seed 001) exact odds: hand-worked cases, brute force, icepool, Hypothesis,
and chi-square tests of every roll function against its own exact odds."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import roll_and_keep as rk
from tests.rules.stats import chi_square_p_value

# --- brute force: every ordered roll of N d10, scored independently of the module -----------


def _brute(rolled: int, kept: int, difficulty: int) -> tuple[dict[int, Fraction], Fraction]:
    """(success distribution, botch probability) by enumerating all 10**N rolls."""
    counts: dict[int, int] = {}
    botches = 0
    for faces in itertools.product(range(1, 11), repeat=rolled):
        best = sorted(faces, reverse=True)[:kept]
        successes = sum(1 for f in best if f >= difficulty)
        counts[successes] = counts.get(successes, 0) + 1
        if successes == 0 and 1 in faces:
            botches += 1
    total = 10**rolled
    return {s: Fraction(c, total) for s, c in counts.items()}, Fraction(botches, total)


BRUTE_CASES = [
    (rolled, kept, difficulty)
    for rolled in range(5)
    for kept in range(rolled + 2)
    for difficulty in (1, 2, 5, 6, 10)
]


@pytest.mark.parametrize(("rolled", "kept", "difficulty"), BRUTE_CASES)
def test_against_brute_force(rolled, kept, difficulty):
    dist, botch = _brute(rolled, kept, difficulty)
    assert rk.success_distribution(rolled=rolled, kept=kept, difficulty=difficulty) == dist
    assert rk.botch_probability(rolled=rolled, kept=kept, difficulty=difficulty) == botch


@pytest.mark.parametrize(("kept", "difficulty"), [(2, 7), (5, 3)])
def test_against_brute_force_five_dice(kept, difficulty):
    dist, botch = _brute(5, kept, difficulty)
    assert rk.success_distribution(rolled=5, kept=kept, difficulty=difficulty) == dist
    assert rk.botch_probability(rolled=5, kept=kept, difficulty=difficulty) == botch


def test_hand_worked_small_cases():
    # one die at difficulty 6: faces 6..10 succeed (5 of 10), a 1 botches (1 of 10)
    assert rk.success_distribution(rolled=1, kept=1, difficulty=6) == {
        0: Fraction(1, 2),
        1: Fraction(1, 2),
    }
    assert rk.botch_probability(rolled=1, kept=1, difficulty=6) == Fraction(1, 10)
    # two dice keep one at 6: no success when both are 1..5 (1/4); botch when both are 1..5
    # and not both 2..5: 25/100 - 16/100
    assert rk.success_distribution(rolled=2, kept=1, difficulty="Standard") == {
        0: Fraction(1, 4),
        1: Fraction(3, 4),
    }
    assert rk.botch_probability(rolled=2, kept=1, difficulty=6) == Fraction(9, 100)
    # difficulty 1: every die succeeds, no botch is possible
    assert rk.success_distribution(rolled=4, kept=2, difficulty=1) == {2: Fraction(1)}
    assert rk.botch_probability(rolled=4, kept=2, difficulty=1) == 0
    # no dice: no success, no botch
    assert rk.success_distribution(rolled=0, kept=3, difficulty=5) == {0: Fraction(1)}
    assert rk.botch_probability(rolled=0, kept=3, difficulty=5) == 0


def test_odds_summary_by_hand():
    # two dice keep one at difficulty 6 (see above): P(0) = 1/4, botch 9/100
    odds = rk.odds(rolled=2, kept=1, difficulty=6)
    assert odds.botch == Fraction(9, 100)
    assert odds.degrees["Botch"] == Fraction(9, 100)
    assert odds.degrees["Failure"] == Fraction(1, 4) - Fraction(9, 100)
    assert odds.degrees["Marginal"] == Fraction(3, 4)
    assert odds.degrees["Phenomenal"] == 0
    assert odds.at_least_one_success == Fraction(3, 4)
    assert odds.expected_successes == Fraction(3, 4)


def test_phenomenal_gathers_five_or_more():
    odds = rk.odds(rolled=8, kept=8, difficulty=3)
    high = sum(p for s, p in odds.distribution.items() if s >= 5)
    assert odds.degrees["Phenomenal"] == high
    assert sum(odds.degrees.values()) == 1


def test_direct_contest_by_hand():
    # one die keep one each at difficulty 6: each side succeeds with 1/2
    odds = rk.direct_contest_odds(
        rolled=1, kept=1, opponent_rolled=1, opponent_kept=1, difficulty=6
    )
    assert odds.net == {-1: Fraction(1, 4), 0: Fraction(1, 2), 1: Fraction(1, 4)}
    assert (odds.win, odds.tie, odds.lose) == (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))


# --- icepool, for larger pools ---------------------------------------------------------------


def _icepool_successes(rolled, kept, difficulty):
    die = icepool.d10.pool(rolled).highest(kept).keep_outcomes(lambda x: x >= difficulty).size()
    return {o: Fraction(q, die.denominator()) for o, q in die.items() if q}


@icepool.multiset_function
def _kept_successes_and_ones(pool, *, kept, difficulty):
    return (
        pool.highest(kept).keep_outcomes(lambda x: x >= difficulty).size(),
        pool.keep_outcomes([1]).size(),
    )


def _icepool_botch(rolled, kept, difficulty):
    joint = _kept_successes_and_ones(icepool.d10.pool(rolled), kept=kept, difficulty=difficulty)
    hit = sum(q for (successes, ones), q in joint.items() if successes == 0 and ones > 0)
    return Fraction(hit, joint.denominator())


ICEPOOL_CASES = [(8, 3, 7), (12, 5, 6), (15, 15, 9), (20, 7, 6), (20, 1, 10), (20, 12, 3)]


@pytest.mark.parametrize(("rolled", "kept", "difficulty"), ICEPOOL_CASES)
def test_against_icepool(rolled, kept, difficulty):
    ours = rk.success_distribution(rolled=rolled, kept=kept, difficulty=difficulty)
    assert ours == _icepool_successes(rolled, kept, difficulty)


@pytest.mark.parametrize(("rolled", "kept", "difficulty"), [(8, 3, 7), (14, 4, 9)])
def test_botch_against_icepool(rolled, kept, difficulty):
    ours = rk.botch_probability(rolled=rolled, kept=kept, difficulty=difficulty)
    assert ours == _icepool_botch(rolled, kept, difficulty)


def test_direct_contest_against_icepool():
    a = icepool.d10.pool(6).highest(3).keep_outcomes(lambda x: x >= 7).size()
    b = icepool.d10.pool(3).highest(2).keep_outcomes(lambda x: x >= 7).size()
    net = a - b
    expected = {o: Fraction(q, net.denominator()) for o, q in net.items() if q}
    ours = rk.direct_contest_distribution(
        rolled=6, kept=3, opponent_rolled=3, opponent_kept=2, difficulty=7
    )
    assert ours == expected


# --- Hypothesis properties ---------------------------------------------------------------------

pools = st.integers(0, 25)
keeps = st.integers(0, 30)
difficulties = st.integers(1, 10)


def _at_least_one(rolled, kept, difficulty):
    return 1 - rk.success_distribution(rolled=rolled, kept=kept, difficulty=difficulty).get(0, 0)


@given(rolled=pools, kept=keeps, difficulty=difficulties)
@settings(max_examples=200, deadline=None)
def test_distribution_sums_to_one_and_stays_within_kept(rolled, kept, difficulty):
    dist = rk.success_distribution(rolled=rolled, kept=kept, difficulty=difficulty)
    assert sum(dist.values()) == 1
    assert all(p > 0 for p in dist.values())
    assert max(dist) <= min(kept, rolled)
    botch = rk.botch_probability(rolled=rolled, kept=kept, difficulty=difficulty)
    assert 0 <= botch <= dist.get(0, 0)
    odds = rk.odds(rolled=rolled, kept=kept, difficulty=difficulty)
    assert sum(odds.degrees.values()) == 1
    assert all(p >= 0 for p in odds.degrees.values())


@given(rolled=pools, kept=keeps, difficulty=difficulties)
@settings(max_examples=200, deadline=None)
def test_more_kept_dice_never_lower_the_chance_of_success(rolled, kept, difficulty):
    assert _at_least_one(rolled, kept + 1, difficulty) >= _at_least_one(rolled, kept, difficulty)
    assert _at_least_one(rolled + 1, kept, difficulty) >= _at_least_one(rolled, kept, difficulty)


@given(rolled=pools, kept=keeps, difficulty=st.integers(1, 9))
@settings(max_examples=200, deadline=None)
def test_higher_difficulty_never_raises_the_chance_of_success(rolled, kept, difficulty):
    assert _at_least_one(rolled, kept, difficulty + 1) <= _at_least_one(rolled, kept, difficulty)


@given(rolled=pools, kept=keeps, difficulty=st.integers(1, 9))
@settings(max_examples=100, deadline=None)
def test_expected_successes_monotone(rolled, kept, difficulty):
    easier = rk.odds(rolled=rolled, kept=kept, difficulty=difficulty)
    harder = rk.odds(rolled=rolled, kept=kept, difficulty=difficulty + 1)
    assert harder.expected_successes <= easier.expected_successes
    more = rk.odds(rolled=rolled, kept=kept + 1, difficulty=difficulty)
    assert more.expected_successes >= easier.expected_successes


@given(a=st.integers(0, 12), ka=keeps, b=st.integers(0, 12), kb=keeps, difficulty=difficulties)
@settings(max_examples=100, deadline=None)
def test_direct_contest_sums_to_one_and_is_symmetric(a, ka, b, kb, difficulty):
    odds = rk.direct_contest_odds(
        rolled=a, kept=ka, opponent_rolled=b, opponent_kept=kb, difficulty=difficulty
    )
    assert sum(odds.net.values()) == 1
    assert odds.win + odds.tie + odds.lose == 1
    swapped = rk.direct_contest_odds(
        rolled=b, kept=kb, opponent_rolled=a, opponent_kept=ka, difficulty=difficulty
    )
    assert (swapped.win, swapped.tie, swapped.lose) == (odds.lose, odds.tie, odds.win)


@given(faces=st.lists(st.integers(1, 10), max_size=12), kept=keeps, difficulty=difficulties)
@settings(max_examples=200, deadline=None)
def test_score_dice_matches_a_plain_reading(faces, kept, difficulty):
    result = rk.score_dice(faces=faces, kept=kept, difficulty=difficulty)
    best = sorted(faces, reverse=True)[:kept]
    assert result.successes == sum(1 for f in best if f >= difficulty)
    assert sorted((d.value for d in result.dice if d.kept), reverse=True) == best
    assert result.kept <= result.rolled == len(faces)
    assert result.botch == (result.successes == 0 and 1 in faces)


# --- chi-square: every roll function against its own exact odds ------------------------------


@pytest.mark.parametrize(("rolled", "kept", "difficulty"), [(5, 2, 7), (3, 3, 9), (6, 4, 4)])
def test_roll_chi_square(rolled, kept, difficulty):
    rng = random.Random(1001 + rolled)
    samples = [
        rk.roll(attribute_value=rolled, kept=kept, difficulty=difficulty, rng=rng).degree
        for _ in range(4000)
    ]
    expected = rk.odds(rolled=rolled, kept=kept, difficulty=difficulty).degrees
    assert chi_square_p_value(samples, expected) > 0.001


def test_roll_chi_square_successes():
    rng = random.Random(42)
    samples = [
        rk.roll(attribute_value=3, specialities=1, kept=2, difficulty=6, rng=rng).successes
        for _ in range(4000)
    ]
    expected = rk.success_distribution(rolled=4, kept=2, difficulty=6)
    assert chi_square_p_value(samples, expected) > 0.001


@pytest.mark.parametrize(("passive", "extra"), [(4, 1), (9, 3)])
def test_roll_indirectly_opposed_chi_square(passive, extra):
    rng = random.Random(77 + passive)
    samples = [
        rk.roll_indirectly_opposed(
            attribute_value=5,
            kept=3,
            passive_attribute_value=passive,
            passive_specialities=extra,
            rng=rng,
        ).degree
        for _ in range(4000)
    ]
    expected = rk.indirect_odds(
        rolled=5, kept=3, passive_attribute_value=passive, passive_specialities=extra
    ).degrees
    assert chi_square_p_value(samples, expected) > 0.001


def test_roll_directly_opposed_chi_square():
    rng = random.Random(2024)
    samples = [
        rk.roll_directly_opposed(
            attribute_value=3,
            kept=2,
            opponent_attribute_value=5,
            opponent_specialities=1,
            opponent_kept=3,
            difficulty=7,
            rng=rng,
        ).net
        for _ in range(4000)
    ]
    expected = rk.direct_contest_distribution(
        rolled=3, kept=2, opponent_rolled=6, opponent_kept=3, difficulty=7
    )
    assert chi_square_p_value(samples, expected) > 0.001


def test_roll_faces_are_uniform():
    rng = random.Random(9)
    faces = [
        d.value
        for _ in range(1000)
        for d in rk.roll(attribute_value=4, kept=1, difficulty=6, rng=rng).dice
    ]
    expected = {face: Fraction(1, 10) for face in range(1, 11)}
    assert chi_square_p_value(faces, expected) > 0.001


# --- speed ------------------------------------------------------------------------------------


def test_twenty_dice_odds_are_fast_uncached():
    import time

    start = time.perf_counter()
    for kept in range(1, 21):
        rk.clear_caches()
        rk.odds(rolled=20, kept=kept, difficulty=6)
        rk.direct_contest_odds(
            rolled=20, kept=kept, opponent_rolled=20, opponent_kept=5, difficulty=6
        )
    per_call = (time.perf_counter() - start) / 20
    assert per_call < 0.005
