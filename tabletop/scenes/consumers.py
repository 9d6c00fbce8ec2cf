"""The live scene socket: the transport, the rate limit and the hand-off of commands
(one at a time, in arrival order: ``actions.run_command`` on the scene's database line).

What reaches the page is its reader's: a cursor over the scene's sequence (``feed``), fed
every frame, beat and hello; README.md, "Readers and cursors".
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from django.db import InterfaceError, OperationalError

from tabletop.scenes import actions, answers, beats, command_threads, incoming, outage, sockets
from tabletop.scenes.audiences import Viewer, groups_for
from tabletop.scenes.feed.cursor import CommandDone, LayerBack, Live
from tabletop.scenes.feed.socket import SocketReader
from tabletop.scenes.fragments import error_frame
from tabletop.scenes.incoming import DAPHNE_MAX_MESSAGE_BYTES, MAX_DEPTH, MAX_FRAME_BYTES, _too_deep  # noqa: F401
from tabletop.scenes.opening import newest_seq, open_scene

log = logging.getLogger(__name__)

RATE_PER_SECOND = 5.0
RATE_BURST = 15.0
#: A command is answered within this many seconds of its arrival: done, refused, or (the
#: database or a lock held it up) "not answering, try again", which is safe: the same command
#: sent again is recorded once. The command itself may still finish; its answer then follows.
ANSWER_WITHIN_SECONDS = 5.0
#: The first wait before a hello the database failed is tried again (then doubled, up to the
#: scene's heartbeat, which also tries).
GREET_AGAIN_SECONDS = 0.5


#: The last item in a socket's command queue: it closed (a frame may be JSON ``null``).
_CLOSED = object()


class SceneConsumer(sockets.SteadySocket):
    present = False  # its presence row is written (``beats.arrive``)

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
        if opening.access is None:
            await self.close(code=4403)
            return
        self.viewer: Viewer
        self.viewer, self.campaign_id = opening.access
        self.user = user
        self.session = sockets.session_mark(getattr(self.scope.get("session"), "session_key", None))
        self.groups_joined = [
            *groups_for(self.scene_id, self.viewer),
            sockets.user_sockets_group(user.pk),
        ]
        await self.join_groups()
        self.reader = SocketReader(self.scene_id, self.viewer, self)
        self.tokens, self.tokens_at = RATE_BURST, time.monotonic()
        self.rtt: int | None = None  # the round trip the page measured last (ms)
        # Commands run one at a time in arrival order, apart from the frames' reading: the
        # rate limit charges a frame when it arrives, not when the one before it is done (a
        # stall then let a backlog land as a burst the limit refused).
        self.commands: asyncio.Queue[tuple[float, Any]] = asyncio.Queue()
        self.worker = asyncio.ensure_future(self._work())
        await self.accept()
        self.present = await beats.arrive(self.scene_id, self.user, self.channel_name)
        beats.join(self.scene_id, self)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.ended:
            return  # a command still in flight after the session ended runs as nobody
        # Every frame costs a token, even one refused unread: garbage can't flood past the limit.
        if not self._take_token():
            # Refused unread; only the command's id is picked out, so the page that waits for
            # its answer (a composer line) hears of the refusal and may send it again.
            cid = incoming.FLOODED_ID.search(text_data[:MAX_FRAME_BYTES]) if text_data else None
            await self._refuse({"cid": cid.group(1)} if cid else None, answers.FLOODED)
            return
        try:
            content = incoming.read_frame(text_data)
        except incoming.ClientError as exc:
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
            except incoming.ClientError as exc:
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
                await self._refuse(content, answers.NOT_ANSWERING, retry=True)
            except Exception:
                log.exception("scene command worker")

    async def _command(self, content: Any) -> None:
        try:
            await self._hand_off(content)
        except actions.CommandRepeated:
            await self._answer(content, error=None, repeat=True)
        except Exception as exc:
            if not answers.expected(exc):
                log.exception("scene command failed")
            refused = answers.refusal(exc, content)
            if refused is not None:
                await self._refuse(content, refused[0], retry=refused[1])
        else:
            outage.database.answered()

    async def _hand_off(self, content: Any) -> None:
        """The page's hello, or a command handed to its action on the scene's database line."""
        if not isinstance(content, dict):
            raise incoming.ClientError("Message refused: expected a JSON object.")
        command = content.get("command")
        if command == "hello":
            return await self.hello(content)
        if not isinstance(command, str) or command not in actions.COMMANDS:
            raise incoming.ClientError(f"Unknown command {str(command)[:40]!r}.")
        cid = content.get("cid")
        follow_up = await command_threads.run_in_scene(
            self.scene_id,
            actions.run_command,
            command=command,
            scene_id=self.scene_id,
            user=self.user,
            data=content,
            command_id=cid if isinstance(cid, str) and incoming.COMMAND_ID.fullmatch(cid) else "",
        )
        if follow_up is not None:
            asyncio.ensure_future(self._later(follow_up))
        await self._answer(content, error=None)
        if outage.layer.down:
            await self.reader.catch_up(CommandDone)  # its own frame did not come by the layer

    # --- the socket's reader (feed) -------------------------------------------------------------

    @property
    def cursor(self) -> int | None:
        """The newest seq this socket's page has (None until its hello is done)."""
        return self.reader.cursor.last

    @property
    def greeting(self) -> int | None:
        """A hello's last_seq while it waits for the scene's newest seq."""
        return self.reader.cursor.greeting

    async def hello(self, content: dict[str, Any]) -> None:
        await self.reader.hello(incoming.hello_last_seq(content))

    async def catch_up_now(self, newest: int | None = None) -> None:
        """The layer answers again: send what this viewer is missing up to ``newest``."""
        await self.reader.catch_up(LayerBack, newest)

    async def beat(self, newest_seq: int) -> None:
        """The scene's heartbeat: the database has events up to ``newest_seq``."""
        if self.ended:
            return
        if not self.present:  # its row, missing since it opened
            self.present = await beats.arrive(self.scene_id, self.user, self.channel_name)
        await self.reader.beat(newest_seq)

    async def scene_event(self, message: dict[str, Any]) -> None:
        if self.user.pk in message.get("exclude", ()):
            return  # this viewer gets its own rendering of the event through its user group
        await self.reader.feed(Live(message["seq"], message["html"]))

    # What its reader needs of it (``feed.socket.Transport``):

    async def send_frame(self, frame: str) -> None:
        await self.send(text_data=frame)

    async def reload(self, reason: str) -> None:
        await self.send_json({"type": "reload", "reason": reason})
        await self.close()

    async def newest(self) -> int:
        return await newest_seq(self.scene_id)

    def greet_again_seconds(self) -> float:
        return GREET_AGAIN_SECONDS

    async def _leave(self) -> None:
        """Leave the groups, the scene's beat and its presence list: once, and only after
        ``connect`` joined them (a refused socket joined nothing)."""
        if not hasattr(self, "groups_joined") or self.left:
            return
        self.left = True
        self.commands.put_nowait((time.monotonic(), _CLOSED))  # what it accepted still runs
        beats.leave(self.scene_id, self)
        await sockets.leave_groups(self.channel_layer, self.groups_joined, self.channel_name)
        await beats.depart(self.scene_id, self.channel_name)

    def _take_token(self) -> bool:
        now = time.monotonic()
        earned = (now - self.tokens_at) * RATE_PER_SECOND
        self.tokens, self.tokens_at = min(RATE_BURST, self.tokens + earned), now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def ping(self, content: dict[str, Any]) -> None:
        """The page measures its round trip: answer at once, off the database thread, and pass
        the trip it measured last time on to the table (the presence list shows each
        member's). Nothing here is secret: the times are the table's to see."""
        await self.send_json({"type": "pong", "t": incoming.ping_clock(content)})
        rtt = incoming.ping_rtt(content)
        if rtt is not None:
            # Kept here: the scene's next beat takes it to the table with the presence list,
            # when it changed by a step a person would notice (a group send per ping cost the
            # table eight frames every five seconds per member: bench/README.md, "Idle tables").
            self.rtt = rtt

    async def join_groups(self) -> bool:
        """Join the socket's groups (again, after the layer came back empty): ``sockets``."""
        return await sockets.join_groups(self.channel_layer, self.groups_joined, self.channel_name)

    async def _later(self, follow_up: actions.FollowUp) -> None:
        """Run an action's follow-up (a spend's cancel window closing) after its delay. If this
        process dies first, the scene's heartbeat in another process settles it (``beats``)."""
        await asyncio.sleep(follow_up.delay)
        try:
            await command_threads.run_in_scene(self.scene_id, follow_up.run)
        except Exception:
            log.exception("scene follow-up failed")

    async def send_error(self, message: str) -> None:
        await self.send(text_data=error_frame(message))

    async def _refuse(self, content: Any, message: str, *, retry: bool = False) -> None:
        await self.send_error(message)
        await self._answer(content, error=message, retry=retry)

    async def _answer(
        self, content: Any, *, error: str | None, retry: bool = False, repeat: bool = False
    ) -> None:
        """Tell the page how the command it named (``cid``) ended (``answers.answer``)."""
        done = answers.answer(content, error=error, retry=retry, repeat=repeat)
        if done is not None:
            await self.send_json(done)

    # --- channel-layer handlers ---------------------------------------------------------------

    async def scene_presence(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["html"])

    async def session_end(self, message: dict[str, Any]) -> None:
        if not sockets.ends_here(message, campaign_id=self.campaign_id, session=self.session):
            return
        await self.send_json({"type": "ended", "reason": message.get("reason", "")})
        # Stop delivery now, not when the client acknowledges the close: leave every group and
        # let ``send`` drop whatever was already queued for this socket.
        self.ended = True
        beats.leave(self.scene_id, self)
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await self.close(code=4401)
