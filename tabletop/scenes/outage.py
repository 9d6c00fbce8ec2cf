"""Outages of what a scene depends on (the channel layer, the database): one log line when one
starts and one when it ends, not a traceback per frame (a 10 s Redis outage wrote hundreds per
process), and a quick answer while it lasts instead of a wait on a dead server.

``layer`` trips on a failed or timed-out layer call: while it is down, sends are skipped at once
(the events are committed; sockets catch up from the database) except one probe a second, and
the scene beats come quicker so the table still sees what happens. Its recovery runs the
``on_recovery`` callbacks (sockets join their groups again: an empty Redis has none).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

#: While down, a call is let through this often to see whether the service is back.
PROBE_EVERY_SECONDS = 1.0


class Outage:
    def __init__(self, name: str, consequence: str) -> None:
        self.name = name
        self.consequence = consequence
        self.since: float | None = None
        self.failures = 0
        self.probed_at = 0.0
        self.on_recovery: list[Callable[[], None]] = []
        #: Asks the service whether it is back (True when it answers); run once a second while
        #: it is down, so recovery is noticed even when no call is waiting on it (the core
        #: layer's receive only returns with a message, and none come before groups rejoin).
        self.probe: Callable[[], Awaitable[bool]] | None = None
        self.probing: asyncio.Task | None = None

    @property
    def down(self) -> bool:
        return self.since is not None

    def worth_trying(self) -> bool:
        """Whether to make a call now: always while up; once a second while down."""
        if self.since is None:
            return True
        now = time.monotonic()
        if now - self.probed_at >= PROBE_EVERY_SECONDS:
            self.probed_at = now
            return True
        return False

    def skipped(self) -> None:
        """A call not made while down (it would have failed): counted for the closing line, and
        the probe kept running on this loop."""
        self.failures += 1
        self.keep_probing()

    def failed(self, error: BaseException | str) -> None:
        if getattr(error, "process_busy", False):
            return  # the process was too busy to ask (``onloop.Busy``): the service is fine
        self.failures += 1
        if self.since is None:
            self.since = self.probed_at = time.monotonic()
            log.error("%s is not answering (%s); %s", self.name, _brief(error), self.consequence)
        self.keep_probing()

    def keep_probing(self) -> None:
        """While down, make sure a probe runs on this thread's loop (one from a loop that has
        since closed, a test's, would never notice the return)."""
        if self.since is None or self.probe is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop in this thread: the next call on the loop starts it
        running = self.probing
        if running is None or running.done() or running.get_loop() is not loop:
            self.probing = loop.create_task(self._probe())

    async def _probe(self) -> None:
        while self.since is not None:
            await asyncio.sleep(PROBE_EVERY_SECONDS)
            try:
                back = await self.probe()
            except Exception:
                back = False
            if back:
                self.answered()

    def answered(self) -> None:
        if self.since is None:
            return
        took = time.monotonic() - self.since
        log.warning(
            "%s answers again after %.1f s (%d calls failed or skipped meanwhile)",
            self.name,
            took,
            self.failures,
        )
        self.since, self.failures = None, 0
        for callback in list(self.on_recovery):
            try:
                callback()
            except Exception:
                log.exception("recovery from the %s outage", self.name)


def _brief(error: BaseException | str) -> str:
    if isinstance(error, str):
        return error
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:200] if text else type(error).__name__


layer = Outage(
    "The channel layer (Redis)",
    "events are delivered from the database until it returns",
)
database = Outage("The database", "commands are answered with an error until it returns")


class OncePerMinute(logging.Filter):
    """Lets a logger's repeated record (same place, same message) through once a minute, with
    how many were held back: a library that logs a traceback every second of an outage
    (channels_redis's pub/sub receiver) says so once."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[tuple[str, int, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.pathname, record.lineno, str(record.msg))
        now = time.monotonic()
        shown_at, held = self.seen.get(key, (-60.0, 0))
        if now - shown_at < 60:
            self.seen[key] = (shown_at, held + 1)
            return False
        self.seen[key] = (now, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like it in the last minute)"
        return True
