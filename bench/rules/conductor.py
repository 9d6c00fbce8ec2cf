"""conductor (seed 002) odds the UI asks, timed uncached, checked against icepool.

icepool's ``explode`` sums the faces of an exploding die and stops after ``depth`` explosions,
so the attack-hit cases map each exploded total back to its hits (6 * sixes + last face) and
agree with our exact, uncapped answer within the truncated mass, at most dice / 6**depth.
Pools run up to 20 dice (skill 19).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool

from bench.rules import Case
from rules import conductor
from rules.conductor import _hit_numerators

_DEPTH = 12


def _clear() -> None:
    _hit_numerators.cache_clear()


def _uncached(fn: Callable[..., Any], **kwargs: Any) -> Callable[[], Any]:
    def run() -> Any:
        _clear()
        return fn(**kwargs)

    return run


def _chain_hits(difficulty: int) -> icepool.Die:
    """One attack die with its explosions (cut after _DEPTH), as its number of hits."""

    def hits(total: int) -> int:
        sixes = (total - 1) // 6
        return sixes * (difficulty <= 6) + (total - 6 * sixes >= difficulty)

    return icepool.d6.explode(depth=_DEPTH).map(hits)


def _icepool_distribution(dice: int, difficulty: int, top: int) -> Callable[[], Any]:
    def run() -> dict[int, Fraction]:
        pool = dice @ _chain_hits(difficulty)
        out = {h: Fraction(pool.probability(h)) for h in range(top)}
        out[top] = Fraction(pool.probability(">=", top))
        return out

    return run


def _icepool_mean(dice: int, difficulty: int) -> Callable[[], Any]:
    return lambda: Fraction((dice @ _chain_hits(difficulty)).mean())


def _close(dice: int) -> Callable[[Any, Any], bool]:
    bound = Fraction(dice, 6**_DEPTH)

    def same(ours: Any, theirs: Any) -> bool:
        if isinstance(ours, dict):
            return ours.keys() == theirs.keys() and all(
                abs(ours[k] - theirs[k]) <= bound for k in ours
            )
        # The cut loses at most bound * 6/5 of the mean (each cut chain's further hits).
        return 0 <= ours - theirs <= bound * Fraction(6, 5)

    return same


def _exact(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, dict):
        return ours.keys() == theirs.keys() and all(ours[k] == theirs[k] for k in ours)
    return ours == theirs


def _highest(dice: int) -> icepool.Die:
    return icepool.Pool([icepool.d6] * dice).highest(1).sum()


def _icepool_encounters() -> dict[str, Fraction]:
    die = icepool.d6.map(conductor.ENCOUNTERS)
    return {name: Fraction(die.probability(name)) for name in die.outcomes()}


def cases() -> list[Case]:
    out: list[Case] = []
    for skill, difficulty, bennies in [(0, 6, 0), (3, 9, 0), (3, 9, 2), (10, 15, 1)]:
        out.append(
            Case(
                label=f"standard d12+{skill} over {difficulty}, {bennies} bennies",
                ours=_uncached(
                    conductor.standard_probability,
                    skill=skill,
                    difficulty=difficulty,
                    bennies=bennies,
                ),
                icepool=lambda s=skill, d=difficulty, b=bennies: Fraction(
                    (icepool.d12 + (s + b) > d).probability(True)
                ),
                same_answer=_exact,
            )
        )
    for dice in (1, 5, 10, 20):
        for difficulty in (3, 4, 6, 7):
            out.append(
                Case(
                    label=f"attack {dice}d6 vs {difficulty}: P(at least one hit)",
                    ours=_uncached(
                        conductor.attack_hit_probability, skill=dice - 1, difficulty=difficulty
                    ),
                    # A six always hits (RULES-NOTES, revised): the threshold is min(d, 6).
                    icepool=lambda n=dice, d=difficulty: Fraction(
                        (_highest(n) >= min(d, 6)).probability(True)
                    ),
                    same_answer=_exact,
                )
            )
        out.append(
            Case(
                label=f"attack {dice}d6 vs 7 with 2 bennies: P(at least one hit)",
                ours=_uncached(
                    conductor.attack_hit_probability, skill=dice - 1, difficulty=7, bennies=2
                ),
                icepool=lambda n=dice: Fraction((_highest(n) + 2 >= min(7, 6)).probability(True)),
                same_answer=_exact,
            )
        )
        for difficulty in (3, 5):
            out.append(
                Case(
                    label=f"attack {dice}d6 vs {difficulty}: expected hits",
                    ours=_uncached(
                        conductor.attack_expected_hits, skill=dice - 1, difficulty=difficulty
                    ),
                    icepool=_icepool_mean(dice, difficulty),
                    same_answer=_close(dice),
                )
            )
            top = dice + 10
            out.append(
                Case(
                    label=f"attack {dice}d6 vs {difficulty}: hit chart 0..{top}+",
                    ours=_uncached(
                        conductor.attack_hit_distribution,
                        skill=dice - 1,
                        difficulty=difficulty,
                        top=top,
                    ),
                    icepool=_icepool_distribution(dice, difficulty, top),
                    same_answer=_close(dice),
                )
            )
        out.append(
            Case(
                label=f"attack {dice}d6 vs 4: full hit chart (top = pool + MAX_EXPLOSIONS)",
                ours=_uncached(conductor.attack_hit_distribution, skill=dice - 1, difficulty=4),
            )
        )
    out.append(
        Case(
            label="forage: d12 + Survival 2 over 7",
            ours=_uncached(conductor.forage_probability, survival=2),
            icepool=lambda: Fraction((icepool.d12 + 2 > 7).probability(True)),
            same_answer=_exact,
        )
    )
    for sides in (12, 8, 4):
        out.append(
            Case(
                label=f"supply roll d{sides} above 3",
                ours=_uncached(conductor.supply_probability, die=sides),
                icepool=lambda s=sides: Fraction((icepool.d(s) > 3).probability(True)),
                same_answer=_exact,
            )
        )
    out.append(
        Case(
            label="wilderness roll d6: adventure / clues / landmark",
            ours=_uncached(conductor.wilderness_roll_distribution),
            icepool=_icepool_encounters,
            same_answer=_exact,
        )
    )
    return out
