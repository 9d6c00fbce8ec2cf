"""One heartbeat per process, shared by all its sockets on all its scenes.

Each beat is ONE database call (``actions.heartbeat``) for every scene this process serves (in
batches of ``SCENES_PER_CALL``): it refreshes the presence of every local socket, settles what
is due, and returns each scene's newest seq, which every local socket of the scene then compares
with what it has, and who is present. A beat per socket cost four calls per socket (at 800
sockets that alone saturated daphne's database thread); a beat per scene, a thread hop and four
statements per scene: at 100 idle tables most of what they cost (bench/README.md, "Idle
tables"). The first beat waits a random part of the period, so processes started together
don't beat together forever.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Protocol

from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError

from tabletop.scenes import actions, command_threads, outage, selectors

log = logging.getLogger(__name__)

# Not game dice, but the project draws every random number from the OS (one rule, one check).
_jitter = secrets.SystemRandom()


#: While the channel layer is down the scenes beat this often: each beat is how sockets learn
#: of new events then (from the database), so the table still sees a roll within seconds.
BEAT_WHILE_LAYER_DOWN_SECONDS = 2.0

#: Scenes per database call of a beat: a process with many tables makes a few calls of
#: bounded length, spread over the period, rather than one that holds its database thread.
SCENES_PER_CALL = 50


class BeatingSocket(Protocol):
    channel_name: str
    rtt: int | None

    async def beat(self, newest_seq: int) -> None: ...

    async def join_groups(self) -> bool: ...

    async def catch_up_now(self, newest: int | None = None) -> None: ...


class SceneBeat:
    """One scene's part of the process's beat: its local sockets and what they were shown."""

    def __init__(self, scene_id: int) -> None:
        self.scene_id = scene_id
        self.sockets: set[BeatingSocket] = set()
        self.shown: tuple | None = None  # who is present, as last broadcast from here
        self.groups_joined_at = time.monotonic()
        # Each socket's round trip as last written, rounded as the table sees it: only a
        # change is written again (a trip that jitters by a millisecond is no news).
        self.written: dict[str, int | None] = {}
        self.loop = asyncio.get_running_loop()

    def beating(self) -> dict[str, int | None]:
        """Its sockets' channel names, each with its round trip when it changed noticeably."""
        changed: dict[str, int | None] = {}
        for socket in self.sockets:
            rtt = selectors.noticeable(socket.rtt)
            moved = rtt is not None and noticeably_moved(self.written.get(socket.channel_name), rtt)
            changed[socket.channel_name] = rtt if moved else None
        return changed

    def wrote(self, beating: dict[str, int | None]) -> None:
        for channel, rtt in beating.items():
            if rtt is not None:
                self.written[channel] = rtt

    async def found(self, sockets: list[BeatingSocket], found: actions.Heartbeat) -> None:
        """What the beat found for this scene: the table's list when it changed, then each
        socket's catch-up; groups joined again before they expire."""
        if found.present != self.shown:
            # Someone's process died (their presence went stale) or a round trip was written
            # again, having moved by a step a person would notice: the table's lists show it.
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


_ticker: asyncio.Task | None = None


def _ensure_ticking() -> None:
    global _ticker
    loop = asyncio.get_running_loop()
    if _ticker is None or _ticker.done() or _ticker.get_loop() is not loop:
        _ticker = asyncio.ensure_future(_run(loop))


def _local(loop: asyncio.AbstractEventLoop) -> list[SceneBeat]:
    return [b for b in _beats.values() if b.loop is loop and b.sockets]


async def _run(loop: asyncio.AbstractEventLoop) -> None:
    period = settings.SCENE_HEARTBEAT_SECONDS
    await asyncio.sleep(period * (0.5 + _jitter.random() / 2))
    while scenes := _local(loop):
        # A few calls spread over the period, not one burst of every table's work at once (a
        # burst held pongs 270 ms at 200 tables).
        calls = [scenes[n : n + SCENES_PER_CALL] for n in range(0, len(scenes), SCENES_PER_CALL)]
        for call in calls:
            await _beat(call)
            every = min(period, BEAT_WHILE_LAYER_DOWN_SECONDS) if outage.layer.down else period
            await asyncio.sleep(every / len(calls))


async def _beat(scenes: list[SceneBeat]) -> None:
    sockets = {b.scene_id: list(b.sockets) for b in scenes}
    beating = {b.scene_id: b.beating() for b in scenes}
    try:
        found = await command_threads.run_holding(actions.heartbeat, beating=beating)
    except (OperationalError, InterfaceError) as exc:
        outage.database.failed(exc)  # one line for the outage; the next beat tries again
        return
    except Exception:  # a failed beat must never stop the next one
        log.exception("heartbeat of %s scenes failed", len(scenes))
        return
    outage.database.answered()
    for b in scenes:
        b.wrote(beating[b.scene_id])
        if b.scene_id in found:  # a scene that is gone has nothing to say
            await b.found(sockets[b.scene_id], found[b.scene_id])


#: A round trip is written (and so shown) again only when it moved by this much (ms) and by
#: half of itself: jitter of a few tens of ms (every busy table has it) must not send every
#: list every beat; a bench saw that cost a tenth of the busy ceiling (bench/README.md, "Idle
#: tables"). The one place that decides: a list goes out again when what is stored changed.
RTT_STEP_MS = 50


def noticeably_moved(before: int | None, now: int | None) -> bool:
    """A round trip became known (or unknown), or moved by RTT_STEP_MS and half of itself."""
    if before is None or now is None:
        return (before is None) != (now is None)
    moved = abs(now - before)
    return moved >= RTT_STEP_MS and moved >= before / 2


_beats: dict[int, SceneBeat] = {}


def join(scene_id: int, socket: BeatingSocket) -> None:
    """Count the socket in the process's beat (starting the beat for the first local socket)."""
    beat = _beats.get(scene_id)
    if beat is None or beat.loop is not asyncio.get_running_loop():
        beat = _beats[scene_id] = SceneBeat(scene_id)
    beat.sockets.add(socket)
    _ensure_ticking()


def leave(scene_id: int, socket: BeatingSocket) -> None:
    """Drop the socket from the process's beat (the beat stops with the last one out)."""
    beat = _beats.get(scene_id)
    if beat is None:
        return
    beat.sockets.discard(socket)
    beat.written.pop(socket.channel_name, None)
    if not beat.sockets:
        del _beats[scene_id]


async def arrive(scene_id: int, user: object, channel_name: str) -> bool:
    """Write a socket's presence row and announce it; False when the database cannot now. The
    socket stays open and live, and the scene's next beat writes it: refused instead, a storm
    of sockets opening on a busy process came back as a storm of retries."""
    try:
        await actions.presence_arrive(scene_id=scene_id, user=user, channel_name=channel_name)
    except IntegrityError:
        pass  # written by a try whose answer did not come back in time
    except (OperationalError, InterfaceError) as exc:
        outage.database.failed(exc)
        return False
    announce_presence(scene_id)
    return True


async def depart(scene_id: int, channel_name: str) -> None:
    """Drop a socket's presence row and announce it (a row the database cannot drop now goes
    stale and drops out)."""
    try:
        await actions.presence_depart(channel_name=channel_name)
    except (OperationalError, InterfaceError) as exc:
        outage.database.failed(exc)
    await announce_departure(scene_id)


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
        shown = await actions.presence_announce(scene_id=scene_id, present=present)
    except (OperationalError, InterfaceError) as exc:
        outage.database.failed(exc)  # the next beat finds the list changed and tries again
        return
    except Exception:
        log.exception("presence of scene %s not broadcast", scene_id)
        return
    beat = _beats.get(scene_id)
    if beat is not None and shown is not None:
        beat.shown = shown


def _recover() -> None:
    """The layer answers again (perhaps an empty Redis, without any group): every socket here
    joins its groups again and catches up on what the layer did not bring meanwhile."""
    for beat in list(_beats.values()):
        if beat.loop is asyncio.get_running_loop():
            asyncio.ensure_future(_rejoin(beat))


async def _rejoin(beat: SceneBeat) -> None:
    """One scene's sockets: their groups again, then each catches up to the scene's newest
    seq, read once for all of them (a read per socket was one per player at every recovery)."""
    sockets = [s for s in list(beat.sockets) if await s.join_groups()]
    if not sockets:
        return
    try:
        newest = await command_threads.run(selectors.scene_last_seq, scene_id=beat.scene_id)
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
