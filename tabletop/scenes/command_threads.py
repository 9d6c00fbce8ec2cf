"""The command threads: a socket's database calls, run off the event loop in its scene's order,
with the channel-layer sends each makes held until it returns.

Actions broadcast after commit, from the thread that ran them. Called from a socket, that is
a command thread, and an ``async_to_sync(group_send)`` there parks the thread until
the event loop has sent (a Redis round trip per group): every other socket's command waits
behind it. So ``run_holding`` and ``run_in_scene`` hand the call a ``Held`` outlet (its
``sends`` argument), which the call passes down (a command in its ``CommandContext``, to
``record`` and ``deliver``): its sends wait there, the consumer's coroutine sends them once the
database call returns, and the database thread goes on with the next call. Anything else (HTTP
views, management commands) sends through ``AT_ONCE``, at once, as before.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol, TypeVar

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connections

from tabletop.scenes import outage

log = logging.getLogger(__name__)

T = TypeVar("T")

Message = tuple[str, dict[str, Any]]

#: The longest a send to the layer may take before it counts as failed (a stalled Redis held
#: sends for as long as it stalled; a socket catches up from the database instead).
LAYER_SEND_SECONDS = 2.0

_locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}


class Sends(Protocol):
    """Where an action's channel-layer sends go: ``AT_ONCE`` or a command thread's ``Held``."""

    def send(self, group: str, message: dict[str, Any]) -> None: ...


class AtOnce:
    """Sends at once, from sync code (a view, a management command): ``group_send``."""

    def send(self, group: str, message: dict[str, Any]) -> None:
        group_send(group, message)  # looked up now: tests catch what is sent there


AT_ONCE = AtOnce()


class Held:
    """The sends of one database call on a command thread, held until it returns (``run``)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def send(self, group: str, message: dict[str, Any]) -> None:
        self.messages.append((group, message))


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to ``group`` at once, from sync code outside a command thread; raises
    when the layer fails (a held send is flushed from the loop and logs instead)."""
    if getattr(_holding, "call", False):
        # A call on a command thread sends through the outlet it was handed: a path that did
        # not pass it on still sends (at once, parking the thread until the loop has sent, and
        # perhaps before the call's held sends: a socket then reads the gap), and says so.
        log.error(
            "a send at once from a command thread (%s): pass the command's context down",
            message.get("type"),
            stack_info=settings.DEBUG,
        )
    async_to_sync(get_channel_layer().group_send)(group, message)


#: Set on a thread while it runs a call whose sends are held: ``AtOnce`` refuses there. It only
#: checks (it never decides where a send goes): the outlet is passed down, explicitly.
_holding = threading.local()


async def send_now(group: str, message: dict[str, Any]) -> None:
    """Send one message from the loop, in line with the sends ``run`` flushes (bounded and
    skipped while the layer is down, as theirs)."""
    async with _flush_lock():
        await _flush([(group, message)])


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
    """Run a sync call that sends nothing (a read) on the database thread."""
    return await database_sync_to_async(partial(_once_more_if_stale, func, **kwargs))()


async def run_holding(func: Callable[..., T], /, **kwargs: Any) -> T:
    """Run a sync action on the database thread, handing it a ``Held`` outlet (``sends``);
    send what it held from this loop, in the order the thread's calls finished."""
    held = Held()
    call = partial(_marked, _once_more_if_stale, func, sends=held, **kwargs)
    try:
        return await database_sync_to_async(call)()
    finally:
        if held.messages:
            async with _flush_lock():
                await _flush(held.messages)


async def run_in_scene(scene_id: int, func: Callable[..., T], /, **kwargs: Any) -> T:
    """``run_holding`` for work on one scene, off the shared database thread when there is a
    pool.

    With ``SCENE_COMMAND_THREADS`` (PostgreSQL), scenes' commands run side by side on a small
    pool of threads (each with its own connection): one scene's wait for the database no longer
    holds up every other scene. Work on one scene stays in order: it waits for the scene's
    previous call (a lock per scene, first come first served), and its broadcast goes out
    after the previous call's (``_after_previous``), so each group still receives a scene's
    seqs in order. The lock is not held for the broadcast: no command waits on the network
    (a stalled Redis held every later command of the scene behind it).
    """
    pool = _pool()
    if pool is None:
        return await run_holding(func, **kwargs)
    loop = asyncio.get_running_loop()
    held = Held()
    call = partial(_marked, _tidy_call, func, sends=held, **kwargs)

    def on_pool() -> Awaitable[T]:
        # The plain executor hop, in a copy of this task's context (as asgiref's): its
        # SyncToAsync adds thread-sensitivity bookkeeping a pool thread does not need
        # (Django's connections are per thread) and cost a fifth more per hop (bench/README.md).
        return loop.run_in_executor(pool, contextvars.copy_context().run, call)

    queued = None
    try:
        async with _scene_lock(scene_id):
            try:
                return await on_pool()
            finally:
                # Still under the lock: the scene's broadcasts line up in its calls' order.
                queued = _queue_flush(scene_id)
    finally:
        if queued is not None:
            await _after_previous(scene_id, *queued, held.messages)


def _marked(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``func`` called with this thread marked as running a held call (``AtOnce`` checks)."""
    _holding.call = True
    try:
        return func(*args, **kwargs)
    finally:
        _holding.call = False


_flush_tails: dict[tuple[asyncio.AbstractEventLoop, int], asyncio.Future] = {}


def _queue_flush(scene_id: int) -> tuple[asyncio.Future | None, asyncio.Future]:
    """Take the scene's next place in its line of broadcasts: (the one before, this one)."""
    loop = asyncio.get_running_loop()
    mine = loop.create_future()
    previous = _flush_tails.get((loop, scene_id))
    _flush_tails[(loop, scene_id)] = mine
    return previous, mine


async def _after_previous(
    scene_id: int, previous: asyncio.Future | None, mine: asyncio.Future, box: list[Message]
) -> None:
    try:
        if previous is not None:
            await asyncio.shield(previous)  # each send is bounded (``_flush``): so is the wait
        if box:
            await _flush(box)
    finally:
        mine.set_result(None)
        key = (asyncio.get_running_loop(), scene_id)
        if _flush_tails.get(key) is mine:
            del _flush_tails[key]  # nobody queued behind: the line is empty


#: A pool thread's connection that was tidied (checked, recycled when too old) this recently
#: goes straight to work: Django's tidying before every call also made the next query pay a
#: ``SELECT 1`` health check, a round trip per command (bench/README.md).
TIDY_EVERY_SECONDS = 1.0
_tidied = threading.local()


def _once_more_if_stale(func: Callable[..., T], /, **kwargs: Any) -> T:
    """Call ``func``; if it failed because its database connection had died (PostgreSQL
    restarted: the first call on each pooled connection met a closed socket), call it once
    more on a new connection. Safe: it wrote nothing on a dead connection, and a command that
    might have committed is recorded once whatever happens (``actions.run_command``)."""
    try:
        return func(**kwargs)
    except (OperationalError, InterfaceError):
        if all(c.connection is None or c.is_usable() for c in connections.all()):
            raise  # the connection is fine: the statement itself failed (a timeout...)
        close_old_connections()
        for connection in connections.all(initialized_only=True):
            if connection.connection is not None and not connection.is_usable():
                connection.close()
        return func(**kwargs)


def _tidy_call(func: Callable[..., T], /, **kwargs: Any) -> T:
    # As database_sync_to_async (stale or broken connections are closed before and after),
    # but at most once a second for a thread whose connection has had no error.
    now = time.monotonic()
    if now - getattr(_tidied, "at", -TIDY_EVERY_SECONDS) >= TIDY_EVERY_SECONDS:
        close_old_connections()
        _tidied.at = now
    try:
        return _once_more_if_stale(func, **kwargs)
    finally:
        if any(c.errors_occurred for c in connections.all(initialized_only=True)):
            close_old_connections()  # a broken connection is closed now, not reused
            _tidied.at = -TIDY_EVERY_SECONDS


_executor: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor | None:
    global _executor
    threads = settings.SCENE_COMMAND_THREADS
    if threads < 2:
        return None
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="scene-command")
    return _executor


def close_pool() -> None:
    """Close every pool thread's database connection and the pool (a test database can only
    be dropped once no connection is open on it; a new pool starts on the next command)."""
    global _executor
    pool, _executor = _executor, None
    if pool is None:
        return
    threads = pool._max_workers
    # One task per thread: each waits for the others, so no thread runs two of them.
    everyone = threading.Barrier(threads)

    def close() -> None:
        everyone.wait(timeout=10)
        connections.close_all()

    for done in [pool.submit(close) for _ in range(threads)]:
        done.result()
    pool.shutdown()


_scene_locks: dict[asyncio.AbstractEventLoop, weakref.WeakValueDictionary[int, asyncio.Lock]] = {}


def _scene_lock(scene_id: int) -> asyncio.Lock:
    # Kept while anyone holds or waits for it (the caller's reference), then forgotten.
    loop = asyncio.get_running_loop()
    locks = _scene_locks.get(loop)
    if locks is None:
        for old in [old for old in _scene_locks if old.is_closed()]:
            del _scene_locks[old]
        locks = _scene_locks[loop] = weakref.WeakValueDictionary()
    lock = locks.get(scene_id)
    if lock is None:
        lock = locks[scene_id] = asyncio.Lock()
    return lock


async def _flush(box: list[Message]) -> None:
    """Send the messages in order, one event at a time. One event's messages go to its
    audiences' groups at once (a hidden roll's three: the GM's, the roller's, the other
    players'): each socket takes one frame of an event at most, so their order between groups
    is nobody's, and a publish is a round trip to Redis."""
    layer = get_channel_layer()
    if outage.layer.down:
        # The events are committed and sockets catch up from the database; the outage's probe
        # notices the layer's return (a send here would wait out its bound in every command).
        outage.layer.skipped()
        return

    async def send(group: str, message: dict[str, Any]) -> None:
        try:
            await asyncio.wait_for(layer.group_send(group, message), LAYER_SEND_SECONDS)
        except Exception as exc:  # one log line per outage (``outage``), not one per message
            outage.layer.failed(exc)
        else:
            outage.layer.answered()

    for _event, batch in itertools.groupby(box, key=_event_of):
        await asyncio.gather(*(send(group, message) for group, message in batch))


def _event_of(item: Message) -> object:
    """What groups a box's messages into runs sent at once: a scene event's seq; anything
    else goes alone."""
    message = item[1]
    seq = message.get("seq") if message.get("type") == "scene.event" else None
    return object() if seq is None else seq


async def _layer_answers() -> bool:
    """Whether the layer answers: a send to a group nobody is in (a Redis round trip)."""
    layer = get_channel_layer()
    await asyncio.wait_for(layer.group_send("outage-probe", {"type": "probe"}), LAYER_SEND_SECONDS)
    return True


outage.layer.probe = _layer_answers
