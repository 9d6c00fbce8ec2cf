"""conductor (seed 002): standard rolls, exploding attack pools, bennies, healing, poison, skills.

The wilderness procedure is tested in test_conductor_wilderness.py.
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

from rules import conductor
from rules.conductor import (
    AttackResult,
    HealingResult,
    PoisonResult,
    StandardResult,
    attack,
    attack_expected_hits,
    attack_hit_distribution,
    attack_hit_probability,
    effective_skill,
    foe_attack,
    heal,
    make_poison,
    spend_bennies_on_standard,
    spend_benny_on_die,
    standard_probability,
    standard_roll,
    validate_ruleset,
)
from rules.core import (
    MAX_EXPLOSIONS,
    IllegalMoveError,
    OutOfRangeError,
    PoolTooLargeError,
    RulesError,
    UnknownNameError,
    die,
    shift,
)
from tests.rules.stats import chi_square_p_value
from tests.support.dice import Always, Faces, d6

# --- standard roll odds ---------------------------------------------------------------------------


@pytest.mark.parametrize("skill", range(0, 6))
@pytest.mark.parametrize("bennies", range(0, 4))
def test_standard_probability_against_brute_force(skill, bennies):
    for difficulty in range(0, 22):
        wins = sum(1 for face in range(1, 13) if face + skill + bennies > difficulty)
        got = standard_probability(skill=skill, difficulty=difficulty, bennies=bennies)
        assert got == Fraction(wins, 12)


@pytest.mark.parametrize(("skill", "difficulty"), [(0, 6), (2, 7), (5, 3), (3, 15), (9, 20)])
def test_standard_probability_against_icepool(skill, difficulty):
    expected = (icepool.d12 + skill > difficulty).probability(True)
    assert standard_probability(skill=skill, difficulty=difficulty) == expected


def test_standard_probability_worked_by_hand():
    # d12 + 2 over 7 needs a 6 or better: faces 6..12, 7 of 12.
    assert standard_probability(skill=2, difficulty=7) == Fraction(7, 12)
    # Strictly over: d12 + 0 over 12 is impossible, d12 + 0 over 11 needs the 12.
    assert standard_probability(skill=0, difficulty=12) == 0
    assert standard_probability(skill=0, difficulty=11) == Fraction(1, 12)
    # Two bennies available: d12 + 4 over 7 needs a 4 or better, faces 4..12, 9 of 12.
    assert standard_probability(skill=2, difficulty=7, bennies=2) == Fraction(9, 12)


@settings(max_examples=150, deadline=None)
@given(
    skill=st.integers(0, 20),
    difficulty=st.integers(0, 40),
    bennies=st.integers(0, 5),
)
def test_standard_probability_is_monotone(skill, difficulty, bennies):
    p = standard_probability(skill=skill, difficulty=difficulty, bennies=bennies)
    assert 0 <= p <= 1
    assert standard_probability(skill=skill + 1, difficulty=difficulty, bennies=bennies) >= p
    assert standard_probability(skill=skill, difficulty=difficulty + 1, bennies=bennies) <= p
    assert standard_probability(skill=skill, difficulty=difficulty, bennies=bennies + 1) >= p


# --- standard roll --------------------------------------------------------------------------------


def test_standard_roll_and_bennies_by_hand():
    # d12 shows 5, skill 2: total 7, not over 7; one benny gives 8 > 7.
    result = standard_roll(skill=2, difficulty=7, rng=Faces((12, 5)))
    assert (result.die.rolled, result.total, result.success) == (5, 7, False)
    assert result.bennies_to_succeed == 1
    pushed = spend_bennies_on_standard(result, bennies=1)
    assert (pushed.total, pushed.success, pushed.bennies, pushed.bennies_to_succeed) == (
        8,
        True,
        1,
        0,
    )
    assert pushed.die == result.die  # bennies add to the roll, the die keeps its face
    again = spend_bennies_on_standard(pushed, bennies=2)
    assert (again.bennies, again.total) == (3, 10)
    assert json.loads(json.dumps(again.to_dict()))["die"]["rolled"] == 5


def test_standard_roll_chi_square():
    rng = random.Random(2002)
    skill, difficulty = 3, 9
    rolls = [standard_roll(skill=skill, difficulty=difficulty, rng=rng) for _ in range(4000)]
    assert chi_square_p_value([r.total for r in rolls], shift(die(12), skill)) > 0.001
    p = standard_probability(skill=skill, difficulty=difficulty)
    assert chi_square_p_value([r.success for r in rolls], {True: p, False: 1 - p}) > 0.001
    assert all(r.success == (r.total > difficulty) for r in rolls)


def test_standard_errors():
    with pytest.raises(OutOfRangeError, match="skill must be at least 0"):
        standard_probability(skill=-1, difficulty=5)
    with pytest.raises(RulesError, match="whole number"):
        standard_probability(skill="3", difficulty=5)
    with pytest.raises(RulesError, match="whole number"):
        standard_roll(skill=1, difficulty=True)
    with pytest.raises(OutOfRangeError, match="bennies"):
        standard_probability(skill=1, difficulty=5, bennies=-1)
    result = standard_roll(skill=1, difficulty=5, rng=random.Random(1))
    with pytest.raises(OutOfRangeError, match="bennies must be at least 1"):
        spend_bennies_on_standard(result, bennies=0)
    with pytest.raises(RulesError, match="standard roll's result"):
        spend_bennies_on_standard({"total": 3}, bennies=1)


# --- attack odds: brute force and icepool ---------------------------------------------------------


def _die_hits(value: int, difficulty: int) -> bool:
    # "Each die equal to or above the FOE's difficulty causes 1 hit"; "Each die resulting in 6
    # or above explodes! Causing 1 hit".
    return value >= difficulty or value >= 6


def _truncated_chain(difficulty: int, depth: int) -> dict[int, Fraction]:
    """Hits of one die and its explosions, the chain cut after ``depth`` explosions (a six at
    the cut still hits but adds no die). Written independently of the module's closed form,
    from the seed's two sentences: a die at or over the difficulty hits; a 6 explodes, "causing
    1 hit" (whatever the difficulty)."""
    if depth == 0:
        p_hit = Fraction(sum(1 for face in range(1, 7) if _die_hits(face, difficulty)), 6)
        return {0: 1 - p_hit, 1: p_hit}
    below = _truncated_chain(difficulty, depth - 1)
    out: dict[int, Fraction] = {}
    for face in range(1, 7):
        hit = 1 if _die_hits(face, difficulty) else 0
        if face == 6:
            for h, p in below.items():
                out[h + hit] = out.get(h + hit, Fraction(0)) + p / 6
        else:
            out[hit] = out.get(hit, Fraction(0)) + Fraction(1, 6)
    return out


def _truncated_pool(dice: int, difficulty: int, depth: int) -> dict[int, Fraction]:
    out = {0: Fraction(1)}
    chain = _truncated_chain(difficulty, depth)
    for _ in range(dice):
        nxt: dict[int, Fraction] = {}
        for a, pa in out.items():
            for b, pb in chain.items():
                nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * pb
        out = nxt
    return out


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
@pytest.mark.parametrize("bennies", [0, 1, 2, 3])
def test_attack_hit_probability_against_enumeration(dice, bennies):
    # Every roll of the initial dice; an explosion only adds dice, and an exploded die already
    # shows 6 (a hit), so whether some die hits with the bennies all on it is decided by the
    # initial dice.
    for difficulty in range(0, 11):
        rolls = list(itertools.product(range(1, 7), repeat=dice))
        hits = sum(1 for roll in rolls if any(_die_hits(f + bennies, difficulty) for f in roll))
        got = attack_hit_probability(skill=dice - 1, difficulty=difficulty, bennies=bennies)
        assert got == Fraction(hits, len(rolls)), (difficulty, got)


@pytest.mark.parametrize("dice", [1, 3, 8, 20])
@pytest.mark.parametrize("difficulty", [1, 3, 4, 6, 7])
def test_attack_hit_probability_against_icepool(dice, difficulty):
    highest = icepool.Pool([icepool.d6] * dice).highest(1).sum()
    expected = (highest >= min(difficulty, 6)).probability(True)
    assert attack_hit_probability(skill=dice - 1, difficulty=difficulty) == expected


def test_attack_reading_a_six_always_hits():
    # Seed: "Each die resulting in 6 or above explodes! Causing 1 hit": at difficulty 7 or more
    # the sixes (and only they) hit. The old reading gave 0 here.
    for difficulty in (7, 8, 9, 20):
        assert attack_hit_probability(skill=5, difficulty=difficulty) == 1 - Fraction(5, 6) ** 6
        assert attack_expected_hits(skill=5, difficulty=difficulty) == Fraction(6, 5)
        assert attack_hit_distribution(skill=5, difficulty=difficulty) == attack_hit_distribution(
            skill=5, difficulty=6
        )
    # One benny makes a 5 a 6: P(some die shows 5 or 6).
    assert attack_hit_probability(skill=0, difficulty=7, bennies=1) == Fraction(2, 6)
    result = attack(skill=0, difficulty=8, rng=d6(6, 2))
    assert result.hits == 1 and not result.foe_strikes_back and result.explosions == 1


def _enumerate_attack(dice: int, difficulty: int, depth: int) -> dict[int, Fraction]:
    """Every sequence of d6 faces an attack can show, explosions followed ``depth`` levels deep
    (a six at the cut hits and adds nothing), hits counted die by die from the seed's words."""
    out: dict[int, Fraction] = {}

    def walk(pending: int, level: int, hits: int, weight: Fraction) -> None:
        if pending == 0:
            out[hits] = out.get(hits, Fraction(0)) + weight
            return
        for face in range(1, 7):
            hit = face >= difficulty or face == 6
            more = 1 if face == 6 and level < depth else 0
            walk(pending - 1 + more, level + more, hits + hit, weight / 6)

    walk(dice, 0, 0, Fraction(1))
    return out


@pytest.mark.parametrize("difficulty", [7, 8, 9])
@pytest.mark.parametrize("dice", [1, 2, 3])
def test_attack_odds_at_difficulty_seven_to_nine_against_enumeration(dice, difficulty):
    depth, top = 4, dice + 3
    enumerated = _enumerate_attack(dice, difficulty, depth)
    assert sum(enumerated.values()) == 1
    ours = attack_hit_distribution(skill=dice - 1, difficulty=difficulty, top=top)
    # The two differ only where a chain reaches the depth cut: mass below dice / 6**depth.
    bound = Fraction(dice, 6**depth)
    for h in range(top):
        assert abs(ours[h] - enumerated.get(h, Fraction(0))) <= bound
    assert ours[0] == enumerated[0] == Fraction(5, 6) ** dice
    assert attack_hit_probability(skill=dice - 1, difficulty=difficulty) == 1 - enumerated[0]
    mean = sum(h * p for h, p in enumerated.items())
    exact = attack_expected_hits(skill=dice - 1, difficulty=difficulty)
    assert 0 <= exact - mean <= dice * Fraction(6, 5) / 6 ** (depth + 1)
    # With bennies: every initial roll, all bennies on the die that needs fewest to hit.
    for bennies in (1, 2, 3):
        rolls = list(itertools.product(range(1, 7), repeat=dice))
        hit = sum(
            1 for roll in rolls if any(f + bennies >= difficulty or f + bennies >= 6 for f in roll)
        )
        assert attack_hit_probability(
            skill=dice - 1, difficulty=difficulty, bennies=bennies
        ) == Fraction(hit, len(rolls))


def test_attack_expected_hits_worked_by_hand():
    # One die at difficulty 4: E = P(>=4) + P(6) E = 1/2 + E/6, so E = 3/5.
    assert attack_expected_hits(skill=0, difficulty=4) == Fraction(3, 5)
    # Difficulty 6: E = 1/6 + E/6, E = 1/5; three dice: 3/5.
    assert attack_expected_hits(skill=2, difficulty=6) == Fraction(3, 5)
    # Difficulty 1 (and 0): every die hits, E = 1 + E/6 = 6/5.
    assert attack_expected_hits(skill=0, difficulty=1) == Fraction(6, 5)
    assert attack_expected_hits(skill=0, difficulty=0) == Fraction(6, 5)


@pytest.mark.parametrize("dice", [1, 2, 4])
@pytest.mark.parametrize("difficulty", [0, 1, 2, 4, 6, 7, 9])
def test_attack_expected_hits_against_truncated_dp(dice, difficulty):
    depth = 14
    dp = _truncated_pool(dice, difficulty, depth)
    mean = sum(h * p for h, p in dp.items())
    exact = attack_expected_hits(skill=dice - 1, difficulty=difficulty)
    # The cut loses at most, per die, P(depth explosions then a six) * E[fresh chain]
    # <= 6**-15 * 6/5.
    assert exact - dice * Fraction(6, 5) / 6 ** (depth + 1) <= mean <= exact
    assert sum(dp.values()) == 1


@pytest.mark.parametrize("dice", [1, 2, 3, 5])
@pytest.mark.parametrize("difficulty", [1, 2, 3, 4, 5, 6, 7])
def test_attack_hit_distribution_against_truncated_dp(dice, difficulty):
    depth, top = 12, dice + 8
    ours = attack_hit_distribution(skill=dice - 1, difficulty=difficulty, top=top)
    dp = _truncated_pool(dice, difficulty, depth)
    folded = {h: dp.get(h, Fraction(0)) for h in range(top)}
    folded[top] = sum((p for h, p in dp.items() if h >= top), Fraction(0))
    # Both agree except on rolls where some chain explodes `depth` times: mass <= dice/6**depth.
    bound = Fraction(dice, 6**depth)
    assert all(abs(ours[h] - folded[h]) <= bound for h in range(top + 1))
    assert sum(ours.values()) == 1


@pytest.mark.parametrize("dice", [1, 3, 6])
@pytest.mark.parametrize("difficulty", [2, 4, 6, 7])
def test_attack_hit_distribution_against_icepool(dice, difficulty):
    depth, top = 10, dice + 6

    def chain_hits(total: int) -> int:
        # icepool sums an exploded die: 6 * sixes + last face (a six at the depth cut counts).
        sixes = (total - 1) // 6
        last = total - 6 * sixes
        return sixes + (last >= difficulty or last == 6)  # a six always hits

    pool = dice @ icepool.d6.explode(depth=depth).map(chain_hits)
    theirs = {h: pool.probability(h) for h in range(top)}
    theirs[top] = pool.probability(">=", top)
    ours = attack_hit_distribution(skill=dice - 1, difficulty=difficulty, top=top)
    bound = Fraction(dice, 6**depth)
    assert all(abs(ours[h] - Fraction(theirs[h])) <= bound for h in range(top + 1))


def test_attack_hit_distribution_by_hand():
    # One die at difficulty 4: 0 hits on 1-3 (1/2); 1 hit on 4-5 (1/3) or 6 then a miss (1/6*1/2).
    dist = attack_hit_distribution(skill=0, difficulty=4, top=2)
    assert dist[0] == Fraction(1, 2)
    assert dist[1] == Fraction(1, 3) + Fraction(1, 12)
    assert dist[2] == 1 - dist[0] - dist[1]
    # Default top: the pool plus the explosion cap, every key present.
    assert list(attack_hit_distribution(skill=1, difficulty=4)) == list(
        range(2 + MAX_EXPLOSIONS + 1)
    )


@settings(max_examples=80, deadline=None)
@given(skill=st.integers(0, 19), difficulty=st.integers(0, 8), top=st.integers(1, 30))
def test_attack_hit_distribution_properties(skill, difficulty, top):
    dist = attack_hit_distribution(skill=skill, difficulty=difficulty, top=top)
    assert sum(dist.values()) == 1
    assert all(p >= 0 for p in dist.values())
    assert dist[0] == 1 - attack_hit_probability(skill=skill, difficulty=difficulty)
    # More skill / lower difficulty: at least k hits never gets less likely.
    more = attack_hit_distribution(skill=skill + 1, difficulty=difficulty, top=top)
    harder = attack_hit_distribution(skill=skill, difficulty=difficulty + 1, top=top)
    for k in range(top + 1):
        at_least = sum(p for h, p in dist.items() if h >= k)
        assert sum(p for h, p in more.items() if h >= k) >= at_least
        assert sum(p for h, p in harder.items() if h >= k) <= at_least


@settings(max_examples=80, deadline=None)
@given(skill=st.integers(0, 30), difficulty=st.integers(0, 9), bennies=st.integers(0, 4))
def test_attack_odds_are_monotone(skill, difficulty, bennies):
    p = attack_hit_probability(skill=skill, difficulty=difficulty, bennies=bennies)
    assert 0 <= p <= 1
    assert attack_hit_probability(skill=skill + 1, difficulty=difficulty, bennies=bennies) >= p
    assert attack_hit_probability(skill=skill, difficulty=difficulty + 1, bennies=bennies) <= p
    assert attack_hit_probability(skill=skill, difficulty=difficulty, bennies=bennies + 1) >= p
    e = attack_expected_hits(skill=skill, difficulty=difficulty)
    assert attack_expected_hits(skill=skill + 1, difficulty=difficulty) >= e
    assert attack_expected_hits(skill=skill, difficulty=difficulty + 1) <= e


def test_attack_mean_of_distribution_matches_expectation():
    # With the default top (pool + 100) the folded tail is below 6**-100: the means agree to it.
    dist = attack_hit_distribution(skill=4, difficulty=3)
    mean = sum(h * p for h, p in dist.items())
    exact = attack_expected_hits(skill=4, difficulty=3)
    assert 0 <= exact - mean < Fraction(1, 6**80)


def test_attack_odds_errors():
    with pytest.raises(PoolTooLargeError, match="attack pool"):
        attack_hit_probability(skill=100, difficulty=4)
    with pytest.raises(OutOfRangeError, match="skill"):
        attack_expected_hits(skill=-1, difficulty=4)
    with pytest.raises(OutOfRangeError, match="difficulty"):
        attack_hit_distribution(skill=1, difficulty=-2)
    with pytest.raises(OutOfRangeError, match="top of the hit chart"):
        attack_hit_distribution(skill=1, difficulty=4, top=0)
    with pytest.raises(OutOfRangeError, match="top of the hit chart"):
        attack_hit_distribution(skill=1, difficulty=4, top=2 + MAX_EXPLOSIONS + 1)
    with pytest.raises(RulesError, match="whole number"):
        attack_hit_probability(skill=1.5, difficulty=4)


# --- attack rolls ---------------------------------------------------------------------------------


def test_attack_by_hand_with_explosion_chain():
    # Skill 2: three dice 6, 2, 4 at difficulty 4; the 6 explodes into a 6, which explodes into 1.
    result = attack(skill=2, difficulty=4, rng=d6(6, 2, 4, 6, 1))
    assert [d.value for d in result.dice] == [6, 2, 4, 6, 1]
    assert [d.source for d in result.dice] == [None, None, None, 0, 3]
    assert [d.exploded for d in result.dice] == [True, False, False, True, False]
    assert result.hits == 3  # 6, 4, 6
    assert result.explosions == 2
    assert not result.foe_strikes_back
    assert json.loads(json.dumps(result.to_dict()))["dice"][3]["source"] == 0


def test_attack_no_hit_means_the_foe_strikes_back():
    result = attack(skill=1, difficulty=5, rng=d6(4, 2))
    assert result.hits == 0 and result.foe_strikes_back
    assert not result.character_strikes_back


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), skill=st.integers(0, 12), difficulty=st.integers(0, 8))
def test_attack_keeps_every_die(seed, skill, difficulty):
    result = attack(skill=skill, difficulty=difficulty, rng=random.Random(seed))
    assert len(result.dice) == 1 + skill + result.explosions
    assert all(d.source is None for d in result.dice[: 1 + skill])
    for i, d in enumerate(result.dice):
        assert d.exploded == (d.value >= 6)
        children = [c for c in result.dice if c.source == i]
        assert len(children) == (1 if d.exploded else 0)
        if d.source is not None:
            assert d.source < i
    assert result.hits == sum(1 for d in result.dice if _die_hits(d.value, difficulty))
    assert result.foe_strikes_back == (result.hits == 0)


@pytest.mark.parametrize(("skill", "difficulty", "top"), [(0, 4, 4), (2, 4, 7), (4, 6, 5)])
def test_attack_hit_counts_chi_square(skill, difficulty, top):
    rng = random.Random(7 + skill)
    samples = [
        min(attack(skill=skill, difficulty=difficulty, rng=rng).hits, top) for _ in range(4000)
    ]
    expected = attack_hit_distribution(skill=skill, difficulty=difficulty, top=top)
    assert chi_square_p_value(samples, expected) > 0.001


def test_foe_attack_uses_the_characters_difficulty():
    result = foe_attack(skill=1, rng=d6(3, 1))  # default character difficulty 3
    assert result.purpose == "foe attack" and result.difficulty == 3 and result.hits == 1
    missed = foe_attack(skill=0, difficulty=5, rng=d6(4))
    assert missed.character_strikes_back and not missed.foe_strikes_back
    custom = foe_attack(skill=0, ruleset={"character_difficulty": 5}, rng=d6(4))
    assert custom.difficulty == 5 and custom.hits == 0


def test_foe_attack_chi_square():
    rng = random.Random(3)
    samples = [min(foe_attack(skill=3, rng=rng).hits, 7) for _ in range(4000)]
    assert (
        chi_square_p_value(samples, attack_hit_distribution(skill=3, difficulty=3, top=7)) > 0.001
    )


def test_explosion_cap():
    # Exactly MAX_EXPLOSIONS explosions are allowed: 100 sixes, then a 1.
    result = attack(skill=0, difficulty=4, rng=d6(*([6] * MAX_EXPLOSIONS), 1))
    assert result.explosions == MAX_EXPLOSIONS and result.hits == MAX_EXPLOSIONS
    with pytest.raises(PoolTooLargeError, match="exploded more than 100 times"):
        attack(skill=0, difficulty=4, rng=Always())
    # A benny that would explode past the cap is refused the same way.
    pushed_base = attack(skill=1, difficulty=4, rng=d6(5, *([6] * MAX_EXPLOSIONS), 1))
    assert pushed_base.explosions == MAX_EXPLOSIONS
    with pytest.raises(PoolTooLargeError):
        spend_benny_on_die(pushed_base, die_index=0, rng=Always())


# --- bennies on dice ------------------------------------------------------------------------------


def test_pushing_a_five_to_six_explodes():
    result = attack(skill=1, difficulty=6, rng=d6(5, 2))
    assert result.hits == 0 and result.foe_strikes_back
    pushed = spend_benny_on_die(result, die_index=0, rng=d6(3))
    assert isinstance(pushed, AttackResult)
    assert pushed.dice[0].value == 6 and pushed.dice[0].rolled == 5 and pushed.dice[0].bonus == 1
    assert pushed.dice[0].exploded
    assert pushed.dice[2].value == 3 and pushed.dice[2].source == 0
    assert pushed.hits == 1 and not pushed.foe_strikes_back and pushed.bennies == 1
    assert result.dice[0].value == 5  # the old result is untouched


def test_pushing_three_to_four_at_difficulty_four_hits():
    result = attack(skill=1, difficulty=4, rng=d6(3, 1))
    assert result.foe_strikes_back
    pushed = spend_benny_on_die(result, die_index=0, rng=d6())  # no die may be rolled
    assert pushed.hits == 1 and not pushed.foe_strikes_back
    assert len(pushed.dice) == 2 and not pushed.dice[0].exploded


def test_a_die_explodes_only_once_and_benny_chains():
    result = attack(skill=0, difficulty=7, rng=d6(6, 2))
    assert result.hits == 1  # difficulty 7: the six explodes and hits; the 2 misses
    pushed = spend_benny_on_die(result, die_index=0, rng=d6())  # 6 -> 7: still one hit, no new die
    assert pushed.hits == 1 and len(pushed.dice) == 2
    # A 5 pushed to 6 explodes into a 6 that explodes into a 2.
    chain = spend_benny_on_die(attack(skill=0, difficulty=4, rng=d6(5)), die_index=0, rng=d6(6, 2))
    assert [d.value for d in chain.dice] == [6, 6, 2]
    assert [d.source for d in chain.dice] == [None, 0, 1]
    assert chain.hits == 2 and chain.explosions == 2
    # Two bennies on a 4 at difficulty 8: 5 (a miss, the foe would strike back), then 6: it
    # hits and explodes (into a 1, a miss).
    two = attack(skill=0, difficulty=8, rng=d6(4))
    assert two.foe_strikes_back
    two = spend_benny_on_die(two, die_index=0, rng=d6())
    assert two.hits == 0 and two.foe_strikes_back
    two = spend_benny_on_die(two, die_index=0, rng=d6(1))
    assert two.hits == 1 and two.dice[0].exploded and len(two.dice) == 2
    assert not two.foe_strikes_back and two.bennies == 2


def test_benny_explosion_chi_square():
    # A 5 pushed to 6 at difficulty 4: one hit for the six plus a fresh chain's hits.
    rng = random.Random(11)
    base = attack(skill=0, difficulty=4, rng=d6(5))
    samples = [min(spend_benny_on_die(base, die_index=0, rng=rng).hits - 1, 4) for _ in range(4000)]
    assert (
        chi_square_p_value(samples, attack_hit_distribution(skill=0, difficulty=4, top=4)) > 0.001
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    skill=st.integers(0, 6),
    difficulty=st.integers(1, 8),
    pushes=st.lists(st.integers(0, 20), max_size=4),
)
def test_stored_results_rebuild_exactly(seed, skill, difficulty, pushes):
    # A scene stores results as JSON and spends bennies on them later: the round trip is exact.
    rng = random.Random(seed)
    result = attack(skill=skill, difficulty=difficulty, rng=rng)
    for push in pushes:
        stored = json.loads(json.dumps(result.to_dict()))
        assert AttackResult.from_dict(stored) == result
        result = spend_benny_on_die(
            AttackResult.from_dict(stored), die_index=push % len(result.dice), rng=rng
        )
    assert AttackResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    standard = standard_roll(skill=skill, difficulty=difficulty, rng=rng)
    for _ in pushes:
        standard = spend_bennies_on_standard(
            StandardResult.from_dict(json.loads(json.dumps(standard.to_dict()))), bennies=1
        )
    assert StandardResult.from_dict(standard.to_dict()) == standard
    assert standard.bennies == len(pushes)


def test_stored_results_are_checked():
    with pytest.raises(RulesError, match="purpose"):
        AttackResult.from_dict({"purpose": "dance", "skill": 1, "difficulty": 3, "dice": []})
    with pytest.raises(RulesError, match="needs its purpose"):
        AttackResult.from_dict({"skill": 1})
    with pytest.raises(OutOfRangeError, match="d6"):
        AttackResult.from_dict(
            {"purpose": "attack", "skill": 0, "difficulty": 3, "dice": [{"rolled": 9}]}
        )
    with pytest.raises(RulesError, match="d12"):
        StandardResult.from_dict({"skill": 1})


def test_benny_errors():
    result = attack(skill=1, difficulty=4, rng=d6(3, 1))
    with pytest.raises(OutOfRangeError, match="die to push"):
        spend_benny_on_die(result, die_index=2)
    with pytest.raises(RulesError, match="whole number"):
        spend_benny_on_die(result, die_index="0")
    with pytest.raises(IllegalMoveError, match="foe's attack"):
        spend_benny_on_die(foe_attack(skill=0, rng=d6(2)), die_index=0)
    with pytest.raises(RulesError, match="attack, healing or poison"):
        spend_benny_on_die(standard_roll(skill=0, difficulty=3, rng=random.Random(1)), die_index=0)


# --- healing and poison ---------------------------------------------------------------------------


def test_healing_by_hand():
    # Default difficulty 3 ("or 3 if not specified"): 3 and 5 heal two hits, the 1 does nothing.
    healed = heal(skill=2, rng=d6(3, 1, 5))
    assert isinstance(healed, HealingResult)
    assert healed.roll.difficulty == 3 and healed.hits_healed == 2
    assert not healed.patient_takes_hit and healed.time_spent == 1
    assert not healed.roll.foe_strikes_back  # no foe in a healing roll
    # Every die under the harm source's difficulty: the patient takes a hit.
    hurt = heal(skill=1, harm_difficulty=5, rng=d6(4, 2))
    assert hurt.hits_healed == 0 and hurt.patient_takes_hit
    # A benny on the 4 makes it 5: one hit healed, no harm done.
    helped = spend_benny_on_die(hurt, die_index=0, rng=d6())
    assert isinstance(helped, HealingResult)
    assert helped.hits_healed == 1 and not helped.patient_takes_hit
    assert heal(skill=0, ruleset={"healing_difficulty": 2}, rng=d6(2)).hits_healed == 1


def test_healing_chi_square():
    rng = random.Random(5)
    samples = [min(heal(skill=1, harm_difficulty=4, rng=rng).hits_healed, 5) for _ in range(4000)]
    assert (
        chi_square_p_value(samples, attack_hit_distribution(skill=1, difficulty=4, top=5)) > 0.001
    )


def test_poison_by_hand():
    # Against difficulty 3: the 3, the 6 and its exploded 4 are three hits: a poison for a
    # difficulty-3 foe; it costs a unit of time and a unit of loot.
    poison = make_poison(skill=2, rng=d6(3, 6, 1, 4))
    assert isinstance(poison, PoisonResult)
    assert poison.roll.difficulty == 3 and poison.foe_difficulty == 3
    assert (poison.time_spent, poison.loot_spent) == (1, 1)
    weaker = make_poison(skill=0, rng=d6(2))
    assert weaker.foe_difficulty == 0 and weaker.loot_spent == 1
    stronger = spend_benny_on_die(weaker, die_index=0, rng=d6())
    assert isinstance(stronger, PoisonResult) and stronger.foe_difficulty == 1


def test_poison_chi_square():
    rng = random.Random(9)
    samples = [min(make_poison(skill=2, rng=rng).foe_difficulty, 6) for _ in range(4000)]
    assert (
        chi_square_p_value(samples, attack_hit_distribution(skill=2, difficulty=3, top=6)) > 0.001
    )


# --- skills ---------------------------------------------------------------------------------------


def test_seed_skill_list():
    names = conductor.skill_names()
    assert len(names) == 18
    assert names[0] == "Acrobatics" and names[-1] == "Weapon"
    assert "Mechanisms and Devices" in names and "Climbing, Swimming and Running" in names


def test_effective_skill_specifications():
    assert effective_skill(skill="acrobatics", value=2) == 2
    # Awareness may be specified: +1 within (e.g. sight), unusable outside.
    assert effective_skill(skill="Awareness", value=2) == 2
    assert effective_skill(skill="Awareness", value=2, specification="sight") == 3
    assert (
        effective_skill(
            skill="Awareness", value=2, specification="sight", within_specification=False
        )
        == 0
    )
    # Weapon and Art/Craft must be specified.
    assert effective_skill(skill="weapon", value=1, specification="spear") == 2
    assert effective_skill(skill="Art/Craft", value=0, specification="painting") == 1
    with pytest.raises(RulesError, match="Weapon must be specified"):
        effective_skill(skill="Weapon", value=1)
    with pytest.raises(RulesError, match="Strength cannot be specified"):
        effective_skill(skill="Strength", value=1, specification="arms")
    with pytest.raises(UnknownNameError, match="Unknown skill 'Juggling'"):
        effective_skill(skill="Juggling", value=1)
    with pytest.raises(RulesError, match="within_specification"):
        effective_skill(skill="Awareness", value=1, specification="smell", within_specification=1)
    with pytest.raises(RulesError, match="non-empty"):
        effective_skill(skill="Awareness", value=1, specification="  ")
    with pytest.raises(OutOfRangeError):
        effective_skill(skill="Awareness", value=-1)
    # A campaign's own skill ("Other skills"), and a bigger bonus.
    ruleset = {"skills": {"Juggling": "may"}, "specification_bonus": 2}
    assert effective_skill(skill="juggling", value=1, specification="clubs", ruleset=ruleset) == 3


# --- ruleset --------------------------------------------------------------------------------------


def test_default_ruleset_round_trips_through_json():
    ruleset = validate_ruleset(None)
    assert json.loads(json.dumps(ruleset)) == ruleset
    assert ruleset == validate_ruleset(conductor.DEFAULT_RULESET)
    assert ruleset["character_difficulty"] == 3
    assert ruleset["wilderness"]["supply_dice"] == [12, 10, 8, 6, 4]


def test_ruleset_merges_sections():
    ruleset = validate_ruleset(
        {"wilderness": {"forage_difficulty": 6}, "skills": {"ACROBATICS": "may", "Weapon": None}}
    )
    assert ruleset["wilderness"]["forage_difficulty"] == 6
    assert ruleset["wilderness"]["supply_target"] == 3  # untouched fields keep their default
    assert ruleset["skills"]["Acrobatics"] == "may"
    assert "Weapon" not in ruleset["skills"]
    assert "ACROBATICS" not in ruleset["skills"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "mapping of fields"),
        ({"colours": []}, "Unknown ruleset field"),
        ({"character_difficulty": "3"}, "ruleset.character_difficulty"),
        ({"healing_difficulty": -1}, "ruleset.healing_difficulty"),
        ({"specification_bonus": 1000}, "ruleset.specification_bonus"),
        ({"skills": ["Acrobatics"]}, "ruleset.skills"),
        ({"skills": {"Acrobatics": "sometimes"}}, "ruleset.skills.Acrobatics rule"),
        ({"skills": {"": "may"}}, "not a skill name"),
        ({"skills": dict.fromkeys(conductor.skill_names())}, "at least one skill"),
        ({"wilderness": 7}, "ruleset.wilderness must"),
        ({"wilderness": {"food": 1}}, "Unknown ruleset.wilderness field"),
        ({"wilderness": {"supply_dice": [10, 12]}}, "step down"),
        ({"wilderness": {"supply_dice": []}}, "supply_dice must list"),
        ({"wilderness": {"supply_dice": [12, 1]}}, "die size"),
        ({"wilderness": {"supply_target": None}}, "supply_target"),
        ({"wilderness": {"gallop_hexes": -1}}, "gallop_hexes"),
        ({"wilderness": {"mounts_recover": "never"}}, "mounts_recover"),
    ],
)
def test_ruleset_errors(data, message):
    with pytest.raises(RulesError, match=message):
        validate_ruleset(data)


def test_validate_ruleset_returns_a_fresh_copy():
    ruleset = validate_ruleset(None)
    ruleset["wilderness"]["supply_dice"].clear()
    ruleset["skills"].clear()
    assert validate_ruleset(None)["wilderness"]["supply_dice"] == [12, 10, 8, 6, 4]
    assert len(conductor.skill_names()) == 18


def test_star_import_and_dir_include_the_wilderness_names():
    namespace: dict = {}
    exec("from rules.conductor import *", namespace)
    assert {"Expedition", "attack", "supply_roll", "PHASES"} <= namespace.keys()
    assert "start_expedition" in dir(conductor)
    with pytest.raises(AttributeError):
        conductor.no_such_name  # noqa: B018


def test_roll_functions_take_the_ruleset():
    with pytest.raises(RulesError, match="Unknown ruleset field"):
        foe_attack(skill=1, ruleset={"nope": 1}, rng=random.Random(1))
    assert make_poison(skill=0, ruleset={"poison_difficulty": 1}, rng=d6(1)).foe_difficulty == 1
