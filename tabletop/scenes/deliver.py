"""Deliver: a committed event to every socket of its scene, through the channel layer.

``broadcast_event`` runs after the recording transaction commits: it renders each viewer
class's frame once (the GM, the actor, every other player: ``render``) and sends it to that
class's group; consumers only forward. A socket that misses one (the layer dropped it, it was
away) catches up from the database with the same renders (a seq gap, the scene's beat, the
reconnect's ``hello``: its cursor, ``feed.cursor``), up to ``feed.cursor.REPLAY_LIMIT``
events behind.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

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
from tabletop.scenes.cards import addressed_to
from tabletop.scenes.models import Audience, Scene, SceneEvent, with_sheet
from tabletop.scenes.render import Renders, render_frame
from tabletop.scenes.tools import SCENE_STATUS, stale_tools_and_views

log = logging.getLogger(__name__)


def broadcast_event(
    recorded: SceneEvent,
    *,
    sheets: Mapping[int, Character] | None = None,
    sends: command_threads.Sends = command_threads.AT_ONCE,
) -> None:
    """Send one event to every socket of its scene. Each viewer class's frame (the GM, the
    actor, every other player) is built from shared renders (``Renders``); when the three
    are the same bytes, the frame goes out once, to the whole scene. ``sheets``: characters'
    sheets as the event's transaction committed them, by id (``record.note_sheet``);
    ``sends``: the recording command's outlet (``CommandContext.sends``)."""
    event = recorded if _as_recorded(recorded) else _committed(recorded.pk)
    out = _Outlet(event, Renders(event.scene, sheets=sheets), sends)
    if event.audience == Audience.WHISPER:
        # Only its audience's own groups carry it; every other socket learns the seq alone.
        out.to_each(tuple(sorted(audience_of(event))))
    elif SCENE_STATUS in stale_tools_and_views(event):
        # Its frame holds each viewer's own tools (a player's characters, the GM's button):
        # one per member, through their own group; a socket of nobody listed learns the seq.
        out.to_each(_member_ids(event.scene))
    else:
        out.by_viewer_class()


@dataclass(frozen=True)
class _Outlet:
    """One event's frames on their way to its scene's groups."""

    event: SceneEvent
    renders: Renders
    sends: command_threads.Sends

    def send(self, group: str, html: str, exclude: tuple[int, ...] = ()) -> None:
        # Every socket learns the seq, even when it may see nothing, so it can spot a gap.
        message = {"type": "scene.event", "seq": self.event.seq, "html": html}
        message["exclude"] = list(exclude)
        # The event is committed: the database is the truth and sockets catch up from it (seq
        # gap, heartbeat, hello). A layer that is down must not turn a stored roll into an error.
        try:
            self.sends.send(group, message)
        except Exception:
            log.exception("scene event %s not broadcast to %s", self.event.seq, group)

    def frame(self, viewer: Viewer) -> str:
        return render_frame(self.event, viewer, live=True, renders=self.renders)

    def to_each(self, uids: tuple[int, ...]) -> None:
        """A frame of their own to each of ``uids``; every other socket learns the seq."""
        scene_id, gm_id = self.event.scene_id, self.event.scene.campaign.gm_id
        for uid in uids:
            self.send(user_group(scene_id, uid), self.frame(Viewer(uid, uid == gm_id)))
        self.send(gm_group(scene_id), "", exclude=uids)
        self.send(players_group(scene_id), "", exclude=uids)

    def by_viewer_class(self) -> None:
        """The GM's frame, every other player's, and each player's own where it differs."""
        event = self.event
        scene_id, gm_id = event.scene_id, event.scene.campaign.gm_id
        gm = self.frame(Viewer(gm_id, True))
        other = self.frame(Viewer(None, False))
        # Each player's own frame where it differs from everyone else's: the actor's, and those
        # of the members the card is addressed to (a turn handed to them, a line naming them).
        own = {
            uid: self.frame(Viewer(uid, False))
            for uid in (event.actor_id, *addressed_to(event))
            if uid is not None and uid != gm_id
        }
        own = {uid: html for uid, html in own.items() if html != other}
        if gm == other and not own:
            self.send(scene_group(scene_id), gm)  # a public card: one frame for the table
            return
        self.send(gm_group(scene_id), gm)
        for uid, html in own.items():
            self.send(user_group(scene_id, uid), html)
        self.send(players_group(scene_id), other, exclude=tuple(own))


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
