"""conductor (seed 002): the Wilderness Exploration Procedure as an immutable state machine.

Everything here is re-exported by ``rules.conductor``; import it from there. The procedure's
fixed words, its odds, its two single rolls and the events a move reports are in
``rules.conductor.wilderness_rolls``.

Seed "Wilderness Exploration Procedure" (RULES-NOTES "conductor", "Wilderness"): a day has
three phases (Morning, Afternoon, Night). In each phase each character takes one action
(Forage, Navigation, Scouting, Sentinel, Rest, or anything else that makes sense: free text),
or the whole party takes one travel action (Trek, Gallop, Ferry). Ending a phase makes a
wilderness roll (d6: 1 adventure, 2-3 clues, 4-6 landmark). Ending the day (the Night phase):
unless a Forage succeeded that day, the leader rolls the supply die; a character who did not
Rest that day takes a lasting hit.

Readings decided here (tested):

- Travel is the whole party's action for the phase: once any member acted alone the party
  cannot travel this phase, and once the party travels nobody acts alone (IllegalMoveError).
  Nobody acts twice in a phase, and an action once taken is not taken back (a Forage is
  rolled when it is chosen). A phase may end with members who did nothing.
- The Forage roll is a standard roll (d12 + Survival over 7) made when the action is chosen, so
  the player may spend bennies on it (``spend_bennies_on_forage``) until the phase ends.
- A Rest counts when its phase ends: it clears that character's lasting hits from lack of rest
  ("will not recover until rest is taken"). ``rest(character)`` is a rest outside the phase
  procedure (an inn, the GM's ruling): it clears them at once and counts for today.
- Supplies: "must roll above 3" (strictly). Once depleted, every later day's end without a
  successful Forage gives every member another lasting hit (the seed's Forage text: a
  successful forage means the party "will not take a hit due to their supplies being
  depleted" that day); no supply die is rolled while depleted. ``feed()`` is the party being
  fed / resupplied: hunger hits recover, supplies are no longer depleted, the supply die is
  back to its first size (d12).
- Each day without a Rest gives one more lasting hit; they all recover at the next rest.
- Mounts: Gallop tires them unless the party is entering or leaving civilization this phase
  (the caller says so: the engine has no map). Tired mounts recover per the ruleset's
  ``mounts_recover`` (the seed is silent): "phase_without_travel" (default: at the end of a
  phase in which the party did not travel), "party_rest" (a phase where every member rested)
  or "new_day" (at the end of the Night).

Each move returns ``(new_expedition, events)``; the events (frozen dataclasses with ``kind``
and ``to_dict()``) tell the web layer what to apply to the sheets: ``LastingHit`` /
``LastingHitsRecovered`` for which character and why, the supply die's change, the rolls.

Public: ``Expedition`` (``start``, ``from_dict``/``to_dict``, ``choose_action``,
``spend_bennies_on_forage``, ``choose_travel``, ``end_phase``, ``feed``, ``rest``,
``set_mounted``, ``set_water_vehicle``, ``set_leader``, ``add_member``, ``remove_member``,
``supply_odds``), ``start_expedition``, ``Member``, ``Travel``, ``WildernessRules``; and in
``wilderness_rolls`` the event classes, ``supply_roll``, ``wilderness_roll``,
``forage_probability``, ``supply_probability``, ``wilderness_roll_distribution``, ``PHASES``,
``ACTIONS``, ``TRAVEL_KINDS``, ``ENCOUNTERS``.

"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from rules.conductor.ruleset import _check_bennies, _check_skill, _ruleset
from rules.conductor.standard import (
    StandardResult,
    _standard_result,
    spend_bennies_on_standard,
    standard_roll,
)
from rules.conductor.wilderness_rolls import (
    ACTIONS,
    PHASES,
    TRAVEL_KINDS,
    ActionTaken,
    ExpeditionEvent,
    Fed,
    ForageRolled,
    LastingHit,
    LastingHitsRecovered,
    MemberChanged,
    MountsRecovered,
    MountsTired,
    PhaseEnded,
    SupplyRolled,
    SupplySkipped,
    TravelTaken,
    WildernessRolled,
    _check_supply_die,
    supply_probability,
    supply_roll,
    wilderness_roll,
)
from rules.core import (
    IllegalMoveError,
    Result,
    Rng,
    RulesError,
    UnknownNameError,
    check_int,
    lookup,
    resolve_rng,
)

_MAX_MEMBERS = 100
_MAX_TEXT = 200
_MAX_DAY = 1_000_000


NO_REST = "no rest"
HUNGER = "supplies depleted"


# --- state -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class WildernessRules(Result):
    """The ruleset's ``wilderness`` numbers, kept in the expedition so its JSON stands alone."""

    forage_difficulty: int
    supply_dice: tuple[int, ...]
    supply_target: int
    trek_hexes: int
    gallop_hexes: int
    ferry_hexes: int
    mounts_recover: str

    @classmethod
    def from_ruleset(cls, ruleset: Mapping[str, Any] | None) -> WildernessRules:
        rules = _ruleset(ruleset)["wilderness"]
        return cls(**{**rules, "supply_dice": tuple(rules["supply_dice"])})

    def as_ruleset(self) -> dict[str, Any]:
        return {"wilderness": {**self.to_dict(), "supply_dice": list(self.supply_dice)}}

    def hexes(self, kind: str) -> int:
        return {"Trek": self.trek_hexes, "Gallop": self.gallop_hexes, "Ferry": self.ferry_hexes}[
            kind
        ]


@dataclasses.dataclass(frozen=True)
class Member(Result):
    """One party member and what the procedure tracks for them.

    ``action``: this phase's action (None: none yet). ``forage``: this phase's Forage roll.
    ``no_rest_hits`` / ``hunger_hits``: lasting hits this expedition gave them, not yet
    recovered.
    """

    id: str
    name: str
    mounted: bool = False
    action: str | None = None
    forage: StandardResult | None = None
    rested_today: bool = False
    no_rest_hits: int = 0
    hunger_hits: int = 0


@dataclasses.dataclass(frozen=True)
class Travel(Result):
    """The party's travel action this phase."""

    kind: str
    hexes: int
    civilization: bool = False


Events = tuple[ExpeditionEvent, ...]


@dataclasses.dataclass(frozen=True)
class Expedition(Result):
    """A party's wilderness expedition; every move returns ``(new_expedition, events)``."""

    members: tuple[Member, ...]
    leader: str
    rules: WildernessRules
    day: int = 1
    phase: str = PHASES[0]
    travel: Travel | None = None
    hexes_travelled: int = 0
    supply_die: int = 12
    depleted: bool = False
    foragers_today: tuple[str, ...] = ()
    mounts_tired: bool = False
    water_vehicle: bool = False

    # --- creation and JSON -----------------------------------------------------------------

    @classmethod
    def start(
        cls,
        *,
        members: Mapping[str, str] | Iterable[tuple[str, str]],
        leader: str | None = None,
        mounted: Iterable[str] = (),
        water_vehicle: bool = False,
        ruleset: Mapping[str, Any] | None = None,
    ) -> Expedition:
        """A new expedition on day 1, Morning, supply die at its first size (d12).

        ``members``: character id -> name (ids are the web layer's, as text). ``leader``
        defaults to the first member; ``mounted``: ids of the members who ride.
        """
        rules = WildernessRules.from_ruleset(ruleset)
        pairs = list(members.items()) if isinstance(members, Mapping) else list(members)
        if not pairs:
            raise RulesError("An expedition needs at least one member.")
        if len(pairs) > _MAX_MEMBERS:
            raise RulesError(f"An expedition has at most {_MAX_MEMBERS} members.")
        people: list[Member] = []
        for pair in pairs:
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise RulesError("Members must be given as id -> name.")
            people.append(Member(id=_id(pair[0]), name=_text(pair[1], "A member's name")))
        if len({m.id for m in people}) != len(people):
            raise RulesError("Two members have the same id.")
        expedition = cls(
            members=tuple(people),
            leader=people[0].id,
            rules=rules,
            supply_die=rules.supply_dice[0],
            water_vehicle=_flag(water_vehicle, "water_vehicle"),
        )
        if leader is not None:
            expedition = dataclasses.replace(expedition, leader=expedition._member(leader).id)
        if isinstance(mounted, str):
            raise RulesError("mounted must list member ids.")
        for who in mounted:
            expedition = expedition._with_member(expedition._member(who), mounted=True)
        return expedition

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Expedition:
        """Rebuild an expedition from ``to_dict()`` output, checking every field."""
        if not isinstance(data, Mapping):
            raise RulesError("An expedition must be stored as a mapping.")
        rules = WildernessRules.from_ruleset({"wilderness": _field(data, "rules", Mapping)})
        raw_members = _field(data, "members", list | tuple)
        if not raw_members or len(raw_members) > _MAX_MEMBERS:
            raise RulesError(f"An expedition needs 1 to {_MAX_MEMBERS} members.")
        members = tuple(_member_from_dict(m, rules) for m in raw_members)
        ids = [m.id for m in members]
        if len(set(ids)) != len(ids):
            raise RulesError("Two members have the same id.")
        leader = _id(_field(data, "leader", str))
        if leader not in ids:
            raise RulesError(f"The leader {leader!r} is not a member.")
        phase = lookup(_field(data, "phase", str), PHASES, "phase")
        raw_travel = data.get("travel")
        travel = None
        if raw_travel is not None:
            if not isinstance(raw_travel, Mapping):
                raise RulesError("travel must be a mapping or null.")
            kind = lookup(_field(raw_travel, "kind", str), TRAVEL_KINDS, "travel action")
            travel = Travel(
                kind=kind,
                hexes=check_int(_field(raw_travel, "hexes", int), "travel.hexes", low=0, high=100),
                civilization=_flag(raw_travel.get("civilization", False), "travel.civilization"),
            )
            if any(m.action is not None for m in members):
                raise RulesError("A phase cannot have both travel and members' own actions.")
        foragers = _field(data, "foragers_today", list | tuple)
        if any(_id(f) not in ids for f in foragers):
            raise RulesError("foragers_today names someone who is not a member.")
        return cls(
            members=members,
            leader=leader,
            rules=rules,
            day=check_int(_field(data, "day", int), "day", low=1, high=_MAX_DAY),
            phase=phase,
            travel=travel,
            hexes_travelled=check_int(
                _field(data, "hexes_travelled", int), "hexes_travelled", low=0
            ),
            supply_die=_check_supply_die(_field(data, "supply_die", int), rules.supply_dice),
            depleted=_flag(_field(data, "depleted", bool), "depleted"),
            foragers_today=tuple(_id(f) for f in foragers),
            mounts_tired=_flag(_field(data, "mounts_tired", bool), "mounts_tired"),
            water_vehicle=_flag(_field(data, "water_vehicle", bool), "water_vehicle"),
        )

    # --- lookups ---------------------------------------------------------------------------

    def _member(self, character: Any) -> Member:
        """A member by id, or else by name (case-insensitive)."""
        if isinstance(character, int) and not isinstance(character, bool):
            character = str(character)
        if isinstance(character, str):
            for m in self.members:
                if m.id == character:
                    return m
            wanted = character.strip().casefold()
            named = [m for m in self.members if m.name.casefold() == wanted]
            if len(named) == 1:
                return named[0]
        names = ", ".join(f"{m.name} ({m.id})" for m in self.members)
        raise UnknownNameError(f"{character!r} is not in the party; members: {names}.")

    def _with_member(self, member: Member, **changes: Any) -> Expedition:
        members = tuple(
            dataclasses.replace(m, **changes) if m.id == member.id else m for m in self.members
        )
        return dataclasses.replace(self, members=members)

    def supply_odds(self) -> Fraction:
        """P(the next supply roll keeps supplies), 0 once they are depleted."""
        if self.depleted:
            return Fraction(0)
        return supply_probability(die=self.supply_die, ruleset=self.rules.as_ruleset())

    # --- the phase's actions ---------------------------------------------------------------

    def choose_action(
        self,
        character: str,
        action: str,
        *,
        survival: int | None = None,
        rng: Rng | None = None,
    ) -> tuple[Expedition, Events]:
        """One character's action for this phase (seed "Standard" actions).

        ``action``: Forage, Navigation, Scouting, Sentinel, Rest (any case), or free text.
        Forage needs ``survival`` (the character's effective Survival skill) and is rolled now:
        d12 + Survival over 7 (seed "Forage").
        """
        member = self._member(character)
        if self.travel is not None:
            raise IllegalMoveError(
                f"The party is travelling ({self.travel.kind}) this phase; "
                f"{member.name} cannot act alone."
            )
        if member.action is not None:
            raise IllegalMoveError(
                f"{member.name} already acted this phase ({member.action}); one action a phase."
            )
        text = _text(action, "An action")
        if text.casefold() in (t.casefold() for t in TRAVEL_KINDS):
            raise IllegalMoveError(
                f"{text} is a travel action for the whole party, not one character's action."
            )
        known = [a for a in ACTIONS if a.casefold() == text.casefold()]
        chosen = known[0] if known else text
        events: list[ExpeditionEvent] = [ActionTaken(character=member.id, action=chosen)]
        forage = None
        if chosen == "Forage":
            if survival is None:
                raise RulesError("Forage is a Survival roll: give the character's Survival skill.")
            forage = standard_roll(
                skill=_check_skill(survival),
                difficulty=self.rules.forage_difficulty,
                rng=resolve_rng(rng),
            )
            events.append(ForageRolled(character=member.id, roll=forage, success=forage.success))
        elif survival is not None:
            raise RulesError(f"Only Forage uses the Survival skill, not {chosen}.")
        return self._with_member(member, action=chosen, forage=forage), tuple(events)

    def spend_bennies_on_forage(self, character: str, *, bennies: int) -> tuple[Expedition, Events]:
        """Bennies on this phase's Forage roll, +1 each (seed: "After seeing the roll's result")."""
        member = self._member(character)
        if member.forage is None:
            raise IllegalMoveError(f"{member.name} has no Forage roll this phase.")
        roll = spend_bennies_on_standard(member.forage, bennies=bennies)
        event = ForageRolled(character=member.id, roll=roll, success=roll.success)
        return self._with_member(member, forage=roll), (event,)

    def choose_travel(self, kind: str, *, civilization: bool = False) -> tuple[Expedition, Events]:
        """The whole party's travel action for this phase (seed "Travel").

        Trek 1 hex; Gallop 2 hexes, only when every member is mounted and the mounts are not
        tired, and it tires them "unless you're entering or leaving civilization this phase"
        (``civilization=True``); Ferry 3 hexes, only with a water vehicle.
        """
        kind = lookup(kind, TRAVEL_KINDS, "travel action")
        civilization = _flag(civilization, "civilization")
        if self.travel is not None:
            raise IllegalMoveError(f"The party already travels ({self.travel.kind}) this phase.")
        acted = [m.name for m in self.members if m.action is not None]
        if acted:
            raise IllegalMoveError(
                f"{', '.join(acted)} already acted this phase; travel takes the whole party."
            )
        events: list[ExpeditionEvent] = []
        tired = self.mounts_tired
        if kind == "Gallop":
            walkers = [m.name for m in self.members if not m.mounted]
            if walkers:
                raise IllegalMoveError(
                    f"Gallop needs the whole party mounted; {', '.join(walkers)} on foot."
                )
            if self.mounts_tired:
                raise IllegalMoveError("The mounts are tired and cannot gallop.")
            if not civilization:
                tired = True
        if kind == "Ferry" and not self.water_vehicle:
            raise IllegalMoveError("Ferry needs a water vehicle.")
        hexes = self.rules.hexes(kind)
        events.append(TravelTaken(travel=kind, hexes=hexes, civilization=civilization))
        if tired and not self.mounts_tired:
            events.append(MountsTired())
        moved = dataclasses.replace(
            self,
            travel=Travel(kind=kind, hexes=hexes, civilization=civilization),
            hexes_travelled=self.hexes_travelled + hexes,
            mounts_tired=tired,
        )
        return moved, tuple(events)

    # --- ending a phase --------------------------------------------------------------------

    def end_phase(self, *, rng: Rng | None = None) -> tuple[Expedition, Events]:
        """End this phase: rests count, the wilderness roll, and at Night the day's end.

        Day's end (seed): if a Forage succeeded "the supply check for the day is not made";
        otherwise the leader rolls the supply die (or, supplies depleted, every member takes a
        hit); every member who did not Rest today takes a lasting hit.
        """
        rng = resolve_rng(rng)
        events: list[ExpeditionEvent] = []
        members: list[Member] = []
        foragers = list(self.foragers_today)
        for m in self.members:
            if m.action == "Rest":
                if m.no_rest_hits:
                    events.append(
                        LastingHitsRecovered(character=m.id, cause=NO_REST, hits=m.no_rest_hits)
                    )
                m = dataclasses.replace(m, no_rest_hits=0)
            if m.forage is not None and m.forage.success and m.id not in foragers:
                foragers.append(m.id)
            members.append(m)
        everyone_rested = all(m.action == "Rest" for m in self.members)
        tired = self.mounts_tired
        recover = self.rules.mounts_recover
        night = self.phase == PHASES[-1]
        if tired and (
            (recover == "phase_without_travel" and self.travel is None)
            or (recover == "party_rest" and everyone_rested)
            or (recover == "new_day" and night)
        ):
            tired = False
            events.append(MountsRecovered())
        roll = wilderness_roll(rng=rng)
        events.append(WildernessRolled(day=self.day, phase=self.phase, roll=roll))
        members = [
            dataclasses.replace(m, rested_today=m.rested_today or m.action == "Rest")
            for m in members
        ]
        supply_die, depleted = self.supply_die, self.depleted
        if night:
            supply_die, depleted = self._end_of_day(members, foragers, events, rng)
        day = self.day + 1 if night else self.day
        phase = PHASES[(PHASES.index(self.phase) + 1) % len(PHASES)]
        events.append(PhaseEnded(day=self.day, phase=self.phase, next_day=day, next_phase=phase))
        members = [dataclasses.replace(m, action=None, forage=None) for m in members]
        if night:
            members = [dataclasses.replace(m, rested_today=False) for m in members]
        ended = dataclasses.replace(
            self,
            members=tuple(members),
            day=check_int(day, "day", high=_MAX_DAY),
            phase=phase,
            travel=None,
            supply_die=supply_die,
            depleted=depleted,
            foragers_today=() if night else tuple(foragers),
            mounts_tired=tired,
        )
        return ended, tuple(events)

    def _end_of_day(
        self,
        members: list[Member],
        foragers: list[str],
        events: list[ExpeditionEvent],
        rng: Rng,
    ) -> tuple[int, bool]:
        """Supplies and rest at the end of the Night; updates ``members`` and ``events``."""
        supply_die, depleted = self.supply_die, self.depleted
        hungry = False
        if foragers:
            events.append(SupplySkipped(foragers=tuple(foragers)))
        elif depleted:
            hungry = True
        else:
            result = supply_roll(die=supply_die, rng=rng, ruleset=self.rules.as_ruleset())
            events.append(SupplyRolled(leader=self.leader, roll=result))
            supply_die, depleted, hungry = result.die_after, result.depleted, result.depleted
        for i, m in enumerate(members):
            if hungry:
                events.append(LastingHit(character=m.id, cause=HUNGER))
                m = dataclasses.replace(m, hunger_hits=m.hunger_hits + 1)
            if not m.rested_today:
                events.append(LastingHit(character=m.id, cause=NO_REST))
                m = dataclasses.replace(m, no_rest_hits=m.no_rest_hits + 1)
            members[i] = m
        return supply_die, depleted

    # --- outside the phase procedure --------------------------------------------------------

    def feed(self) -> tuple[Expedition, Events]:
        """The party is fed again: hunger hits recover, supplies restored to the first die.

        Seed: "take a hit that will not recover until the party is fed again".
        """
        events: list[ExpeditionEvent] = [
            LastingHitsRecovered(character=m.id, cause=HUNGER, hits=m.hunger_hits)
            for m in self.members
            if m.hunger_hits
        ]
        first = self.rules.supply_dice[0]
        events.append(Fed(supply_die=first))
        members = tuple(dataclasses.replace(m, hunger_hits=0) for m in self.members)
        fed = dataclasses.replace(self, members=members, supply_die=first, depleted=False)
        return fed, tuple(events)

    def rest(self, character: str) -> tuple[Expedition, Events]:
        """A rest outside the phase procedure: no-rest hits recover, and it counts for today.

        Seed "Rest": the hit "will not recover until rest is taken".
        """
        member = self._member(character)
        events: Events = ()
        if member.no_rest_hits:
            events = (
                LastingHitsRecovered(character=member.id, cause=NO_REST, hits=member.no_rest_hits),
            )
        return self._with_member(member, no_rest_hits=0, rested_today=True), events

    def set_mounted(self, character: str, mounted: bool = True) -> tuple[Expedition, Events]:
        """Whether a member rides a mount (Gallop needs the whole party mounted)."""
        member = self._member(character)
        mounted = _flag(mounted, "mounted")
        event = MemberChanged(change="mounted" if mounted else "on foot", character=member.id)
        return self._with_member(member, mounted=mounted), (event,)

    def set_water_vehicle(self, present: bool = True) -> tuple[Expedition, Events]:
        """Whether the party has a water vehicle (Ferry needs one)."""
        present = _flag(present, "present")
        event = MemberChanged(change="water vehicle" if present else "no water vehicle")
        return dataclasses.replace(self, water_vehicle=present), (event,)

    def set_leader(self, character: str) -> tuple[Expedition, Events]:
        """The party's leader (who rolls the supply die)."""
        member = self._member(character)
        event = MemberChanged(change="leader", character=member.id)
        return dataclasses.replace(self, leader=member.id), (event,)

    def add_member(
        self, character: str, name: str, *, mounted: bool = False
    ) -> tuple[Expedition, Events]:
        """A new member joins (with no action yet this phase)."""
        mounted = _flag(mounted, "mounted")
        new = Member(id=_id(character), name=_text(name, "A member's name"), mounted=mounted)
        if any(m.id == new.id for m in self.members):
            raise IllegalMoveError(f"{new.id!r} is already in the party.")
        if len(self.members) >= _MAX_MEMBERS:
            raise RulesError(f"An expedition has at most {_MAX_MEMBERS} members.")
        event = MemberChanged(change="joined", character=new.id)
        return dataclasses.replace(self, members=(*self.members, new)), (event,)

    def remove_member(self, character: str) -> tuple[Expedition, Events]:
        """A member leaves; the leader must hand over first, and the party keeps one member."""
        member = self._member(character)
        if member.id == self.leader:
            raise IllegalMoveError(f"{member.name} leads the party; choose another leader first.")
        members = tuple(m for m in self.members if m.id != member.id)
        foragers = tuple(f for f in self.foragers_today if f != member.id)
        event = MemberChanged(change="left", character=member.id)
        return dataclasses.replace(self, members=members, foragers_today=foragers), (event,)


def start_expedition(
    *,
    members: Mapping[str, str] | Iterable[tuple[str, str]],
    leader: str | None = None,
    mounted: Iterable[str] = (),
    water_vehicle: bool = False,
    ruleset: Mapping[str, Any] | None = None,
) -> Expedition:
    """A new expedition (see ``Expedition.start``)."""
    return Expedition.start(
        members=members,
        leader=leader,
        mounted=mounted,
        water_vehicle=water_vehicle,
        ruleset=ruleset,
    )


# --- small validators ----------------------------------------------------------------------------


def _id(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or len(value) > _MAX_TEXT:
        raise RulesError(f"A member id must be a short non-empty text, not {value!r}.")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RulesError(f"{what} must be a non-empty text, not {value!r}.")
    if len(value) > _MAX_TEXT:
        raise RulesError(f"{what} is too long (at most {_MAX_TEXT} characters).")
    return value.strip()


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{what} must be true or false, not {value!r}.")
    return value


def _field(data: Mapping[str, Any], key: str, kind: Any) -> Any:
    if key not in data:
        raise RulesError(f"The stored expedition lacks its {key!r} field.")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RulesError(f"The stored expedition's {key!r} field has the wrong type.")
    return value


def _member_from_dict(raw: Any, rules: WildernessRules) -> Member:
    if not isinstance(raw, Mapping):
        raise RulesError("Each stored member must be a mapping.")
    action = raw.get("action")
    if action is not None:
        action = _text(action, "A member's action")
        known = [a for a in ACTIONS if a.casefold() == action.casefold()]
        action = known[0] if known else action
    forage = None
    raw_forage = raw.get("forage")
    if raw_forage is not None:
        if not isinstance(raw_forage, Mapping) or not isinstance(raw_forage.get("die"), Mapping):
            raise RulesError("A stored Forage roll must be a mapping with its die.")
        if action != "Forage":
            raise RulesError("A stored Forage roll belongs to a member whose action is Forage.")
        forage = _standard_result(
            rolled=raw_forage["die"].get("rolled"),
            skill=_check_skill(raw_forage.get("skill")),
            difficulty=rules.forage_difficulty,
            bennies=_check_bennies(raw_forage.get("bennies")),
        )
    return Member(
        id=_id(raw.get("id")),
        name=_text(raw.get("name"), "A member's name"),
        mounted=_flag(raw.get("mounted", False), "mounted"),
        action=action,
        forage=forage,
        rested_today=_flag(raw.get("rested_today", False), "rested_today"),
        no_rest_hits=check_int(raw.get("no_rest_hits", 0), "no_rest_hits", low=0, high=_MAX_DAY),
        hunger_hits=check_int(raw.get("hunger_hits", 0), "hunger_hits", low=0, high=_MAX_DAY),
    )
