"""A live socket as a reader: its cursor (``feed.cursor``) and the I/O the cursor's effects
ask for, one input at a time: frames sent on the socket, a stretch of the log read for its
viewer (``feed.replay``), the page told to reload.

An effect that fails (the database away during a read) leaves the cursor where it stood before
it and raises: the next beat, hello or frame tries again from there. Nothing is sent twice:
the cursor moves past each frame as it goes out.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Protocol

from django.conf import settings
from django.db import InterfaceError, OperationalError

from tabletop.scenes import outage
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.feed import replay
from tabletop.scenes.feed.cursor import (
    Beat,
    Cursor,
    Effect,
    Greet,
    Hello,
    Input,
    Read,
    Reload,
    Send,
    step,
)

_jitter = secrets.SystemRandom()
_DOWN = (OperationalError, InterfaceError)


class Transport(Protocol):
    """What a socket's reader needs of its socket (``consumers.SceneConsumer``)."""

    async def send_frame(self, frame: str) -> None: ...

    async def reload(self, reason: str) -> None: ...

    async def newest(self) -> int:
        """The scene's newest seq, read now."""

    def greet_again_seconds(self) -> float:
        """The first wait before a hello the database failed is tried again."""

    left: bool  # the socket closed
    ended: bool  # its session ended


class SocketReader:
    """One socket's cursor over its scene, fed its inputs in turn (``feed``)."""

    def __init__(self, scene_id: int, viewer: Viewer, transport: Transport) -> None:
        self.scene_id = scene_id
        self.viewer = viewer
        self.cursor = Cursor()
        self.transport = transport
        self.greeter: asyncio.Task[None] | None = None  # trying a failed hello again
        # One input at a time: a beat's read and a live frame never both move the cursor.
        self._turn = asyncio.Lock()

    async def hello(self, last_seq: int) -> None:
        """The page's hello: kept until it is done, so when the database fails it now it is
        tried again shortly (``_greet_again``) and at the scene's beats, and the live frames
        that wait for it go out then (before, such a page heard nothing until it reloaded)."""
        await self.feed(Hello(last_seq))
        try:
            await self.feed(Greet(await self.transport.newest()))
        except _DOWN:
            if self.greeter is None or self.greeter.done():
                self.greeter = asyncio.ensure_future(self._greet_again())
            raise

    async def _greet_again(self) -> None:
        """Try a failed hello again, sooner than the scene's beat, with a growing jittered wait
        (a busy moment passes; a storm's sockets don't all come back at once)."""
        wait = self.transport.greet_again_seconds()
        while self.cursor.greeting is not None and not (
            self.transport.left or self.transport.ended
        ):
            await asyncio.sleep(wait * (0.5 + _jitter.random()))
            try:
                await self.feed(Greet(await self.transport.newest()))
            except _DOWN as exc:
                outage.database.failed(exc)
                wait = min(wait * 2, settings.SCENE_HEARTBEAT_SECONDS)

    async def catch_up(self, why: type[Input], newest: int | None = None) -> None:
        """Send what the page lacks up to ``newest`` (read now when not given): the layer
        back (``LayerBack``), a command done while it was down (``CommandDone``)."""
        if self.cursor.last is None:
            return
        await self.feed(why(newest if newest is not None else await self.transport.newest()))

    async def beat(self, newest: int) -> None:
        """The scene's heartbeat: the database has events up to ``newest``."""
        try:
            await self.feed(Beat(newest))
        except _DOWN as exc:
            outage.database.failed(exc)  # the next beat tries again

    async def feed(self, event: Input) -> None:
        """Carry out what ``event`` asks, moving the cursor past each effect once it is done."""
        async with self._turn:
            for effect, after in step(self.cursor, event):
                if effect is not None:
                    await self._carry_out(effect)
                self.cursor = after

    async def _carry_out(self, effect: Effect) -> None:
        if isinstance(effect, Send):
            frames: list[str] | tuple[str, ...] = effect.frames
        elif isinstance(effect, Read):
            frames = await replay.replay(
                scene_id=self.scene_id,
                viewer=self.viewer,
                after_seq=effect.after,
                upto_seq=effect.upto,
            )
        else:
            assert isinstance(effect, Reload)
            await self.transport.reload(effect.reason)
            return
        for frame in frames:
            await self.transport.send_frame(frame)
