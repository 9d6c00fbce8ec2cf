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
import time
from typing import Protocol

from django.conf import settings
from django.db import InterfaceError, OperationalError

from tabletop.scenes import actions, outage, outbox, selectors

log = logging.getLogger(__name__)

# Not game dice, but the project draws every random number from the OS (one rule, one check).
_jitter = secrets.SystemRandom()


#: While the channel layer is down the scenes beat this often: each beat is how sockets learn
#: of new events then (from the database), so the table still sees a roll within seconds.
BEAT_WHILE_LAYER_DOWN_SECONDS = 2.0


class BeatingSocket(Protocol):
    channel_name: str
    rtt: int | None

    async def beat(self, newest_seq: int) -> None: ...

    async def join_groups(self) -> bool: ...

    async def catch_up_now(self, newest: int | None = None) -> None: ...


class SceneBeat:
    def __init__(self, scene_id: int) -> None:
        self.scene_id = scene_id
        self.sockets: set[BeatingSocket] = set()
        self.shown: tuple | None = None  # who is present, as last broadcast from here
        self.groups_joined_at = time.monotonic()
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        period = settings.SCENE_HEARTBEAT_SECONDS
        await asyncio.sleep(period * (0.5 + _jitter.random() / 2))
        while self.sockets:
            await self._beat()
            down = outage.layer.down
            await asyncio.sleep(min(period, BEAT_WHILE_LAYER_DOWN_SECONDS) if down else period)

    async def _beat(self) -> None:
        sockets = list(self.sockets)
        try:
            found = await outbox.run(
                actions.scene_heartbeat,
                scene_id=self.scene_id,
                channel_names=[s.channel_name for s in sockets],
                rtts={s.channel_name: s.rtt for s in sockets},
            )
        except (OperationalError, InterfaceError) as exc:
            outage.database.failed(exc)  # one line for the outage; the next beat tries again
            return
        except Exception:  # a failed beat must never stop the next one
            log.exception("heartbeat of scene %s failed", self.scene_id)
            return
        outage.database.answered()
        if noticeably_changed(self.shown, found.present):
            # Someone's process died (their presence went stale) or a round trip changed by a
            # step a person would notice: the table's lists show it.
            await _broadcast(self.scene_id, found.present)
        for socket in sockets:
            if socket in self.sockets:
                try:
                    await socket.beat(found.newest_seq)
                except Exception:
                    log.exception("heartbeat of a socket on scene %s", self.scene_id)
        if time.monotonic() - self.groups_joined_at > settings.CHANNEL_GROUP_EXPIRY_SECONDS / 3:
            # Group memberships expire (a dead process's channels leave): live ones renew.
            self.groups_joined_at = time.monotonic()
            for socket in sockets:
                await socket.join_groups()


#: A round trip is shown again only when it moved by this much (ms) and by half of itself:
#: jitter of a few tens of ms (every busy table has it) must not send every list every beat;
#: a bench saw that cost a tenth of the busy ceiling (bench/README.md, "Idle tables").
RTT_STEP_MS = 50


def noticeably_changed(shown: tuple | None, present: tuple) -> bool:
    """Whether ``present`` differs from the list last shown in a way a person would notice:
    someone came or went, a round trip became known, or one moved by RTT_STEP_MS and half."""
    if shown is None or [p.pk for p in shown] != [p.pk for p in present]:
        return True
    for before, now in zip(shown, present, strict=True):
        if (before.rtt_ms is None) != (now.rtt_ms is None):
            return True
        if before.rtt_ms is not None and now.rtt_ms is not None:
            moved = abs(now.rtt_ms - before.rtt_ms)
            if moved >= RTT_STEP_MS and moved >= before.rtt_ms / 2:
                return True
    return False


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


async def _broadcast(scene_id: int, present: tuple | None = None) -> None:
    try:
        shown = await outbox.run(actions.presence_broadcast, scene_id=scene_id, present=present)
    except (OperationalError, InterfaceError) as exc:
        outage.database.failed(exc)  # the next beat finds the list changed and tries again
        return
    except Exception:
        log.exception("presence of scene %s not broadcast", scene_id)
        return
    beat = _beats.get(scene_id)
    if beat is not None:
        beat.shown = shown


def _recover() -> None:
    """The layer answers again (perhaps an empty Redis, without any group): every socket here
    joins its groups again and catches up on what the layer did not bring meanwhile."""
    for beat in list(_beats.values()):
        if beat.task.get_loop() is asyncio.get_running_loop():
            asyncio.ensure_future(_rejoin(beat))


async def _rejoin(beat: SceneBeat) -> None:
    """One scene's sockets: their groups again, then each catches up to the scene's newest
    seq, read once for all of them (a read per socket was one per player at every recovery)."""
    sockets = [s for s in list(beat.sockets) if await s.join_groups()]
    if not sockets:
        return
    try:
        newest = await outbox.run(selectors.scene_last_seq, scene_id=beat.scene_id)
    except (OperationalError, InterfaceError) as exc:
        outage.database.failed(exc)  # the next beat catches them up instead
        return
    for socket in sockets:
        if socket in beat.sockets:
            await socket.catch_up_now(newest)


outage.layer.on_recovery.append(_recover)


def local_sockets(scene_id: int) -> int:
    """How many of this process's sockets beat for the scene (for tests and diagnostics)."""
    beat = _beats.get(scene_id)
    return len(beat.sockets) if beat else 0
