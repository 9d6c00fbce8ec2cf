"""Spend odds against enumeration (issue 16): what each spend buys, as rules/ computes it,
checked against a brute force written here from the seeds' words, over every dice outcome."""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache

import pytest

from rules import annulus, conductor, percentile, two_dice
from rules.core import IllegalMoveError, RulesError, UnknownNameError
from tests.support.dice import Faces

# --- conductor (seed 002): bennies --------------------------------------------------------------


@pytest.mark.parametrize("skill", [0, 2, 5])
@pytest.mark.parametrize("difficulty", [0, 4, 9, 13])
@pytest.mark.parametrize("bennies", [1, 2, 4])
def test_bennies_on_a_standard_roll_against_every_d12_face(skill, difficulty, bennies):
    # "each BENNY spent grants a +1 to the roll"; the roll must be strictly over the difficulty.
    for face in range(1, 13):
        roll = conductor.standard_roll(skill=skill, difficulty=difficulty, rng=Faces(face))
        effect = conductor.standard_benny_effect(roll, bennies=bennies)
        assert effect.total_before == face + skill
        assert effect.total_after == face + skill + bennies
        assert effect.success_before == (face + skill > difficulty)
        assert effect.success_after == (face + skill + bennies > difficulty)


DEPTH = 5  # fresh d6 enumerated after an explosion: enough for every count below ROWS


@cache
def chain_hits(difficulty: int) -> dict[int, Fraction]:
    """Hits from one fresh d6 and whatever it explodes into, by brute force over every sequence
    of DEPTH faces: a die hits at or above the difficulty, a 6 always hits and adds a die. A
    sequence that is still exploding after DEPTH dice has at least DEPTH hits: key DEPTH."""
    out: dict[int, Fraction] = {}
    weight = Fraction(1, 6**DEPTH)
    for faces in itertools.product(range(1, 7), repeat=DEPTH):
        hits = 0
        for face in faces:
            if face >= difficulty or face == 6:
                hits += 1
            if face != 6:
                break
        else:
            hits = DEPTH
        out[hits] = out.get(hits, Fraction(0)) + weight
    return out


def expected_after(values: list[int], exploded: list[bool], index: int, bennies: int, d: int):
    """The brute-force hits after bennies on one die: recount, then an explosion's chain."""
    pushed = list(values)
    pushed[index] += bennies
    recount = sum(1 for v in pushed if v >= d or v >= 6)
    if pushed[index] < 6 or exploded[index]:
        return {recount: Fraction(1)}
    return {recount + extra: p for extra, p in chain_hits(d).items()}


ROWS = 3


@pytest.mark.parametrize("difficulty", range(1, 9))
def test_bennies_on_an_attack_die_against_every_outcome(difficulty):
    # Every 2d6 pool of an attack roll with skill 1 (a 6 explodes into a scripted 2), and
    # 1-3 bennies on each die that has not exploded yet.
    for first, second in itertools.product(range(1, 7), repeat=2):
        faces = [first, second] + [2] * [first, second].count(6)
        roll = conductor.attack(skill=1, difficulty=difficulty, rng=Faces(*faces))
        values = [d.value for d in roll.dice]
        exploded = [d.exploded for d in roll.dice]
        for index, die in enumerate(roll.dice):
            if die.exploded:
                continue
            for bennies in (1, 2, 3):
                effect = conductor.die_benny_effect(
                    roll, die_index=index, bennies=bennies, rows=ROWS
                )
                want = expected_after(values, exploded, index, bennies, difficulty)
                assert effect.hits_before == sum(1 for v in values if v >= min(difficulty, 6))
                assert effect.value_after == die.value + bennies
                if not effect.explodes:
                    assert effect.hits_after == want and effect.top is None
                    continue
                # Listed counts are exact; the last key holds the rest ("top or more").
                assert effect.top == max(effect.hits_after)
                for hits, p in effect.hits_after.items():
                    if hits < effect.top:
                        assert p == want.get(hits, Fraction(0)), (faces, index, bennies)
                tail = sum((p for h, p in want.items() if h >= effect.top), Fraction(0))
                assert effect.hits_after[effect.top] == tail
                assert sum(effect.hits_after.values()) == 1


def test_a_benny_on_a_die_of_a_heal_or_poison_counts_the_same_roll():
    heal = conductor.heal(skill=1, harm_difficulty=4, rng=Faces(5, 2))
    effect = conductor.die_benny_effect(heal, die_index=1, bennies=2)
    assert (effect.hits_before, effect.hits_after) == (1, {2: 1})


def test_no_benny_effect_on_a_foes_attack():
    foe = conductor.foe_attack(skill=1, difficulty=3, rng=Faces(1, 1))
    with pytest.raises(IllegalMoveError, match="players"):
        conductor.die_benny_effect(foe, die_index=0)


# --- percentile (seed 004): plot points ---------------------------------------------------------

# Chart 14.1 written out from the seed (RULES-NOTES edges): the last total of each band.
CHART = [
    (-26, "extraordinary_failure"),
    (5, "fumble"),
    (80, "failure"),
    (90, "partial_success"),
    (100, "near_success"),
    (110, "unrelated_success"),
    (175, "success"),
    (250, "critical_success"),
]


def band(total: int) -> str:
    return next((name for last, name in CHART if total <= last), "extraordinary_success")


@cache
def upward(depth: int = 3) -> dict[int | None, Fraction]:
    """The upward open-ended d100 ("96-100 rolls again and adds, repeating"), every chain of up
    to ``depth`` dice; None holds the chains still rolling (each already over 96 * depth)."""
    out: dict[int | None, Fraction] = {}

    def walk(total: int, dice: int, weight: Fraction) -> None:
        if dice == depth:
            out[None] = out.get(None, Fraction(0)) + weight
            return
        for face in range(1, 101):
            if face >= 96:
                walk(total + face, dice + 1, weight / 100)
            else:
                out[total + face] = out.get(total + face, Fraction(0)) + weight / 100

    walk(0, 0, Fraction(1))
    return out


def chosen_bands(value: int, bonus: int, open_ended: bool) -> dict[str, Fraction]:
    """Bands once plot points set the die to ``value``: it stays, or (open-ended) 96-100 adds
    an upward roll and 01-05 subtracts one. Unfinished chains are past every edge (|U| > 288)."""
    if not open_ended or 6 <= value <= 95:
        return {band(value + bonus): Fraction(1)}
    sign = 1 if value >= 96 else -1
    out: dict[str, Fraction] = {}
    for u, p in upward().items():
        name = (
            band(value + sign * u + bonus)
            if u is not None
            else ("extraordinary_success" if sign > 0 else "extraordinary_failure")
        )
        out[name] = out.get(name, Fraction(0)) + p
    return out


@pytest.mark.parametrize("bonus", [-120, -40, 0, 35, 80, 160])
def test_plot_point_changes_against_every_new_value(bonus):
    roll = percentile.roll(skill_value=bonus, rng=Faces(50))
    one, two = percentile.plot_point_change_effects(roll)
    assert (one.points, one.low, one.high, two.points, two.low, two.high) == (1, 6, 95, 2, 1, 100)
    for change, open_ended in ((one, False), (two, True)):
        assert change.band_before == band(50 + bonus) and change.total_before == 50 + bonus
        # Every value that stays put is listed once, in order, with the band it lands on.
        listed = {v: r.band for r in change.ranges for v in range(r.first, r.last + 1)}
        staying = [v for v in range(change.low, change.high + 1) if not open_ended or 6 <= v <= 95]
        assert sorted(listed) == staying
        for value in staying:
            assert {listed[value]: 1} == chosen_bands(value, bonus, open_ended)
        successes = [v for v in staying if listed[v] in percentile.SUCCESS_OR_BETTER]
        assert change.first_success == (min(successes) if successes else None)
    assert one.rolls_on == {} and one.rolls_down == {}
    assert (two.rolls_on_value, two.rolls_down_value) == (100, 1)
    assert two.rolls_on == chosen_bands(100, bonus, True)
    assert two.rolls_down == chosen_bands(1, bonus, True)
    want = sum(
        (p for b, p in chosen_bands(100, bonus, True).items() if b in percentile.SUCCESS_OR_BETTER),
        Fraction(0),
    )
    assert two.rolls_on_success == want


# --- annulus (seed 000): toolkit abilities ------------------------------------------------------


def solutions(length: int):
    """Every solved chain: "every die ... is exactly one number different from every die it
    neighbors", dice 1..12."""
    chains = [(v,) for v in range(1, 13)]
    for _ in range(length - 1):
        chains = [c + (c[-1] + d,) for c in chains for d in (-1, 1) if 1 <= c[-1] + d <= 12]
    return chains


def fewest(values, jammed) -> int | None:
    """Brute force: the cheapest solved chain reachable by +-1 steps, jammed dice fixed."""
    costs = [
        sum(abs(a - b) for a, b in zip(values, target, strict=True))
        for target in solutions(len(values))
        if all(target[i] == values[i] for i in jammed)
    ]
    return min(costs) if costs else None


VISIBLE = [
    (tuple(chain), frozenset(stuck))
    for chain in itertools.product((1, 4, 7, 12), repeat=3)
    for stuck in ((), (0,), (1,), (0, 2))
] + [((7, 9, 7, 3, 11, 5), frozenset({2})), ((4, 6), frozenset({0, 1})), ((9,), frozenset())]


@pytest.mark.parametrize(("values", "jammed"), VISIBLE)
def test_toolkit_effects_against_every_new_number(values, jammed):
    before = fewest(values, jammed)
    for index in range(len(values)):
        if index in jammed:
            effect = annulus.toolkit_effect(values, jammed, effect="unjam", index=index)
            assert effect.before == before
            assert effect.after == {fewest(values, jammed - {index}): 1}
            continue
        counts = {}
        for face in range(1, 13):
            changed = values[:index] + (face,) + values[index + 1 :]
            counts[face] = fewest(changed, jammed)
            setting = annulus.toolkit_effect(
                values, jammed, effect="set_value", index=index, value=face
            )
            assert (setting.before, setting.after) == (before, {counts[face]: 1})
        # A reroll: each of the twelve numbers with 1/12.
        reroll = annulus.toolkit_effect(values, jammed, effect="reroll", index=index)
        want: dict = {}
        for count in counts.values():
            want[count] = want.get(count, Fraction(0)) + Fraction(1, 12)
        assert reroll.after == want and sum(reroll.after.values()) == 1
        # The best number to set: the fewest left, the lowest number on a tie.
        best = annulus.best_set_value(values, jammed, index=index)
        key = {f: (float("inf") if c is None else c, f) for f, c in counts.items()}
        assert best.value == min(key, key=key.get)


def test_a_reveal_is_refused_on_the_visible_chain_and_read_for_the_gm_only():
    with pytest.raises(RulesError, match="hidden die"):
        annulus.toolkit_effect((5, 6, 3), (), effect="reveal", index=0)
    # Mask 2,1,2,2 hides position 1 (a 9); the players see [5][6][3].
    challenge = annulus.setup_challenge(
        difficulty="easy", types=["Finesse"], length=4, rng=Faces(2, 1, 2, 2, 5, 9, 6, 3)
    )
    assert challenge.visible_values() == (5, 6, 3)
    effect = annulus.reveal_effect(challenge, position=1)
    assert (effect.index, effect.value) == (1, 9)
    assert effect.before == fewest((5, 6, 3), frozenset())
    assert effect.after == {fewest((5, 9, 6, 3), frozenset()): 1}


# --- two_dice (seed 003): hinder and resist -----------------------------------------------------


def two_dice_band(total: int, difficulty: str) -> str:
    """Seed "Making Checks": 15+ succeeds, 20+ critical, 10 or lower a critical failure;
    Trivial never worse than a success, Impossible never better than a failure (RULES-NOTES)."""
    if total >= 20:
        band = "critical_success"
    elif total >= 15:
        band = "success"
    elif total <= 10:
        band = "critical_failure"
    else:
        band = "failure"
    if difficulty == "Trivial" and band in ("failure", "critical_failure"):
        return "success"
    if difficulty == "Impossible" and band in ("success", "critical_success"):
        return "failure"
    return band


def counted_dice(difficulty: str):
    """Every equally likely roll's two counted dice (seed: three dice keep the higher or lower
    two; Trivial counts as 6+6, Impossible as 1+1)."""
    if difficulty == "Trivial":
        return [12]
    if difficulty == "Impossible":
        return [2]
    if difficulty == "Normal":
        return [a + b for a, b in itertools.product(range(1, 7), repeat=2)]
    rolls = [sorted(r) for r in itertools.product(range(1, 7), repeat=3)]
    return [sum(r[1:]) if difficulty == "Easy" else sum(r[:2]) for r in rolls]


def enumerated(difficulty: str, attribute: int, penalty: int, die: bool) -> dict[str, Fraction]:
    faces = range(1, 7) if die else [0]
    outcomes = [(dice, face) for dice in counted_dice(difficulty) for face in faces]
    out = dict.fromkeys(("critical_failure", "failure", "success", "critical_success"), Fraction(0))
    for dice, face in outcomes:
        out[two_dice_band(dice + attribute - penalty - face, difficulty)] += Fraction(
            1, len(outcomes)
        )
    return out


@pytest.mark.parametrize("difficulty", ["Trivial", "Easy", "Normal", "Hard", "Impossible"])
@pytest.mark.parametrize(("attribute", "penalty"), [(3, 0), (8, 2), (12, 5)])
def test_hinder_and_resist_against_every_roll_and_penalty_die(difficulty, attribute, penalty):
    action = two_dice.declare_action(
        actor="Ash",
        targets=["Bryn"],
        attribute="Might",
        attribute_value=attribute,
        difficulty=difficulty,
        resource="Health",
        resource_available=9,
        penalties=[("Other penalty", penalty)] if penalty else [],
    )
    for kind, reactor in (("hinder", "Cato"), ("hinder", "Bryn"), ("resist", "Bryn")):
        effect = two_dice.opposition_effect(action, opposition=kind, reactor=reactor)
        assert effect.before == enumerated(difficulty, attribute, penalty, die=False)
        assert effect.after == enumerated(difficulty, attribute, penalty, die=True)
        now, then = action.success_if_opposed(kind, reactor)
        assert (effect.success_before, effect.success_after) == (now, then)
    with pytest.raises(UnknownNameError, match="not a target"):
        two_dice.opposition_effect(action, opposition="resist", reactor="Cato")
