"""A scene socket's transport (``SteadySocket``), its groups on the channel layer, and ending
a user's open scene sockets (removed from a campaign, logged out).

Kept free of campaign imports so the campaigns actions can call it without an import cycle.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from tabletop.operating import serving
from tabletop.scenes import command_threads, outage


def user_sockets_group(user_id: int) -> str:
    """Every scene socket of one user, whatever the scene."""
    return f"user-{user_id}"


def session_mark(session_key: str | None) -> str:
    """What a socket keeps of the login session that opened it: a hash, so the key itself never
    travels over the channel layer."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:32] if session_key else ""


def end_user_sockets(
    *,
    user_id: int,
    campaign_id: int | None = None,
    reason: str = "",
    sessions: list[str] | None = None,
    except_session: str | None = None,
) -> None:
    """Close the user's sockets: only those on ``campaign_id``'s scenes when given, only those
    opened by the login ``sessions`` (keys) when given, all but those of ``except_session``
    (a key: the page that asked) when given.

    Call it after commit: the sockets close at once, so nothing more reaches them.
    """
    message: dict = {"type": "session.end", "campaign_id": campaign_id, "reason": reason}
    if sessions is not None:
        message["sessions"] = [session_mark(key) for key in sessions]
    if except_session:
        message["except_session"] = session_mark(except_session)
    command_threads.group_send(user_sockets_group(user_id), message)


def ends_here(message: dict[str, Any], *, campaign_id: int, session: str) -> bool:
    """Whether a ``session.end`` message (``end_user_sockets``) ends a socket on a scene of
    ``campaign_id`` opened by the login ``session`` (its mark)."""
    if message.get("campaign_id") not in (None, campaign_id):
        return False  # removed from another campaign: this table stays open
    if "sessions" in message and session not in message["sessions"]:
        return False  # another login of this user ended
    return not (session and message.get("except_session") == session)  # not the page that asked


async def join_groups(layer: Any, groups: list[str], channel: str) -> bool:
    """Join a socket's groups (again, after the layer came back empty); False while the layer
    is down: the socket stays open and catches up from the database meanwhile."""
    try:
        for group in groups:
            await asyncio.wait_for(
                layer.group_add(group, channel), command_threads.LAYER_SEND_SECONDS
            )
    except Exception as exc:
        outage.layer.failed(exc)
        return False
    outage.layer.answered()
    return True


async def leave_groups(layer: Any, groups: list[str], channel: str) -> None:
    """Leave a socket's groups; while the layer is down they expire (settings.CHANNEL_LAYERS)."""
    if outage.layer.down:
        return
    try:
        for group in groups:
            await asyncio.wait_for(
                layer.group_discard(group, channel), command_threads.LAYER_SEND_SECONDS
            )
    except Exception as exc:
        outage.layer.failed(exc)


class SteadySocket(AsyncJsonWebsocketConsumer):
    """A JSON socket whose handlers reach the database themselves, that a bug in one handler
    ends as a disconnect does, and that sends nothing once it has left or its session ended."""

    ended = False  # set when the user's session ends (logout, removal...): nothing more flows
    left = False  # set once the socket has left its groups, beat and presence (``_leave``)

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels' dispatch first hops to the database thread (close_old_connections) for every
        # message, so each frame a socket forwards waited behind every other socket's database
        # work (bench/README.md). Our handlers reach the database only through
        # database_sync_to_async, which closes old connections itself, on that thread.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        try:
            await handler(message)
        except StopConsumer:
            raise
        except Exception:
            # The last resort for a bug no handler caught. Left to Channels, the socket would
            # close (1011) without ``disconnect`` running, and the scene's beat would keep the
            # dead socket at the table. End it as a disconnect does; the browser reconnects.
            log = logging.getLogger(type(self).__module__)  # the socket's own log
            log.exception("scene socket failed on %s", message.get("type"))
            await self._leave()
            await self.close(code=1011)
            raise StopConsumer from None

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        await super().accept(subprotocol, headers)
        serving.socket_opened(self)  # closed with 1012 if the process is told to stop

    async def disconnect(self, code: int) -> None:
        serving.socket_closed(self)
        await self._leave()

    async def _leave(self) -> None:
        """Leave whatever the socket joined (its subclass says what)."""

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        if self.ended or self.left:
            return  # the session ended, or the socket closed: not one more frame
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
