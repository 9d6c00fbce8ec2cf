"""What a scene event's card may show one viewer: its context for the card templates, its time as
the card prints it, and the spend buttons a card seen in full offers. Secret data and the nonce
enter the context only for FULL (tabletop/scenes/audiences.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from django.utils import timezone
from django.utils.dates import MONTHS_3

from tabletop import systems
from tabletop.scenes.audiences import FULL, Viewer, Visibility
from tabletop.scenes.commitments import canonical_json
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.modes import MODES
from tabletop.scenes.rollkinds import ROLL_KINDS


def event_context(event: SceneEvent, vis: Visibility, viewer: Viewer) -> dict[str, Any]:
    """What a card template may use. Secret data and the nonce only ever enter for FULL."""
    data = dict(event.public)
    ctx: dict[str, Any] = {
        "event": event,
        "vis": vis,
        "viewer_is_gm": viewer.is_gm,
        "is_actor": viewer.user_id is not None and viewer.user_id == event.actor_id,
        "commitment": event.commitment,
        "sealed": bool(event.commitment) and event.revealed_at is None,
        "for_viewer": for_viewer(event, vis, viewer),
    }
    amended = data.pop("amended", None)
    if vis == FULL:
        data.update(event.secret)
        if event.commitment and event.revealed_at is not None:
            ctx["secret_text"] = canonical_json(event.secret)
            ctx["nonce"] = event.nonce
        if amended:
            # Spends changed the roll; the commitment still covers the roll as first rolled.
            data["first_summary"] = data.get("summary", "")
            data.update(amended)
            ctx["amended"] = True
    ctx["data"] = data
    ctx["stamp"] = time_stamp(event.created_at)
    ctx["roll_mode"] = MODES.get(str(data.get("mode", "")))
    if vis == FULL:
        ctx["controls"] = card_controls(event, data)
        kind = ROLL_KINDS.get(str(data.get("roll_kind", "")))
        ctx["roll_card"] = kind.card if kind is not None else ""
    return ctx


def addressed_to(event: SceneEvent, *, vis: Visibility = None) -> list[int]:
    """The members a card is addressed to: those a turn is handed to (``turn_to``) or a line
    mentions (``mentions``). Without ``vis``, from the event's public data alone; with it, as
    that visibility reads the event (a whisper's mentions are in its secret)."""
    data = event.secret if vis == FULL and event.secret else event.public
    return [int(uid) for uid in (data.get("turn_to") or data.get("mentions") or ())]


def for_viewer(event: SceneEvent, vis: Visibility, viewer: Viewer) -> bool:
    """Whether the card is addressed to the viewer (``addressed_to``), as they see it."""
    if vis is None or viewer.user_id is None:
        return False
    return viewer.user_id in addressed_to(event, vis=vis)


class TimeStamp(NamedTuple):
    """When an event happened, as its card prints it: ``iso`` for the machine, ``title`` for a
    hover, ``clock`` on the card (the site's time zone, as Django's date filters print it)."""

    iso: str
    title: str
    clock: str


def time_stamp(moment: datetime | None) -> TimeStamp | None:
    """``moment`` as a card prints it: what the date filters "c", "j M Y, H:i:s" and time
    "H:i" print, without their format parser (25 µs against 83, and a card printed three;
    bench/README.md)."""
    if moment is None:
        return None
    local = timezone.localtime(moment)
    month = str(MONTHS_3[local.month]).title()
    return TimeStamp(
        local.isoformat(),
        f"{local.day} {month} {local.year:04d}, {local:%H:%M:%S}",
        f"{local:%H:%M}",
    )


def card_controls(event: SceneEvent, data: dict[str, Any]) -> dict[str, Any]:
    """The spend buttons a card seen in full offers: the campaign's system decides (bennies,
    plot points...). They are the same for every full viewer (the page hides the ones not
    meant for its user, ``data-only-for``); the actions decide who may really use them."""
    system = systems.find(event.scene.campaign.system)
    if system is None or system.card_controls is None:
        return {}
    return system.card_controls(event, data)
