"""Roll and keep (seed 001): exact odds of a roll, an indirectly opposed roll and a contest.

(Named so that it does not shadow the package's ``odds()`` function.) Kept successes among the
K highest of N d10 are min(S, K) with S binomial; a botch is no kept success and some 1.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.core import Result, check_int, check_pool, convolve
from rules.roll_and_keep.ruleset import (
    BOTCH,
    FAILURE,
    SIDES,
    _ruleset,
    difficulty_value,
    indirect_difficulty,
)

# --- exact odds -------------------------------------------------------------------------------


def _faces_meeting(difficulty: int) -> int:
    """How many d10 faces are equal to or over ``difficulty`` (0 past 10, all 10 at 1 or less)."""
    return min(SIDES, max(0, SIDES + 1 - difficulty))


@lru_cache(maxsize=4096)
def _success_counts(rolled: int, kept: int, difficulty: int) -> tuple[tuple[int, Fraction], ...]:
    # The K highest dice hold every die that meets the difficulty when there are at most K of
    # them, and are all successes otherwise, so kept successes = min(S, K) with S ~ Binomial(N, p)
    # over *all* N dice. This is the order-statistics DP collapsed to its closed form: O(N).
    hits = _faces_meeting(difficulty)
    misses = SIDES - hits
    denominator = SIDES**rolled
    weights = [0] * (kept + 1)
    for s in range(rolled + 1):
        w = math.comb(rolled, s) * hits**s * misses ** (rolled - s)
        if w:
            weights[min(s, kept)] += w
    return tuple((s, Fraction(w, denominator)) for s, w in enumerate(weights) if w)


@lru_cache(maxsize=4096)
def _botch(rolled: int, kept: int, difficulty: int) -> Fraction:
    # Kept dice are the highest, so "no kept success" means no die at all meets the difficulty
    # (or nothing is kept); then P(some die shows 1) = P(all miss) - P(all miss without a 1).
    misses = SIDES if kept == 0 else SIDES - _faces_meeting(difficulty)
    misses_without_one = max(0, misses - 1)
    return Fraction(misses**rolled - misses_without_one**rolled, SIDES**rolled)


def clear_caches() -> None:
    """Empty the odds caches (for benchmarks that measure uncached speed)."""
    _success_counts.cache_clear()
    _botch.cache_clear()
    _net_distribution.cache_clear()


def _pool_args(rolled: Any, kept: Any) -> tuple[int, int]:
    rolled = check_pool(rolled, "The number of dice rolled")
    kept = check_int(kept, "The number of dice kept", low=0)
    return rolled, min(rolled, kept)


def success_distribution(
    *,
    rolled: int,
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[int, Fraction]:
    """Exact distribution of successes among the K highest of N d10.

    Seed: "1 success is earned for each dice over a fixed value for the difficulty"; a die
    "equal to or over the required number" succeeds (RULES-NOTES). ``kept`` over ``rolled``
    keeps every die ("K never exceeds N"). Outcomes with probability 0 are left out.
    """
    rolled, kept = _pool_args(rolled, kept)
    number = difficulty_value(difficulty, ruleset=ruleset)
    return dict(_success_counts(rolled, kept, number))


def botch_probability(
    *,
    rolled: int,
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> Fraction:
    """P(botch): "Characters botch a roll when they roll a 1 with no accompanying successes" —
    no kept success and at least one rolled die (kept or not) showing 1 (RULES-NOTES)."""
    rolled, kept = _pool_args(rolled, kept)
    return _botch(rolled, kept, difficulty_value(difficulty, ruleset=ruleset))


@dataclasses.dataclass(frozen=True)
class RollOdds(Result):
    """Everything the UI shows before a roll: ``distribution`` (successes -> probability),
    ``degrees`` (Botch, Failure, Marginal, … -> probability, summing to 1), ``botch``,
    ``at_least_one_success`` and ``expected_successes``. ``kept`` is already capped at N."""

    rolled: int
    kept: int
    difficulty: int
    distribution: dict[int, Fraction]
    degrees: dict[str, Fraction]
    botch: Fraction
    at_least_one_success: Fraction
    expected_successes: Fraction


def _odds(rolled: int, kept: int, difficulty: int, ruleset: Mapping[str, Any] | None) -> RollOdds:
    distribution = dict(_success_counts(rolled, kept, difficulty))
    botch = _botch(rolled, kept, difficulty)
    nothing = distribution.get(0, Fraction(0))
    degrees = {BOTCH: botch, FAILURE: nothing - botch}
    names = _ruleset(ruleset)["degrees"]
    degrees.update(dict.fromkeys(names, Fraction(0)))
    for successes, p in distribution.items():
        if successes:
            degrees[names[min(successes, len(names)) - 1]] += p
    return RollOdds(
        rolled=rolled,
        kept=kept,
        difficulty=difficulty,
        distribution=distribution,
        degrees=degrees,
        botch=botch,
        at_least_one_success=1 - nothing,
        expected_successes=sum((s * p for s, p in distribution.items()), Fraction(0)),
    )


def odds(
    *,
    rolled: int,
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> RollOdds:
    """The odds of an unopposed roll of N dice keeping K against a difficulty (a ladder name or
    1..10): success distribution with degree names, botch chance, chance of at least one success
    ("Usually, 1 success … is enough to ensure an action resolves as desired")."""
    rolled, kept = _pool_args(rolled, kept)
    return _odds(rolled, kept, difficulty_value(difficulty, ruleset=ruleset), ruleset)


# --- indirectly opposed -----------------------------------------------------------------------


def indirect_odds(
    *,
    rolled: int,
    kept: int,
    passive_attribute_value: int,
    passive_specialities: int = 0,
    ruleset: Mapping[str, Any] | None = None,
) -> RollOdds:
    """``odds`` of an indirectly opposed roll (difficulty from ``indirect_difficulty``; over 10
    means no success is possible)."""
    difficulty = indirect_difficulty(
        passive_attribute_value=passive_attribute_value, passive_specialities=passive_specialities
    )
    rolled, kept = _pool_args(rolled, kept)
    return _odds(rolled, kept, difficulty, ruleset)


# --- directly opposed -------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _net_distribution(
    rolled: int, kept: int, opponent_rolled: int, opponent_kept: int, difficulty: int
) -> tuple[tuple[int, Fraction], ...]:
    mine = dict(_success_counts(rolled, kept, difficulty))
    theirs = {-s: p for s, p in _success_counts(opponent_rolled, opponent_kept, difficulty)}
    return tuple(sorted(convolve(mine, theirs).items()))


def direct_contest_distribution(
    *,
    rolled: int,
    kept: int,
    opponent_rolled: int,
    opponent_kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[int, Fraction]:
    """Exact distribution of the net successes (own − opponent's) of a directly opposed action:
    the convolution of the two success distributions (the rolls are independent)."""
    rolled, kept = _pool_args(rolled, kept)
    opponent_rolled = check_pool(opponent_rolled, "The opponent's number of dice rolled")
    opponent_kept = min(
        opponent_rolled, check_int(opponent_kept, "The opponent's number of dice kept", low=0)
    )
    number = difficulty_value(difficulty, ruleset=ruleset)
    return dict(_net_distribution(rolled, kept, opponent_rolled, opponent_kept, number))


@dataclasses.dataclass(frozen=True)
class ContestOdds(Result):
    """Odds of a directly opposed action for the UI: the net distribution and P(win/tie/lose)."""

    net: dict[int, Fraction]
    win: Fraction
    tie: Fraction
    lose: Fraction


def direct_contest_odds(
    *,
    rolled: int,
    kept: int,
    opponent_rolled: int,
    opponent_kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> ContestOdds:
    """P(win), P(tie: status quo) and P(lose) of a directly opposed action, exactly."""
    net = direct_contest_distribution(
        rolled=rolled,
        kept=kept,
        opponent_rolled=opponent_rolled,
        opponent_kept=opponent_kept,
        difficulty=difficulty,
        ruleset=ruleset,
    )
    zero = Fraction(0)
    return ContestOdds(
        net=net,
        win=sum((p for x, p in net.items() if x > 0), zero),
        tie=net.get(0, zero),
        lose=sum((p for x, p in net.items() if x < 0), zero),
    )
