"""The live scene socket: parse a command, call an action, forward frames. Nothing else.

Delivery: every event message on the layer carries its seq, even for sockets that may see nothing of
it, so each socket knows the newest seq it should have. A seq jump (a dropped layer message)
triggers a catch-up from the database, filtered for this viewer; so does a heartbeat (one per scene
per process, ``beats``) when what the database had at the previous beat has still not arrived: a
frame that is only late in a busy moment is not fetched twice. A client that reconnects says the
last seq it has ("hello") and gets what it missed, or "reload" when it is too far behind.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import secrets
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, InterfaceError, OperationalError

from rules.core import RulesError
from tabletop.scenes import actions, beats, command_threads, outage
from tabletop.scenes.audiences import Viewer, groups_for
from tabletop.scenes.deliver import REPLAY_LIMIT
from tabletop.scenes.fragments import error_frame
from tabletop.scenes.opening import newest_seq, open_scene, replay
from tabletop.scenes.sockets import session_mark, user_sockets_group

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 16 * 1024
#: daphne's own cap on one incoming message (``--websocket-max-message-size``, 1 MiB unless
#: set), just above MAX_FRAME_BYTES so a frame between the two gets this consumer's clear refusal;
#: on anything bigger daphne drops the connection, no error frame, without buffering it whole.
#: The one number behind the flag in the Makefile's ``run``, docker-compose.yml, tests/servers.py
#: and bench/fanout/servers.py (tests/tabletop/security/test_bad_frames.py checks they agree).
DAPHNE_MAX_MESSAGE_BYTES = 64 * 1024
#: Brackets deeper than this are refused before parsing: Python's json recurses once per level,
#: and 1,000 levels (2 KB) raise RecursionError. Commands are flat forms; a few levels at most.
MAX_DEPTH = 32
RATE_PER_SECOND = 5.0
RATE_BURST = 15.0
#: The longest round trip a page may report (a minute: beyond that it is not a live table).
MAX_RTT_MS = 60_000
#: A command is answered within this many seconds of its arrival: done, refused, or (the
#: database or a lock held it up) "not answering, try again", which is safe: the same command
#: sent again is recorded once. The command itself may still finish; its answer then follows.
ANSWER_WITHIN_SECONDS = 5.0
NOT_ANSWERING = (
    "The table's server is not answering: this was not made yet. Try again in a moment "
    "(it will not be made twice)."
)
DATABASE_DOWN = (
    "The table's server cannot reach its database: this was not made. Try again in a moment."
)
#: The first wait before a hello the database failed is tried again (then doubled, up to the
#: scene's heartbeat, which also tries).
GREET_AGAIN_SECONDS = 0.5
_jitter = secrets.SystemRandom()
SERVER_BUSY = "The table's server is too busy just now: this was not made. Try again in a moment."
#: The id a page gives a command (``cid``) to learn how it ended: a short token of its own.
COMMAND_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: The id in a frame refused unread (a flood): as the page writes it, no JSON parse.
FLOODED_ID = re.compile(r'"cid"\s*:\s*"([A-Za-z0-9_-]{1,40})"')


#: The last item in a socket's command queue: it closed (a frame may be JSON ``null``).
_CLOSED = object()


class ClientError(Exception):
    """A problem with what the client sent; becomes an error frame."""


def _not_json(constant: str) -> float:
    raise ValueError(f"{constant} is not JSON")  # Python's json would accept NaN and Infinity


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is out of range")  # 1e400 would parse as infinity
    return value


#: A JSON string (to its closing quote, or to the end when unterminated) or a bracket. It always
#: matches at a quote, never backtracks: one linear pass, however hostile the text.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[][{}]', re.DOTALL)


def _too_deep(text: str) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH. Up to the first syntax error
    (where json stops) this counts what json would recurse into, never less."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False  # every usual command: no scan
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


class SceneConsumer(AsyncJsonWebsocketConsumer):
    ended = False  # set when the user's session ends (logout, removal...): nothing more flows
    present = False  # its presence row is written (``_arrive``)
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
            log.exception("scene socket failed on %s", message.get("type"))
            await self._leave()
            await self.close(code=1011)
            raise StopConsumer from None

    # --- socket handlers -----------------------------------------------------------------------

    async def connect(self) -> None:
        self.scene_id = int(self.scope["url_route"]["kwargs"]["scene_id"])
        try:
            # Authorised once, from the session: who is asking and what they may see.
            opening = await open_scene(self.scope["session"], self.scene_id)
        except (OperationalError, InterfaceError) as exc:
            outage.database.failed(exc)  # the handshake is refused; the page tries again
            await self.close()
            return
        user = opening.user
        if not user.is_authenticated:
            # The login ended while the page was away (expired, logged out elsewhere): say so,
            # so the page offers the way back instead of retrying for ever.
            await self.accept()
            await self.send_json({"type": "ended", "reason": "your session expired"})
            self.ended = True  # a frame that arrives before the close is not a command
            await self.close(code=4401)
            return
        access = opening.access
        if access is None:
            await self.close(code=4403)
            return
        self.viewer: Viewer
        self.viewer, self.campaign_id = access
        self.user = user
        self.session = session_mark(getattr(self.scope.get("session"), "session_key", None))
        self.groups_joined = [*groups_for(self.scene_id, self.viewer)]
        self.groups_joined.append(user_sockets_group(user.pk))
        await self.join_groups()
        self.cursor: int | None = None  # newest seq this socket has (None until "hello")
        self.pending: list[dict[str, Any]] = []  # live events that came before "hello"
        self.greeting: int | None = None  # a hello's last_seq until the hello is done
        self.greeter: asyncio.Task[None] | None = None  # trying a failed hello again
        self.tokens = RATE_BURST
        self.tokens_at = time.monotonic()
        self.catching_up = asyncio.Lock()
        self.expected: int | None = None  # the database's newest seq at the previous beat
        self.rtt: int | None = None  # the round trip the page measured last (ms)
        # Commands run one at a time in arrival order, apart from the frames' reading: the
        # rate limit charges a frame when it arrives, not when the one before it is done (a
        # stall then let a backlog land as a burst the limit refused).
        self.commands: asyncio.Queue[tuple[float, Any]] = asyncio.Queue()
        self.worker = asyncio.ensure_future(self._work())
        await self.accept()
        self.present = await self._arrive()
        if self.present:
            beats.announce_presence(self.scene_id)
        beats.join(self.scene_id, self)

    async def _arrive(self) -> bool:
        """Write the socket's presence row; False when the database cannot now. The socket
        stays open and live, and the scene's next beat writes it (``beat``): refused instead,
        a storm of sockets opening on a busy process came back as a storm of retries."""
        try:
            await actions.presence_arrive(
                scene_id=self.scene_id, user=self.user, channel_name=self.channel_name
            )
        except IntegrityError:
            return True  # written by a try whose answer did not come back in time
        except (OperationalError, InterfaceError) as exc:
            outage.database.failed(exc)
            return False
        return True

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.ended:
            return  # a command still in flight after the session ended runs as nobody
        # Every frame costs a token, even one refused unread: garbage can't flood past the limit.
        if not self._take_token():
            # Refused unread; only the command's id is picked out, so the page that waits for
            # its answer (a composer line) hears of the refusal and may send it again.
            cid = FLOODED_ID.search(text_data[:MAX_FRAME_BYTES]) if text_data else None
            await self._refuse(
                {"cid": cid.group(1)} if cid else None,
                "Slow down: too many commands at once. Try again in a moment.",
            )
            return
        try:
            content = self._read(text_data)
        except ClientError as exc:
            await self.send_error(str(exc))
            return
        except Exception:  # whatever the parser did, one bad frame costs one error frame
            log.exception("scene frame not read")
            await self.send_error("Message refused: the server could not read it.")
            return
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("command") == "ping":
            try:  # answered at once, whatever commands wait: it measures the connection
                await self.ping(content)
            except ClientError as exc:
                await self._refuse(content, str(exc))
            return
        self.commands.put_nowait((time.monotonic(), content))

    async def _work(self) -> None:
        """Run the socket's commands in arrival order, each answered within its bound."""
        while True:
            arrived, content = await self.commands.get()
            if content is _CLOSED:
                return  # the socket closed and what it had accepted has run
            if isinstance(content, dict) and content.get("command") == "hello":
                await self._command(content)  # a long catch-up is not a stall
                continue
            running = asyncio.ensure_future(self._command(content))
            bound = ANSWER_WITHIN_SECONDS - (time.monotonic() - arrived)
            try:
                await asyncio.wait_for(asyncio.shield(running), max(bound, 0.05))
            except TimeoutError:
                # It may still be made (its own answer then follows); sent again, it is
                # recorded once. The next command need not wait for it.
                await self._refuse(content, NOT_ANSWERING, retry=True)
            except Exception:
                log.exception("scene command worker")

    async def _command(self, content: Any) -> None:
        try:
            if not isinstance(content, dict):
                raise ClientError("Message refused: expected a JSON object.")
            command = content.get("command")
            if command == "hello":
                await self.hello(content)
            elif isinstance(command, str) and command in actions.COMMANDS:
                cid = content.get("cid")
                follow_up = await command_threads.run_in_scene(
                    self.scene_id,
                    actions.run_command,
                    command=command,
                    scene_id=self.scene_id,
                    user=self.user,
                    data=content,
                    command_id=cid if isinstance(cid, str) and COMMAND_ID.fullmatch(cid) else "",
                )
                if follow_up is not None:
                    asyncio.ensure_future(self._later(follow_up))
                await self._answer(content, error=None)
                if outage.layer.down:
                    await self.catch_up_now()  # its own frame did not come by the layer
            else:
                raise ClientError(f"Unknown command {str(command)[:40]!r}.")
        except actions.CommandRepeated:
            await self._answer(content, error=None, repeat=True)
        except ClientError as exc:
            await self._refuse(content, str(exc))
        except PermissionDenied as exc:
            await self._refuse(content, str(exc) or "You may not do that here.")
        except ValidationError as exc:
            await self._refuse(content, " ".join(exc.messages))
        except RulesError as exc:
            await self._refuse(content, str(exc))
        except (OperationalError, InterfaceError) as exc:
            outage.database.failed(exc)  # one log line for the outage, not one per command
            if isinstance(content, dict) and content.get("command") == "hello":
                return  # tried again by itself (``_greet_soon``): nothing for the page to do
            busy = getattr(exc, "process_busy", False)
            await self._refuse(content, SERVER_BUSY if busy else DATABASE_DOWN, retry=True)
        except Exception:
            # A bug behind one command must not drop the player's live table; actions are atomic.
            log.exception("scene command failed")
            await self._refuse(
                content, "That command failed on the server. Reload if the scene looks stale."
            )
        else:
            outage.database.answered()

    # --- command helpers ----------------------------------------------------------------------

    @staticmethod
    def _read(text_data: str | None) -> Any:
        """The frame's JSON, or ClientError saying why it is refused."""
        try:
            size = len(text_data.encode("utf-8")) if text_data is not None else None
        except UnicodeEncodeError:  # lone surrogates: not text (daphne would not pass them)
            size = None
        if size is None or size > MAX_FRAME_BYTES:
            raise ClientError(f"Message refused: frames must be text under {MAX_FRAME_BYTES} B.")
        if _too_deep(text_data):
            raise ClientError(f"Message refused: nested too deeply (over {MAX_DEPTH} levels).")
        try:
            return json.loads(text_data, parse_constant=_not_json, parse_float=_finite_float)
        except ValueError:
            raise ClientError("Message refused: it is not valid JSON.") from None

    async def _leave(self) -> None:
        """Leave the groups, the scene's beat and its presence list: once, and only after
        ``connect`` joined them (a refused socket joined nothing)."""
        if not hasattr(self, "groups_joined") or self.left:
            return
        self.left = True
        self.commands.put_nowait((time.monotonic(), _CLOSED))  # what it accepted still runs
        beats.leave(self.scene_id, self)
        if not outage.layer.down:
            try:
                for group in self.groups_joined:
                    await asyncio.wait_for(
                        self.channel_layer.group_discard(group, self.channel_name),
                        command_threads.LAYER_SEND_SECONDS,
                    )
            except Exception as exc:  # down: its groups expire (settings.CHANNEL_LAYERS)
                outage.layer.failed(exc)
        try:
            await actions.presence_depart(channel_name=self.channel_name)
        except (OperationalError, InterfaceError) as exc:
            outage.database.failed(exc)  # its presence row goes stale and drops out
        await beats.announce_departure(self.scene_id)

    def _take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RATE_BURST, self.tokens + (now - self.tokens_at) * RATE_PER_SECOND)
        self.tokens_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def hello(self, content: dict[str, Any]) -> None:
        last_seq = content.get("last_seq", 0)
        if isinstance(last_seq, bool) or not isinstance(last_seq, int) or last_seq < 0:
            raise ClientError("hello needs last_seq, the newest seq you have (a whole number).")
        # Kept until the hello is done: when the database fails it now, it is tried again
        # shortly and at the scene's beats, and the live frames that wait for it go out then.
        # Before, such a page heard nothing more until it reloaded.
        self.greeting = last_seq
        try:
            await self._greet(await newest_seq(self.scene_id))
        except (OperationalError, InterfaceError):
            self._greet_soon()
            raise

    def _greet_soon(self) -> None:
        if self.greeter is None or self.greeter.done():
            self.greeter = asyncio.ensure_future(self._greet_again())

    async def _greet_again(self) -> None:
        """Try a failed hello again, sooner than the scene's beat, with a growing jittered wait
        (a busy moment passes; a storm's sockets don't all come back at once)."""
        wait = GREET_AGAIN_SECONDS
        while self.greeting is not None and not self.left and not self.ended:
            await asyncio.sleep(wait * (0.5 + _jitter.random()))
            try:
                await self._greet(await newest_seq(self.scene_id))
            except (OperationalError, InterfaceError) as exc:
                outage.database.failed(exc)
                wait = min(wait * 2, settings.SCENE_HEARTBEAT_SECONDS)

    async def _greet(self, newest: int) -> None:
        """Finish the hello: what the page missed up to ``newest``, then the frames that came
        meanwhile; or "reload" when it is too far behind."""
        async with self.catching_up:
            if self.greeting is None:
                return  # done already (a beat and a hello, or two hellos)
            if newest - self.greeting > REPLAY_LIMIT:
                await self.send_json({"type": "reload", "reason": "too far behind"})
                await self.close()
                return
            self.cursor = min(self.greeting, newest)
            try:
                if self.cursor < newest:  # the usual page load is current: nothing to fetch
                    await self._catch_up(newest)
            except BaseException:
                self.cursor = None  # not greeted: frames keep waiting, the next beat tries
                raise
            self.greeting = None
            pending, self.pending = self.pending, []
        for message in pending:
            await self.scene_event(message)

    async def ping(self, content: dict[str, Any]) -> None:
        """The page measures its round trip: answer at once, off the database thread, and pass
        the trip it measured last time on to the table (the presence list shows each
        member's). Nothing here is secret: the times are the table's to see."""
        sent = content.get("t")
        if isinstance(sent, bool) or not isinstance(sent, int | float):
            raise ClientError("ping needs t, a number the page sent (its clock).")
        await self.send_json({"type": "pong", "t": sent})
        rtt = content.get("rtt")
        if rtt is None:
            return
        if isinstance(rtt, bool) or not isinstance(rtt, int | float) or not 0 <= rtt <= MAX_RTT_MS:
            raise ClientError(f"ping's rtt is a round trip in milliseconds (0 to {MAX_RTT_MS}).")
        # Kept here: the scene's next beat takes it to the table with the presence list, when
        # it changed by a step a person would notice (a group send per ping cost the table
        # eight frames every five seconds per member: bench/README.md, "Idle tables").
        self.rtt = round(rtt)

    async def catch_up_now(self, newest: int | None = None) -> None:
        """Send what this viewer is missing up to ``newest`` (read now when not given)."""
        if self.cursor is None:
            return
        if newest is None:
            newest = await newest_seq(self.scene_id)
        async with self.catching_up:
            if self.cursor < newest:
                await self._catch_up(newest)

    async def join_groups(self) -> bool:
        """Join the socket's groups (again, after the layer came back empty); False while the
        layer is down: the socket stays open and catches up from the database meanwhile."""
        try:
            for group in self.groups_joined:
                await asyncio.wait_for(
                    self.channel_layer.group_add(group, self.channel_name),
                    command_threads.LAYER_SEND_SECONDS,
                )
        except Exception as exc:
            outage.layer.failed(exc)
            return False
        outage.layer.answered()
        return True

    async def _catch_up(self, upto: int) -> None:
        """Send what this viewer may see in (cursor, upto] from the database."""
        frames = await replay(
            scene_id=self.scene_id, viewer=self.viewer, after_seq=self.cursor, upto_seq=upto
        )
        for frame in frames:
            await self.send(text_data=frame)
        self.cursor = max(self.cursor, upto)

    async def _later(self, follow_up: actions.FollowUp) -> None:
        """Run an action's follow-up (a spend's cancel window closing) after its delay. If this
        process dies first, the scene's heartbeat in another process settles it (``beats``)."""
        await asyncio.sleep(follow_up.delay)
        try:
            await command_threads.run_in_scene(self.scene_id, follow_up.run)
        except Exception:
            log.exception("scene follow-up failed")

    async def beat(self, newest_seq: int) -> None:
        """The scene's heartbeat says the database has events up to ``newest_seq``. Catch up
        only on what was already missing at the previous beat (a dropped message), not on
        frames still on their way."""
        if self.ended:
            return
        if not self.present and await self._arrive():  # its row, missing since it opened
            self.present = True
            beats.announce_presence(self.scene_id)
        if self.cursor is None:
            if self.greeting is not None:  # a hello the database failed: finished now
                try:
                    await self._greet(newest_seq)
                except (OperationalError, InterfaceError) as exc:
                    outage.database.failed(exc)  # the next beat tries again
            return
        missing, self.expected = self.expected, newest_seq
        if missing is not None and self.cursor < missing:
            async with self.catching_up:
                await self._catch_up(newest_seq)

    async def send_error(self, message: str) -> None:
        await self.send(text_data=error_frame(message))

    async def _refuse(self, content: Any, message: str, *, retry: bool = False) -> None:
        await self.send_error(message)
        await self._answer(content, error=message, retry=retry)

    async def _answer(
        self, content: Any, *, error: str | None, retry: bool = False, repeat: bool = False
    ) -> None:
        """Tell the page how the command it named (``cid``) ended: done, or refused and why.
        The page keeps a form or the composer's line as the user left it until it is done, so
        a refused roll is fixed and sent again, never reset (a hidden mode back to public)."""
        cid = content.get("cid") if isinstance(content, dict) else None
        if not isinstance(cid, str) or not COMMAND_ID.fullmatch(cid):
            return  # no id (a script, an old page) or not one of ours: nothing to answer
        answer: dict[str, Any] = {"type": "done", "cid": cid}
        if error is not None:
            answer["error"] = error
        if retry:
            answer["retry"] = True  # not made (or not yet): the same id may be sent again
        if repeat:
            answer["repeat"] = True  # made before, under the same id: not made again
        await self.send_json(answer)

    # --- channel-layer handlers ---------------------------------------------------------------

    async def scene_event(self, message: dict[str, Any]) -> None:
        if self.user.pk in message.get("exclude", ()):
            return  # this viewer gets its own rendering of the event through its user group
        if self.cursor is None:
            self.pending.append(message)
            return
        seq = message["seq"]
        async with self.catching_up:
            if seq <= self.cursor:
                return  # already delivered by a replay
            if seq > self.cursor + 1:
                await self._catch_up(seq - 1)  # a message was lost on the layer
            if message["html"]:
                await self.send(text_data=message["html"])
            self.cursor = seq

    async def scene_presence(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["html"])

    async def session_end(self, message: dict[str, Any]) -> None:
        if message.get("campaign_id") not in (None, self.campaign_id):
            return  # removed from another campaign: this table stays open
        if "sessions" in message and self.session not in message["sessions"]:
            return  # another login of this user ended
        if self.session and message.get("except_session") == self.session:
            return  # the page that signed out the others
        await self.send_json({"type": "ended", "reason": message.get("reason", "")})
        # Stop delivery now, not when the client acknowledges the close: leave every group and
        # let ``send`` drop whatever was already queued for this socket.
        self.ended = True
        beats.leave(self.scene_id, self)
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await self.close(code=4401)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        if self.ended or self.left:
            return  # the session ended, or the socket closed: not one more frame
        await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
