"""Statements on the event loop (PostgreSQL): a few asynchronous connections per loop
(psycopg's async API), for the statements a socket's opening and its presence need (built in
``sockets``), so a socket that opens never waits for a database thread.

Every socket opening used to hop to Channels' one database thread four times (the session, the
user, the scene, its presence) and once more for its hello: 800 sockets of a table restart
queued 4,000 hops behind each other, and each hop handed the GIL over twice (bench/README.md,
"Issue 37, the hot path as a design step"). Here a statement is awaited on the loop like a
Redis call.

A statement is bounded (``WITHIN_SECONDS``): a stalled database is a quick error, never a socket
waiting for ever. Errors come out as Django's (``django.db.OperationalError`` and its kin), so
callers handle them as they handle the ORM's. A connection that broke (the server restarted)
is dropped, and the statement runs once more on a new one.

The SQLite default has no such connection (``available`` says so): its callers take the
database thread, as before. ``LOOP_STATEMENTS=0`` does the same on PostgreSQL (for measuring
one against the other).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import weakref
from collections.abc import Sequence
from typing import Any

import psycopg
from django.db import connections
from django.db import utils as django_errors
from psycopg.pq import TransactionStatus

IDLE = TransactionStatus.IDLE

#: Connections each event loop keeps open at most (a socket's opening holds one for one
#: statement; more would only queue in the server).
CONNECTIONS_PER_LOOP = int(os.environ.get("LOOP_DATABASE_CONNECTIONS", "2"))
#: A statement on the loop is given up after this long (a stalled or paused database): within
#: daphne's 5 s for a socket's handshake (``--websocket_connect_timeout``), so a socket that
#: opens meanwhile is refused with an answer (403) and its page tries again, where daphne would
#: cut the connection without one.
WITHIN_SECONDS = 3.0


class Busy(django_errors.OperationalError):
    """Every connection of this loop stayed taken for the whole bound: this process is busy
    (a storm of sockets opening at once), which is not the database failing. It is still a
    refusal (an ``OperationalError``, handled where those are: the socket's page tries again),
    but no outage (``outage.Outage.failed`` passes it by): a slow box's storm once declared the
    database down and refused every command for seconds (bench/README.md, "Lever 2, measured")."""

    process_busy = True


def available() -> bool:
    """Whether statements can run on the loop: PostgreSQL, and not switched off."""
    if os.environ.get("LOOP_STATEMENTS", "1") == "0":
        return False
    return connections["default"].vendor == "postgresql"


class _Connections:
    """One loop's connections: at most ``CONNECTIONS_PER_LOOP`` at once, kept while they work."""

    def __init__(self) -> None:
        self.free: list[psycopg.AsyncConnection] = []
        self.every: set[psycopg.AsyncConnection] = set()
        self.slots = asyncio.Semaphore(CONNECTIONS_PER_LOOP)

    async def _connect(self) -> psycopg.AsyncConnection:
        params = connections["default"].get_connection_params()
        params.pop("cursor_factory", None)  # a sync cursor class; async cursors are psycopg's own
        # The time zone Django sets on its own connections (``_configure_timezone``), given at
        # connect: no statement more.
        if zone := connections["default"].timezone_name:
            params["options"] = f"{params.get('options', '')} -c TimeZone={zone}".strip()
        # Parameters bound on the client, as Django's cursors bind them: the same SQL and values
        # run here as on a database thread.
        conn = await psycopg.AsyncConnection.connect(
            autocommit=True, cursor_factory=psycopg.AsyncClientCursor, **params
        )
        self.every.add(conn)
        return conn

    async def take(self, within: float) -> tuple[psycopg.AsyncConnection, bool]:
        """A connection (waiting for a slot, then connecting, each within ``within`` s), and
        whether it was kept from before: a kept one may have been cut since. Give it back with
        ``give_back``. ``Busy`` when no slot came free in time."""
        try:
            async with asyncio.timeout(within):
                await self.slots.acquire()
        except TimeoutError:
            raise Busy(
                f"every database connection of this process stayed busy for {within:g} s"
            ) from None
        try:
            if self.free:
                return self.free.pop(), True
            async with asyncio.timeout(within):  # a server that does not answer a connect
                return await self._connect(), False
        except BaseException:
            self.slots.release()
            raise

    def give_back(self, conn: psycopg.AsyncConnection) -> None:
        """Keep the connection for the next statement if it is in order, else close it."""
        if conn in self.every and not conn.broken and conn.info.transaction_status == IDLE:
            self.free.append(conn)
        else:
            self.drop(conn)
        self.slots.release()

    def drop(self, conn: psycopg.AsyncConnection) -> None:
        self.every.discard(conn)
        with contextlib.suppress(ValueError):
            self.free.remove(conn)  # closed before it was given back: not kept
        # Closed at once, without waiting on a server that may not answer.
        conn.pgconn.finish()

    def close(self) -> None:
        for conn in list(self.every):
            self.drop(conn)


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Connections] = (
    weakref.WeakKeyDictionary()
)


def _here() -> _Connections:
    loop = asyncio.get_running_loop()
    found = _loops.get(loop)
    if found is None:
        for old in [old for old in _loops if old.is_closed()]:
            _loops.pop(old).close()
        found = _loops[loop] = _Connections()
    return found


def close_all() -> None:
    """Close every loop's connections (a test database can be dropped only once none is open;
    the next statement opens a new one)."""
    for found in list(_loops.values()):
        found.close()
    _loops.clear()


#: Django's database errors by name, the most particular first (psycopg's have the same names).
_DJANGO_ERRORS = (
    "DataError",
    "IntegrityError",
    "InternalError",
    "ProgrammingError",
    "NotSupportedError",
    "OperationalError",
    "InterfaceError",
    "DatabaseError",
)


def _django_error(exc: BaseException) -> django_errors.Error:
    """The error as Django's wrapper would raise it from the ORM."""
    if isinstance(exc, TimeoutError):
        return django_errors.OperationalError(
            f"the database did not answer within {WITHIN_SECONDS:g} s"
        )
    names = {k.__name__ for k in type(exc).__mro__}
    for name in _DJANGO_ERRORS:
        if name in names:
            return getattr(django_errors, name)(*exc.args)
    return django_errors.Error(*exc.args)


async def _statement(
    here: _Connections,
    conn: psycopg.AsyncConnection,
    sql: str,
    params: Sequence[Any],
    fetch: bool,
    within: float,
) -> list[tuple[Any, ...]]:
    async def run() -> list[tuple[Any, ...]]:
        cursor = await conn.execute(sql, params)
        return await cursor.fetchall() if fetch else []

    running = asyncio.ensure_future(run())
    finished = False
    try:
        finished = bool((await asyncio.wait({running}, timeout=within))[0])
    finally:
        if not finished:
            # Closed first: cancelled while its statement runs, psycopg asks the server to
            # cancel it and waits for the answer (up to 10 s from a paused server); on a
            # closed connection it stops at once.
            here.drop(conn)
            running.cancel()
    if not finished:
        raise TimeoutError
    return running.result()


async def _run(
    sql: str, params: Sequence[Any], fetch: bool, within: float
) -> list[tuple[Any, ...]]:
    here = _here()
    for attempt in (1, 2):
        try:
            conn, kept_before = await here.take(within)
        except (psycopg.Error, TimeoutError) as exc:
            raise _django_error(exc) from exc
        try:
            return await _statement(here, conn, sql, params, fetch, within)
        except psycopg.Error as exc:
            # A kept connection the server cut (a restart) fails its next statement: once
            # more, on a new connection. Anything else is the statement's own error.
            if attempt == 1 and kept_before and conn.broken:
                continue
            raise _django_error(exc) from exc
        except TimeoutError as exc:
            raise _django_error(exc) from exc
        finally:
            here.give_back(conn)
    raise AssertionError("unreachable")


async def fetch(
    sql: str, params: Sequence[Any], *, within: float = WITHIN_SECONDS
) -> list[tuple[Any, ...]]:
    """The rows ``sql`` reads, run on this loop (autocommit), given up after ``within`` s."""
    return await _run(sql, params, True, within)


async def execute(sql: str, params: Sequence[Any], *, within: float = WITHIN_SECONDS) -> None:
    """Run ``sql`` on this loop (autocommit: it is committed when this returns)."""
    await _run(sql, params, False, within)
