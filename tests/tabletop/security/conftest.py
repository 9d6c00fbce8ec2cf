"""Fixtures for the security tests: the live-scene table and sockets opened from a real session."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from tabletop.asgi import application
from tabletop.scenes.models import Scene, SceneEvent
from tests.tabletop.scenes.conftest import (  # noqa: F401  (fixtures used by these tests)
    Socket,
    close_db_after,
    table,
)

ORIGIN = b"http://127.0.0.1"


def logged_in(user: Any) -> Client:
    """A browser session for ``user`` (a real session cookie, as after the login form)."""
    client = Client()
    client.force_login(user)
    return client


async def open_socket(
    scene: Scene, *, client: Client | None = None, origin: bytes | None = ORIGIN
) -> tuple[bool, WebsocketCommunicator]:
    """Open a scene socket carrying ``client``'s session cookie; (accepted, communicator)."""
    headers = [(b"host", b"127.0.0.1")]
    if origin is not None:
        headers.append((b"origin", origin))
    if client is not None and settings.SESSION_COOKIE_NAME in client.cookies:
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    communicator = WebsocketCommunicator(application, f"/ws/scenes/{scene.pk}/", headers=headers)
    accepted, _ = await communicator.connect()
    return accepted, communicator


async def assert_ended(socket, reason: str) -> None:
    """The socket is told why, then closed by the server (4401), and nothing follows."""
    assert await socket.communicator.receive_json_from(timeout=2) == {
        "type": "ended",
        "reason": reason,
    }
    closed = await socket.communicator.receive_output(timeout=1)
    assert closed == {"type": "websocket.close", "code": 4401}


async def assert_no_login_socket(scene: Scene, *, client: Client | None) -> None:
    """A socket with no valid login is told its session ended, with the way back, and closed
    (4401): one control frame, no scene frame, no presence."""
    accepted, communicator = await open_socket(scene, client=client)
    assert accepted
    await communicator.send_json_to({"command": "hello", "last_seq": 0})
    assert await communicator.receive_json_from(timeout=2) == {
        "type": "ended",
        "reason": "your session expired",
    }
    assert await communicator.receive_output(timeout=1) == {"type": "websocket.close", "code": 4401}
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def session_socket(client: Client, scene: Scene) -> Socket:
    """An accepted socket for ``client``'s session that has said hello and drained its replay."""
    accepted, communicator = await open_socket(scene, client=client)
    assert accepted
    socket = Socket(communicator)
    await socket.send(command="hello", last_seq=0)
    await socket.drain()
    socket.frames.clear()
    return socket


def stored(scene: Scene) -> tuple[int, int]:
    """(number of events, the scene's newest seq): what a refused command must leave alone."""
    return (
        SceneEvent.objects.filter(scene=scene).count(),
        Scene.objects.values_list("last_seq", flat=True).get(pk=scene.pk),
    )


stored_async = sync_to_async(stored)
