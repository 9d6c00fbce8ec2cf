"""Reads for live scenes: who may open a scene socket, and what a viewer may see."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from tabletop.campaigns.selectors import members_of, membership_of
from tabletop.characters.models import Character
from tabletop.scenes import fastpath
from tabletop.scenes.audiences import Viewer, visibility
from tabletop.scenes.fastpath import onloop, sockets
from tabletop.scenes.models import Presence, Scene, SceneEvent
from tabletop.scenes.procedures import render_procedure_views
from tabletop.scenes.render import Renders, every_event, render_frame
from tabletop.scenes.tools import (
    SCENE_STATUS,
    TOOLS,
    render_scene_status,
    render_tools,
    stale_tools_and_views,
)


def scene_access(*, scene_id: int, user: Any) -> tuple[Viewer, int] | None:
    """The viewer a user is on a scene and the scene's campaign id, or None when they may not."""
    if user is None or not user.is_authenticated:
        return None
    read = fastpath.read_scene(scene_id, user=user)  # one statement: the scene and the membership
    if read is None or not read.member:
        return None
    campaign = read.scene.campaign
    return Viewer(user_id=user.pk, is_gm=campaign.gm_id == user.pk), campaign.pk


def scene_last_seq(*, scene_id: int) -> int:
    return Scene.objects.values_list("last_seq", flat=True).get(pk=scene_id)


def replay_frames(
    *, scene_id: int, viewer: Viewer, after_seq: int, upto_seq: int | None = None
) -> list[str]:
    """Frames for what the viewer missed in (``after_seq``, ``upto_seq``] (default: up to the
    scene's newest seq), rendered as not live.

    The events come from the scene's tail: read and rendered once for every socket of the scene
    that asks for the same stretch within ``TAIL_SECONDS`` (a table reconnecting after a restart
    asks eight times), each viewer getting only what ``visibility`` gives them
    (``render.Renders``)."""
    if upto_seq is None:
        upto_seq = scene_last_seq(scene_id=scene_id)
    tail = _tail(scene_id, after_seq, upto_seq)
    seen = [event for event in tail.events if visibility(event, viewer) is not None]
    frames = [render_frame(event, viewer, live=False, renders=tail.renders) for event in seen]
    # Replayed frames don't carry what their live frames changed beside the card: the tools
    # and procedure views these events made stale come after them, current, as one frame (a
    # character's cells as the whole tool that holds them). The tools are rendered once for
    # the GM and once for the players, a procedure view for each viewer.
    stale = frozenset().union(*map(stale_tools_and_views, seen))
    tools = frozenset(WHOLE_TOOL.get(name, name) for name in stale & TOOLS)
    key = (viewer.is_gm, tools)
    if tools and key not in tail.tools:
        tail.tools[key] = render_tools(tail.scene, is_gm=viewer.is_gm, oob=True, only=tools)
    views = stale - TOOLS - {SCENE_STATUS}
    after = tail.tools.get(key, "") + "".join(
        render_procedure_views(tail.scene, viewer, oob=True, only=views) if views else ()
    )
    if SCENE_STATUS in stale:
        # Opened or closed while the page was away: its header, composer and tools as the
        # scene is now (for this viewer: their own characters and sheets).
        after += render_scene_status(tail.scene, viewer)
    return [*frames, after] if after else frames


#: A character's cells (an event's live frame) are the whole tool in a catch-up.
WHOLE_TOOL = {"party-row": "party", "table-row": "table"}


#: How long the stretch of a scene's log read for one socket's catch-up serves the others.
TAIL_SECONDS = 5.0
TAILS = 256  # the most kept at once


@dataclass
class _Tail:
    scene: Scene
    events: list[SceneEvent]
    renders: Renders
    read_at: float
    tools: dict[tuple[bool, frozenset[str]], str] = field(default_factory=dict)


_tails: dict[tuple[int, int, int], _Tail] = {}
_tails_lock = threading.Lock()


def tail_read(scene_id: int, after_seq: int, upto_seq: int) -> bool:
    """Whether that stretch of the scene's log is read already (``replay_frames`` then needs
    no statement)."""
    found = _tails.get((scene_id, after_seq, upto_seq))
    return found is not None and time.monotonic() - found.read_at <= TAIL_SECONDS


def _tail(scene_id: int, after_seq: int, upto_seq: int) -> _Tail:
    """The scene's events in (after_seq, upto_seq] as read at most TAIL_SECONDS ago, every one
    of them (each viewer's are picked by ``visibility``). What changes an event changes it with
    a later event, whose frame brings the change to every socket; a catch-up a moment old
    shows what the table saw a moment ago, as a live frame would have."""
    now = time.monotonic()
    key = (scene_id, after_seq, upto_seq)
    with _tails_lock:
        for stale in [k for k, t in _tails.items() if now - t.read_at > TAIL_SECONDS]:
            del _tails[stale]
        found = _tails.get(key)
    if found is not None:
        return found
    scene = Scene.objects.select_related("campaign").get(pk=scene_id)
    events = [e for e in every_event(scene=scene, after_seq=after_seq) if e.seq <= upto_seq]
    found = _Tail(scene, events, Renders(scene), now)
    with _tails_lock:
        _tails[key] = found
        while len(_tails) > TAILS:
            del _tails[next(iter(_tails))]
    return found


def presence_stale_after() -> timedelta:
    """A socket whose presence was not refreshed for this long is gone (its process died): two
    and a half beats, so a dead player shows offline within about 30 s of the default beat."""
    return timedelta(seconds=settings.SCENE_HEARTBEAT_SECONDS * 2.5)


@dataclass(frozen=True)
class Present:
    """A member with a live socket on the scene, and their round trip (ms, when known), rounded
    to a step a person would notice: the list is sent again only when what it shows changes."""

    pk: int
    name: str
    rtt_ms: int | None

    @property
    def speed(self) -> str:
        if self.rtt_ms is None:
            return ""
        return "good" if self.rtt_ms < 150 else "fair" if self.rtt_ms < 400 else "slow"


def noticeable(ms: int | None) -> int | None:
    """A round trip rounded to what a person tells apart: 10 ms under 100, 50 under 1,000,
    then 250."""
    if ms is None:
        return None
    step = 10 if ms < 100 else 50 if ms < 1000 else 250
    return round(ms / step) * step or ms


def online_users(*, scene_id: int) -> list[Present]:
    """Members with a live socket on the scene (a presence refreshed within
    ``presence_stale_after``), in name order, with their best round trip."""
    return online_users_of(scene_ids=[scene_id]).get(scene_id, [])


def online_users_of(*, scene_ids: list[int]) -> dict[int, list[Present]]:
    """``online_users`` of several scenes in one statement (the process's beat): each scene
    with someone present, to its list."""
    fresh = timezone.now() - presence_stale_after()
    rows = (
        Presence.objects.filter(scene_id__in=scene_ids, last_seen__gte=fresh)
        .order_by("scene_id", "user__username")
        .values_list("scene_id", "user_id", "user__username", "rtt_ms")
    )
    return _present(rows)


def _present(rows: Any) -> dict[int, list[Present]]:
    """(scene id, user id, name, round trip) rows, ordered by scene and name, as each scene's
    list: one entry per user, with the best round trip of their sockets."""
    seen: dict[int, dict[int, Present]] = {}
    for scene_id, user_id, name, rtt in rows:
        users = seen.setdefault(scene_id, {})
        known = users.get(user_id)
        best = min((ms for ms in (rtt, known and known.rtt_ms) if ms is not None), default=None)
        users[user_id] = Present(user_id, name, noticeable(best))
    return {scene_id: list(users.values()) for scene_id, users in seen.items()}


async def presence_on_loop(scene_id: int) -> tuple[int, list[Present]] | None:
    """The scene's GM and ``online_users``, in one statement on the event loop
    (``fastpath.onloop``), or None when the scene is gone."""
    fresh = timezone.now() - presence_stale_after()
    rows = await onloop.fetch(sockets.presence_list_sql(), [fresh, scene_id])
    if not rows:
        return None
    gm_id = rows[0][0]
    listed = [(scene_id, user, name, rtt) for _gm, user, name, rtt in rows if user is not None]
    return gm_id, _present(listed).get(scene_id, [])


def table_members(campaign: Any) -> list[dict[str, Any]]:
    """Who sits at the campaign's table, for the composer's ``/w NAME``: each member's user id,
    name, whether they run the game, and the names of their characters (a whisper may name a
    character: it reaches the player)."""
    owned: dict[int, list[str]] = {}
    pcs = Character.objects.of_campaign(campaign).filter(role=Character.Role.PC).order_by("name")
    for owner_id, name in pcs.values_list("owner_id", "name"):
        owned.setdefault(owner_id, []).append(name)
    return [
        {
            "id": m.user_id,
            "name": m.user.get_username(),
            "gm": m.user_id == campaign.gm_id,
            "characters": owned.get(m.user_id, []),
        }
        for m in members_of(campaign=campaign)
    ]


def viewer_for(*, campaign: Any, user: Any) -> Viewer | None:
    """The viewer a user is at the campaign's table, or None for a non-member (the scene,
    ledger and statistics pages answer None with a 404: a campaign's existence isn't
    revealed)."""
    if membership_of(campaign=campaign, user=user) is None:
        return None
    return Viewer(user_id=user.pk, is_gm=campaign.gm_id == user.pk)
