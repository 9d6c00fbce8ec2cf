"""The events of bennies, healing and the wilderness expedition, each with the data its card
reads."""

from typing import Any, TypedDict

from tabletop.systems.api import EventKind

_SHEETS = frozenset({"party", "dashboard"})  # bennies and hits are on the Party tool
_EXPEDITION = frozenset({"expedition", "party", "dashboard"})
_T = "systems/conductor/events"


class Benny(TypedDict):
    """A benny spent on a roll: the roll's seq, the die it rerolled, what the card now says."""

    who: str
    character: str
    seq: int
    die: int | None
    summary: str


class HealApplied(TypedDict):
    """A healing roll's hits taken off its patient."""

    who: str
    patient: str
    seq: int
    before: int
    after: int


class ExpeditionStart(TypedDict):
    leader: str
    members: list[Any]
    mounted: list[Any]
    supply_die: int
    water_vehicle: bool


class ExpeditionParty(TypedDict):
    character: str
    change: str
    recovered: list[Any]
    supply_die: int


class ExpeditionAction(TypedDict):
    who: str
    character: str
    action: str
    day: int
    phase: str
    forage: dict[str, Any] | None


class ExpeditionTravel(TypedDict):
    who: str
    travel: str
    hexes: int
    hexes_travelled: int
    civilization: bool
    mounts_tired: bool


class ExpeditionBenny(TypedDict):
    who: str
    character: str
    forage: dict[str, Any]


class ExpeditionPhase(TypedDict):
    day: int
    phase: str
    next_day: int
    next_phase: str
    travel: str | None
    wilderness: dict[str, Any]
    supply: dict[str, Any] | None
    supply_die: int
    supply_skipped: list[Any] | None
    depleted: bool
    hits: list[Any]
    recovered: list[Any]
    mounts_recovered: bool


class ExpeditionEnd(TypedDict):
    day: int
    phase: str
    hexes_travelled: int


_STEPS = {
    "start": ExpeditionStart,
    "party": ExpeditionParty,
    "action": ExpeditionAction,
    "travel": ExpeditionTravel,
    "benny": ExpeditionBenny,
    "phase": ExpeditionPhase,
    "end": ExpeditionEnd,
}

EVENT_KINDS = (
    EventKind("benny", f"{_T}/benny.html", _SHEETS, public=Benny, mirror="spends"),
    EventKind(
        "heal_applied", f"{_T}/heal_applied.html", _SHEETS, public=HealApplied, mirror="table"
    ),
    *(
        EventKind(
            f"expedition_{step}",
            f"{_T}/expedition_{step}.html",
            _EXPEDITION,
            public=payload,
            mirror="table",
        )
        for step, payload in _STEPS.items()
    ),
)
