"""The processes serving from the database, and a clean stop for each.

Each daphne process writes a ``ServingProcess`` row when it starts and every
``PROCESS_BEAT_SECONDS`` after (from its own thread and connection, never the app's database
thread); a restore refuses while any row was written in the last ``SERVING_SECONDS`` (three
beats: a process that died stops counting then). Told to stop (SIGTERM: compose, systemd, a
rolling restart), the process closes every open scene socket with 1012 ("service restart"),
so pages reconnect at once, to another process behind the proxy, and deletes its row; the
health check answers 503 from then on, so the proxy sends nothing new there.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
import time
import weakref
from datetime import timedelta
from typing import Any

from django.db import DEFAULT_DB_ALIAS, close_old_connections, connection, connections
from django.utils import timezone

from tabletop.operating import schema

log = logging.getLogger(__name__)

PROCESS_BEAT_SECONDS = float(os.environ.get("SERVING_BEAT_SECONDS", "10"))
#: A process seen within this many seconds is serving (three beats).
SERVING_SECONDS = 3 * PROCESS_BEAT_SECONDS
#: The close code for a socket whose process is stopping (RFC 6455: service restart).
RESTARTING = 1012
#: How long a stopping process gives its close frames to leave before it exits.
CLOSE_GRACE_SECONDS = 0.5

#: This process's open scene sockets (weakly: a socket that is gone is gone from here).
_open: weakref.WeakSet[Any] = weakref.WeakSet()
_state = {"stopping": False, "started_at": timezone.now()}
_NAME = f"{socket.gethostname()}:{os.getpid()}:{int(time.time())}"


def socket_opened(consumer: Any) -> None:
    """A scene socket opened (the consumer, once accepted)."""
    _open.add(consumer)


def socket_closed(consumer: Any) -> None:
    _open.discard(consumer)


def stopping() -> bool:
    """True once this process was told to stop."""
    return bool(_state["stopping"])


def serving_processes(alias: str = DEFAULT_DB_ALIAS) -> list[str]:
    """The processes that said they serve from the database within SERVING_SECONDS."""
    from tabletop.operating.models import ServingProcess

    if not schema.table_ready(connections[alias], ServingProcess):
        return []
    now = timezone.now()
    recent = ServingProcess.objects.using(alias).filter(
        last_seen__gte=now - timedelta(seconds=SERVING_SECONDS)
    )
    return [
        f"{p.host} pid {p.pid}, seen {(now - p.last_seen).total_seconds():.0f} s ago"
        for p in recent.order_by("name")
    ]


def beat() -> None:
    """Say this process serves (from a thread of its own, which it leaves unconnected)."""
    from tabletop.operating.models import ServingProcess

    close_old_connections()
    try:
        now = timezone.now()
        ServingProcess.objects.update_or_create(
            name=_NAME,
            defaults={
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "started_at": _state["started_at"],
                "last_seen": now,
            },
        )
    except Exception:  # the database away: the next beat tries again
        log.warning("serving process beat not written", exc_info=True)
    finally:
        connection.close()


def forget() -> None:
    from tabletop.operating.models import ServingProcess

    try:
        ServingProcess.objects.filter(name=_NAME).delete()
    except Exception:
        log.warning("serving process row not deleted", exc_info=True)
    finally:
        connection.close()


async def _beating() -> None:
    while not stopping():
        await asyncio.to_thread(beat)
        await asyncio.sleep(PROCESS_BEAT_SECONDS)


async def close_all(code: int = RESTARTING) -> int:
    """Close every open scene socket of this process with ``code``; how many."""
    sockets = list(_open)
    for consumer in sockets:
        try:
            await consumer.close(code=code)
        except Exception:
            log.warning("a socket not closed with %s", code, exc_info=True)
    return len(sockets)


async def stop() -> None:
    """This process was told to stop: sockets closed with 1012, its row deleted."""
    _state["stopping"] = True
    closed = await close_all()
    log.info("stopping: %s sockets closed with %s (service restart)", closed, RESTARTING)
    await asyncio.gather(asyncio.sleep(CLOSE_GRACE_SECONDS), asyncio.to_thread(forget))


def _allow_restart_code() -> None:
    """Let daphne send 1012. Autobahn's ``sendClose`` takes only 1000 and 3000-4999 from an
    application, though 1012 ("Service Restart") is a registered code (IANA's WebSocket close
    codes) that browsers read as such; its ``sendCloseFrame`` sends any code as given."""
    from daphne.ws_protocol import WebSocketProtocol

    if _state.get("restart_allowed"):
        return
    _state["restart_allowed"] = True
    server_close = WebSocketProtocol.serverClose

    def closing(self: Any, code: int | None = None) -> None:
        if code == RESTARTING:
            self.sendCloseFrame(code=code, isReply=False)
        else:
            server_close(self, code)

    WebSocketProtocol.serverClose = closing


def install_under_daphne() -> None:
    """Under daphne (its server imported): beat once the reactor runs, and ``stop`` before it
    shuts down (SIGTERM, SIGINT), ahead of daphne's own cancelling of every connection."""
    if "daphne.server" not in sys.modules:
        return
    from twisted.internet import defer, reactor

    _allow_restart_code()
    reactor.callWhenRunning(lambda: asyncio.ensure_future(_beating()))
    reactor.addSystemEventTrigger(
        "before", "shutdown", lambda: defer.Deferred.fromFuture(asyncio.ensure_future(stop()))
    )
