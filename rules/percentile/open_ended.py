"""Percentile (seed 004): open-ended d100 rolls and the exact odds of each band.

"roll open-ended percentile dice": 96-100 rolls again and adds, 01-05 rolls again and subtracts
(RULES-NOTES). The odds of open-ended d100 + a bonus are exact although the chains are
unbounded (see the comment above ``_u_cdf``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.core import (
    MAX_EXPLOSIONS,
    PoolTooLargeError,
    Result,
    Rng,
    RulesError,
    check_int,
    resolve_rng,
    roll_die,
)
from rules.percentile.bands import _BAND_RANGES, SUCCESS_OR_BETTER, _check_bonus

# --- open-ended d100 -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PercentileDie(Result):
    """One d100 of an open-ended chain.

    ``face`` is 1..100 as rolled (or chosen with plot points, ``chosen``); ``sign`` is +1 when it
    is added and -1 when it is subtracted; ``exploded`` means it made the chain roll again.
    """

    face: int
    sign: int
    exploded: bool
    chosen: bool = False


@dataclasses.dataclass(frozen=True)
class OpenEndedRoll(Result):
    """An open-ended d100 with every die of the chain.

    ``direction`` is "up" (first die 96-100: roll again and add, repeating), "down" (first die
    01-05: roll again and subtract; the subtracted roll is itself open-ended upward) or "none".
    """

    dice: tuple[PercentileDie, ...]
    direction: str
    total: int

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OpenEndedRoll:
        """Rebuild (and re-check) a stored roll."""
        try:
            dice = data["dice"]
            faces = [check_int(d["face"], "A d100 face", low=1, high=100) for d in dice]
            chosen = bool(dice[0].get("chosen", False)) if dice else False
        except (KeyError, TypeError, AttributeError) as exc:
            raise RulesError("A stored open-ended roll is missing its dice.") from exc
        return _chain(faces, chosen_first=chosen)


def _triggers(face: int, position: int) -> bool:
    """Does this die make the chain roll again? The first die goes both ways, the rest only up."""
    return face >= 96 or (position == 0 and face <= 5)


def _chain(faces: list[int], *, chosen_first: bool = False) -> OpenEndedRoll:
    """Build an OpenEndedRoll from its faces, checking the chain follows the open-ended rule."""
    if not faces:
        raise RulesError("An open-ended roll needs at least one die.")
    if len(faces) - 1 > MAX_EXPLOSIONS:
        raise PoolTooLargeError(
            f"The open-ended roll went past {MAX_EXPLOSIONS} extra dice; roll again."
        )
    single = len(faces) == 1
    # A lone chosen die (a 1-point plot point spend) never continues the chain, whatever it is.
    if not (chosen_first and single):
        for i, face in enumerate(faces):
            if _triggers(face, i) == (i == len(faces) - 1):
                raise RulesError("These dice do not follow the open-ended rule (96-100 / 01-05).")
    first = faces[0]
    direction = "none" if single else ("up" if first >= 96 else "down")
    sign_rest = -1 if direction == "down" else 1
    dice = tuple(
        PercentileDie(
            face=face,
            sign=1 if i == 0 else sign_rest,
            exploded=i < len(faces) - 1,
            chosen=chosen_first and i == 0,
        )
        for i, face in enumerate(faces)
    )
    return OpenEndedRoll(dice=dice, direction=direction, total=sum(d.sign * d.face for d in dice))


def _continue_chain(first: int, rng: Rng, *, chosen: bool = False) -> OpenEndedRoll:
    """Roll the rest of the chain after a first die of ``first`` (rolled or chosen)."""
    faces = [first]
    if _triggers(first, 0):
        while True:
            if len(faces) > MAX_EXPLOSIONS:
                raise PoolTooLargeError(
                    f"The open-ended roll went past {MAX_EXPLOSIONS} extra dice; roll again."
                )
            face = roll_die(100, rng)
            faces.append(face)
            if face < 96:
                break
    return _chain(faces, chosen_first=chosen)


def roll_open_ended(*, rng: Rng | None = None) -> OpenEndedRoll:
    """Roll open-ended percentile dice ("roll open-ended percentile dice").

    RULES-NOTES: 96-100 rolls again and adds (repeating); 01-05 rolls again and subtracts (the
    subtracted roll is itself open-ended upward on 96-100).
    """
    rng = resolve_rng(rng)
    return _continue_chain(roll_die(100, rng), rng)


# --- exact odds ----------------------------------------------------------------------------------
#
# Let U be the upward open-ended d100: one die, and while it shows 96-100 another is added.
# The roll is R = d (6..95), d + U (d = 96..100) or d - U (d = 01..05), each d with 1/100.
# U takes the value v with j explosions only if v >= 96j + 1, so P(U = v) has denominator
# 100^(j+1); P(U <= t) for every t <= n is a finite sum over j <= n // 96 and is computed
# exactly with integers scaled by S = 100^(n // 96 + 1) (the recurrence
# P(U = v) = sum_{a=96..100} P(U = v - a) / 100 for v >= 97, P(U = v) = 1/100 for v <= 95).
# The unbounded tails need no truncation: U has exactly k + 1 dice with probability
# (1/20)^k (19/20), and that geometric series sums to 1, so the chain stops surely and
# P(U > t) = 1 - P(U <= t) exactly. Every total past the window edge (>= 251 or <= -26 after
# the bonus) lies in the same open band, so that band receives the whole remaining mass.
# A band's mass is then P(R in [a, b]) = sum over the ten chained first dice of a
# CDF difference of U, plus a count of the first dice 06-95 inside [a, b]; the open bands
# (<= -26 and >= 251) take 1 - P(U <= t) of their chains. Every t needed satisfies
# t <= max(154 - bonus, 30 + bonus), so the work is O(|bonus| + 250) integer additions.


@lru_cache(maxsize=64)
def _u_cdf(n: int) -> tuple[tuple[int, ...], int]:
    """(C, S) with C[t] = P(U <= t) * S for t = 0..n, S = 100^(n // 96 + 1), all integers."""
    scale = 100 ** (n // 96 + 1)
    unit = scale // 100
    pmf = [0] * (n + 1)
    window = 0  # sum of pmf[v - 100 .. v - 96]
    for v in range(1, n + 1):
        if v >= 96:
            window += pmf[v - 96]
        if v >= 101:
            window -= pmf[v - 101]
        if v <= 95:
            pmf[v] = unit
        elif v >= 97:
            # Exact: each pmf[v - a] has at most n // 96 dice, so 100 divides it.
            pmf[v] = window // 100
    cdf = [0] * (n + 1)
    running = 0
    for v in range(1, n + 1):
        running += pmf[v]
        cdf[v] = running
    return tuple(cdf), scale


def _band_masses(
    *, points: Iterable[int], ups: Iterable[int], downs: Iterable[int], bonus: int
) -> dict[str, Fraction]:
    """Bands of (first die + continuation + bonus), each listed first die equally likely.

    ``points`` are first dice that stop the chain, ``ups`` start the adding chain, ``downs`` the
    subtracting chain.
    """
    points, ups, downs = list(points), list(ups), list(downs)
    weight_count = len(points) + len(ups) + len(downs)
    n = max(154 - bonus, 30 + bonus, 1)
    cdf, scale = _u_cdf(n)

    def at_most(t: int) -> int:  # P(U <= t) * scale
        return 0 if t <= 0 else cdf[t]

    masses: dict[str, Fraction] = {}
    for band, low_total, high_total in _BAND_RANGES:
        low = None if low_total is None else low_total - bonus
        high = None if high_total is None else high_total - bonus
        mass = 0
        for d in points:
            if (low is None or d >= low) and (high is None or d <= high):
                mass += scale
        for d in ups:  # d + U in [low, high]
            upper = scale if high is None else at_most(high - d)
            lower = 0 if low is None else at_most(low - 1 - d)
            mass += upper - lower
        for d in downs:  # d - U in [low, high]  <=>  d - high <= U <= d - low
            upper = scale if low is None else at_most(d - low)
            lower = 0 if high is None else at_most(d - high - 1)
            mass += upper - lower
        masses[band] = Fraction(mass, scale * weight_count)
    return masses


@lru_cache(maxsize=4096)
def _band_distribution(bonus: int) -> tuple[tuple[str, Fraction], ...]:
    masses = _band_masses(points=range(6, 96), ups=range(96, 101), downs=range(1, 6), bonus=bonus)
    return tuple(masses.items())


def band_distribution(*, modifier: int) -> dict[str, Fraction]:
    """Exact chance of each Chart 14.1 band for open-ended d100 + ``modifier``.

    ``modifier`` is everything added to the dice: SV, table modifiers, retry penalty, slump or
    zone. See the comment above ``_u_cdf`` for why the infinite chains come out exact.
    """
    return dict(_band_distribution(_check_bonus(modifier)))


def success_or_better(*, modifier: int) -> Fraction:
    """P(Success, Critical Success or Extraordinary Success) for d100 + ``modifier``."""
    dist = band_distribution(modifier=modifier)
    return sum((dist[band] for band in SUCCESS_OR_BETTER), Fraction(0))


def change_roll_distribution(*, new_value: int, modifier: int) -> dict[str, Fraction]:
    """Bands after a plot point sets the roll to ``new_value`` (1..100) with ``modifier`` added.

    Seed: for two plot points the new value may be 1-100, "possibly causing the roll to go
    open-ended": 96-100 then rolls on and adds, 01-05 subtracts an upward open-ended roll.
    """
    value = check_int(new_value, "The new roll", low=1, high=100)
    bonus = _check_bonus(modifier)
    if value >= 96:
        return _band_masses(points=(), ups=(value,), downs=(), bonus=bonus)
    if value <= 5:
        return _band_masses(points=(), ups=(), downs=(value,), bonus=bonus)
    return _band_masses(points=(value,), ups=(), downs=(), bonus=bonus)


def clear_caches() -> None:
    """Empty the odds caches (benchmarks time the uncached path)."""
    _band_distribution.cache_clear()
    _u_cdf.cache_clear()
