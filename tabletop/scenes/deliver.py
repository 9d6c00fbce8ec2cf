"""Deliver: a committed event to every socket of its scene, through the channel layer.

``broadcast_event`` runs after the recording transaction commits: it renders each viewer
class's frame once (the GM, the actor, every other player: ``render``) and sends it to that
class's group; consumers only forward. A socket that misses one (the layer dropped it, it was
away) catches up from the database with the same renders (a seq gap, the scene's beat, the
reconnect's ``hello``: tabletop/scenes/consumers.py), up to ``REPLAY_LIMIT`` events behind.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from tabletop.campaigns.selectors import members_of
from tabletop.characters.models import Character, sheet_joins
from tabletop.scenes import command_threads
from tabletop.scenes.audiences import (
    Viewer,
    audience_of,
    gm_group,
    players_group,
    scene_group,
    user_group,
)
from tabletop.scenes.models import Audience, Scene, SceneEvent, with_sheet
from tabletop.scenes.render import Renders, render_frame
from tabletop.scenes.tools import SCENE_STATUS, stale_tools_and_views

log = logging.getLogger(__name__)

#: A reconnecting client further behind than this reloads the page instead of replaying.
REPLAY_LIMIT = 500


def broadcast_event(recorded: SceneEvent, *, sheets: Mapping[int, Character] | None = None) -> None:
    """Send one event to every socket of its scene. Each viewer class's frame (the GM, the
    actor, every other player) is built from shared renders (``Renders``); when the three
    are the same bytes, the frame goes out once, to the whole scene. ``sheets``: characters'
    sheets as the event's transaction committed them, by id (``record.note_sheet``)."""
    event = recorded if _as_recorded(recorded) else _committed(recorded.pk)
    scene_id = event.scene_id
    gm_id = event.scene.campaign.gm_id
    renders = Renders(event.scene, sheets=sheets)

    def send(group: str, content: dict[str, Any]) -> None:
        # The event is committed: the database is the truth and sockets catch up from it (seq
        # gap, heartbeat, hello). A layer that is down must not turn a stored roll into an error.
        try:
            command_threads.group_send(group, content)
        except Exception:
            log.exception("scene event %s not broadcast to %s", event.seq, group)

    def message(html: str, exclude: tuple[int, ...] = ()) -> dict[str, Any]:
        # Every socket learns the seq, even when it may see nothing, so it can spot a gap.
        return {"type": "scene.event", "seq": event.seq, "html": html, "exclude": list(exclude)}

    def frame(viewer: Viewer) -> str:
        return render_frame(event, viewer, live=True, renders=renders)

    if event.audience == Audience.WHISPER:
        # Only its audience's own groups carry it; every other socket learns the seq alone.
        audience = audience_of(event)
        for uid in sorted(audience):
            send(user_group(scene_id, uid), message(frame(Viewer(uid, uid == gm_id))))
        send(gm_group(scene_id), message("", exclude=tuple(audience)))
        send(players_group(scene_id), message("", exclude=tuple(audience)))
        return
    if SCENE_STATUS in stale_tools_and_views(event):
        # Its frame holds each viewer's own tools (a player's characters, the GM's button):
        # one per member, through their own group; a socket of nobody listed learns the seq.
        members = _member_ids(event.scene)
        for uid in members:
            send(user_group(scene_id, uid), message(frame(Viewer(uid, uid == gm_id))))
        send(gm_group(scene_id), message("", exclude=members))
        send(players_group(scene_id), message("", exclude=members))
        return
    gm = frame(Viewer(gm_id, True))
    other = frame(Viewer(None, False))
    actor_id = event.actor_id
    mine = other
    if actor_id is not None and actor_id != gm_id:
        mine = frame(Viewer(actor_id, False))
    if gm == other == mine:
        send(scene_group(scene_id), message(gm))  # a public card: one frame for the table
        return
    send(gm_group(scene_id), message(gm))
    if mine != other:
        send(user_group(scene_id, actor_id), message(mine))
        send(players_group(scene_id), message(other, exclude=(actor_id,)))
        return
    send(players_group(scene_id), message(other))


def _member_ids(scene: Scene) -> tuple[int, ...]:
    """Everyone at the scene's table: its campaign's members, the GM first."""
    ids = members_of(campaign=scene.campaign).values_list("user_id", flat=True)
    return tuple(dict.fromkeys([scene.campaign.gm_id, *ids]))


def _as_recorded(event: SceneEvent) -> bool:
    """Whether the object the action recorded is what its frames need: it changed no earlier
    card (a parent or a ``refresh``, read again as committed, with their characters)."""
    return event.parent_id is None and not event.public.get("refresh")


def _committed(pk: int) -> SceneEvent:
    """The event as committed, with everything its frames read (other cards, tools)."""
    event = SceneEvent.objects.select_related(
        "scene__campaign", *sheet_joins(), *sheet_joins(character="parent__character")
    ).get(pk=pk)
    with_sheet(event)
    if event.parent is not None:
        with_sheet(event.parent)
    return event
