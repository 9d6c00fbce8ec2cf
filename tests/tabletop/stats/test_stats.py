"""The statistics on seeded roll histories: the chi-square p-value and the luck index match a
computation written here (by hand: no scipy), a deliberately loaded die is flagged once there are
enough rolls, a fair one is not, and too few rolls say "not enough rolls yet"."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from rules import conductor
from tabletop.stats.stats import (
    MIN_EXPECTED,
    Roll,
    goodness_of_fit,
    kind_stats,
    luck_index,
    luck_range,
    merge_cells,
    stored_bands,
    summarise,
)

D6 = tuple((str(face), Fraction(1, 6)) for face in range(1, 7))


def draw(rng: random.Random, bands, weights=None) -> str:
    """One outcome: by the bands' own chances, or by ``weights`` (a loaded die)."""
    keys = [k for k, _ in bands]
    chances = weights or [float(p) for _, p in bands]
    return rng.choices(keys, weights=chances)[0]


def chi_square_sf_even(x: float, df: int) -> float:
    """P(chi-square with an even ``df`` >= x), in closed form: e^(-x/2) sum_i (x/2)^i / i!."""
    assert df % 2 == 0
    half = x / 2
    return math.exp(-half) * sum(half**i / math.factorial(i) for i in range(df // 2))


def standard_history(seed: int, count: int) -> list[Roll]:
    """A conductor player's standard rolls against assorted difficulties, rolled fairly."""
    rng = random.Random(seed)
    rolls = []
    for _ in range(count):
        skill, difficulty = rng.randint(0, 4), rng.randint(4, 14)
        p = conductor.standard_probability(skill=skill, difficulty=difficulty)
        bands = (("failure", 1 - p), ("success", p))
        bands = tuple(b for b in bands if b[1])
        rolls.append(
            Roll(
                "alice",
                "conductor_standard",
                "conductor_standard",
                "Standard roll",
                bands,
                draw(rng, bands),
            )
        )
    return rolls


def attack_history(seed: int, count: int) -> list[Roll]:
    """Attack rolls of several pools and difficulties: five bands of hits (0..3, 4+)."""
    rng = random.Random(seed)
    rolls = []
    for _ in range(count):
        skill, difficulty = rng.randint(0, 3), rng.randint(2, 6)
        dist = conductor.attack_hit_distribution(skill=skill, difficulty=difficulty, top=4)
        bands = tuple((str(h) if h < 4 else "4+", dist[h]) for h in range(5) if dist[h])
        rolls.append(
            Roll(
                "bob",
                "conductor_attack",
                "conductor_attack",
                "Attack roll",
                bands,
                draw(rng, bands),
            )
        )
    return rolls


def test_the_p_value_matches_pearsons_test_worked_out_by_hand():
    rolls = attack_history(seed=16, count=400)
    # Expected counts: each roll brings its own chances (its pool and difficulty).
    keys = ["0", "1", "2", "3", "4+"]
    expected = {
        k: sum((dict(r.bands).get(k, Fraction(0)) for r in rolls), Fraction(0)) for k in keys
    }
    observed = {k: sum(1 for r in rolls if r.band == k) for k in keys}
    assert all(e >= MIN_EXPECTED for e in expected.values())  # no merging: five cells
    statistic = sum((observed[k] - expected[k]) ** 2 / expected[k] for k in keys)
    p_value = chi_square_sf_even(float(statistic), df=4)

    fit = goodness_of_fit(rolls)
    assert fit is not None and fit.df == 4 and fit.cells == 5
    assert fit.statistic == pytest.approx(float(statistic), rel=1e-9)
    assert fit.p_value == pytest.approx(p_value, rel=1e-9)
    assert fit.p_value > 0.01  # fair dice, fairly drawn: not flagged

    stats = kind_stats(rolls)
    assert [row.observed for row in stats.rows] == [observed[k] for k in keys]
    assert [row.expected for row in stats.rows] == [float(expected[k]) for k in keys]
    assert not stats.flagged and stats.verdict == "Consistent with fair dice"


def test_the_luck_index_is_the_mean_mid_rank_percentile_worked_out_by_hand():
    rolls = standard_history(seed=7, count=120) + attack_history(seed=8, count=80)
    total = Fraction(0)
    for roll in rolls:
        keys = [k for k, _ in roll.bands]
        at = keys.index(roll.band)
        worse = sum((p for _, p in roll.bands[:at]), Fraction(0))
        total += worse + roll.bands[at][1] / 2
    assert luck_index(rolls) == 100 * total / len(rolls)
    low, high = luck_range(rolls)
    assert low < float(luck_index(rolls)) < high


def test_the_fair_luck_range_worked_out_by_hand():
    # A coin (bands 1/2, 1/2): its mid-rank percentile is 1/4 or 3/4, variance 1/16. A 1-2-1
    # roll (1/4, 1/2, 1/4): 1/8, 1/2 or 7/8, variance 41/128 - 1/4 = 9/128. Two of each:
    # the mean's variance is (2/16 + 2 * 9/128) / 4**2 = 34/2048, so the range is
    # 50 +- 1.96 * 100 * sqrt(34/2048).
    coin = Roll(
        "a", "k", "k", "coin", (("tails", Fraction(1, 2)), ("heads", Fraction(1, 2))), "tails"
    )
    bell = (("1", Fraction(1, 4)), ("2", Fraction(1, 2)), ("3", Fraction(1, 4)))
    middle = Roll("a", "k", "k", "1-2-1", bell, "2")
    half_width = 1.96 * 100 * math.sqrt(34 / 2048)
    low, high = luck_range([coin, coin, middle, middle])
    assert low == pytest.approx(50 - half_width) and high == pytest.approx(50 + half_width)
    assert luck_range([Roll("a", "k", "k", "no odds")]) is None  # nothing fitted, no range


def test_a_certain_outcome_is_average_luck_and_a_best_result_is_lucky():
    sure = Roll("a", "k", "k", "K", (("success", Fraction(1)),), "success")
    assert luck_index([sure]) == 50
    long_shot = Roll(
        "a", "k", "k", "K", (("failure", Fraction(9, 10)), ("success", Fraction(1, 10))), "success"
    )
    assert luck_index([long_shot]) == 95


def test_a_loaded_die_is_flagged_with_enough_rolls_and_a_fair_one_is_not():
    fair_rng, loaded_rng = random.Random(1), random.Random(2)
    loaded_weights = [1, 1, 1, 1, 1, 2.5]  # a six more than twice as often as any other face

    def history(rng, count, weights=None):
        return [
            Roll("carol", "expression", "expression:1d6", "Dice: 1d6", D6, draw(rng, D6, weights))
            for _ in range(count)
        ]

    fair = kind_stats(history(fair_rng, 600))
    assert fair.fit is not None and fair.fit.p_value > 0.01 and not fair.flagged

    loaded = kind_stats(history(loaded_rng, 300, loaded_weights))
    assert loaded.fit is not None and loaded.fit.p_value < 0.01
    assert loaded.flagged and "look off" in loaded.verdict
    assert loaded.luck_index > 50  # sixes are the best totals
    assert loaded.luck_note.startswith("Luckier")

    few = kind_stats(history(random.Random(3), 8, loaded_weights))
    assert few.fit is None and few.verdict == "Not enough rolls yet to say" and not few.flagged


def test_bands_whose_expected_count_is_under_five_are_merged_with_their_neighbours():
    cells = [
        ("a", 1, Fraction(2)),
        ("b", 3, Fraction(4)),
        ("c", 6, Fraction(6)),
        ("d", 0, Fraction(1, 2)),
        ("e", 2, Fraction(1, 2)),
    ]
    assert merge_cells(cells) == [(["a", "b"], 4, Fraction(6)), (["c", "d", "e"], 8, Fraction(7))]
    # Two rolls can't fill two cells of five: no test.
    assert goodness_of_fit([Roll("a", "k", "k", "K", D6, "3")] * 2) is None


def test_rolls_without_stored_bands_are_counted_with_a_note_but_not_tested():
    rolls = standard_history(seed=5, count=30)
    old = [Roll("alice", "conductor_standard", "conductor_standard", "Standard roll")] * 4
    stats = kind_stats(rolls + old)
    assert stats.count == 34 and stats.fitted == 30
    assert any("4 of these 34 rolls were made before odds were stored" in n for n in stats.notes)
    assert luck_index(rolls + old) == luck_index(rolls)
    contest = kind_stats(
        [Roll("alice", "rak_contest", "rak_contest", "Contest")] * 3,
        no_odds="a contest's odds depend on the other side's roll.",
    )
    assert contest.count == 3 and contest.fit is None and contest.luck_index is None
    assert contest.notes == [
        "Counted only, not in the test or the luck index: a contest's odds depend on the "
        "other side's roll."
    ]


def test_summaries_go_by_roller_and_by_kind_with_everyone_first():
    rolls = standard_history(seed=1, count=10) + attack_history(seed=2, count=5)
    sections = summarise(rolls)
    assert [s.roller for s in sections] == ["Everyone at the table", "alice", "bob"]
    assert [s.count for s in sections] == [15, 10, 5]
    assert [k.label for k in sections[0].kinds] == ["Attack roll", "Standard roll"]
    assert [k.count for k in sections[1].kinds] == [10]


@pytest.mark.parametrize(
    "odds",
    [
        None,
        "odds",
        {"bands": [["a", "1/2"], ["b", "1/2"]]},  # no band landed in
        {"bands": [["a", "1/2"], ["b", "1/3"]], "band": "a"},  # not a distribution
        {"bands": [["a", "1/2"], ["b", "x"]], "band": "a"},
        {"bands": [["a", "1/2"], ["b", "1/2"]], "band": "c"},
        {"bands": [["a", "1/0"], ["b", "1/2"]], "band": "a"},
        {"bands": [["a", 0.5], ["b", 0.5]], "band": "a"},
    ],
)
def test_stored_odds_that_are_not_an_exact_distribution_are_left_out(odds):
    assert stored_bands(odds) == ((), "")
