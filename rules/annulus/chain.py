"""Annulus (seed 000): the chain of d12s and the solver.

The seed's goal, "every die in the challenge is exactly one number different from every die it
neighbors", as ``is_solved``; the GM help of RULES-NOTES "GM help" (fewest adjustments, a dynamic
programme) as ``min_adjustments``; and the RULES-NOTES "Failure" test between jammed dice as
``jams_allow_solution``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from rules.core import RulesError, check_int

#: "12-sided dice" (seed): the faces of every die in the chain.
FACES = 12
#: RULES-NOTES: "The chain length (6) is the seed's default; the GM may choose 1 to 12."
MIN_LENGTH = 1
MAX_LENGTH = 12


# --- the chain --------------------------------------------------------------------------------


def _check_values(values: Any, what: str = "The chain") -> tuple[int, ...]:
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise RulesError(f"{what} must be a list of die numbers from 1 to {FACES}.")
    out = tuple(values)
    for value in out:
        check_int(value, "A die in the chain", low=1, high=FACES)
    return out


def is_solved(values: Iterable[int]) -> bool:
    """Seed: "every die in the challenge is exactly one number different from every die it
    neighbors"; "only one die ... automatically considered solved". An empty chain is solved.
    """
    chain = _check_values(values)
    return all(abs(a - b) == 1 for a, b in zip(chain, chain[1:], strict=False))


def _jammed_indices(jammed: Any, length: int) -> frozenset[int]:
    """Accept a collection of indices or a list of bools (one per die)."""
    if jammed is None:
        return frozenset()
    if isinstance(jammed, str | bytes | Mapping) or not isinstance(jammed, Iterable):
        raise RulesError("Jammed dice must be a list of positions or a list of true/false flags.")
    items = list(jammed)
    if items and all(isinstance(x, bool) for x in items):
        if len(items) != length:
            raise RulesError(
                f"A list of jammed flags needs one per die ({length}), not {len(items)}."
            )
        return frozenset(i for i, flag in enumerate(items) if flag)
    for i in items:
        check_int(i, "A jammed die's position", low=0, high=length - 1)
    return frozenset(items)


_INF = float("inf")


def min_adjustments(
    values: Iterable[int], jammed: Collection[int] | Collection[bool] | None = ()
) -> int | None:
    """Fewest +-1 adjustments that solve the chain, or None when the jammed dice forbid it.

    RULES-NOTES "GM help": a dynamic programme over positions x values 1..12. Moving an unjammed
    die from v to w costs |v - w| adjustments ("change one of the dice to a number 1 higher or
    lower"); a jammed die "cannot be manipulated any further in any way".
    ``jammed``: positions, or a list of bools with one flag per die.
    """
    chain = _check_values(values)
    stuck = _jammed_indices(jammed, len(chain))
    if not chain:
        return 0
    faces = range(1, FACES + 1)

    def cost(i: int, w: int) -> float:
        if i in stuck:
            return 0 if w == chain[i] else _INF
        return abs(chain[i] - w)

    best = [_INF] + [cost(0, w) for w in faces] + [_INF]  # padded: index w holds value w
    for i in range(1, len(chain)):
        best = [_INF] + [min(best[w - 1], best[w + 1]) + cost(i, w) for w in faces] + [_INF]
    answer = min(best)
    return None if answer == _INF else int(answer)


def jams_allow_solution(length: int, jammed_values: Mapping[int, int]) -> bool:
    """RULES-NOTES "Failure": between jammed dice at i < j with values a, b a solution exists iff
    |a - b| <= j - i and (j - i - |a - b|) is even; every other die is free. Positions are in
    the chain being judged: for a challenge, the visible chain (hidden positions left out).
    """
    check_int(length, "The chain length", low=0, high=MAX_LENGTH)
    if not isinstance(jammed_values, Mapping):
        raise RulesError("Jammed dice must map a position to its number.")
    stuck = sorted(jammed_values.items())
    for pos, value in stuck:
        check_int(pos, "A jammed die's position", low=0, high=max(length - 1, 0))
        check_int(value, "A jammed die", low=1, high=FACES)
    # Consecutive pairs suffice: a path through each gap chains into one through all.
    for (i, a), (j, b) in zip(stuck, stuck[1:], strict=False):
        gap, diff = j - i, abs(a - b)
        if diff > gap or (gap - diff) % 2:
            return False
    return True
