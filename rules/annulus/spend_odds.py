"""Annulus (seed 000): what a toolkit ability buys on the chain, exactly.

Seed: "Adventurers all have access to a limited number of Toolkit abilities that can be used to
make overcoming operation challenges easier"; "Toolkit abilities require a check to use". What
an ability buys is measured as RULES-NOTES' GM help measures a chain: the fewest adjustments
that would still solve it (``min_adjustments``; None when the jammed dice forbid a solution).

The players' odds are computed from the chain as they see it ONLY (the visible dice in order,
their jammed flags): these functions take that chain and nothing else, so they cannot leak a
hidden die. What a reveal would show depends on a hidden die; only ``reveal_effect`` (for the
GM's page) answers that, from the whole ``Challenge``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable
from fractions import Fraction

from rules.annulus.chain import FACES, _check_values, _jammed_indices, min_adjustments
from rules.annulus.challenge import Challenge
from rules.annulus.ruleset import EFFECTS
from rules.core import IllegalMoveError, Result, RulesError, check_int, lookup


@dataclasses.dataclass(frozen=True)
class ToolkitEffect(Result):
    """An ability's effect on one die if its check passes: the fewest adjustments still needed
    ``before`` and the exact chance of each count ``after`` (None: no solution left).

    ``index`` is the die's place among the visible dice (for ``reveal_effect``: among the
    visible dice once revealed); ``value`` the number a set puts on it (None otherwise).
    """

    effect: str
    index: int
    before: int | None
    after: dict[int | None, Fraction]
    value: int | None = None


def _chain(values: Iterable[int], jammed: Collection[int]) -> tuple[tuple[int, ...], frozenset]:
    chain = _check_values(values)
    return chain, _jammed_indices(jammed, len(chain))


def _workable(chain: tuple[int, ...], stuck: frozenset, index: int) -> int:
    check_int(index, "The die's place in the chain", low=0, high=len(chain) - 1)
    if index in stuck:
        raise IllegalMoveError("That die is jammed and cannot be manipulated any further.")
    return index


def toolkit_effect(
    values: Iterable[int],
    jammed: Collection[int] = (),
    *,
    effect: str,
    index: int,
    value: int | None = None,
) -> ToolkitEffect:
    """What ``effect`` on die ``index`` of the visible chain does if the ability's check passes.

    Seed: toolkit abilities "make overcoming operation challenges easier"; RULES-NOTES'
    primitives: ``set_value`` (die ``index`` to ``value``: certain), ``unjam`` (a jammed die
    works again: certain), ``reroll`` (a fresh d12: each face 1/12). ``reveal`` depends on a
    hidden die, so it is refused here (players learn nothing from it): see ``reveal_effect``.
    ``values``/``jammed``: the visible dice in order and the indices of the jammed ones.
    """
    effect = lookup(effect, EFFECTS, "toolkit effect")
    chain, stuck = _chain(values, jammed)
    before = min_adjustments(chain, stuck)
    after: dict[int | None, Fraction]

    def solved_with(face: int, unjam: bool = False) -> int | None:
        dice = list(chain)
        dice[index] = face
        return min_adjustments(dice, stuck - {index} if unjam else stuck)

    if effect == "reveal":
        raise RulesError("What a reveal shows depends on a hidden die: see reveal_effect.")
    if effect == "unjam":
        check_int(index, "The die's place in the chain", low=0, high=len(chain) - 1)
        if index not in stuck:
            raise IllegalMoveError("That die is not jammed.")
        after = {solved_with(chain[index], unjam=True): Fraction(1)}
        return ToolkitEffect(effect=effect, index=index, before=before, after=after)
    _workable(chain, stuck, index)
    if effect == "set_value":
        value = check_int(value, "The new number", low=1, high=FACES)
        after = {solved_with(value): Fraction(1)}
        return ToolkitEffect(effect=effect, index=index, before=before, after=after, value=value)
    after = {}
    for face in range(1, FACES + 1):
        count = solved_with(face)
        after[count] = after.get(count, Fraction(0)) + Fraction(1, FACES)
    # Fewest first; None (no solution) last.
    ordered = dict(sorted(after.items(), key=lambda item: (item[0] is None, item[0] or 0)))
    return ToolkitEffect(effect=effect, index=index, before=before, after=ordered)


def best_set_value(
    values: Iterable[int], jammed: Collection[int] = (), *, index: int
) -> ToolkitEffect:
    """The number to set die ``index`` to that leaves the fewest adjustments (the lowest such
    number on a tie), from the visible chain only. Seed: toolkit abilities "make overcoming
    operation challenges easier"; RULES-NOTES: "set a die to any value"."""
    chain, stuck = _chain(values, jammed)
    _workable(chain, stuck, index)
    effects = [
        toolkit_effect(chain, stuck, effect="set_value", index=index, value=face)
        for face in range(1, FACES + 1)
    ]
    # A set never changes the jammed dice, so every count is a number or every one is None.
    return min(effects, key=lambda e: (_count(e), e.value))


def _count(effect: ToolkitEffect) -> float:
    (count,) = effect.after
    return float("inf") if count is None else count


def reveal_effect(challenge: Challenge, *, position: int) -> ToolkitEffect:
    """GM only: what revealing the hidden die at chain ``position`` does to the visible chain.

    Seed: a revealed die is "inserted into the die chain in the appropriate location";
    RULES-NOTES: a reveal ability shows "one hidden die — position and value, even before the
    visible chain is solved". This reads the hidden die: never show it on a player's page.
    """
    if not isinstance(challenge, Challenge):
        raise RulesError("That is not an operation challenge.")
    check_int(position, "The die's position", low=0, high=challenge.length - 1)
    if position not in challenge.hidden:
        raise IllegalMoveError("That die is not hidden.")
    revealed = dataclasses.replace(
        challenge, hidden=tuple(p for p in challenge.hidden if p != position)
    )
    return ToolkitEffect(
        effect="reveal",
        index=revealed.visible_indices().index(position),
        before=challenge.remaining_adjustments,
        after={revealed.remaining_adjustments: Fraction(1)},
        value=challenge.values[position],
    )
