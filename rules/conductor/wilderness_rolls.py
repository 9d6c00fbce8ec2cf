"""conductor (seed 002): the wilderness procedure's words, dice, odds and events.

Seed "Wilderness Exploration Procedure": the phases, the sample actions and travel actions, the
wilderness roll (d6: 1 adventure, 2-3 clues, 4-6 landmark), the supply die that "must roll above
3", the Forage odds, and the events an ``Expedition`` move reports (rules.conductor.wilderness).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, ClassVar

from rules.conductor.ruleset import _ruleset
from rules.conductor.standard import StandardResult, standard_probability
from rules.core import Die, Result, Rng, RulesError, check_int, resolve_rng, roll_die

#: Seed: "There are three phases in a day".
PHASES = ("Morning", "Afternoon", "Night")
#: The seed's sample standard actions; any other text is a free action.
ACTIONS = ("Forage", "Navigation", "Scouting", "Sentinel", "Rest")
#: The seed's travel actions.
TRAVEL_KINDS = ("Trek", "Gallop", "Ferry")
#: Seed: "1 - Encounter an adventure; 2-3 - ... clues ...; 4-6 - ... the hex's landmark".
ENCOUNTERS = {1: "adventure", 2: "clues", 3: "clues", 4: "landmark", 5: "landmark", 6: "landmark"}
WILDERNESS_DIE = 6


# --- wilderness odds and single rolls ---------------------------------------------------------


def forage_probability(
    *, survival: int, bennies: int = 0, ruleset: Mapping[str, Any] | None = None
) -> Fraction:
    """P(a Forage succeeds): seed "a difficulty 7 roll using their survival skill"."""
    difficulty = _ruleset(ruleset)["wilderness"]["forage_difficulty"]
    return standard_probability(skill=survival, difficulty=difficulty, bennies=bennies)


def supply_probability(*, die: int, ruleset: Mapping[str, Any] | None = None) -> Fraction:
    """P(the supply roll keeps supplies): the supply die "must roll above 3"."""
    rules = _ruleset(ruleset)["wilderness"]
    sides = _check_supply_die(die, rules["supply_dice"])
    target = rules["supply_target"]
    return Fraction(sides - min(target, sides), sides)


def wilderness_roll_distribution() -> dict[str, Fraction]:
    """The odds of each wilderness roll result (d6: 1 adventure, 2-3 clues, 4-6 landmark)."""
    out: dict[str, Fraction] = {}
    for encounter in ENCOUNTERS.values():
        out[encounter] = out.get(encounter, Fraction(0)) + Fraction(1, WILDERNESS_DIE)
    return out


def _check_supply_die(die: Any, sizes: list[int] | tuple[int, ...]) -> int:
    die = check_int(die, "The supply die")
    if die not in sizes:
        raise RulesError(
            f"The supply die must be one of {', '.join(f'd{s}' for s in sizes)} (got {die})."
        )
    return die


@dataclasses.dataclass(frozen=True)
class WildernessRoll(Result):
    """The d6 rolled when a phase ends and what the party encounters."""

    die: Die
    encounter: str


def wilderness_roll(*, rng: Rng | None = None) -> WildernessRoll:
    """Seed: "When ending a phase in wilderness, make a wilderness roll (d6)"."""
    rolled = roll_die(WILDERNESS_DIE, resolve_rng(rng))
    return WildernessRoll(
        die=Die(sides=WILDERNESS_DIE, rolled=rolled, value=rolled), encounter=ENCOUNTERS[rolled]
    )


@dataclasses.dataclass(frozen=True)
class SupplyRoll(Result):
    """The leader's supply roll: the die, whether it rolled over the target, the die after.

    ``depleted``: the roll failed on the last (smallest) die.
    """

    die: Die
    target: int
    success: bool
    die_after: int
    depleted: bool


def supply_roll(
    *, die: int, rng: Rng | None = None, ruleset: Mapping[str, Any] | None = None
) -> SupplyRoll:
    """Seed: "the party's leader must roll above 3 to keep supplies from dwindling. Failing
    this roll will decrease the supply die [...] Once a supply roll fails at d4, the party's
    supplies have been depleted"."""
    rules = _ruleset(ruleset)["wilderness"]
    sizes = rules["supply_dice"]
    sides = _check_supply_die(die, sizes)
    rolled = roll_die(sides, resolve_rng(rng))
    success = rolled > rules["supply_target"]
    step = sizes.index(sides)
    last = step == len(sizes) - 1
    return SupplyRoll(
        die=Die(sides=sides, rolled=rolled, value=rolled),
        target=rules["supply_target"],
        success=success,
        die_after=sides if success or last else sizes[step + 1],
        depleted=not success and last,
    )


# --- events --------------------------------------------------------------------------------


class ExpeditionEvent(Result):
    """Base of the events a move returns; ``to_dict()`` includes the event's ``kind``."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **super().to_dict()}


@dataclasses.dataclass(frozen=True)
class ActionTaken(ExpeditionEvent):
    kind: ClassVar[str] = "action"
    character: str
    action: str


@dataclasses.dataclass(frozen=True)
class TravelTaken(ExpeditionEvent):
    kind: ClassVar[str] = "travel"
    travel: str
    hexes: int
    civilization: bool


@dataclasses.dataclass(frozen=True)
class ForageRolled(ExpeditionEvent):
    kind: ClassVar[str] = "forage"
    character: str
    roll: StandardResult
    success: bool


@dataclasses.dataclass(frozen=True)
class WildernessRolled(ExpeditionEvent):
    kind: ClassVar[str] = "wilderness_roll"
    day: int
    phase: str
    roll: WildernessRoll


@dataclasses.dataclass(frozen=True)
class MountsTired(ExpeditionEvent):
    kind: ClassVar[str] = "mounts_tired"


@dataclasses.dataclass(frozen=True)
class MountsRecovered(ExpeditionEvent):
    kind: ClassVar[str] = "mounts_recovered"


@dataclasses.dataclass(frozen=True)
class SupplyRolled(ExpeditionEvent):
    kind: ClassVar[str] = "supply_roll"
    leader: str
    roll: SupplyRoll


@dataclasses.dataclass(frozen=True)
class SupplySkipped(ExpeditionEvent):
    """A Forage succeeded today: no supply roll and no hunger hit (seed "Forage")."""

    kind: ClassVar[str] = "supply_skipped"
    foragers: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class LastingHit(ExpeditionEvent):
    """Apply one hit to ``character`` that lasts until ``cause`` is cured.

    ``cause``: "no rest" (cured by a rest) or "supplies depleted" (cured by being fed).
    """

    kind: ClassVar[str] = "lasting_hit"
    character: str
    cause: str


@dataclasses.dataclass(frozen=True)
class LastingHitsRecovered(ExpeditionEvent):
    """Remove ``hits`` lasting hits of ``cause`` from ``character``."""

    kind: ClassVar[str] = "lasting_hits_recovered"
    character: str
    cause: str
    hits: int


@dataclasses.dataclass(frozen=True)
class PhaseEnded(ExpeditionEvent):
    kind: ClassVar[str] = "phase_ended"
    day: int
    phase: str
    next_day: int
    next_phase: str


@dataclasses.dataclass(frozen=True)
class Fed(ExpeditionEvent):
    kind: ClassVar[str] = "fed"
    supply_die: int


@dataclasses.dataclass(frozen=True)
class MemberChanged(ExpeditionEvent):
    """The party changed: leader, mounts, water vehicle, who is in it."""

    kind: ClassVar[str] = "member_changed"
    change: str
    character: str | None = None
