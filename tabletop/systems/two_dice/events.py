"""The events of a check on the turn tracker that others may hinder or resist, with the data
their card reads."""

from typing import TypedDict

from tabletop.systems.api import EventKind


class CheckDeclared(TypedDict):
    """A check declared: what it rolls, what it costs, whom it targets and when the reaction
    window closes; its status moves from pending to rolled or dropped."""

    who: str
    character: str
    attribute: str
    attribute_value: int
    difficulty: str
    resource: str
    cost: int
    unpaid: int
    penalty: int
    targets: list[str]
    closes_at: str
    status: str


EVENT_KINDS = (
    EventKind(
        "check_declared",
        "systems/two_dice/events/check_declared.html",
        frozenset({"turns"}),
        public=CheckDeclared,
        mirror="table",
    ),
)
