"""One heartbeat per scene per process, shared by that process's sockets on the scene.

Each beat is ONE database call (``actions.scene_heartbeat``): it refreshes the presence of every
local socket of the scene, settles what is due, and returns the scene's newest seq, which every
local socket then compares with what it has. A beat per socket cost four calls per socket and
repeated the scene's work once per socket; at 800 sockets that alone saturated daphne's database
thread (bench/README.md). The first beat waits a random part of the period, so scenes opened
together don't beat together forever.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Protocol

from django.conf import settings

from tabletop.scenes import actions, outbox

log = logging.getLogger(__name__)

# Not game dice, but the project draws every random number from the OS (one rule, one check).
_jitter = secrets.SystemRandom()


class BeatingSocket(Protocol):
    channel_name: str

    async def beat(self, newest_seq: int) -> None: ...


class SceneBeat:
    def __init__(self, scene_id: int) -> None:
        self.scene_id = scene_id
        self.sockets: set[BeatingSocket] = set()
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        period = settings.SCENE_HEARTBEAT_SECONDS
        await asyncio.sleep(period * (0.5 + _jitter.random() / 2))
        while self.sockets:
            sockets = list(self.sockets)
            try:
                newest = await outbox.run(
                    actions.scene_heartbeat,
                    scene_id=self.scene_id,
                    channel_names=[s.channel_name for s in sockets],
                )
            except Exception:  # a failed beat must never stop the next one
                log.exception("heartbeat of scene %s failed", self.scene_id)
            else:
                for socket in sockets:
                    if socket in self.sockets:
                        try:
                            await socket.beat(newest)
                        except Exception:
                            log.exception("heartbeat of a socket on scene %s", self.scene_id)
            await asyncio.sleep(period)


_beats: dict[int, SceneBeat] = {}


def join(scene_id: int, socket: BeatingSocket) -> None:
    """Count the socket in its scene's beat (starting the beat for the first local socket)."""
    beat = _beats.get(scene_id)
    if beat is None or beat.task.done() or beat.task.get_loop() is not asyncio.get_running_loop():
        beat = _beats[scene_id] = SceneBeat(scene_id)
    beat.sockets.add(socket)


def leave(scene_id: int, socket: BeatingSocket) -> None:
    """Drop the socket from its scene's beat; the last one out stops the beat."""
    beat = _beats.get(scene_id)
    if beat is None:
        return
    beat.sockets.discard(socket)
    if not beat.sockets:
        beat.task.cancel()
        del _beats[scene_id]


#: Joins and leaves within this many seconds share one presence broadcast per scene.
PRESENCE_COALESCE_SECONDS = 0.25

_announcing: dict[int, asyncio.Task] = {}


def announce_presence(scene_id: int) -> None:
    """Broadcast who is on the scene shortly, once for every join and leave until then: a table
    of eight opening together costs one rendering and one broadcast, not eight."""
    task = _announcing.get(scene_id)
    if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
        return
    _announcing[scene_id] = asyncio.ensure_future(_announce(scene_id))


async def announce_departure(scene_id: int) -> None:
    """A socket left: announce it with the next coalesced broadcast, or now when it was this
    process's last socket on the scene (nothing is left behind to run a later broadcast)."""
    if local_sockets(scene_id):
        announce_presence(scene_id)
        return
    task = _announcing.pop(scene_id, None)
    if task is not None:
        task.cancel()
    await _broadcast(scene_id)


async def _announce(scene_id: int) -> None:
    await asyncio.sleep(PRESENCE_COALESCE_SECONDS)
    _announcing.pop(scene_id, None)  # a change from here on schedules the next broadcast
    await _broadcast(scene_id)


async def _broadcast(scene_id: int) -> None:
    try:
        await outbox.run(actions.presence_broadcast, scene_id=scene_id)
    except Exception:  # the layer or database is down: the next join or leave tries again
        log.exception("presence of scene %s not broadcast", scene_id)


def local_sockets(scene_id: int) -> int:
    """How many of this process's sockets beat for the scene (for tests and diagnostics)."""
    beat = _beats.get(scene_id)
    return len(beat.sockets) if beat else 0
