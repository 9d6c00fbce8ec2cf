"""Annulus (seed 000): the moves on a challenge: adjust, reveal, use a toolkit ability.

Each move returns ``(new Challenge, result)``. Seed: an adjustment needs "a four-die check";
"If the check fails, the die jams"; hidden dice are revealed "only when all visible dice are
solved"; "Toolkit abilities require a check to use".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rules.annulus.chain import FACES
from rules.annulus.challenge import Challenge
from rules.annulus.checks import CheckResult, roll_check
from rules.annulus.ruleset import ToolkitAbility, _find_ability, _ruleset
from rules.core import (
    IllegalMoveError,
    OutOfRangeError,
    Result,
    Rng,
    RulesError,
    check_int,
    resolve_rng,
    roll_die,
)

# --- moves ------------------------------------------------------------------------------------


def _require_challenge(challenge: Any) -> Challenge:
    if not isinstance(challenge, Challenge):
        raise RulesError("That is not an operation challenge.")
    if challenge.finished:
        raise IllegalMoveError(f"The challenge is over ({challenge.status.value}).")
    return challenge


def _workable_die(challenge: Challenge, position: Any) -> int:
    """A visible, unjammed die that may be manipulated."""
    check_int(position, "The die's position", low=0, high=challenge.length - 1)
    if position in challenge.hidden:
        raise IllegalMoveError("That die is not in play.")
    if position in challenge.jammed:
        # Seed: "A jammed die cannot be manipulated any further in any way."
        raise IllegalMoveError("That die is jammed and cannot be manipulated any further.")
    return position


def _adjust_target(challenge: Challenge, position: Any, direction: Any) -> tuple[int, int]:
    pos = _workable_die(challenge, position)
    if isinstance(direction, bool) or direction not in (1, -1):
        raise RulesError(f"An adjustment moves a die by +1 or -1, not {direction!r}.")
    after = challenge.values[pos] + direction
    if not 1 <= after <= FACES:
        raise OutOfRangeError(
            f"That die shows {challenge.values[pos]}; it cannot go to {after} "
            f"(dice run from 1 to {FACES})."
        )
    return pos, after


def _verify_check(
    check: Any, *, kind: str, base: int, needed: int, rules: Mapping[str, Any]
) -> CheckResult:
    """A check handed in by the caller must be the one these rules would have rolled."""
    if not isinstance(check, CheckResult) or check.kind != kind:
        raise RulesError(f"This move needs its own {kind.replace('_', ' ')}.")
    faces = [d.value for d in check.dice]
    consistent = (
        check.sides == rules["check_die_sides"]
        and check.target == rules["check_target"]
        and check.needed == needed
        and check.base_dice == base
        and len(faces) == check.base_dice + check.perk_dice
        and all(d.sides == check.sides and 1 <= d.value <= check.sides for d in check.dice)
        and check.successes == sum(1 for f in faces if f >= check.target)
        and check.passed == (check.successes >= check.needed)
    )
    if not consistent:
        raise RulesError(f"That {kind.replace('_', ' ')} does not match this challenge's rules.")
    return check


def op_check(
    challenge: Challenge,
    *,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> CheckResult:
    """The adjustment's op check. Seed: "a four-die check that requires a number of successes
    dependent on the difficulty of the challenge"; RULES-NOTES: + training-perk dice."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    return roll_check(
        dice=rules["op_check_dice"],
        perk_dice=perk_dice,
        needed=challenge.needed,
        sides=rules["check_die_sides"],
        target=rules["check_target"],
        kind="op_check",
        rng=rng,
    )


def challenge_check(
    challenge: Challenge,
    *,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> CheckResult:
    """Any other check in the challenge. Seed: "By default, all checks made in every challenge
    are made with three dice. Training perks can increase the number of dice rolled"."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    return roll_check(
        dice=rules["challenge_check_dice"],
        perk_dice=perk_dice,
        needed=challenge.needed,
        sides=rules["check_die_sides"],
        target=rules["check_target"],
        kind="challenge_check",
        rng=rng,
    )


def toolkit_check(
    challenge: Challenge,
    *,
    ability: str,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> CheckResult:
    """A toolkit ability's check. Seed: "Toolkit abilities require a check to use"."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    tool = _find_ability(ability, rules)
    return roll_check(
        dice=tool.check_dice(rules),
        perk_dice=perk_dice,
        needed=tool.check_needed(challenge.needed),
        sides=rules["check_die_sides"],
        target=rules["check_target"],
        kind="toolkit_check",
        rng=rng,
    )


@dataclasses.dataclass(frozen=True)
class AdjustResult(Result):
    """One adjustment: the op check, and either the new number or the jam.

    ``position`` is the chain position (GM); ``visible_index`` the die's place among the
    visible dice (players).
    """

    position: int
    visible_index: int
    direction: int
    before: int
    after: int
    jammed: bool
    check: CheckResult

    def player_view(self) -> dict[str, Any]:
        data = self.to_dict()
        del data["position"]
        return data


def _adjust_move(
    challenge: Challenge, pos: int, after: int, direction: int, check: CheckResult
) -> tuple[Challenge, AdjustResult]:
    before = challenge.values[pos]
    if check.passed:
        values = list(challenge.values)
        values[pos] = after
        new = dataclasses.replace(challenge, values=tuple(values))
    else:
        # Seed: "If the check fails, the die jams and its number is not changed."
        new = dataclasses.replace(challenge, jammed=(*challenge.jammed, pos))
        after = before
    result = AdjustResult(
        position=pos,
        visible_index=challenge.visible_indices().index(pos),
        direction=direction,
        before=before,
        after=after,
        jammed=not check.passed,
        check=check,
    )
    return new, result


def adjust(
    challenge: Challenge,
    *,
    position: int,
    direction: int,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> tuple[Challenge, AdjustResult]:
    """Try to move one die 1 higher or lower (``direction`` +1 or -1).

    Seed: "any adventurer can use a minor action to attempt to change one of the dice to a
    number 1 higher or lower"; "they must first roll an op check ... If the check fails, the die
    jams and its number is not changed". Refused (before any roll) for a hidden or jammed die, a
    number leaving 1..12, or a finished challenge.
    """
    rng = resolve_rng(rng)
    _require_challenge(challenge)
    pos, after = _adjust_target(challenge, position, direction)
    check = op_check(challenge, perk_dice=perk_dice, ruleset=ruleset, rng=rng)
    return _adjust_move(challenge, pos, after, direction, check)


def apply_adjustment(
    challenge: Challenge,
    *,
    position: int,
    direction: int,
    check: CheckResult,
    ruleset: Mapping[str, Any] | None = None,
) -> tuple[Challenge, AdjustResult]:
    """``adjust`` with an op check already rolled by ``op_check`` (so a UI can show the dice
    first). The check must match this challenge and ruleset."""
    _require_challenge(challenge)
    rules = _ruleset(ruleset)
    pos, after = _adjust_target(challenge, position, direction)
    _verify_check(
        check, kind="op_check", base=rules["op_check_dice"], needed=challenge.needed, rules=rules
    )
    return _adjust_move(challenge, pos, after, direction, check)


@dataclasses.dataclass(frozen=True)
class RevealResult(Result):
    """A hidden die brought into the chain at its original place."""

    position: int
    visible_index: int
    value: int

    def player_view(self) -> dict[str, Any]:
        return {"visible_index": self.visible_index, "value": self.value}


def _reveal_move(challenge: Challenge, position: int) -> tuple[Challenge, RevealResult]:
    new = dataclasses.replace(challenge, hidden=tuple(i for i in challenge.hidden if i != position))
    visible_index = new.visible_indices().index(position)
    return new, RevealResult(
        position=position, visible_index=visible_index, value=challenge.values[position]
    )


def reveal(challenge: Challenge, *, position: int) -> tuple[Challenge, RevealResult]:
    """The GM reveals one hidden die (their choice of which).

    Seed: "only one is revealed at a time and only when all visible dice are solved. The GM can
    reveal multiple hidden dice in any order they please"; it is "inserted into the die chain in
    the appropriate location".
    """
    _require_challenge(challenge)
    check_int(position, "The die's position", low=0, high=challenge.length - 1)
    if position not in challenge.hidden:
        raise IllegalMoveError("That die is not hidden.")
    if not challenge.visible_solved:
        raise IllegalMoveError("A hidden die is revealed only once the visible dice are solved.")
    return _reveal_move(challenge, position)


@dataclasses.dataclass(frozen=True)
class ToolkitResult(Result):
    """A toolkit ability used: its check and, when it passed, what its effect did.

    ``applied`` is False when the check failed (the ability is then ``now_unavailable``) or when
    a passing "reveal" found no hidden die left. ``position`` is the chain position (GM only);
    ``visible_index`` the die's place among the visible dice afterwards.
    """

    ability: str
    effect: str
    check: CheckResult
    applied: bool
    now_unavailable: bool
    position: int | None = None
    visible_index: int | None = None
    before: int | None = None
    after: int | None = None

    def player_view(self) -> dict[str, Any]:
        data = self.to_dict()
        del data["position"]
        return data


def _toolkit_target(
    challenge: Challenge, tool: ToolkitAbility, position: Any, value: Any
) -> int | None:
    """Check the ability's target before anything is rolled."""
    if tool.effect != "set_value" and value is not None:
        raise RulesError(f"{tool.name} does not take a number.")
    if tool.effect == "set_value":
        pos = _workable_die(challenge, position)
        check_int(value, "The new number", low=1, high=FACES)
        return pos
    if tool.effect == "reroll":
        return _workable_die(challenge, position)
    if tool.effect == "unjam":
        check_int(position, "The die's position", low=0, high=challenge.length - 1)
        if position not in challenge.jammed:
            raise IllegalMoveError("That die is not jammed.")
        return position
    # "reveal": the GM's choice of hidden die, or the leftmost one. It is not refused when
    # nothing is hidden: that refusal would tell the player that no hidden die exists.
    if position is None:
        return None
    check_int(position, "The die's position", low=0, high=challenge.length - 1)
    if position not in challenge.hidden:
        raise IllegalMoveError("That die is not hidden.")
    return position


def _toolkit_move(
    challenge: Challenge,
    tool: ToolkitAbility,
    target: int | None,
    value: int | None,
    check: CheckResult,
    rng: Rng,
) -> tuple[Challenge, ToolkitResult]:
    base = {"ability": tool.name, "effect": tool.effect, "check": check}
    if not check.passed:
        # Seed: "that ability becomes unavailable for use for the remainder of the challenge but
        # the challenge is otherwise unaffected".
        new = dataclasses.replace(
            challenge, unavailable_abilities=(*challenge.unavailable_abilities, tool.name)
        )
        shown = challenge.visible_index_of(target) if target is not None else None
        position = target if tool.effect != "reveal" else None
        result = ToolkitResult(
            **base, applied=False, now_unavailable=True, position=position, visible_index=shown
        )
        return new, result
    if tool.effect == "reveal":
        if target is None and not challenge.hidden:
            return challenge, ToolkitResult(**base, applied=False, now_unavailable=False)
        position = challenge.hidden[0] if target is None else target
        new, revealed = _reveal_move(challenge, position)
        result = ToolkitResult(
            **base,
            applied=True,
            now_unavailable=False,
            position=position,
            visible_index=revealed.visible_index,
            after=revealed.value,
        )
        return new, result
    assert target is not None  # every other effect has a target, checked before the roll
    before = challenge.values[target]
    if tool.effect == "unjam":
        new = dataclasses.replace(
            challenge, jammed=tuple(i for i in challenge.jammed if i != target)
        )
        after = before
    else:
        after = value if tool.effect == "set_value" else roll_die(FACES, rng)
        values = list(challenge.values)
        values[target] = after
        new = dataclasses.replace(challenge, values=tuple(values))
    result = ToolkitResult(
        **base,
        applied=True,
        now_unavailable=False,
        position=target,
        visible_index=challenge.visible_index_of(target),
        before=before,
        after=after,
    )
    return new, result


def _toolkit_prepare(
    challenge: Challenge, ability: Any, position: Any, value: Any, rules: Mapping[str, Any]
) -> tuple[ToolkitAbility, int | None]:
    _require_challenge(challenge)
    tool = _find_ability(ability, rules)
    if not challenge.ability_available(tool.name):
        raise IllegalMoveError(f"{tool.name} failed earlier and cannot be used in this challenge.")
    return tool, _toolkit_target(challenge, tool, position, value)


def use_toolkit(
    challenge: Challenge,
    *,
    ability: str,
    position: int | None = None,
    value: int | None = None,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> tuple[Challenge, ToolkitResult]:
    """Use a toolkit ability: roll its check, then apply its effect if it passed.

    Seed: "Toolkit abilities require a check to use. If a toolkit ability is attempted but the
    check fails, then that ability becomes unavailable for use for the remainder of the
    challenge". Effects (RULES-NOTES primitives): ``set_value`` (needs ``position`` and
    ``value``), ``unjam`` (``position`` of a jammed die: the one way a jammed die moves again),
    ``reveal`` (a hidden die joins the chain now, even if the visible dice are unsolved;
    ``position`` is the GM's choice, None the leftmost hidden die; with no hidden die left a
    passing check reveals nothing), ``reroll`` (``position``: a fresh d12).
    """
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    tool, target = _toolkit_prepare(challenge, ability, position, value, rules)
    check = toolkit_check(challenge, ability=tool.name, perk_dice=perk_dice, ruleset=rules, rng=rng)
    return _toolkit_move(challenge, tool, target, value, check, rng)


def apply_toolkit(
    challenge: Challenge,
    *,
    ability: str,
    check: CheckResult,
    position: int | None = None,
    value: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> tuple[Challenge, ToolkitResult]:
    """``use_toolkit`` with the check already rolled by ``toolkit_check``."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    tool, target = _toolkit_prepare(challenge, ability, position, value, rules)
    _verify_check(
        check,
        kind="toolkit_check",
        base=tool.check_dice(rules),
        needed=tool.check_needed(challenge.needed),
        rules=rules,
    )
    return _toolkit_move(challenge, tool, target, value, check, rng)
