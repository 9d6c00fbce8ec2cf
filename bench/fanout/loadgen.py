"""The fan-out load generator: a separate process (asyncio + websockets) that plays a plan.

``python -m bench.fanout.loadgen plan.json`` connects signed-in players to scenes on one or more
daphne processes, makes rolls and prints one JSON line per measured step. Steps:

- ``connect``: bring every scene of a group up to ``per_scene`` sockets (client 0 is the table's
  GM, the others its players; sockets alternate between the daphne processes, and so do the
  scenes' rollers), then roll once per scene until every socket has it (the server has done all
  the work the handshakes queued). With ``rss`` it records the servers' resident memory before and
  after, once the new sockets sit idle. It gives up (and every later step is skipped) after
  ``GIVE_UP_REFUSED`` refused handshakes or when its pace says they would need over
  ``GIVE_UP_SECONDS``. With ``group`` its scenes are kept under that name (later steps roll on
  one group or another while every group's sockets stay open); ``newest`` gives each scene's
  newest seq when it already holds events (its next roll is the seq after).
- ``run``: open loop. One player per scene (client 1) rolls ``rate`` times a second at fixed
  times, whatever the server does; each roll's latency is the time from its send until the LAST
  socket of its scene has the frame.
- ``saturate``: closed loop for the throughput ceiling. Each scene keeps one roll in flight: as
  soon as a roll reached every socket of the scene, the next socket in turn rolls (against the
  app each socket at most ``max_rate_per_socket`` times a second, under its 5 commands/s limit).
  Ten scenes keep ten rolls always waiting: enough to keep either stack busy. With ``group``, on
  that group's scenes.
- ``idle``: idle tables beside the others, which stay open and keep pinging through every later
  step. It opens ``per_scene`` sockets on each scene of ``scenes`` not open yet (a second idle
  step grows the idle tables), each of which behaves like an idle scene page (``static/js/scene/``):
  ``hello``, then ``{"command": "ping", "t": <its clock, ms>, "rtt": <its last round trip,
  ms>}`` at once, again as soon as its first ``pong`` gives it a round trip, and every
  ``PING_EVERY`` seconds from then on, on the page's own timer (each page was loaded at its own
  moment, so the pings of a table are spread over the period, not in step), reading every
  ``pong``. Once every idle socket has had its first pong and ``SETTLE_AFTER_FIRST_PONGS`` has
  passed (every socket has reported its round trip and the tables' lists carry them), it
  measures the servers' CPU over ``window`` seconds, with the frames the idle sockets got and
  the pongs' round trips.
- ``idle_close``: close every idle socket (the idle tables are gone until the next ``idle``
  step opens them again, as pages loaded afresh), then wait ``settle`` seconds and until the
  servers are idle again (their departures done), at most ``IDLE_AGAIN_WITHIN``.
- ``disconnect``: close every socket (of the rolling scenes; idle tables stay).
- ``storm``: a deploy under the connected scenes. ``before`` more rolls per scene (each
  delivered everywhere), then SIGTERM to the server (``pids[0]``: whoever started it starts a
  new process on the same port, ``servers.Daphne(supervise=True)``); every socket sees the
  close, and as soon as the port accepts again (the old process gone) every socket reconnects at
  once, with no gate (an attempt that fails waits as the page's reconnect does, then tries
  again, until ``within`` seconds after the SIGTERM). Against the app each socket says hello
  ``missed`` seqs behind its scene's newest, as a page that missed the last frames in flight,
  and must get them replayed (frames not "live"); once a scene's sockets are all open, its roller
  makes a barrier roll. ``seconds``: from the new server's listening until every socket is
  open, has what it missed and has its scene's barrier roll. Later steps measure the new process.

Every roll is tagged: its expression is ``2d6+<tag>`` and the frame's title shows it, so a frame
names its roll whatever seq the server gave it; a tag a socket never got is a lost frame (a "gap"
when a later roll did arrive). Frames replayed by the server's catch-up (not "live") are counted.
Against the bare stack the roller sends a frame of the app's size with the same title, which the
bare consumer re-broadcasts as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench.fanout.servers import (
    cpu_seconds,
    listening_pid,
    machine_busy_seconds,
    raise_open_files,
    rss_kib,
)

TAG = re.compile(r"Dice: 2d6 \+ (\d+)")
# The mixed plan's frames name their roll by seq alone: a stub of a hidden roll has no dice.
SEQ = re.compile(r'id="event-(\d+)"')
#: The mixed plan (``"mix": true``): roll ``tag`` is of kind MIX[tag % 4], every one a frame at
#: every socket (a stub for the players outside a hidden roll).
MIX = ("public", "character", "gm", "blind")
#: The character check of the mix: two_dice's 2d6 + Wits against Normal, paid from Focus.
CHECK = {"roll_kind": "two_dice", "attribute": "Wits", "resource": "Focus", "difficulty": "Normal"}
LIVE = re.compile(r'class="event event-roll( live)?')
# Handshakes in flight at once. Daphne drops a socket its application has not accepted within
# 5 s (websocket_connect_timeout); the app's accept waits for database work queued on one thread,
# so a wider storm only turns into refused sockets. Refused attempts are retried and counted.
CONNECT_CONCURRENCY = 8
CONNECT_ATTEMPTS = 3
# A server that refused this many handshakes, or whose pace after GIVE_UP_LOOK_AFTER seconds says
# it needs over GIVE_UP_SECONDS for them all, is past what it can hold (or what make bench's ten
# minutes allow): stop opening (each refused attempt still costs it work) and say so.
GIVE_UP_REFUSED = 3
GIVE_UP_SECONDS = 30.0
GIVE_UP_LOOK_AFTER = 6.0
#: PING_EVERY_MS of static/js/scene/latency.js: an open page pings every 30 s, once when its
#: socket opens and again at once with the round trip its first pong measured.
PING_EVERY = 30.0
#: After the first pongs, how long until the idle tables are in their steady state: a ping
#: period, so each page's trip measured while the server was busy opening 800 sockets (60-80
#: ms) is replaced by an idle one (1-10 ms: a change a person would notice, which the table's
#: list shows), and two of the server's beats (SCENE_HEARTBEAT_SECONDS, 8 s; a new scene joins
#: the beat at its next round) to send the lists with them.
SETTLE_AFTER_FIRST_PONGS = PING_EVERY + 18.0
#: After closing the idle tables, until the servers are idle again (below IDLE_CPU of a core
#: over a second), at most IDLE_AGAIN_WITHIN seconds.
IDLE_CPU = 0.15
IDLE_AGAIN_WITHIN = 45.0
#: How long the idle sockets may take to have their first pong before the step gives up.
FIRST_PONG_WITHIN = 60.0
HTMX_HEADERS = {
    "HX-Request": "true",
    "HX-Trigger": None,
    "HX-Trigger-Name": None,
    "HX-Target": "roll-form",
    "HX-Current-URL": "http://127.0.0.1/scenes/1/",
}

now = time.perf_counter


@dataclass
class Roll:
    tag: int
    scene: Scene
    roller: Client
    scheduled: float
    sent: float
    expected: set[int]
    received: dict[int, float] = field(default_factory=dict)
    done_at: float | None = None
    done: asyncio.Future[None] | None = None

    def served(self) -> bool:
        """Every socket of the scene that is still open has the frame (or it can't come: the
        server closed the roller's socket)."""
        if self.roller.closed:
            return True
        alive = {c.index for c in self.scene.clients if not c.closed}
        return (self.expected & alive).issubset(self.received)


@dataclass
class Client:
    index: int
    scene: Scene
    ws: ClientConnection
    reader: asyncio.Task[None] | None = None
    errors: list[str] = field(default_factory=list)
    replayed: int = 0
    controls: int = 0
    closed: bool = False  # the server closed the socket (its frames from then on are lost)
    frames: int = 0  # every text frame received
    # An idle page's latency loop (the idle step's sockets only):
    pinger: asyncio.Task[None] | None = None
    opened: float = 0.0  # its clock's zero (the page's performance.now())
    pings: int = 0
    pongs: int = 0
    latency_frames: int = 0  # the table's round trips relayed to it ({"type": "latency"})
    presence_frames: int = 0  # the table's presence lists
    last_rtt: int | None = None


class Scene:
    def __init__(self, scene_id: int, position: int, table: dict[str, Any]) -> None:
        self.id = scene_id
        self.position = position
        self.table = table
        self.clients: list[Client] = []
        self.rolls: dict[int, Roll] = {}
        self.next_tag = 1  # with every roll accepted, the app's seq of roll ``tag`` is ``tag``

    def roll(self, gen: LoadGen, client: Client, scheduled: float, closed: bool = False) -> Roll:
        tag = self.next_tag
        self.next_tag += 1
        text = gen.roll_text(self, tag, client)
        roll = Roll(
            tag=tag,
            scene=self,
            roller=client,
            scheduled=scheduled,
            sent=now(),
            expected={c.index for c in self.clients},
            done=asyncio.get_running_loop().create_future() if closed else None,
        )
        self.rolls[tag] = roll
        sending = asyncio.ensure_future(client.ws.send(text))  # never wait on one slow socket
        gen.pending_sends.add(sending)
        sending.add_done_callback(gen.pending_sends.discard)
        return roll


class LoadGen:
    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan = plan
        self.stack = plan["stack"]
        self.ports: list[int] = plan["ports"]
        self.pids: list[int] = plan["pids"]
        self.tables = plan["campaigns"]
        self.mix = bool(plan.get("mix"))
        self.tag_pattern = SEQ if self.mix else TAG
        self.scenes: list[Scene] = []
        # Scenes of a connect step that names a ``group``: later steps roll on one group or
        # another while every group's sockets stay open (the history cell's two groups).
        self.groups: dict[str, list[Scene]] = {}
        self.idle_scenes: list[Scene] = []  # the idle step's tables, open until the end
        self.pong_rtts: list[tuple[float, float]] = []  # (received at, round trip in s)
        self.pending_sends: set[asyncio.Future[None]] = set()
        self.deliveries: list[float] = []
        self.connect_failures: list[str] = []
        self.connect_started = self.connect_budget = 0.0
        self.connect_opened = self.connect_wanted = 0
        sample = plan["frame_sample"]
        # The bare stack relays what the roller sends: make it the app's frame for that roll.
        self.bare_template = TAG.sub(
            "Dice: 2d6 + {tag}", sample.replace("{", "{{").replace("}", "}}")
        )
        self.bare_template = re.sub(
            r'(id="event-|data-seq=")\d+', r"\g<1>{tag}", self.bare_template
        )

    # --- frames ------------------------------------------------------------------------------

    def roll_text(self, scene: Scene, tag: int, client: Client) -> str:
        if self.stack == "bare":
            return self.bare_template.format(tag=tag)
        roll: dict[str, Any] = {
            "command": "roll",
            "roll_kind": "expression",
            "mode": "public",
            "character": "",
            "expression": f"2d6+{tag}",
        }
        kind = MIX[tag % len(MIX)] if self.mix else "public"
        if kind == "character":
            # A player rolls for their own character; the GM, for the first player's.
            owned = scene.table["characters"]
            roll.update(CHECK, character=owned[client.index] or owned[1])
        elif kind != "public":
            roll["mode"] = kind
        return json.dumps({**roll, "HEADERS": HTMX_HEADERS})

    async def read(self, client: Client) -> None:
        scene = client.scene
        try:
            async for message in client.ws:
                t = now()
                if not isinstance(message, str):
                    continue
                client.frames += 1
                if client.pinger is not None and 'id="presence"' in message:
                    client.presence_frames += 1
                if message.startswith("{"):
                    client.controls += 1
                    if client.pinger is not None:
                        self.control(client, json.loads(message), t)
                    continue
                match = self.tag_pattern.search(message)
                if match is None:
                    if "scene-errors" in message:
                        client.errors.append(re.sub(r"<[^>]+>", "", message).strip()[:120])
                    continue
                roll = scene.rolls.get(int(match.group(1)))
                if roll is None or client.index in roll.received:
                    continue
                live = LIVE.search(message)
                if live is not None and live.group(1) is None:
                    client.replayed += 1
                roll.received[client.index] = t
                self.deliveries.append(t)
                if roll.done_at is None and roll.expected.issubset(roll.received):
                    roll.done_at = t
                    if roll.done is not None and not roll.done.done():
                        roll.done.set_result(None)
        except ConnectionClosed:
            pass
        client.closed = True

    def control(self, client: Client, control: dict[str, Any], t: float) -> None:
        """An idle page's control frame: a pong measures its round trip, as the page does."""
        kind = control.get("type")
        if kind == "pong" and isinstance(control.get("t"), int | float):
            rtt = t - client.opened - control["t"] / 1000
            client.pongs += 1
            client.last_rtt = max(0, round(rtt * 1000))
            self.pong_rtts.append((t, rtt))
            if client.pongs == 1 and client.pinger is not None:
                # The page reports its first round trip at once (scene/latency.js).
                sending = asyncio.ensure_future(self.ping(client))
                self.pending_sends.add(sending)
                sending.add_done_callback(self.pending_sends.discard)
        elif kind == "latency":
            client.latency_frames += 1

    async def keep_pinging(self, client: Client) -> None:
        """The page's latency loop (scene/latency.js): a ping when the socket opens, then one per
        period from the page's interval timer, whose phase is the moment the page loaded (random
        here)."""
        next_at = now() + random.random() * PING_EVERY
        while not client.closed:
            if not await self.ping(client):
                return
            await asyncio.sleep(max(0.0, next_at - now()))
            next_at += PING_EVERY

    async def ping(self, client: Client) -> bool:
        """One ping of the page, with the round trip it measured last; False once closed."""
        clock = round(1000 * (now() - client.opened), 3)
        frame: dict[str, Any] = {"command": "ping", "t": clock}
        if client.last_rtt is not None:
            frame["rtt"] = client.last_rtt
        try:
            await client.ws.send(json.dumps(frame))
        except ConnectionClosed:
            return False
        client.pings += 1
        return True

    # --- steps -------------------------------------------------------------------------------

    def url(self, port: int, scene_id: int) -> str:
        path = "bare" if self.stack == "bare" else "scenes"
        return f"ws://127.0.0.1:{port}/ws/{path}/{scene_id}/"

    async def dial(self, port: int, scene: Scene, session: str, idle: bool) -> ClientConnection:
        return await connect(
            self.url(port, scene.id),
            additional_headers={"Cookie": f"sessionid={session}"},
            origin=f"http://127.0.0.1:{port}",
            max_size=None,
            open_timeout=30,
            # Browsers send no protocol pings; an idle socket's only traffic is the page's own
            # (the rolling cells keep the library's default, as before).
            **({"ping_interval": None} if idle else {}),
        )

    async def open_client(
        self, scene: Scene, index: int, gate: asyncio.Semaphore, idle: bool = False
    ) -> Client | None:
        # Alternate processes within a scene, and start each scene on the next process, so the
        # rollers (client 1) and the GMs (client 0) are spread over the processes too.
        port = self.ports[(index + scene.position) % len(self.ports)]
        session = scene.table["sessions"][index]
        async with gate:
            for attempt in range(CONNECT_ATTEMPTS):
                if self.giving_up():
                    return None
                try:
                    ws = await self.dial(port, scene, session, idle)
                    break
                except Exception as exc:  # retried, then counted and reported
                    self.connect_failures.append(repr(exc)[:120])
                    await asyncio.sleep(0.5 * (attempt + 1))
            else:
                return None
            self.connect_opened += 1
            client = Client(index=index, scene=scene, ws=ws)
            client.reader = asyncio.ensure_future(self.read(client))
            if self.stack == "app" or idle:  # the bare relay ignores a hello
                # The page this socket belongs to was loaded after every roll so far.
                hello = {"command": "hello", "last_seq": scene.next_tag - 1}
                await ws.send(json.dumps(hello))
            if idle:
                client.opened = now()
                client.pinger = asyncio.ensure_future(self.keep_pinging(client))
        return client

    async def open_sockets(
        self, scenes: list[Scene], per_scene: int, budget: float, idle: bool = False
    ) -> tuple[int, int, float]:
        """Bring every scene up to ``per_scene`` sockets: (wanted, failed, seconds taken)."""
        gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        self.connect_failures = []
        start = now()
        self.connect_started = start
        self.connect_budget = budget
        self.connect_opened = 0
        jobs = [
            self.open_client(scene, index, gate, idle)
            for scene in scenes
            for index in range(len(scene.clients), per_scene)
        ]
        self.connect_wanted = len(jobs)
        opened = await asyncio.gather(*jobs)
        failed = 0
        for client in opened:
            if client is None:
                failed += 1
            else:
                client.scene.clients.append(client)
        return len(jobs), failed, now() - start

    def connect_scenes(self, step: dict[str, Any]) -> None:
        """The connect step's scenes: the ones open already when it names them again (it adds
        sockets), else new ones; kept under the step's ``group`` when it names one."""
        if not self.scenes or self.scenes[0].id != step["scenes"][0]:
            self.scenes = [
                Scene(scene_id, i, self.tables[i]) for i, scene_id in enumerate(step["scenes"])
            ]
            # Scenes that already hold events (``newest``: each one's newest seq): the app
            # gives the next roll the seq after it, and the mixed plan names frames by seq.
            if "newest" in step:
                for scene, newest in zip(self.scenes, step["newest"], strict=True):
                    scene.next_tag = newest + 1
        if "group" in step:
            self.groups[step["group"]] = self.scenes

    async def step_connect(self, step: dict[str, Any]) -> dict[str, Any]:
        self.connect_scenes(step)
        settle = step.get("settle", 0.1)
        # Let the server finish what earlier steps left queued, so the handshakes meet it idle.
        until = now() + 6.0
        while now() < until and not all(r.served() for s in self.scenes for r in s.rolls.values()):
            await asyncio.sleep(0.05)
        rss_before = [rss_kib(pid) for pid in self.pids] if step.get("rss") else None
        wanted, failed, took = await self.open_sockets(
            self.scenes, step["per_scene"], step.get("give_up_s", GIVE_UP_SECONDS)
        )
        collapsed = failed > 0
        # Opening a socket queues work on the server (access check, presence, hello) that goes on
        # after the handshake. One roll per scene, delivered everywhere, proves it is all done:
        # a socket gets live frames only after its hello has been handled.
        barrier = 0.0 if collapsed else await self.barrier()
        await asyncio.sleep(settle)
        result: dict[str, Any] = {
            "step": "connect",
            "label": step.get("label", ""),
            "opened": wanted - failed,
            "failed": failed,
            "seconds": round(took, 2),
            "connections": sum(len(s.clients) for s in self.scenes),
            "wanted": step["per_scene"] * len(self.scenes),
            "barrier_s": round(barrier, 2),
            "refused_attempts": len(self.connect_failures),
            "first_refusal": self.connect_failures[0] if self.connect_failures else "",
            "collapsed": collapsed,
            "sockets_per_s": round((wanted - failed) / took, 1) if took else None,
        }
        if rss_before is not None:
            rss_after = [rss_kib(pid) for pid in self.pids]
            result["rss_before_kib"] = rss_before
            result["rss_after_kib"] = rss_after
            opened_ok = wanted - failed
            result["kib_per_connection"] = (sum(rss_after) - sum(rss_before)) / max(1, opened_ok)
        return result

    def giving_up(self) -> bool:
        if len(self.connect_failures) >= GIVE_UP_REFUSED:
            return True
        elapsed = now() - self.connect_started
        if elapsed > GIVE_UP_LOOK_AFTER:
            pace = self.connect_opened / elapsed  # sockets opened per second so far
            return pace == 0 or self.connect_wanted / pace > self.connect_budget
        return False

    async def barrier(self, timeout: float = 5.0) -> float:
        """Roll once per scene and wait until every open socket has it (dead ones can't)."""
        start = now()
        rolls = []
        for scene in self.scenes:
            if scene.clients:
                rolls.append(scene.roll(self, scene.clients[min(1, len(scene.clients) - 1)], now()))
                await asyncio.sleep(0.001)  # not a burst: the barrier is no part of the load

        while now() - start < timeout and not all(r.served() for r in rolls):
            await asyncio.sleep(0.02)
        return now() - start

    async def close_all(self, scenes: list[Scene]) -> int:
        """Close every socket of ``scenes`` (an idle page's pings stop with it): how many."""
        clients = [c for s in scenes for c in s.clients]
        gate = asyncio.Semaphore(CONNECT_CONCURRENCY * 4)

        async def close(client: Client) -> None:
            async with gate:
                if client.pinger is not None:
                    client.pinger.cancel()
                await client.ws.close()
                if client.reader is not None:
                    await client.reader

        await asyncio.gather(*(close(c) for c in clients))
        for scene in scenes:
            scene.clients = []
        return len(clients)

    async def step_disconnect(self, step: dict[str, Any]) -> dict[str, Any]:
        start = now()
        closed = await self.close_all(self.scenes)
        self.scenes = []
        await asyncio.sleep(step.get("settle", 1.0))
        return {"step": "disconnect", "closed": closed, "seconds": round(now() - start, 2)}

    async def step_idle_close(self, step: dict[str, Any]) -> dict[str, Any]:
        start = now()
        count = await self.close_all(self.idle_scenes)
        closed = now()
        # The app's departures (each socket's presence, each table's list) take it about as
        # long as their arrivals did: a ceiling measured meanwhile shares the process with them.
        await asyncio.sleep(step.get("settle", 3.0))
        while self.pids and now() - closed < IDLE_AGAIN_WITHIN:
            before = [cpu_seconds(p) for p in self.pids]
            await asyncio.sleep(1.0)
            if max(cpu_seconds(p) - b for p, b in zip(self.pids, before, strict=True)) < IDLE_CPU:
                break
        return {
            "step": "idle_close",
            "label": step.get("label", ""),
            "closed": count,
            "seconds": round(now() - start, 2),
            "idle_after_s": round(now() - closed, 2),
        }

    async def step_storm(self, step: dict[str, Any]) -> dict[str, Any]:
        """A deploy under the connected scenes: ``before`` more rolls per scene, each delivered
        everywhere; then SIGTERM to the server (``pids[0]``; whoever started it starts a new
        one on the same port: ``servers.Daphne(supervise=True)``), every socket sees the close,
        and as soon as the port accepts again every socket reconnects at once (no gate; a
        refused attempt waits as the page's does, ``reconnect_delay``). Against the app each
        socket says hello ``missed`` seqs behind its scene's newest, as a page that missed the
        last frames in flight, and must get them replayed; once a scene's sockets are all open,
        its roller makes a barrier roll that must reach every one. ``seconds``: from the moment
        the new server listens until all that is done (or ``within`` has passed)."""
        n_scenes = len(self.scenes)
        first_tags = {s.id: s.next_tag for s in self.scenes}
        for _ in range(step.get("before", 2)):
            await self.barrier(timeout=step.get("barrier_s", 30.0))
        before_unserved = sum(
            not r.served() for s in self.scenes for t, r in s.rolls.items() if t >= first_tags[s.id]
        )
        per_scene = max(len(s.clients) for s in self.scenes)
        # The bare relay keeps no history: nothing missed can come back, so nothing is missed.
        missed = step.get("missed", 2) if self.stack == "app" else 0
        old_pid = self.pids[0]
        old = [c for s in self.scenes for c in s.clients]
        killed = now()
        os.kill(old_pid, signal.SIGTERM)
        readers = [c.reader for c in old if c.reader is not None]
        stuck: set[asyncio.Task[None]] = set()
        if readers:
            _, stuck = await asyncio.wait(readers, timeout=step.get("close_within", 30.0))
        closes_seen = now() - killed
        for client in old:
            if client.reader in stuck:  # never saw the close: stop waiting for it
                client.reader.cancel()
                with contextlib.suppress(Exception):
                    await client.ws.close()
        # The missed rolls: each page lacks the last ``missed`` of its scene (it got them on
        # the old socket here, so their receipts are cleared: only a replay brings them back).
        behind: dict[int, int] = {}
        missed_rolls: dict[int, list[Roll]] = {}
        for scene in self.scenes:
            newest = scene.next_tag - 1
            behind[scene.id] = newest - missed
            tags = range(newest - missed + 1, newest + 1)
            missed_rolls[scene.id] = [scene.rolls[t] for t in tags if t in scene.rolls]
            for roll in missed_rolls[scene.id]:
                roll.received.clear()
                roll.done_at = None
                roll.expected = set(range(per_scene))
            scene.clients = []
        # The old process gone (reaped: its listening socket closed), the new one listening.
        deadline = killed + step.get("within", 120.0)
        while now() < deadline and process_alive(old_pid):
            await asyncio.sleep(0.01)
        port = self.ports[0]
        while now() < deadline and not await accepts(port):
            await asyncio.sleep(0.01)
        listening = now()
        machine_before = machine_busy_seconds()
        attempts: list[int] = []
        failures: list[str] = []
        opened_at: list[float] = []
        barriers: dict[int, Roll] = {}

        async def come_back(scene: Scene, index: int) -> Client | None:
            tries = 0
            while True:
                tries += 1
                try:
                    ws = await self.dial(port, scene, scene.table["sessions"][index], False)
                    break
                except Exception as exc:
                    failures.append(repr(exc)[:120])
                    if now() >= deadline:
                        attempts.append(tries)
                        return None
                    await asyncio.sleep(min(reconnect_delay(tries - 1), deadline - now()))
            attempts.append(tries)
            opened_at.append(now())
            client = Client(index=index, scene=scene, ws=ws)
            client.reader = asyncio.ensure_future(self.read(client))
            if self.stack == "app":  # the bare relay ignores a hello
                with contextlib.suppress(ConnectionClosed):
                    await ws.send(json.dumps({"command": "hello", "last_seq": behind[scene.id]}))
            return client

        async def scene_back(scene: Scene) -> None:
            clients = await asyncio.gather(*(come_back(scene, i) for i in range(per_scene)))
            scene.clients = [c for c in clients if c is not None]
            if scene.clients:
                roller = scene.clients[min(1, len(scene.clients) - 1)]
                barriers[scene.id] = scene.roll(self, roller, now())

        def back(scene: Scene, client: Client) -> float | None:
            """When this socket had everything: its missed rolls and its scene's barrier."""
            rolls = [*missed_rolls[scene.id], barriers.get(scene.id)]
            times = [r.received.get(client.index) if r else None for r in rolls]
            return None if None in times else max(times)  # type: ignore[type-var]

        returning = [asyncio.ensure_future(scene_back(s)) for s in self.scenes]
        await asyncio.sleep(0)  # every socket's first attempt is on its way
        # The new process (its CPU over the storm, and later steps'), looked up off the loop:
        # its CPU is counted from then on (the look-up takes some 30 ms of /proc).
        new_pid = await asyncio.to_thread(listening_pid, port)
        cpu_before = cpu_seconds(new_pid) if new_pid else None
        found_pid_s = now() - listening
        await asyncio.wait(returning, timeout=max(0.0, deadline - now()))
        ready: list[float] = []
        while True:
            clients = [(s, c) for s in self.scenes for c in s.clients]
            ready = [t for t in (back(s, c) for s, c in clients) if t is not None]
            every = len(clients) == per_scene * n_scenes  # every socket open again
            done = every and all(r.done() for r in returning) and len(ready) == len(clients)
            if done or now() >= deadline:
                break
            await asyncio.sleep(0.02)
        finished = max([*ready, *opened_at], default=now())
        window = max(finished - listening, 1e-6)
        cpu = (cpu_seconds(new_pid) - cpu_before) if new_pid and cpu_before is not None else None
        machine = machine_busy_seconds() - machine_before
        for job in returning:
            job.cancel()
        if new_pid:
            self.pids[0] = new_pid  # later steps measure the process that serves them now
        lost = 0
        for scene in self.scenes:
            for roll in [*missed_rolls[scene.id], barriers.get(scene.id)]:
                got = roll.received if roll is not None else {}
                lost += sum(1 for i in range(per_scene) if i not in got)
        clients = [c for s in self.scenes for c in s.clients]
        errors = [e for c in clients for e in c.errors]
        return {
            "step": "storm",
            "label": step.get("label", ""),
            "scenes": n_scenes,
            "sockets": per_scene * n_scenes,
            "missed_per_socket": max((len(rs) for rs in missed_rolls.values()), default=0),
            "before_rolls": step.get("before", 2),
            "before_unserved": before_unserved,
            "old_pid": old_pid,
            "new_pid": new_pid,
            "closes_seen_s": round(closes_seen, 2),
            "closes_not_seen": len(stuck),
            "listen_after_kill_s": round(listening - killed, 2),
            "complete": done,
            "seconds": round(window, 2),
            "open_s": round(max(opened_at, default=listening) - listening, 2),
            "opened": len(opened_at),
            "failed": per_scene * n_scenes - len(opened_at),
            "retried": sum(1 for a in attempts if a > 1),
            "failed_attempts": len(failures),
            "first_refusal": failures[0] if failures else "",
            "ready_p50_s": secs(quantile([t - listening for t in ready], 0.50)),
            "ready_p99_s": secs(quantile([t - listening for t in ready], 0.99)),
            "replayed_frames": sum(c.replayed for c in clients),
            "missed_delivered": sum(len(r.received) for rs in missed_rolls.values() for r in rs),
            "barriers": len(barriers),
            "lost_frames": lost,
            "errors": len(errors),
            "first_error": errors[0] if errors else "",
            "closed_sockets": sum(c.closed for c in clients),
            # Over the storm from the look-up on.
            "server_cpu": [round(cpu / max(window - found_pid_s, 1e-6), 3)]
            if cpu is not None
            else [],
            "machine_cpu": round(machine / window, 3),
            "pid_lookup_ms": round(1000 * found_pid_s, 1),
        }

    async def step_idle(self, step: dict[str, Any]) -> dict[str, Any]:
        for position, scene_id in enumerate(step["scenes"]):
            if position == len(self.idle_scenes):  # scene i of a group is campaign i's
                self.idle_scenes.append(Scene(scene_id, position, self.tables[position]))
        wanted, failed, took = await self.open_sockets(
            self.idle_scenes, step["per_scene"], step.get("give_up_s", GIVE_UP_SECONDS), idle=True
        )
        clients = [c for s in self.idle_scenes for c in s.clients]
        result: dict[str, Any] = {
            "step": "idle",
            "label": step.get("label", ""),
            "tables": len(self.idle_scenes),
            "connections": len(clients),
            "wanted": step["per_scene"] * len(self.idle_scenes),
            "opened": wanted - failed,
            "failed": failed,
            "seconds": round(took, 2),
            "sockets_per_s": round((wanted - failed) / took, 1) if took else None,
            "refused_attempts": len(self.connect_failures),
            "first_refusal": self.connect_failures[0] if self.connect_failures else "",
            "collapsed": failed > 0,
        }
        if failed:
            return result
        # Settled: every socket's hello and first ping answered (the server has done what the
        # handshakes queued), then its second ping, with its round trip, and a beat.
        start = now()
        while now() - start < FIRST_PONG_WITHIN and not all(c.pongs or c.closed for c in clients):
            await asyncio.sleep(0.1)
        result["first_pongs_s"] = round(now() - start, 2)
        await asyncio.sleep(step.get("settle", SETTLE_AFTER_FIRST_PONGS))

        def totals() -> dict[str, float]:
            return {
                "pings": sum(c.pings for c in clients),
                "pongs": sum(c.pongs for c in clients),
                "frames": sum(c.frames for c in clients),
                "latency": sum(c.latency_frames for c in clients),
                "presence": sum(c.presence_frames for c in clients),
                "loadgen": time.process_time(),
                "machine": machine_busy_seconds(),
            }

        window = step["window"]
        servers, before, window_start = [cpu_seconds(p) for p in self.pids], totals(), now()
        await asyncio.sleep(window)
        servers = [cpu_seconds(p) - c for p, c in zip(self.pids, servers, strict=True)]
        after, window = totals(), now() - window_start
        rate = {k: (after[k] - before[k]) / window for k in after}
        rtts = [rtt for t, rtt in self.pong_rtts if t >= window_start]
        result.update(
            window_s=round(window, 3),
            server_cpu=[round(c / window, 4) for c in servers],
            loadgen_cpu=round(rate["loadgen"], 3),
            machine_cpu=round(rate["machine"], 3),
            pings_per_s=round(rate["pings"], 1),
            pongs_per_s=round(rate["pongs"], 1),
            # Every frame the idle sockets got (pongs included), and of them the round trips
            # the server relays to the table ({"type": "latency"}).
            frames_per_s=round(rate["frames"], 1),
            latency_frames_per_s=round(rate["latency"], 1),
            presence_frames_per_s=round(rate["presence"], 1),
            pong_p50_ms=ms(quantile(rtts, 0.50)),
            pong_p99_ms=ms(quantile(rtts, 0.99)),
            closed_sockets=sum(c.closed for c in clients),
            errors=sum(len(c.errors) for c in clients),
            first_error=next((e for c in clients for e in c.errors), ""),
            server_rss_kib=[rss_kib(pid) for pid in self.pids],
        )
        return result

    async def step_run(self, step: dict[str, Any]) -> dict[str, Any]:
        rate, duration, warmup = step["rate"], step["duration"], step["warmup"]
        period = 1.0 / rate
        t0 = now() + 0.05
        t_end = t0 + warmup + duration
        lags: list[float] = []

        async def roll_steadily(scene: Scene) -> None:
            if not scene.clients:
                return
            roller = scene.clients[min(1, len(scene.clients) - 1)]
            t = t0 + random.random() * period  # spreads the scenes' phases
            while t < t_end:
                delay = t - now()
                if delay > 0:
                    await asyncio.sleep(delay)
                lags.append(now() - t)
                scene.roll(self, roller, t, closed=False)
                t += period

        measured = await self.measure(
            [roll_steadily(s) for s in self.scenes], t0 + warmup, t_end, step
        )
        measured["send_lag_p99_ms"] = round(1000 * quantile(lags, 0.99), 2) if lags else None
        offered = rate * len(self.scenes)
        measured["offered_rolls_per_s"] = offered
        # Fell behind: completions well under the offered rate, or the median roll waits over a
        # second. Latency figures then grow with the window, not with the load. (A socket that
        # died loses its frames but does not make the server "behind".)
        few = offered * duration < 20  # a handful of rolls: completions at the edges dominate
        slow = (measured["p50_ms"] or 0) > 1000 or not measured["p50_ms"]
        measured["overloaded"] = slow or (not few and measured["rolls_per_s"] < 0.9 * offered)
        return measured

    async def step_saturate(self, step: dict[str, Any]) -> dict[str, Any]:
        if "group" in step:  # the scenes of an earlier connect step (their sockets still open)
            self.scenes = self.groups[step["group"]]
        duration, warmup = step["duration"], step["warmup"]
        rate = step.get("max_rate_per_socket")
        gap = 1.0 / rate if rate else 0.0
        t0 = now() + 0.05
        t_end = t0 + warmup + duration

        async def roll_when_delivered(scene: Scene) -> None:
            # One roll in flight per scene, made by its sockets in turn, each under the limit.
            last_sent = {c.index: -gap for c in scene.clients}
            await asyncio.sleep(max(0.0, t0 - now()) + random.random() * (gap or 0.01))
            turn = 0
            while True:
                client = scene.clients[turn % len(scene.clients)]
                turn += 1
                rest = last_sent[client.index] + gap - now()
                if rest > 0:
                    await asyncio.sleep(rest)
                start = now()
                if start >= t_end:
                    return
                last_sent[client.index] = start
                roll = scene.roll(self, client, start, closed=True)
                assert roll.done is not None
                with contextlib.suppress(TimeoutError):  # a lost frame must not stop the loop
                    await asyncio.wait_for(roll.done, timeout=max(0.05, t_end + 1.0 - now()))

        result = await self.measure(
            [roll_when_delivered(s) for s in self.scenes], t0 + warmup, t_end, step
        )
        result["in_flight_per_scene"] = 1
        return result

    async def measure(
        self, jobs: list[Any], window_start: float, window_end: float, step: dict[str, Any]
    ) -> dict[str, Any]:
        for scene in self.scenes:
            scene.rolls = {t: r for t, r in scene.rolls.items() if r.done_at is None}
        t_first = now()  # rolls of this step are sent from here on
        self.deliveries = []
        cpu: dict[str, Any] = {}

        async def sample_cpu() -> None:
            await asyncio.sleep(max(0.0, window_start - now()))
            cpu["server"] = [cpu_seconds(pid) for pid in self.pids]
            cpu["loadgen"] = time.process_time()
            cpu["machine"] = machine_busy_seconds()
            await asyncio.sleep(max(0.0, window_end - now()))
            cpu["server"] = [
                cpu_seconds(pid) - c for pid, c in zip(self.pids, cpu["server"], strict=True)
            ]
            cpu["loadgen"] = time.process_time() - cpu["loadgen"]
            cpu["machine"] = machine_busy_seconds() - cpu["machine"]

        probes: dict[str, list[float]] = {"connect": [], "query": []}

        async def probe_database() -> None:
            # What one database call of the app waits for, beside the app: a new connection
            # (CONN_MAX_AGE=0 opens one per call) and a round trip on an open one.
            dsn = self.plan.get("database_url")
            if not dsn:
                return
            await asyncio.sleep(max(0.0, window_start - now()))
            while now() < window_end:
                start = now()
                conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
                opened = now()
                await conn.execute("SELECT 1")
                probes["connect"].append(opened - start)
                probes["query"].append(now() - opened)
                await conn.close()
                await asyncio.sleep(0.25)

        errors_before = sum(len(c.errors) for s in self.scenes for c in s.clients)
        replayed_before = sum(c.replayed for s in self.scenes for c in s.clients)
        await asyncio.gather(sample_cpu(), probe_database(), *jobs)
        # Drain: wait until every roll reached every socket, or give up after a while.
        drain_until = now() + step.get("drain", 2.0)
        while now() < drain_until and not all(
            r.served() for s in self.scenes for r in s.rolls.values() if r.scheduled >= t_first
        ):
            await asyncio.sleep(0.05)
        if self.pending_sends:
            await asyncio.gather(*self.pending_sends, return_exceptions=True)
            self.pending_sends.clear()

        window = window_end - window_start
        in_window = [
            r for s in self.scenes for r in s.rolls.values() if window_start <= r.scheduled
        ]
        measured = [r for r in in_window if r.scheduled < window_end]
        latencies = [r.done_at - r.sent for r in measured if r.done_at is not None]
        lost = gaps = 0
        for scene in self.scenes:
            for client in scene.clients:
                newest = max(
                    (t for t, r in scene.rolls.items() if client.index in r.received), default=0
                )
                for roll in scene.rolls.values():
                    if window_start <= roll.scheduled < window_end and (
                        client.index in roll.expected and client.index not in roll.received
                    ):
                        lost += 1
                        gaps += roll.tag < newest
        completed = sum(
            1
            for s in self.scenes
            for r in s.rolls.values()
            if r.done_at is not None and window_start <= r.done_at <= window_end
        )
        deliveries = sum(1 for t in self.deliveries if window_start <= t <= window_end)
        errors = [e for s in self.scenes for c in s.clients for e in c.errors]
        by_kind: dict[str, Any] = {}
        if self.mix:  # the same holds for each kind of the mix, or it does not
            for kind in MIX:
                mine = [
                    r.done_at - r.sent
                    for r in measured
                    if r.done_at is not None and MIX[r.tag % len(MIX)] == kind
                ]
                by_kind[kind] = {
                    "rolls": len(mine),
                    "p50_ms": ms(quantile(mine, 0.50)),
                    "p99_ms": ms(quantile(mine, 0.99)),
                }
        return {
            "step": step["do"],
            "label": step.get("label", ""),
            "scenes": len(self.scenes),
            "clients_per_scene": len(self.scenes[0].clients) if self.scenes else 0,
            "window_s": round(window, 3),
            "rolls": len(measured),
            "p50_ms": ms(quantile(latencies, 0.50)),
            "p95_ms": ms(quantile(latencies, 0.95)),
            "p99_ms": ms(quantile(latencies, 0.99)),
            "max_ms": ms(max(latencies, default=None)),
            "mean_ms": ms(statistics.fmean(latencies) if latencies else None),
            "rolls_per_s": round(completed / window, 1),
            "deliveries_per_s": round(deliveries / window, 1),
            "undelivered_rolls": sum(1 for r in measured if r.done_at is None),
            # Which scenes and sockets missed frames: one dead socket or one deaf scene?
            "missed_by": sorted(
                {f"{r.scene.id}/{i}" for r in measured for i in r.expected if i not in r.received}
            )[:8],
            "lost_frames": lost,
            "gap_frames": gaps,
            "replayed_frames": sum(c.replayed for s in self.scenes for c in s.clients)
            - replayed_before,
            "errors": len(errors) - errors_before,
            "closed_sockets": sum(c.closed for s in self.scenes for c in s.clients),
            "first_error": errors[errors_before] if len(errors) > errors_before else "",
            "server_cpu": [round(c / window, 3) for c in cpu.get("server", [])],
            "loadgen_cpu": round(cpu.get("loadgen", 0.0) / window, 3),
            # Every process of the machine: the servers, the load generator, PostgreSQL, Redis,
            # and whatever else runs on this shared box at the time.
            "machine_cpu": round(cpu.get("machine", 0.0) / window, 3),
            "server_rss_kib": [rss_kib(pid) for pid in self.pids],
            "pg_connect_ms": ms(quantile(probes["connect"], 0.5)),
            "pg_query_ms": ms(quantile(probes["query"], 0.5)),
            **({"by_kind": by_kind} if by_kind else {}),
        }

    async def play(self) -> None:
        started = now()
        behind: set[str] = set()
        stuck = ""  # why every later step is skipped: the server could not open the sockets
        for step in self.plan["steps"]:
            if stuck or step.get("skip_if_overloaded") in behind:
                reason = stuck or (
                    f"{step['skip_if_overloaded']} already fell behind at the same roll rate"
                )
                result = {"step": step["do"], "label": step.get("label", ""), "skipped": reason}
            else:
                result = await getattr(self, f"step_{step['do']}")(step)
                if result.get("overloaded"):
                    behind.add(result["label"])
                if result.get("collapsed"):
                    refused = result["refused_attempts"]
                    stuck = (
                        f"{result['label']}'s sockets did not open: {result['connections']} of "
                        f"{result['wanted']} after {result['seconds']:.0f} s "
                        + (
                            f"({refused} handshakes refused)"
                            if refused >= GIVE_UP_REFUSED
                            else f"(at {result['sockets_per_s']}/s the rest would take "
                            f"{result['wanted'] / max(result['sockets_per_s'] or 0.1, 0.1):.0f} s)"
                        )
                    )
            result["t"] = round(now() - started, 1)  # when the step ended, for the timeline
            print(json.dumps(result), flush=True)


def quantile(values: list[float], q: float) -> float | None:
    """The q-quantile by the nearest-rank method (p99 of 600 rolls is the 594th smallest)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 1))
    return ordered[int(rank) - 1]


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def reconnect_delay(retry: int, rnd: float | None = None) -> float:
    """The page's wait before its reconnect number ``retry`` (0 the first), in seconds:
    ``reconnectDelay`` of static/js/scene/socket.js, a ceiling doubling from 0.5 s up to 4 s,
    the wait a random point of its upper half."""
    ceiling = min(4.0, 0.5 * 2**retry)
    return ceiling / 2 + (random.random() if rnd is None else rnd) * ceiling / 2


def process_alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, exited and not yet reaped, holds no sockets)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def accepts(port: int) -> bool:
    """Whether 127.0.0.1:``port`` accepts a TCP connection now."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 0.5)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


def secs(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 2)


def main() -> None:
    plan = json.loads(Path(sys.argv[1]).read_text())
    # A socket is a file: the plan's sockets and some room for the rest (1,024 is a common soft
    # limit, under the idle cell's 1,600 sockets).
    sockets = sum(s.get("per_scene", 0) * len(s.get("scenes", ())) for s in plan["steps"])
    raise_open_files(sockets + 256)
    asyncio.run(LoadGen(plan).play())


if __name__ == "__main__":
    main()
