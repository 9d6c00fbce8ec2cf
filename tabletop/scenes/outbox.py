"""Channel-layer sends of scene actions: from the event loop when a socket ran the action.

Actions broadcast after commit, from the thread that ran them. Called from a socket, that is
daphne's one database thread, and an ``async_to_sync(group_send)`` there parks the thread until
the event loop has sent (a Redis round trip per group): every other socket's command waits
behind it. ``run`` lets the action's sends collect in an outbox instead; the consumer's coroutine
sends them once the database call returns, and the database thread goes on with the next call.
Outside ``run`` (HTTP views, management commands) ``group_send`` sends at once, as before.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

T = TypeVar("T")

Message = tuple[str, dict[str, Any]]

_outbox: ContextVar[list[Message] | None] = ContextVar("scene_outbox", default=None)
_locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to ``group`` (from sync code): now, or when ``run`` flushes its outbox.

    Raises when the layer fails and the send is immediate; a flushed send logs instead (the
    event is committed; sockets catch up from the database).
    """
    box = _outbox.get()
    if box is not None:
        box.append((group, message))
        return
    async_to_sync(get_channel_layer().group_send)(group, message)


def _flush_lock() -> asyncio.Lock:
    # One per event loop: flushes leave in the order their database calls finished (that
    # thread runs one call at a time), so a group sees seqs in order and nobody needs a catch-up.
    loop = asyncio.get_running_loop()
    lock = _locks.get(loop)
    if lock is None:
        for old in [old for old in _locks if old.is_closed()]:
            del _locks[old]
        lock = _locks[loop] = asyncio.Lock()
    return lock


async def run(func: Callable[..., T], /, **kwargs: Any) -> T:
    """Run a sync action on the database thread; send what it broadcast from this loop."""
    box: list[Message] = []
    token = _outbox.set(box)
    try:
        return await database_sync_to_async(func)(**kwargs)
    finally:
        _outbox.reset(token)
        if box:
            await _flush(box)


async def _flush(box: list[Message]) -> None:
    layer = get_channel_layer()
    async with _flush_lock():
        for group, message in box:
            try:
                await layer.group_send(group, message)
            except Exception:
                log.exception("scene message not sent to %s", group)
