"""Percentile (seed 004, Chapter 14 "Actions"): maneuvers, their odds, retries, slumps and zones.

"To resolve an action, roll open-ended percentile dice, and add the SV for the relevant skill":
``roll`` and the other roll functions (perception, potency, breakage, pure chance),
``maneuver_odds``; "Each failure you've had with this particular attempt gives you a cumulative
-25" (``RetryAttempt``); "in a slump" / "in the zone" (``SkillStreak``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from rules.core import (
    IllegalMoveError,
    OutOfRangeError,
    Result,
    Rng,
    RulesError,
    check_int,
    lookup,
    resolve_rng,
)
from rules.percentile.bands import (
    EXTRAORDINARY_FAILURE,
    EXTRAORDINARY_SUCCESS,
    MAX_BONUS,
    SUCCESS_OR_BETTER,
    ChartRow,
    _check_bonus,
    chart,
)
from rules.percentile.modifiers import Modifier, _modifiers
from rules.percentile.open_ended import OpenEndedRoll, band_distribution, roll_open_ended
from rules.percentile.ruleset import _field_bool, _field_number, _rules, _text

# --- maneuvers -----------------------------------------------------------------------------------

KINDS = ("maneuver", "perception", "running", "potency", "breakage", "pure_chance")


@dataclasses.dataclass(frozen=True)
class ManeuverResult(Result):
    """A maneuver as rolled: dice, SV, every labelled modifier, and the Chart 14.1 row.

    ``total`` = dice + ``skill_value`` + modifiers + ``retry_penalty`` + ``condition_modifier``.
    ``condition`` is "slump", "zone" or None. ``secret`` marks a roll the GM makes for the player
    (perception). ``plot_points_spent`` and ``original_roll`` record a roll changed with plot
    points. For potency and breakage rolls success favours the attack (the item breaks).
    """

    kind: str
    roll: OpenEndedRoll
    skill_value: int
    modifiers: tuple[Modifier, ...]
    retry_failures: int
    retry_penalty: int
    condition: str | None
    condition_modifier: int
    total: int
    row: ChartRow
    secret: bool = False
    plot_points_spent: int = 0
    original_roll: OpenEndedRoll | None = None

    @property
    def band(self) -> str:
        return self.row.band

    @property
    def mm(self) -> int | None:
        return self.row.mm

    @property
    def sm(self) -> str:
        return self.row.sm

    @property
    def bonus(self) -> int:
        """Everything added to the dice (the ``modifier`` for ``band_distribution``)."""
        return (
            self.skill_value
            + sum(m.value for m in self.modifiers)
            + self.retry_penalty
            + self.condition_modifier
        )

    @property
    def succeeded(self) -> bool:
        """Success or better (for a potency roll: the attack affects the target)."""
        return self.band in SUCCESS_OR_BETTER

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ManeuverResult:
        """Rebuild a stored result; the total and chart row are recomputed from its parts."""
        try:
            kind = lookup(data["kind"], KINDS, "kind of roll")
            dice = OpenEndedRoll.from_dict(data["roll"])
            original = data.get("original_roll")
            return _build_result(
                kind=kind,
                dice=dice,
                skill_value=check_int(data["skill_value"], "The skill value"),
                modifiers=_modifiers(data["modifiers"]),
                retry_failures=check_int(data["retry_failures"], "Previous failures", low=0),
                retry_penalty=check_int(data["retry_penalty"], "The retry penalty"),
                condition=_condition_name(data.get("condition")),
                condition_modifier=check_int(data["condition_modifier"], "The slump/zone bonus"),
                secret=_field_bool(data.get("secret", False), "secret"),
                plot_points_spent=check_int(
                    data.get("plot_points_spent", 0), "Plot points spent", low=0
                ),
                original_roll=None if original is None else OpenEndedRoll.from_dict(original),
            )
        except KeyError as exc:
            raise RulesError(f"A stored maneuver is missing {exc.args[0]!r}.") from exc
        except (TypeError, AttributeError) as exc:
            raise RulesError("A stored maneuver must be a mapping of its parts.") from exc


def _condition_name(value: Any) -> str | None:
    if value is None:
        return None
    return lookup(value, ("slump", "zone"), "condition")


def _build_result(*, dice: OpenEndedRoll, **parts: Any) -> ManeuverResult:
    parts.setdefault("secret", False)
    parts.setdefault("plot_points_spent", 0)
    parts.setdefault("original_roll", None)
    bonus = (
        parts["skill_value"]
        + sum(m.value for m in parts["modifiers"])
        + parts["retry_penalty"]
        + parts["condition_modifier"]
    )
    _check_bonus(bonus, "The total of SV and modifiers")
    total = dice.total + bonus
    return ManeuverResult(roll=dice, total=total, row=chart(total), **parts)


def retry_penalty(*, failures: int, ruleset: Mapping[str, Any] | None = None) -> int:
    """Seed: "Each failure you've had with this particular attempt gives you a cumulative -25"."""
    check_int(failures, "The number of previous failures", low=0, high=MAX_BONUS)
    return _rules(ruleset)["retry_penalty"] * failures


def _condition(condition: Any, rules: Mapping[str, Any]) -> tuple[str | None, int]:
    if isinstance(condition, SkillStreak):
        condition = condition.state
    if condition is None:
        return None, 0
    name = lookup(condition, ("normal", "slump", "zone"), "condition")
    if name == "normal":
        return None, 0
    return name, rules[f"{name}_modifier"]


def _maneuver(
    *,
    kind: str,
    skill_value: Any,
    modifiers: Any,
    retry_failures: Any,
    condition: Any,
    rng: Rng | None,
    rules: Mapping[str, Any],
    secret: bool = False,
    skill_what: str = "The skill value (SV)",
) -> ManeuverResult:
    sv = _check_bonus(skill_value, skill_what)
    mods = _modifiers(modifiers)
    failures = check_int(retry_failures, "The number of previous failures", low=0, high=MAX_BONUS)
    cond, cond_mod = _condition(condition, rules)
    # Check everything before rolling, so a bad input never consumes dice.
    _check_bonus(
        sv + sum(m.value for m in mods) + rules["retry_penalty"] * failures + cond_mod,
        "The total of SV and modifiers",
    )
    rng = resolve_rng(rng)
    return _build_result(
        kind=kind,
        dice=roll_open_ended(rng=rng),
        skill_value=sv,
        modifiers=mods,
        retry_failures=failures,
        retry_penalty=rules["retry_penalty"] * failures,
        condition=cond,
        condition_modifier=cond_mod,
        secret=secret,
    )


def roll(
    *,
    skill_value: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    retry_failures: int = 0,
    condition: str | SkillStreak | None = None,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """Make a maneuver: "roll open-ended percentile dice, and add the SV for the relevant skill".

    ``modifiers`` are labelled (see ``table_modifiers``); ``retry_failures`` earlier failures on
    this attempt give -25 each; ``condition`` is "slump" (-50), "zone" (+50) or a ``SkillStreak``.
    """
    return _maneuver(
        kind="maneuver",
        skill_value=skill_value,
        modifiers=modifiers,
        retry_failures=retry_failures,
        condition=condition,
        rng=rng,
        rules=_rules(ruleset),
    )


def perception_roll(
    *,
    skill_value: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    condition: str | SkillStreak | None = None,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """A perception roll: "the GM will make a perception roll on his behalf".

    ``skill_value`` is the Detect skill's SV or the Perceptivity stat; use the table's
    Perception column for modifiers. "Perception is generally a static maneuver": read ``.sm``.
    The result is marked ``secret``: the web layer shows it to the GM only (RULES-NOTES).
    """
    return _maneuver(
        kind="perception",
        skill_value=skill_value,
        modifiers=modifiers,
        retry_failures=0,
        condition=condition,
        rng=rng,
        rules=_rules(ruleset),
        secret=True,
    )


def potency_roll(
    *,
    potency: int,
    resistance: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """A potency (resistance) roll: "the poison, disease, etc., is making a maneuver to affect you".

    The GM rolls with the attack's ``potency`` as the SV and the target's ``resistance`` as a
    bonus; "success," in this case, is favorable to the poison (``result.succeeded``).
    """
    res = _check_bonus(resistance, "The resistance")
    return _maneuver(
        kind="potency",
        skill_value=potency,
        modifiers=((Modifier("Resistance", res),) + _modifiers(modifiers)),
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=_rules(ruleset),
        skill_what="The potency",
    )


def breakage_potency(
    *,
    lift_capacity: int | float | None = None,
    force: int | float | None = None,
    percent: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> int:
    """The potency of an attempt to break something (give ``lift_capacity`` or ``force``).

    Seed: "they can use 5-10% of their LC (lift capacity) as an effective potency" (default 10%,
    with a hard surface or leverage), or "around 10% of the number of pounds of force being
    applied". Rounded to the nearest whole number (halves up).
    """
    rules = _rules(ruleset)
    if (lift_capacity is None) == (force is None):
        raise RulesError("Give either the lift capacity or the pounds of force, not both.")
    if lift_capacity is not None:
        amount = _field_number(lift_capacity, "The lift capacity")
        default = rules["breakage_lift_capacity_percent"]
    else:
        amount = _field_number(force, "The pounds of force")
        default = rules["breakage_force_percent"]
    if amount < 0 or amount > 100 * MAX_BONUS:
        raise OutOfRangeError(f"The weight must be between 0 and {100 * MAX_BONUS} pounds.")
    pct = default if percent is None else check_int(percent, "The percent", low=0, high=100)
    return math.floor(amount * pct / 100 + Fraction(1, 2))


def breakage_roll(
    *,
    potency: int,
    resistance: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """Does it break? "the approach is identical to the potency roll technique".

    "Success implies the item breaks. Use the MM column to get a good idea for how thoroughly it
    breaks." ``resistance``: solid lumber about 0, iron up to -75, balsa wood up to +100.
    """
    res = _check_bonus(resistance, "The material's resistance")
    return _maneuver(
        kind="breakage",
        skill_value=potency,
        modifiers=((Modifier("Resistance", res),) + _modifiers(modifiers)),
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=_rules(ruleset),
        skill_what="The potency",
    )


def pure_chance_roll(*, chance: int, rng: Rng | None = None) -> ManeuverResult:
    """A pure-chance roll: "The GM will assign a percent chance of success; use this number as
    you would an SV." No other modifier applies."""
    pct = check_int(chance, "The percent chance", low=0, high=100)
    return _maneuver(
        kind="pure_chance",
        skill_value=pct,
        modifiers=(),
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=_rules(None),
        skill_what="The percent chance",
    )


@dataclasses.dataclass(frozen=True)
class ManeuverOdds(Result):
    """What the roll screen shows: the total bonus, every band's chance, P(success or better)."""

    modifier: int
    bands: dict[str, Fraction]
    success_or_better: Fraction


def maneuver_odds(
    *,
    skill_value: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    retry_failures: int = 0,
    condition: str | SkillStreak | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverOdds:
    """Exact odds of the maneuver ``roll`` would make with the same arguments."""
    rules = _rules(ruleset)
    sv = _check_bonus(skill_value, "The skill value (SV)")
    mods = _modifiers(modifiers)
    failures = check_int(retry_failures, "The number of previous failures", low=0, high=MAX_BONUS)
    _cond, cond_mod = _condition(condition, rules)
    bonus = _check_bonus(
        sv + sum(m.value for m in mods) + rules["retry_penalty"] * failures + cond_mod,
        "The total of SV and modifiers",
    )
    bands = band_distribution(modifier=bonus)
    return ManeuverOdds(
        modifier=bonus,
        bands=bands,
        success_or_better=sum((bands[b] for b in SUCCESS_OR_BETTER), Fraction(0)),
    )


# --- retries -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RetryAttempt(Result):
    """How many times a character has failed this particular attempt (picking this lock...)."""

    character: str
    task: str
    failures: int = 0

    def __post_init__(self) -> None:
        _text(self.character, "The character")
        _text(self.task, "The task")
        check_int(self.failures, "The number of previous failures", low=0, high=MAX_BONUS)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetryAttempt:
        try:
            return cls(data["character"], data["task"], data.get("failures", 0))
        except (KeyError, TypeError) as exc:
            raise RulesError("A stored retry record is missing its character or task.") from exc

    def penalty(self, *, ruleset: Mapping[str, Any] | None = None) -> int:
        return retry_penalty(failures=self.failures, ruleset=ruleset)


def record_attempt(
    attempt: RetryAttempt, result: ManeuverResult, *, ruleset: Mapping[str, Any] | None = None
) -> RetryAttempt:
    """Count a failed attempt: "Each failure you've had with this particular attempt gives you a
    cumulative -25 to subsequent attempts". By default anything short of Success counts."""
    if result.band in _rules(ruleset)["retry_failure_bands"]:
        return dataclasses.replace(attempt, failures=attempt.failures + 1)
    return attempt


def reset_attempt(attempt: RetryAttempt) -> RetryAttempt:
    """The GM's reset: "You can start over with no penalty when you have new information ... or
    when you've trained in that skill since your last attempt"."""
    return dataclasses.replace(attempt, failures=0)


# --- slump and zone ------------------------------------------------------------------------------

STREAK_STATES = ("normal", "slump", "zone")


@dataclasses.dataclass(frozen=True)
class SkillStreak(Result):
    """Whether a character is "in a slump" (-50) or "in the zone" (+50) at a skill."""

    character: str
    skill: str
    state: str = "normal"

    def __post_init__(self) -> None:
        _text(self.character, "The character")
        _text(self.skill, "The skill")
        object.__setattr__(self, "state", lookup(self.state, STREAK_STATES, "streak state"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SkillStreak:
        try:
            return cls(data["character"], data["skill"], data.get("state", "normal"))
        except (KeyError, TypeError) as exc:
            raise RulesError("A stored slump/zone record lacks its character or skill.") from exc

    def modifier(self, *, ruleset: Mapping[str, Any] | None = None) -> int:
        return _condition(self.state, _rules(ruleset))[1]


@dataclasses.dataclass(frozen=True)
class StreakChange(Result):
    """What a result did to a slump or zone (``before`` == ``after`` when nothing changed)."""

    before: str
    after: str
    band: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def record_streak(
    streak: SkillStreak, result: ManeuverResult, *, ruleset: Mapping[str, Any] | None = None
) -> tuple[SkillStreak, StreakChange]:
    """Apply a maneuver to the slump/zone of its skill.

    Seed: an Extraordinary Failure puts you "in a slump" "until you get a full success"; an
    Extraordinary Success puts you "in the zone" "until your next failure". Which bands end them
    is ruleset data (``slump_ends_on``: Success or better; ``zone_ends_on``: Failure or worse).
    Only the character's own maneuvers count (not potency, breakage or pure-chance rolls).
    """
    rules = _rules(ruleset)
    if result.kind not in ("maneuver", "perception", "running"):
        raise IllegalMoveError(
            f"A {result.kind.replace('_', ' ')} roll is not the character's own action; it "
            "cannot start or end a slump or zone."
        )
    band, before = result.band, streak.state
    if band == EXTRAORDINARY_FAILURE:
        after = "slump"
    elif band == EXTRAORDINARY_SUCCESS:
        after = "zone"
    elif before != "normal" and band in rules[f"{before}_ends_on"]:
        after = "normal"
    else:
        after = before
    return dataclasses.replace(streak, state=after), StreakChange(before, after, band)
