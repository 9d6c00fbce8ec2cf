"""A scene table on real daphne processes, and a socket client that behaves like the browser.

``SceneClient`` speaks the protocol of static/js/scene.js with htmx's ws extension: on every
(re)connect it says ``hello`` with the newest seq it has, it reconnects whenever the socket drops,
and it notes the seq of every event card it receives (``data-seq``). Frames rendered live carry
the ``live`` class; frames replayed from the database (hello, seq gap, heartbeat) do not, so a
test can tell which path delivered each event.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from tests.servers import Server

EVENT_FRAME = re.compile(
    r'^<div id="scene-log" hx-swap-oob="beforeend"><article id="event-(\d+)" class="([^"]*)"'
)
ERROR_FRAME = re.compile(r'<div id="scene-errors".*?<p class="error" role="alert">(.*?)</p>', re.S)

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from tabletop.campaigns.models import Campaign, Membership
from tabletop.scenes import actions

users = get_user_model().objects
gm = users.create_user("gm", password="a-long-table-secret")
alice = users.create_user("alice", password="a-long-table-secret")
campaign = Campaign.objects.create(name="Vault", system="conductor", gm=gm)
Membership.objects.create(campaign=campaign, user=gm, role="gm")
Membership.objects.create(campaign=campaign, user=alice)
scene = actions.scene_create(campaign=campaign, actor=gm, name="The sunken vault")
scene = actions.scene_open(scene=scene, actor=gm)

def cookie(user):
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value

print(json.dumps({"scene": scene.pk, "cookies": {"gm": cookie(gm), "alice": cookie(alice)}}))
"""

ROLLS = """
import json
from tabletop.scenes import actions
from tabletop.scenes.models import Scene

scene = Scene.objects.select_related("campaign").get(pk={scene})
rolls = [
    actions.roll(
        scene=scene, actor=scene.campaign.gm, roll_kind="expression", data={{"expression": "1d6"}}
    )
    for _ in range({count})
]
print(json.dumps([roll.seq for roll in rolls]))
"""

ROLL_TOTALS = """
import json
from tabletop.scenes.models import SceneEvent

events = SceneEvent.objects.filter(scene_id={scene}, kind="roll").order_by("seq")
print(json.dumps([[event.seq, event.public["result"]["total"]] for event in events]))
"""


def last_line(output: str) -> str:
    return output.strip().splitlines()[-1]


async def until(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    """Wait for ``condition`` (checked every 50 ms); fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.05)


@dataclass(frozen=True)
class EventFrame:
    seq: int
    live: bool
    html: str


@dataclass
class SceneClient:
    ws_url: str
    origin: str
    cookie: str
    events: list[EventFrame] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    controls: list[dict[str, Any]] = field(default_factory=list)
    last_seq: int = 0
    connections: int = 0
    drops: list[str] = field(default_factory=list)
    #: Every presence list the socket was sent (HTML), in order.
    presences: list[str] = field(default_factory=list)
    #: How each command sent with an id (``command``) ended, by id: the server's "done" frame.
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    answered_at: dict[str, float] = field(default_factory=dict)  # the first, time.monotonic()
    answer_log: list[dict[str, Any]] = field(default_factory=list)  # every answer, in order
    _ids: Any = field(default_factory=itertools.count)
    #: Where it reconnects after a drop, in turn after ``ws_url`` (a proxy's other processes).
    fallbacks: list[str] = field(default_factory=list)
    _socket: ClientConnection | None = None
    _task: asyncio.Task | None = None
    _closing: bool = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        urls = itertools.cycle([self.ws_url, *self.fallbacks])
        while not self._closing:
            try:
                async with connect(
                    next(urls),
                    origin=self.origin,
                    additional_headers={"Cookie": f"sessionid={self.cookie}"},
                    open_timeout=3,
                    ping_interval=None,  # browsers don't ping either
                ) as socket:
                    self._socket = socket
                    self.connections += 1
                    await socket.send(json.dumps({"command": "hello", "last_seq": self.last_seq}))
                    async for frame in socket:
                        self._note(frame)
                    self.drops.append(f"closed {socket.close_code}")
            except (OSError, TimeoutError, WebSocketException) as exc:
                self.drops.append(repr(exc))
            self._socket = None
            if not self._closing:
                await asyncio.sleep(0.2)  # htmx's ws extension backs off before reconnecting

    def _note(self, frame: str | bytes) -> None:
        text = frame if isinstance(frame, str) else frame.decode()
        if text.startswith("{"):
            control = json.loads(text)
            if control.get("type") == "done":
                self.answers[control["cid"]] = control  # the latest: a late "done" after "retry"
                self.answer_log.append(control)
                self.answered_at.setdefault(control["cid"], time.monotonic())
            else:
                self.controls.append(control)
            return
        if match := EVENT_FRAME.match(text):
            seq = int(match.group(1))
            self.events.append(EventFrame(seq, "live" in match.group(2).split(), text))
            self.last_seq = max(self.last_seq, seq)
            return
        if 'id="presence"' in text:
            self.presences.append(text)
            return
        if match := ERROR_FRAME.search(text):
            self.errors.append(match.group(1))

    @property
    def connected(self) -> bool:
        return self._socket is not None

    def seqs(self) -> list[int]:
        """The seq of every event frame, in the order they arrived."""
        return [event.seq for event in self.events]

    def frame(self, seq: int) -> EventFrame:
        (found,) = [event for event in self.events if event.seq == seq]
        return found

    async def wait_for_seq(self, seq: int, *, timeout: float = 15) -> None:
        await until(lambda: self.last_seq >= seq, timeout=timeout, what=f"seq {seq}")

    async def send(self, **command: Any) -> None:
        await until(lambda: self.connected, timeout=10, what="the socket to be open")
        await self._socket.send(json.dumps(command))

    async def roll(self, expression: str = "1d6", mode: str = "public") -> None:
        """What a roll form sends (ws-send: the form's fields as JSON)."""
        await self.send(command="roll", roll_kind="expression", expression=expression, mode=mode)

    def new_id(self) -> str:
        """A command id as the page makes them: unique to this client."""
        return f"c{id(self):x}-{next(self._ids)}"

    async def command(self, cid: str | None = None, **fields: Any) -> str:
        """Send a command with an id (a new one unless ``cid`` is given: a resend) and return
        the id; its answer lands in ``answers``."""
        cid = cid or self.new_id()
        await self.send(cid=cid, **fields)
        return cid

    async def roll_with_id(self, cid: str | None = None, expression: str = "1d6") -> str:
        return await self.command(
            cid, command="roll", roll_kind="expression", expression=expression, mode="public"
        )

    def present(self) -> list[str]:
        """Who the latest presence list shows (names), [] before any."""
        if not self.presences:
            return []
        return re.findall(r'<li data-user="\d+">.*?</span>(\w+)', self.presences[-1])

    async def answer(self, cid: str, *, timeout: float = 15) -> dict[str, Any]:
        """The server's answer to command ``cid`` (waits for it)."""
        await until(lambda: cid in self.answers, timeout=timeout, what=f"the answer to {cid}")
        return self.answers[cid]

    async def close(self) -> None:
        self._closing = True
        if self._socket is not None:
            with contextlib.suppress(WebSocketException, OSError):
                await self._socket.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


@dataclass
class LiveTable:
    """A campaign (GM ``gm``, player ``alice``) with an open scene, made through ``manage.py``."""

    server: Server
    scene_id: int
    cookies: dict[str, str]
    clients: list[SceneClient] = field(default_factory=list)

    @classmethod
    def create(cls, server: Server) -> LiveTable:
        made = json.loads(last_line(server.shell(SETUP)))
        return cls(server=server, scene_id=made["scene"], cookies=made["cookies"])

    async def join(
        self, who: str, server: Server | None = None, *, fallbacks: list[Server] = ()
    ) -> SceneClient:
        """Open ``who``'s scene socket on ``server`` (default: the table's) and wait for seq 1;
        after a drop it reconnects to each of ``fallbacks`` in turn, then ``server`` again."""
        server = server or self.server
        client = SceneClient(
            ws_url=f"{server.ws_url}/ws/scenes/{self.scene_id}/",
            origin=server.url,
            cookie=self.cookies[who],
            fallbacks=[f"{other.ws_url}/ws/scenes/{self.scene_id}/" for other in fallbacks],
        )
        self.clients.append(client)
        client.start()
        await client.wait_for_seq(1)  # scene_opened, replayed after hello
        return client

    async def rolls_elsewhere(self, count: int) -> list[int]:
        """``count`` GM rolls through the action in another process (manage.py shell)."""
        out = await asyncio.to_thread(
            self.server.shell, ROLLS.format(scene=self.scene_id, count=count)
        )
        return json.loads(last_line(out))

    async def roll_totals(self) -> dict[int, int]:
        """The stored total of every roll of the scene by seq (the database is the truth)."""
        out = await asyncio.to_thread(self.server.shell, ROLL_TOTALS.format(scene=self.scene_id))
        return dict(json.loads(last_line(out)))

    def page(self, who: str, server: Server | None = None) -> tuple[int, str]:
        """GET the scene page as ``who`` without following redirects: (status, body)."""
        server = server or self.server
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            conn.request(
                "GET",
                f"/scenes/{self.scene_id}/",
                headers={"Cookie": f"sessionid={self.cookies[who]}"},
            )
            response = conn.getresponse()
            return response.status, response.read().decode()
        finally:
            conn.close()

    async def close(self) -> None:
        for client in self.clients:
            await client.close()
