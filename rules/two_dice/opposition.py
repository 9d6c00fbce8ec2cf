"""two_dice (seed 003): opposed actions: hinder and resist.

Seed "Opposing": a declared action collects hinders ("against all targets") and resists
("against only the resisting character") before it is resolved once for every target.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from rules.core import (
    MAX_POOL,
    Die,
    IllegalMoveError,
    Result,
    Rng,
    RulesError,
    UnknownNameError,
    check_int,
    resolve_rng,
    roll_die,
)
from rules.two_dice.checks import (
    CheckResult,
    Payment,
    Penalty,
    _assemble,
    _from_mapping,
    _get,
    _payment,
    _penalties,
    _roll_dice,
    _unpaid,
)
from rules.two_dice.odds import _band_distribution
from rules.two_dice.ruleset import (
    CRITICAL_SUCCESS,
    DICE_MODES,
    DIE_SIDES,
    HINDER,
    MAX_NUMBER,
    RESIST,
    SUCCESS,
    _difficulty,
    _name,
    _ruleset,
    check_pairing,
)

# --- opposition: hinder and resist ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Opposition(Result):
    """A hinder or resist reaction against a pending action.

    Seed "Opposing": only when the reacting character's own check succeeds is a die rolled
    and its result applied as a penalty; ``penalty`` is None when the reaction failed.
    """

    kind: str
    reactor: str
    reaction: CheckResult
    penalty: Penalty | None

    @classmethod
    def from_dict(cls, data: Any) -> Opposition:
        data = _from_mapping(data, "opposition")
        kind = _get(data, "kind", "opposition")
        if kind not in (HINDER, RESIST):
            raise RulesError(f"Stored opposition kind must be hinder or resist, not {kind!r}.")
        penalty = data.get("penalty")
        return cls(
            kind=kind,
            reactor=_name(_get(data, "reactor", "opposition"), "The reacting character"),
            reaction=CheckResult.from_dict(_get(data, "reaction", "opposition")),
            penalty=None if penalty is None else Penalty.from_dict(penalty),
        )


@dataclasses.dataclass(frozen=True)
class TargetOutcome(Result):
    """How the action turned out against one target: the action's dice and penalties plus
    that target's own resist penalty ("against only the resisting character")."""

    target: str
    penalties: tuple[Penalty, ...]
    penalty: int
    total: int
    band: str
    succeeded: bool


@dataclasses.dataclass(frozen=True)
class ActionOutcome(Result):
    """A resolved action: ``check`` carries every penalty that applies to all targets
    (unpaid cost, the GM's penalties, every hinder); ``targets`` adds each one's resist."""

    actor: str
    check: CheckResult
    targets: tuple[TargetOutcome, ...]

    @classmethod
    def from_dict(cls, data: Any) -> ActionOutcome:
        data = _from_mapping(data, "outcome")
        result = CheckResult.from_dict(_get(data, "check", "outcome"))
        targets = _get(data, "targets", "outcome")
        if not isinstance(targets, list | tuple):
            raise RulesError("Stored outcome's targets must be a list.")
        rebuilt = []
        for target in targets:
            target = _from_mapping(target, "target outcome")
            rebuilt.append(
                _target_outcome(
                    result,
                    _name(_get(target, "target", "target outcome"), "A target"),
                    _penalties(_get(target, "penalties", "target outcome"))[
                        len(result.penalties) :
                    ],
                )
            )
        return cls(
            actor=_name(_get(data, "actor", "outcome"), "The acting character"),
            check=result,
            targets=tuple(rebuilt),
        )


def _target_outcome(result: CheckResult, target: str, own: tuple[Penalty, ...]) -> TargetOutcome:
    against = result.with_penalties(own)
    return TargetOutcome(
        target=target,
        penalties=against.penalties,
        penalty=against.penalty,
        total=against.total,
        band=against.band,
        succeeded=against.succeeded,
    )


def _reactor(value: Any) -> str:
    return _name(value, "The reacting character")


@dataclasses.dataclass(frozen=True)
class PendingAction(Result):
    """An action declared and not yet resolved, collecting hinders and resists.

    Made by ``declare_action``; the cost is paid at declaration (``payment``). Every move
    returns a new ``PendingAction`` and a result: ``add_hinder`` / ``add_resist`` give the
    ``Opposition``, ``resolve`` the ``ActionOutcome`` (kept in ``outcome`` afterwards).
    """

    actor: str
    targets: tuple[str, ...]
    attribute: str
    attribute_value: int
    difficulty: str
    dice_mode: str
    rolled: int
    payment: Payment
    penalties: tuple[Penalty, ...] = ()
    oppositions: tuple[Opposition, ...] = ()
    outcome: ActionOutcome | None = None

    # -- queries

    def hinder_penalties(self) -> tuple[Penalty, ...]:
        """Penalties every target shares: each successful hinder (seed: "against all targets")."""
        return tuple(o.penalty for o in self.oppositions if o.kind == HINDER and o.penalty)

    def resist_penalties(self, target: str) -> tuple[Penalty, ...]:
        """``target``'s own resist penalty ("against only the resisting character")."""
        return tuple(
            o.penalty
            for o in self.oppositions
            if o.kind == RESIST and o.penalty and o.reactor == target
        )

    def known_penalty(self, target: str | None = None) -> int:
        """Sum of the penalties known so far against ``target`` (None: against the action).

        Seed "Opposition Stacking": hinders always stack, and a resist stacks with them.
        """
        penalties = _unpaid(self.payment) + self.penalties + self.hinder_penalties()
        if target is not None:
            penalties += self.resist_penalties(self._target(target))
        return sum(p.amount for p in penalties)

    def odds(self, target: str | None = None) -> dict[str, Fraction]:
        """Exact odds of each band against ``target`` given the penalties known now."""
        return _band_distribution(
            self.dice_mode, self.rolled, self.attribute_value, self.known_penalty(target)
        )

    def success_if_opposed(self, opposition: str, reactor: str) -> tuple[Fraction, Fraction]:
        """(now, then): the chance the action succeeds (success or better) as things stand, and
        if ``reactor``'s hinder or resist succeeds, exact over its penalty die.

        Seed "Hinder": a successful hinder rolls "a die and apply the result as a penalty to
        the hindered action check result against all targets" (read here against the action
        as declared, or against the reactor when it is a target); "Resist": the same "against
        only the resisting character". Penalties stack ("Opposition Stacking").
        """
        if opposition not in (HINDER, RESIST):
            raise RulesError(f"{opposition!r} is neither {HINDER} nor {RESIST}.")
        target = reactor if reactor in self.targets else None
        if opposition == RESIST:
            target = self._target(reactor)
        known = self.known_penalty(target)

        def success(penalty: int) -> Fraction:
            bands = _band_distribution(self.dice_mode, self.rolled, self.attribute_value, penalty)
            return bands[SUCCESS] + bands[CRITICAL_SUCCESS]

        then = (
            sum((success(known + face) for face in range(1, DIE_SIDES + 1)), Fraction(0))
            / DIE_SIDES
        )
        return success(known), then

    def _target(self, target: Any) -> str:
        if target not in self.targets:
            raise UnknownNameError(
                f"{target!r} is not a target of {self.actor}'s action; targets: "
                f"{', '.join(self.targets) or 'none'}."
            )
        return target

    # -- moves

    def _oppose(self, kind: str, reactor: Any, reaction: Any, rng: Rng | None) -> Any:
        if self.outcome is not None:
            raise IllegalMoveError(f"{self.actor}'s action is already resolved.")
        reactor = _reactor(reactor)
        if reactor == self.actor:
            raise IllegalMoveError(f"{reactor} cannot {kind} their own action.")
        if any(o.reactor == reactor for o in self.oppositions):
            raise IllegalMoveError(
                f"{reactor} has already reacted to this action (one reaction per round)."
            )
        if kind == RESIST and reactor not in self.targets:
            raise IllegalMoveError(
                f"{reactor} is not a target of this action, so cannot resist it "
                "(a resist only protects the resisting character); hinder it instead."
            )
        if not isinstance(reaction, CheckResult):
            raise RulesError(f"The {kind} needs the reacting character's check result.")
        penalty = None
        if reaction.succeeded:
            rng = resolve_rng(rng)
            face = roll_die(DIE_SIDES, rng)
            penalty = Penalty(
                source=kind,
                amount=face,
                by=reactor,
                die=Die(sides=DIE_SIDES, rolled=face, value=face),
            )
        opposition = Opposition(kind=kind, reactor=reactor, reaction=reaction, penalty=penalty)
        return dataclasses.replace(self, oppositions=self.oppositions + (opposition,)), opposition

    def add_hinder(
        self, reactor: str, reaction: CheckResult, *, rng: Rng | None = None
    ) -> tuple[PendingAction, Opposition]:
        """``reactor`` hinders the action with its own (already made) check ``reaction``.

        Seed "Hinder": "If the hindering character succeeds, roll a die and apply the result as
        a penalty to the hindered action check result against all targets of the action."
        """
        return self._oppose(HINDER, reactor, reaction, rng)

    def add_resist(
        self, reactor: str, reaction: CheckResult, *, rng: Rng | None = None
    ) -> tuple[PendingAction, Opposition]:
        """Target ``reactor`` resists the action with its own check ``reaction``.

        Seed "Resist": "If the resisting character succeeds, roll a die and apply the result as
        a penalty to the resisted action check result against only the resisting character."
        """
        return self._oppose(RESIST, reactor, reaction, rng)

    def resolve(self, *, rng: Rng | None = None) -> tuple[PendingAction, ActionOutcome]:
        """Roll the action's dice once and read the result against each target.

        The same dice serve every target; each target's total subtracts the shared penalties
        (unpaid cost, the GM's, every hinder) and that target's own resist.
        """
        if self.outcome is not None:
            raise IllegalMoveError(f"{self.actor}'s action is already resolved.")
        rng = resolve_rng(rng)
        dice, assumed = _roll_dice(self.dice_mode, self.rolled, rng)
        shared = _assemble(
            attribute=self.attribute,
            attribute_value=self.attribute_value,
            difficulty=self.difficulty,
            mode=self.dice_mode,
            dice=dice,
            assumed=assumed,
            payment=self.payment,
            penalties=_unpaid(self.payment) + self.penalties + self.hinder_penalties(),
        )
        targets = tuple(
            _target_outcome(shared, target, self.resist_penalties(target))
            for target in self.targets
        )
        outcome = ActionOutcome(actor=self.actor, check=shared, targets=targets)
        return dataclasses.replace(self, outcome=outcome), outcome

    # -- storage

    @classmethod
    def from_dict(cls, data: Any) -> PendingAction:
        """Rebuild a stored pending action (the web layer keeps it as JSON between requests)."""
        data = _from_mapping(data, "pending action")
        what = "pending action"
        mode = _get(data, "dice_mode", what)
        if mode not in DICE_MODES:
            raise RulesError(f"Stored pending action has an unknown dice mode {mode!r}.")
        targets = _get(data, "targets", what)
        oppositions = _get(data, "oppositions", what)
        if not isinstance(targets, list | tuple) or not isinstance(oppositions, list | tuple):
            raise RulesError("Stored pending action's targets and oppositions must be lists.")
        outcome = data.get("outcome")
        return _pending(
            actor=_get(data, "actor", what),
            targets=targets,
            attribute=_get(data, "attribute", what),
            attribute_value=_get(data, "attribute_value", what),
            difficulty=_get(data, "difficulty", what),
            mode=mode,
            rolled=check_int(_get(data, "rolled", what), "Rolled dice", low=0, high=MAX_POOL),
            payment=Payment.from_dict(_get(data, "payment", what)),
            penalties=_penalties(_get(data, "penalties", what)),
            oppositions=tuple(Opposition.from_dict(o) for o in oppositions),
            outcome=None if outcome is None else ActionOutcome.from_dict(outcome),
        )


def _pending(
    *,
    actor: Any,
    targets: Any,
    attribute: Any,
    attribute_value: Any,
    difficulty: Any,
    mode: str,
    rolled: int,
    payment: Payment,
    penalties: tuple[Penalty, ...],
    oppositions: tuple[Opposition, ...] = (),
    outcome: ActionOutcome | None = None,
) -> PendingAction:
    actor = _name(actor, "The acting character")
    if isinstance(targets, str) or not isinstance(targets, Iterable):
        raise RulesError("The targets must be a list of characters.")
    names = [_name(t, "A target") for t in targets]
    if len(set(names)) != len(names):
        raise RulesError(f"A target is listed twice in {names}.")
    return PendingAction(
        actor=actor,
        targets=tuple(names),
        attribute=_name(attribute, "The attribute"),
        attribute_value=check_int(
            attribute_value, f"{attribute}'s value", low=-MAX_NUMBER, high=MAX_NUMBER
        ),
        difficulty=_name(difficulty, "The difficulty"),
        dice_mode=mode,
        rolled=rolled,
        payment=payment,
        penalties=penalties,
        oppositions=oppositions,
        outcome=outcome,
    )


def declare_action(
    *,
    actor: str,
    targets: Iterable[str] = (),
    attribute: str,
    attribute_value: int,
    difficulty: str,
    resource: str,
    resource_available: int,
    penalties: Iterable[Any] = (),
    ruleset: Mapping[str, Any] | None = None,
) -> PendingAction:
    """Declare an action others may oppose; the cost is paid now from ``resource``.

    Seed "Opposing": other characters may hinder (or, as targets, resist) it with their
    reaction before it is resolved. The difficulty's cost and dice are fixed at declaration,
    so a later change to the campaign's ruleset does not alter an action in flight.
    """
    rules = _ruleset(ruleset)
    attribute, resource = check_pairing(attribute=attribute, resource=resource, ruleset=rules)
    name, entry = _difficulty(rules, difficulty)
    payment = _payment(
        difficulty=name, resource=resource, cost=entry["cost"], available=resource_available
    )
    return _pending(
        actor=actor,
        targets=targets,
        attribute=attribute,
        attribute_value=attribute_value,
        difficulty=name,
        mode=entry["dice"],
        rolled=entry["rolled"],
        payment=payment,
        penalties=_penalties(penalties),
    )
