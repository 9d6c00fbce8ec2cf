"""What each event kind's card reads: its ``public`` and ``secret`` declared as TypedDicts.

Every ``EventKind`` names the shape of the data it is recorded with (``EventKind.public``,
``EventKind.secret``); its card template reads those named fields. As Zulip checks its events
against their schemas in its tests, ``record_event`` checks each event against its kind's shapes
when ``settings.CHECK_EVENT_PAYLOADS`` is on (the test settings turn it on), so an event is
recorded only with the fields its kind declares. Keys a later step adds to a recorded event (a
spend's amendment, a strike-back) are declared ``NotRequired`` for the card's sake; that later
write is not checked.

The generic kinds' shapes are here; a system declares its own kinds' beside them, in its
``events.py``.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class PayloadError(ValueError):
    """An event recorded with data its kind does not declare."""


class Nothing(TypedDict):
    """No data: what a kind records in ``secret`` when it keeps none (``X | Nothing``: some of
    its events keep none)."""


def check(declared: Any, data: dict[str, Any], where: str) -> None:
    """Refuse ``data`` unless it has the shape ``declared`` (a TypedDict, or a union of them).
    Checked with typeguard, which knows TypedDict's required and extra keys."""
    from typeguard import TypeCheckError, check_type  # tests and development only

    try:
        check_type(data, declared)
    except TypeCheckError as error:
        name = getattr(declared, "__name__", str(declared))
        raise PayloadError(f"{where} is not a {name}: {error}.") from None


# --- rolls -----------------------------------------------------------------------------------


class Spend(TypedDict):
    """A currency spent on a roll (a benny, luck...), listed under its card."""

    by: str
    text: str


class Amended(TypedDict):
    """The roll as a spend changed it (the committed secret keeps it as first rolled)."""

    title: str
    summary: str
    outcome: str
    result: dict[str, Any]


class StrikeBack(TypedDict):
    """A foe's answer to an attack on it, waiting for the player's spends or made."""

    status: str
    foe_id: int
    foe: str


class RollData(TypedDict):
    """A roll as its card shows it: what was rolled, by whom, the result and its odds."""

    roll_kind: str
    label: str
    title: str
    summary: str
    outcome: str
    #: the roll kind's own detail (the dice, the bands...), read by its system's template
    result: dict[str, Any]
    character: str
    #: the chance it had before it was made, and the band it landed in
    odds: NotRequired[dict[str, Any]]
    #: the foe a roll was made against
    foe_id: NotRequired[int]
    #: the name it was made as, when not the roller's own (tabletop.scenes.speakers)
    speaker: NotRequired[str]
    #: "character" (one of the roller's) or "npc" (the GM's)
    voice: NotRequired[str]


class RollSeen(TypedDict):
    """What everyone gets of a roll outside its audience: who rolled and how."""

    roller: str
    mode: str
    # What later steps add to a card: declared here for its template, and not checked (the
    # check runs when the event is recorded, before any of them).
    amended: NotRequired[Amended]
    spends: NotRequired[list[Spend]]
    strike_back: NotRequired[StrikeBack]
    #: a plot point spend waiting to change this roll (percentile)
    pending_change: NotRequired[int]


class RollShown(RollSeen, RollData):
    """A roll in the open (or once revealed): who rolled and how, and the roll."""


class Reveal(TypedDict):
    """The GM shows a hidden roll to the table."""

    roller: str
    seq: int
    mode: NotRequired[str]
    #: the roll was the revealer's own
    own: NotRequired[bool]


# --- the table -------------------------------------------------------------------------------


class Award(TypedDict):
    """The GM steps a currency or harm of a character."""

    character: str
    field: str
    amount: int
    harm: bool
    text: str


class Turn(TypedDict):
    """The turn tracker moved."""

    message: str
    round: NotRequired[int]
    team: NotRequired[str]
    #: cards whose controls the move changes
    refresh: NotRequired[list[int]]
    #: the members the move hands the turn to (user ids: their characters' turn begins)
    turn_to: NotRequired[list[int]]


class SceneNamed(TypedDict):
    """A scene opened or closed."""

    name: str


class InlineRoll(TypedDict):
    """A roll inside a chat line (``[[1d20+5]]``), as ``rules.expression`` rolled it."""

    #: the canonical expression, "1d20 + 5"
    expression: str
    total: int
    #: where it stands in the line's text (start, end): written there as ``[[breakdown]]``
    at: list[int]
    #: the roll's ``to_dict()``, every die (as a dice box roll's ``result``)
    result: dict[str, Any]


class Said(TypedDict):
    """A chat line, or an emote, said as someone (tabletop.scenes.speakers)."""

    #: the name it is said as: the member's own, a character's or an NPC's
    speaker: str
    #: how, when not plainly by the member: "character", "npc", "ooc" or "narration"
    voice: NotRequired[str]
    #: the member who typed it, when it is said under another name
    by: NotRequired[str]
    #: as said, each inline roll written in as ``[[its breakdown]]``
    text: str
    emote: bool
    #: its inline rolls, in the order they stand
    rolls: NotRequired[list[InlineRoll]]
    #: the members it mentions (user ids: ``@name``, tabletop.scenes.mentions)
    mentions: NotRequired[list[int]]


class Whispered(Said):
    """A whisper: the line and the members it is for."""

    #: the usernames it is for
    to: list[str]
