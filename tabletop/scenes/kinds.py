"""Event kinds: the typed vocabulary of what happens in a scene (as Zulip's event types).

Each kind names the template of its card, the audiences it may be recorded with (who may see
what), and which tools and procedure views an event of that kind makes stale, so the broadcast
re-renders those and nothing else. Generic kinds are registered here; a game system brings its
own with its ``System`` (tabletop.systems). ``record_event`` refuses a kind nobody registered.

Their names: ``party`` (the Party tool: everyone's currencies and harm), ``dashboard`` (the GM
tool's), two parts of it alone, ``table`` (every character's sheet numbers) and ``hidden`` (a
hidden roll's entry in the hidden results), ``party-row`` and ``table-row`` (the event's
character's numbers alone, when only its sheet changed), ``scene-status`` (what of the page
follows the scene's status, rendered for each viewer), and each procedure view's own name
(``turns``, a system's ``challenge``...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tabletop import systems
from tabletop.scenes import payloads
from tabletop.scenes.models import Audience, roll_data
from tabletop.scenes.rollkinds import ROLL_KINDS

EVERYONE = frozenset({Audience.EVERYONE.value})
#: Every audience a roll may have (a roll mode's); a whisper is chat's alone.
ANY_AUDIENCE = frozenset(Audience.values) - {Audience.WHISPER.value}
#: Chat: said to the table, or whispered to some of it.
CHAT_AUDIENCES = frozenset({Audience.EVERYONE.value, Audience.WHISPER.value})

Stale = frozenset[str] | Callable[[Any], Iterable[str]]


@dataclass(frozen=True)
class EventKind:
    name: str
    template: str  # the card's template
    #: The tools and procedure views an event of this kind makes stale: a set, or a function of
    #: the event.
    stale: Stale = frozenset()
    #: The audiences an event of this kind may have (``Audience`` values).
    audiences: frozenset[str] = EVERYONE
    #: What its ``public`` and ``secret`` hold (TypedDicts, tabletop.scenes.payloads): the
    #: fields its card reads.
    public: Any = None
    secret: Any = payloads.Nothing
    #: The card's line for the ear (a template; static/js/scene/announce.js speaks it): who,
    #: what, the result. Without one, a screen reader hears the card's words without its
    #: number, time and controls.
    spoken: str = ""
    #: Whom an event of this kind notifies (user ids: tabletop/notify), a function of the
    #: event; each is told only where they may see the event (``visibility``).
    notifies: Callable[[Any], Iterable[int]] | None = None
    #: What a campaign's Discord mirror files an event of this kind under (the GM picks which
    #: go: tabletop/discord/models.py, ``Mirror.Sends``): "chat", "rolls", "spends" (spends,
    #: awards and approvals), "reveals", "scenes", "table" (turns and a game's other moves);
    #: "" for a kind it never posts.
    mirror: str = ""

    def check(self, public: dict[str, Any], secret: dict[str, Any]) -> None:
        """Refuse an event whose data its kind does not declare (``payloads.check``)."""
        if self.public is None:
            raise payloads.PayloadError(f"The {self.name} event kind declares no payload.")
        payloads.check(self.public, public, f"A {self.name} event's public data")
        payloads.check(self.secret, secret, f"A {self.name} event's secret")

    def stale_tools_and_views(self, event: Any) -> frozenset[str]:
        names = self.stale(event) if callable(self.stale) else self.stale
        return frozenset(names)


EVENT_KINDS: dict[str, EventKind] = {}


def register(kind: EventKind) -> EventKind:
    """A generic kind (every system's scenes record it)."""
    systems.claim(EVENT_KINDS, kind.name, kind, what="event kind", owner="generic code")
    return kind


def _added(system: systems.System) -> None:
    for kind in system.event_kinds:
        owner = f"system {system.slug!r}"
        systems.claim(EVENT_KINDS, kind.name, kind, what="event kind", owner=owner)


def _removed(system: systems.System) -> None:
    for kind in system.event_kinds:
        systems.release(EVENT_KINDS, kind.name, kind)


systems.on_register(_added, _removed)


def get(name: str) -> EventKind:
    """The registered kind ``name``; a KeyError names a kind nobody registered."""
    try:
        return EVENT_KINDS[name]
    except KeyError:
        raise KeyError(f"No event kind {name!r} is registered.") from None


# --- the generic kinds ---------------------------------------------------------------------------

#: Hidden results the GM's dashboard lists (a self roll is the roller's alone).
_HIDDEN = frozenset({Audience.GM_ONLY, Audience.PRIVATE, Audience.BLIND})


#: A character's row alone -> the whole tool it is a row of.
_ROWS = {"party-row": "party", "table-row": "table"}


def _roll_stale(event: Any) -> set[str]:
    """A hidden roll joins the GM's list of hidden results (``hidden``: its entry, added to the
    dashboard's list); a roll with a foe waiting to strike back joins the GM's list of those; a
    kind may make its procedure's view stale.

    A kind's character rows (``party-row``: only the roller's sheet changed) hold for a roll in
    the open only. A roll outside it changes no sheet until its reveal (its consequences wait),
    and a row would name the character, which is the roll's secret."""
    stale: set[str] = set()
    if event.audience in _HIDDEN:
        stale.add("hidden")
    if event.public.get("strike_back"):
        stale.add("dashboard")
    kind = ROLL_KINDS.get(str(roll_data(event).get("roll_kind", "")))
    if kind is not None:
        stale |= kind.stale
    if event.audience != Audience.EVERYONE:
        stale -= set(_ROWS)
    return stale


register(
    EventKind(
        "roll",
        "scenes/events/roll.html",
        stale=_roll_stale,
        audiences=ANY_AUDIENCE,
        public=payloads.RollShown | payloads.RollSeen,
        secret=payloads.RollData | payloads.Nothing,
        spoken="scenes/events/roll_spoken.html",
        mirror="rolls",
    )
)


def _reveal_stale(event: Any) -> set[str]:
    """A reveal leaves the GM's hidden list, and what the revealed roll's kind sets going at
    the table (its consequences run now) makes that kind's tools and views stale too: whole
    tools, since the rows are the revealed roll's character's, not the reveal's."""
    stale = {"dashboard"}
    if event.parent is not None:
        kind = ROLL_KINDS.get(str(roll_data(event.parent).get("roll_kind", "")))
        if kind is not None:
            stale |= {_ROWS.get(name, name) for name in kind.stale}
    return stale


register(
    EventKind(
        "reveal",
        "scenes/events/reveal.html",
        stale=_reveal_stale,
        public=payloads.Reveal,
        mirror="reveals",
    )
)
register(
    EventKind(
        "award",
        "scenes/events/award.html",
        stale=frozenset({"party", "table"}),
        public=payloads.Award,
        mirror="spends",
    )
)
register(
    EventKind(
        "turn",
        "scenes/events/turn.html",
        stale=frozenset({"turns"}),
        public=payloads.Turn,
        notifies=lambda event: event.public.get("turn_to", ()),
        spoken="scenes/events/turn_spoken.html",
        mirror="table",
    )
)
#: What of the page follows the scene's status (tools.SCENE_STATUS: its header, composer, Roll
#: and Sheet tools), rendered for each viewer, and the turns (the GM may start them only in an
#: open scene: a scene opened under the GM's page offered no "Start the turns" until a reload).
_STATUS = frozenset({"scene-status", "turns"})


def _whole_table(event: Any) -> Iterable[int]:
    """Every member of the event's campaign (a scene opened)."""
    from tabletop.campaigns.models import Membership

    campaign_id = event.scene.campaign_id
    return Membership.objects.filter(campaign_id=campaign_id).values_list("user_id", flat=True)


register(
    EventKind(
        "scene_opened",
        "scenes/events/scene_opened.html",
        stale=_STATUS,
        public=payloads.SceneNamed,
        notifies=_whole_table,
        mirror="scenes",
    )
)
register(
    EventKind(
        "scene_closed",
        "scenes/events/scene_closed.html",
        stale=_STATUS,
        public=payloads.SceneNamed,
        mirror="scenes",
    )
)
register(
    EventKind(
        "chat",
        "scenes/events/chat.html",
        audiences=CHAT_AUDIENCES,
        # a whisper keeps all of it secret, for its recipients alone
        public=payloads.Said | payloads.Nothing,
        secret=payloads.Whispered | payloads.Nothing,
        spoken="scenes/events/chat_spoken.html",
        mirror="chat",
    )
)
