"""two_dice (seed 003): making a check: the cost, the dice, the penalties and the band.

Seed "Making Checks": "roll two dice and add an attribute"; "You can do an action even if you
can't afford its resource cost, but you suffer a penalty on the check equal to the unpaid cost."
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from rules.core import Die, Result, Rng, RulesError, check_int, lookup, resolve_rng, roll_dice
from rules.two_dice.ruleset import (
    _AUTOMATIC_FACE,
    _SUCCEEDING,
    AUTOMATIC_FAILURE,
    AUTOMATIC_SUCCESS,
    COUNTED_DICE,
    CRITICAL_FAILURE,
    CRITICAL_FAILURE_AT,
    CRITICAL_SUCCESS,
    CRITICAL_SUCCESS_AT,
    DICE_MODES,
    DIE_SIDES,
    FAILURE,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    MAX_NUMBER,
    SUCCESS,
    SUCCESS_AT,
    UNPAID_COST,
    _difficulty,
    _name,
    _ruleset,
    check_pairing,
)

# --- results -------------------------------------------------------------------------------------


def _from_mapping(data: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise RulesError(f"Stored {what} must be a mapping, not {type(data).__name__}.")
    return data


def _get(data: Mapping[str, Any], key: str, what: str) -> Any:
    try:
        return data[key]
    except KeyError:
        raise RulesError(f"Stored {what} is missing its {key!r}.") from None


def _die_from_dict(data: Any) -> Die:
    data = _from_mapping(data, "die")
    return Die(
        sides=check_int(_get(data, "sides", "die"), "A die's sides", low=1),
        rolled=check_int(_get(data, "rolled", "die"), "A die's roll", low=1),
        value=check_int(_get(data, "value", "die"), "A die's value", low=1),
        kept=bool(data.get("kept", True)),
        exploded=bool(data.get("exploded", False)),
        bonus=check_int(data.get("bonus", 0), "A die's bonus"),
        source=data.get("source"),
    )


@dataclasses.dataclass(frozen=True)
class Penalty(Result):
    """One penalty on a check, with where it came from.

    ``source`` is ``unpaid_cost``, ``hinder``, ``resist`` or a name the GM gives (a wound, the
    dark...). ``by`` is the character who caused it (hinderer or resister); ``die`` the d6 that
    was rolled for it ("roll a die and apply the result as a penalty").
    """

    source: str
    amount: int
    by: str | None = None
    die: Die | None = None

    def __post_init__(self) -> None:
        _name(self.source, "A penalty's source")
        check_int(self.amount, f"The {self.source} penalty", low=0, high=MAX_NUMBER)

    @classmethod
    def from_dict(cls, data: Any) -> Penalty:
        data = _from_mapping(data, "penalty")
        die = data.get("die")
        return cls(
            source=_get(data, "source", "penalty"),
            amount=_get(data, "amount", "penalty"),
            by=data.get("by"),
            die=None if die is None else _die_from_dict(die),
        )


def _penalty(value: Any) -> Penalty:
    """A caller's penalty: a ``Penalty``, a ``{"source", "amount"}`` mapping or a pair."""
    if isinstance(value, Penalty):
        return value
    if isinstance(value, Mapping):
        return Penalty.from_dict(value)
    if isinstance(value, tuple | list) and len(value) == 2:
        return Penalty(source=value[0], amount=value[1])
    raise RulesError(f"A penalty must be given as (source, amount) or a Penalty, not {value!r}.")


def _penalties(values: Any) -> tuple[Penalty, ...]:
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise RulesError("Penalties must be a list of (source, amount) pairs.")
    return tuple(_penalty(v) for v in values)


@dataclasses.dataclass(frozen=True)
class Payment(Result):
    """A difficulty's resource cost paid from one resource.

    Seed: "You can do an action even if you can't afford its resource cost, but you suffer a
    penalty on the check equal to the unpaid cost." ``penalty`` equals ``unpaid``.
    """

    difficulty: str
    resource: str
    cost: int
    available: int
    paid: int
    unpaid: int
    remaining: int
    penalty: int

    @classmethod
    def from_dict(cls, data: Any) -> Payment:
        data = _from_mapping(data, "payment")
        return _payment(
            difficulty=_get(data, "difficulty", "payment"),
            resource=_get(data, "resource", "payment"),
            cost=_get(data, "cost", "payment"),
            available=_get(data, "available", "payment"),
        )


def _payment(*, difficulty: str, resource: str, cost: int, available: int) -> Payment:
    cost = check_int(cost, "The resource cost", low=0, high=MAX_NUMBER)
    available = check_int(available, f"Available {resource}", low=0, high=MAX_NUMBER)
    paid = min(cost, available)
    unpaid = cost - paid
    return Payment(
        difficulty=_name(difficulty, "The difficulty"),
        resource=_name(resource, "The resource"),
        cost=cost,
        available=available,
        paid=paid,
        unpaid=unpaid,
        remaining=available - paid,
        penalty=unpaid,
    )


def pay_cost(
    *,
    difficulty: str,
    resource: str,
    available: int,
    attribute: str | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> Payment:
    """Pay a difficulty's cost from ``available`` points of ``resource``.

    Seed: "Each action costs an amount of resources determined by the difficulty" (Trivial 0,
    Easy 1, Normal 2, Hard 3, Impossible 4); what cannot be paid becomes a penalty of the
    unpaid amount. With ``attribute`` the pair is checked too (seed "Association").
    """
    rules = _ruleset(ruleset)
    name, entry = _difficulty(rules, difficulty)
    if attribute is None:
        resource = lookup(resource, rules["resources"].keys(), "resource")
    else:
        _, resource = check_pairing(attribute=attribute, resource=resource, ruleset=rules)
    return _payment(difficulty=name, resource=resource, cost=entry["cost"], available=available)


def band_of(total: int) -> str:
    """The band of a check result by the seed's thresholds alone.

    Seed: "15 or higher, the action succeeds ... 20 or higher ... critical success ... 10 or
    lower ... critical failure"; 11 to 14 is a plain failure.
    """
    total = check_int(total, "The check result")
    if total >= CRITICAL_SUCCESS_AT:
        return CRITICAL_SUCCESS
    if total >= SUCCESS_AT:
        return SUCCESS
    if total <= CRITICAL_FAILURE_AT:
        return CRITICAL_FAILURE
    return FAILURE


def _band(total: int, mode: str) -> str:
    """Band of ``total`` for a dice mode: Trivial "always succeed", Impossible "always fail"."""
    natural = band_of(total)
    if mode == AUTOMATIC_SUCCESS and natural not in _SUCCEEDING:
        return SUCCESS
    if mode == AUTOMATIC_FAILURE and natural in _SUCCEEDING:
        return FAILURE
    return natural


@dataclasses.dataclass(frozen=True)
class CheckResult(Result):
    """A check as made: every die, the payment, every penalty with its source, total and band.

    ``dice`` holds every die thrown; for Easy/Hard the one not used has ``kept=False``. For
    Trivial/Impossible no die is thrown: ``dice`` are the two assumed 6s / 1s and ``assumed``
    is True. ``total = dice_total + attribute_value - penalty``.
    """

    attribute: str
    attribute_value: int
    difficulty: str
    dice_mode: str
    dice: tuple[Die, ...]
    assumed: bool
    payment: Payment
    penalties: tuple[Penalty, ...]
    dice_total: int
    penalty: int
    total: int
    band: str
    succeeded: bool

    @classmethod
    def from_dict(cls, data: Any) -> CheckResult:
        """Rebuild a stored check; totals and band are recomputed from its parts."""
        data = _from_mapping(data, "check")
        mode = _get(data, "dice_mode", "check")
        if mode not in DICE_MODES:
            raise RulesError(f"Stored check has an unknown dice mode {mode!r}.")
        dice = _get(data, "dice", "check")
        if not isinstance(dice, list | tuple):
            raise RulesError("Stored check's dice must be a list.")
        return _assemble(
            attribute=_get(data, "attribute", "check"),
            attribute_value=_get(data, "attribute_value", "check"),
            difficulty=_get(data, "difficulty", "check"),
            mode=mode,
            dice=tuple(_die_from_dict(d) for d in dice),
            assumed=bool(_get(data, "assumed", "check")),
            payment=Payment.from_dict(_get(data, "payment", "check")),
            penalties=_penalties(_get(data, "penalties", "check")),
        )

    def with_penalties(self, extra: Iterable[Penalty]) -> CheckResult:
        """The same dice with more penalties (a hinder or resist applied to this result)."""
        return _assemble(
            attribute=self.attribute,
            attribute_value=self.attribute_value,
            difficulty=self.difficulty,
            mode=self.dice_mode,
            dice=self.dice,
            assumed=self.assumed,
            payment=self.payment,
            penalties=self.penalties + tuple(extra),
        )


def _assemble(
    *,
    attribute: str,
    attribute_value: int,
    difficulty: str,
    mode: str,
    dice: tuple[Die, ...],
    assumed: bool,
    payment: Payment,
    penalties: tuple[Penalty, ...],
) -> CheckResult:
    attribute_value = check_int(
        attribute_value, f"{attribute}'s value", low=-MAX_NUMBER, high=MAX_NUMBER
    )
    kept = [d.value for d in dice if d.kept]
    if len(kept) != COUNTED_DICE:
        raise RulesError(f"A check counts exactly two dice, not {len(kept)}.")
    dice_total = sum(kept)
    penalty = sum(p.amount for p in penalties)
    total = dice_total + attribute_value - penalty
    band = _band(total, mode)
    return CheckResult(
        attribute=_name(attribute, "The attribute"),
        attribute_value=attribute_value,
        difficulty=_name(difficulty, "The difficulty"),
        dice_mode=mode,
        dice=dice,
        assumed=assumed,
        payment=payment,
        penalties=penalties,
        dice_total=dice_total,
        penalty=penalty,
        total=total,
        band=band,
        succeeded=band in _SUCCEEDING,
    )


def _roll_dice(mode: str, rolled: int, rng: Rng) -> tuple[tuple[Die, ...], bool]:
    """Throw (or assume) the dice for a dice mode; returns (dice, assumed)."""
    if mode in _AUTOMATIC_FACE:
        face = _AUTOMATIC_FACE[mode]
        assumed = Die(sides=DIE_SIDES, rolled=face, value=face)
        return (assumed, assumed), True
    values = roll_dice(rolled, DIE_SIDES, rng)
    order = range(len(values))
    if mode == KEEP_HIGHEST:
        # Ties: the die rolled first is kept, so the dropped die is always the later one.
        ranked = sorted(order, key=lambda i: (-values[i], i))
    elif mode == KEEP_LOWEST:
        ranked = sorted(order, key=lambda i: (values[i], i))
    else:
        ranked = list(order)
    kept = set(ranked[:COUNTED_DICE])
    dice = tuple(
        Die(sides=DIE_SIDES, rolled=v, value=v, kept=i in kept) for i, v in enumerate(values)
    )
    return dice, False


def check(
    *,
    attribute: str,
    attribute_value: int,
    difficulty: str,
    resource: str,
    resource_available: int,
    penalties: Iterable[Any] = (),
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> CheckResult:
    """Make a check: pay the cost from ``resource``, roll the difficulty's dice, add the attribute.

    Seed "Making Checks": "roll two dice and add an attribute"; the difficulty picks how the
    two dice are found and what the action costs; the unpaid cost and every other penalty
    (``penalties``: ``(source, amount)`` pairs or ``Penalty``) are subtracted. The attribute
    and resource must be linked (seed "Association").
    """
    rules = _ruleset(ruleset)
    attribute, resource = check_pairing(attribute=attribute, resource=resource, ruleset=rules)
    name, entry = _difficulty(rules, difficulty)
    check_int(attribute_value, f"{attribute}'s value", low=-MAX_NUMBER, high=MAX_NUMBER)
    extra = _penalties(penalties)
    payment = _payment(
        difficulty=name, resource=resource, cost=entry["cost"], available=resource_available
    )
    rng = resolve_rng(rng)
    dice, assumed = _roll_dice(entry["dice"], entry["rolled"], rng)
    return _assemble(
        attribute=attribute,
        attribute_value=attribute_value,
        difficulty=name,
        mode=entry["dice"],
        dice=dice,
        assumed=assumed,
        payment=payment,
        penalties=_unpaid(payment) + extra,
    )


def _unpaid(payment: Payment) -> tuple[Penalty, ...]:
    if not payment.unpaid:
        return ()
    return (Penalty(source=UNPAID_COST, amount=payment.unpaid, by=payment.resource),)
