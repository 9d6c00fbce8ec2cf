"""Fixtures for live-scene tests: a campaign with a GM and two players, an open scene, sockets,
and the scene's events of one kind."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connections
from django.test import Client

from tabletop.asgi import application
from tabletop.scenes import command_threads
from tabletop.scenes.models import Scene, SceneEvent
from tests.support.tables import Table, make_table


@pytest.fixture
def table(transactional_db) -> Table:
    return make_table()


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


class Socket:
    """A signed-in browser's socket on a scene, collecting every frame it receives."""

    def __init__(self, communicator: WebsocketCommunicator) -> None:
        self.communicator = communicator
        self.frames: list[str] = []

    async def send(self, **content: Any) -> None:
        await self.communicator.send_to(text_data=json.dumps(content))

    async def drain(self, timeout: float = 0.3) -> list[str]:
        """Every frame that arrives until the socket is quiet for ``timeout`` seconds."""
        got = []
        # receive_nothing first: a receive_from that times out would cancel the application.
        while not await self.communicator.receive_nothing(timeout=timeout):
            frame = await self.communicator.receive_from(timeout=1)
            got.append(frame)
            self.frames.append(frame)
        return got

    def event_frames(self) -> list[str]:
        """Frames that carry scene events (not presence updates)."""
        return [f for f in self.frames if 'id="scene-log"' in f]

    def everything(self) -> str:
        return "\n".join(self.frames)

    async def close(self) -> None:
        await self.communicator.disconnect()


async def connect(
    user: Any, scene: Scene, *, origin: bytes | None = b"http://127.0.0.1", hello: int | None = 0
) -> Socket | None:
    cookie = await sync_to_async(session_cookie)(user) if user is not None else ""
    headers = [(b"host", b"127.0.0.1")]
    if origin is not None:
        headers.append((b"origin", origin))
    if cookie:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    communicator = WebsocketCommunicator(application, f"/ws/scenes/{scene.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    if not connected:
        await communicator.disconnect()
        return None
    socket = Socket(communicator)
    if hello is not None:
        await socket.send(command="hello", last_seq=hello)
    await socket.drain()
    return socket


async def seat_table(table) -> tuple[Socket, Socket, Socket]:
    """The GM's, alice's and bob's sockets on the table's scene, with what came before the
    test's own actions drained and forgotten."""
    socks = (
        await connect(table.gm, table.scene),
        await connect(table.alice, table.scene),
        await connect(table.bob, table.scene),
    )
    for sock in socks:
        await sock.drain()
        sock.frames.clear()
    return socks


async def drain_all(*socks: Socket) -> None:
    for sock in socks:
        await sock.drain()


def events(kind: str) -> list[SceneEvent]:
    """The scene events of one kind, in order."""
    return list(SceneEvent.objects.filter(kind=kind).order_by("seq"))


@pytest.fixture
async def close_db_after():
    yield
    await sync_to_async(connections.close_all)()
    await sync_to_async(command_threads.close_pool)()  # the command threads' connections too
