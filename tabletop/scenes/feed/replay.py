"""Replay: what a reader missed of a scene's sequence, read from the database for its viewer.

The one place a stretch of a scene's log is read again for a reader: a socket's catch-up (a
hello, a seq gap, a beat, the layer back: ``feed.cursor``'s ``Read``) calls ``replay``, which
serves from the scene's tail (read once for every socket asking for the same stretch within
``TAIL_SECONDS``) on the event loop when it can, else on the database thread. Each viewer gets
only what ``audiences.visibility`` gives them (``render.Renders``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from channels.db import database_sync_to_async
from django.core.exceptions import SynchronousOnlyOperation

from tabletop.scenes.audiences import Viewer, visibility
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.procedures import render_procedure_views
from tabletop.scenes.render import Renders, every_event, render_frame
from tabletop.scenes.tools import (
    SCENE_STATUS,
    TOOLS,
    render_scene_status,
    render_tools,
    stale_tools_and_views,
)


async def replay(*, scene_id: int, viewer: Viewer, after_seq: int, upto_seq: int) -> list[str]:
    """``replay_frames`` for a socket's catch-up: on the loop itself where the scene's tail is
    read already (a table reconnecting asks once per socket: the first reads
    it, on the database thread), rendered from what was read. Nothing here writes: should a
    card need the database after all (Django refuses that on the loop's thread, before it
    blocks), it is made again on the database thread."""
    kwargs = {"scene_id": scene_id, "viewer": viewer, "after_seq": after_seq, "upto_seq": upto_seq}
    if tail_read(scene_id, after_seq, upto_seq):
        try:
            return replay_frames(**kwargs)
        except SynchronousOnlyOperation:
            pass
    return await database_sync_to_async(replay_frames)(**kwargs)


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
        upto_seq = Scene.objects.values_list("last_seq", flat=True).get(pk=scene_id)
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
