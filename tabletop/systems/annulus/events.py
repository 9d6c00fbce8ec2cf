"""The events of an operation challenge: each makes the challenge view stale. Each declares the
data its card reads."""

from typing import Any, TypedDict

from tabletop.systems.api import ANY_AUDIENCE, EventKind

_VIEW = frozenset({"challenge"})


class ChallengeSet(TypedDict):
    """The GM sets a challenge: what the table sees of it (the dice in view, the types)."""

    number: int
    difficulty: str
    needed: int
    dice: list[Any]
    types: list[Any]


class Layout(TypedDict):
    """The challenge's hidden layout: which dice are hidden and every die's value."""

    hidden: list[Any]
    mask: list[Any]
    values: list[Any]


class ChallengeAdjust(TypedDict):
    """A character's check moves a die of the challenge up or down."""

    who: str
    character: str
    check: dict[str, Any]
    outcome: str
    die: int
    visible_index: int
    in_view: int
    direction: int
    before: int
    after: int
    jammed: bool


class ChallengeReveal(TypedDict):
    """A hidden die comes into view."""

    die: int
    visible_index: int
    in_view: int
    value: int


class ChallengeToolkit(TypedDict):
    """A character's toolkit ability used on the challenge."""

    who: str
    character: str
    ability: str
    check: dict[str, Any]
    outcome: str
    applied: bool
    effect: str
    die: int | None
    visible_index: int | None
    in_view: int
    before: int | None
    after: int | None
    now_unavailable: bool


class ChallengeEnd(TypedDict):
    """The challenge ends: its outcome and its layout opened against the commitment."""

    number: int
    outcome: str
    ended: str
    values: list[Any]
    jammed: list[Any]
    still_hidden: list[Any]
    layout: dict[str, Any]
    layout_text: str
    commitment: str
    nonce: str


EVENT_KINDS = (
    # Private to the GM: its secret is the layout (one commitment to mask and every die).
    EventKind(
        "challenge_set",
        "systems/annulus/events/set.html",
        _VIEW,
        ANY_AUDIENCE,
        public=ChallengeSet,
        secret=Layout,
        mirror="table",
    ),
    *(
        EventKind(
            f"challenge_{step}",
            f"systems/annulus/events/{step}.html",
            _VIEW,
            public=payload,
            mirror="table",
        )
        for step, payload in (
            ("adjust", ChallengeAdjust),
            ("reveal", ChallengeReveal),
            ("toolkit", ChallengeToolkit),
            ("end", ChallengeEnd),
        )
    ),
)
