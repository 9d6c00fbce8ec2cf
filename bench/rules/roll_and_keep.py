"""Benchmark cases for roll and keep (seed 001): the odds the UI asks, pools up to 20 d10."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool

from bench.rules import Case
from rules import roll_and_keep as rk


def _as_fractions(die: icepool.Die) -> dict[Any, Fraction]:
    return {o: Fraction(q, die.denominator()) for o, q in die.items() if q}


def _kept_successes(rolled: int, kept: int, difficulty: int) -> icepool.Die:
    return icepool.d10.pool(rolled).highest(kept).keep_outcomes(lambda x: x >= difficulty).size()


@icepool.multiset_function
def _kept_successes_and_ones(pool, *, kept, difficulty):
    return (
        pool.highest(kept).keep_outcomes(lambda x: x >= difficulty).size(),
        pool.keep_outcomes([1]).size(),
    )


def _icepool_botch(rolled: int, kept: int, difficulty: int) -> Fraction:
    joint = _kept_successes_and_ones(icepool.d10.pool(rolled), kept=kept, difficulty=difficulty)
    hit = sum(q for (successes, ones), q in joint.items() if successes == 0 and ones > 0)
    return Fraction(hit, joint.denominator())


def _distribution_case(rolled: int, kept: int, difficulty: int) -> Case:
    def ours() -> dict[int, Fraction]:
        rk.clear_caches()
        return rk.success_distribution(rolled=rolled, kept=kept, difficulty=difficulty)

    return Case(
        label=f"roll_and_keep success_distribution {rolled}k{kept} vs {difficulty}",
        ours=ours,
        icepool=lambda: _kept_successes(rolled, kept, difficulty),
        same_answer=lambda a, b: a == _as_fractions(b),
    )


def _botch_case(rolled: int, kept: int, difficulty: int) -> Case:
    def ours() -> Fraction:
        rk.clear_caches()
        return rk.botch_probability(rolled=rolled, kept=kept, difficulty=difficulty)

    return Case(
        label=f"roll_and_keep botch_probability {rolled}k{kept} vs {difficulty}",
        ours=ours,
        icepool=lambda: _icepool_botch(rolled, kept, difficulty),
        same_answer=lambda a, b: a == b,
    )


def _odds_case(rolled: int, kept: int, difficulty: str) -> Case:
    def ours() -> rk.RollOdds:
        rk.clear_caches()
        return rk.odds(rolled=rolled, kept=kept, difficulty=difficulty)

    number = rk.difficulty_value(difficulty)
    return Case(
        label=f"roll_and_keep roll form odds {rolled}k{kept} vs {difficulty}",
        ours=ours,
        icepool=lambda: _kept_successes(rolled, kept, number),
        same_answer=lambda a, b: a.distribution == _as_fractions(b),
    )


def _contest_case(rolled: int, kept: int, their_rolled: int, their_kept: int, diff: int) -> Case:
    def ours() -> rk.ContestOdds:
        rk.clear_caches()
        return rk.direct_contest_odds(
            rolled=rolled,
            kept=kept,
            opponent_rolled=their_rolled,
            opponent_kept=their_kept,
            difficulty=diff,
        )

    def theirs() -> icepool.Die:
        return _kept_successes(rolled, kept, diff) - _kept_successes(their_rolled, their_kept, diff)

    return Case(
        label=(
            f"roll_and_keep direct_contest_odds {rolled}k{kept} vs {their_rolled}k{their_kept}"
            f" at {diff}"
        ),
        ours=ours,
        icepool=theirs,
        same_answer=lambda a, b: a.net == _as_fractions(b),
    )


def cases() -> list[Case]:
    out: list[Case] = []
    for rolled, kept, difficulty in [(5, 2, 6), (10, 4, 7), (15, 6, 8), (20, 7, 6), (20, 15, 3)]:
        out.append(_distribution_case(rolled, kept, difficulty))
    for rolled, kept, difficulty in [(5, 2, 6), (12, 4, 8), (20, 7, 6)]:
        out.append(_botch_case(rolled, kept, difficulty))
    out.append(_odds_case(20, 5, "Challenging"))
    out.append(_contest_case(6, 3, 3, 2, 7))
    out.append(_contest_case(20, 6, 18, 9, 6))
    return out
