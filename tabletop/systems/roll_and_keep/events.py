"""The events of opposed and extended actions (an indirect contest may be the GM's secret),
with the data their card reads."""

from typing import NotRequired, TypedDict

from tabletop.systems.api import ANY_AUDIENCE, EventKind


class Contest(TypedDict):
    """A contest started or cleared: the line the table reads."""

    message: str
    #: an indirect contest the GM keeps to themself
    secret: NotRequired[bool]


EVENT_KINDS = (
    EventKind(
        "contest",
        "systems/roll_and_keep/events/contest.html",
        frozenset({"contests"}),
        ANY_AUDIENCE,
        public=Contest,
        mirror="table",
    ),
)
