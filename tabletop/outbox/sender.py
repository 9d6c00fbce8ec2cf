"""The sender: one thread in each daphne process that sends the outbox (tabletop/outbox/models.py)
and runs the chores that fill it (the durable readers, the mail digests).

There is no separate worker: ``start`` runs it beside the server (tabletop/asgi.py), ``stop``
ends it. Processes share the outbox, and each row is **claimed** before it is sent (``claim``:
``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, a conditional UPDATE on SQLite), for
``CLAIM_SECONDS``, renewed just before its send: two processes never send one row, and a row
claimed by a process that died (killed while sending it: it may have gone) is sent by another
once the claim lapses, within ``CLAIM_SECONDS`` of the death. A transport that fails (a mail
server down) puts the row back with a growing delay (``backoff``) and ends that pass for its
channel (the others' rows still go), so one dead server costs one timeout per pass; after
``MAX_ATTEMPTS`` the row is dropped with its last error. Nothing here runs on the event loop
or in a command's thread: a scene never waits on a mail server or on Discord.

Rows of one **stream** (``Outgoing.stream``: a scene's Discord posts) go in the order they were
written: a row is not claimed while an earlier row of its stream is pending, claimed or waiting
out a backoff, so a retry never lets a later post overtake it.

A transport is a function of the row, registered in ``TRANSPORTS`` under its channel ("mail",
"discord"); it raises ``Drop`` for a row that must never go (its member left the campaign, its
webhook was deleted), ``Later`` for one that must wait without counting as a failure (a rate
limit: the pass goes on with other rows), any other exception to be retried with backoff.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import DEFAULT_DB_ALIAS, close_old_connections, connection, connections, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from tabletop.campaigns.models import Membership
from tabletop.outbox.models import Outgoing
from tabletop.scenes.feed import durable
from tabletop.scenes.models import ReaderCursor

log = logging.getLogger(__name__)

#: How long a claim holds a row, renewed just before its send: longer than one send (its
#: transport's timeout: EMAIL_TIMEOUT, DISCORD_TIMEOUT_SECONDS, 10 s each), short enough that
#: what a killed process held goes soon after a restart.
CLAIM_SECONDS = 30
#: Rows one pass claims at most.
PER_PASS = 10
#: The first retry's delay, doubled for each failure up to ``BACKOFF_MAX_SECONDS``.
BACKOFF_SECONDS = 30
BACKOFF_MAX_SECONDS = 3600
#: Failures before a row is given up (about a day of hourly retries after the first hour).
MAX_ATTEMPTS = 30
#: How long the thread sleeps between passes when nothing wakes it, and at least.
IDLE_SECONDS = 2.0
MIN_GAP_SECONDS = 1.0
#: The first pass waits this long after the process starts: a restart's reconnect storm (every
#: page back at once, each catching up) goes first, the readers' sweep of what was missed after
#: it (it doubled the storm's time, bench/README.md "One feed"); nothing it sends is that urgent.
START_DELAY_SECONDS = 5.0


class Drop(Exception):
    """A row that must not be sent (its member left the campaign): dropped, not retried."""


class Later(Exception):
    """A row that must wait until ``until`` (a rate limit): put back, not counted as a failure."""

    def __init__(self, until: Any, why: str) -> None:
        super().__init__(why)
        self.until = until


TRANSPORTS: dict[str, Callable[[Outgoing], None]] = {}


def transport(channel: str) -> Callable[[Callable[[Outgoing], None]], Callable[[Outgoing], None]]:
    """Register the function that sends rows of ``channel``."""

    def registered(send: Callable[[Outgoing], None]) -> Callable[[Outgoing], None]:
        TRANSPORTS[channel] = send
        return send

    return registered


def backoff(attempts: int) -> timedelta:
    """The wait before the next try after ``attempts`` failures."""
    seconds = min(BACKOFF_SECONDS * 2 ** max(attempts - 1, 0), BACKOFF_MAX_SECONDS)
    return timedelta(seconds=seconds)


def _sendable(now: Any) -> QuerySet[Outgoing]:
    # A row of a stream waits for every earlier pending row of it (claimed, due later or not).
    earlier = Outgoing.objects.filter(
        stream=OuterRef("stream"),
        pk__lt=OuterRef("pk"),
        sent_at__isnull=True,
        dropped_at__isnull=True,
    )
    return Outgoing.objects.filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now),
        Q(stream="") | ~Exists(earlier),
        sent_at__isnull=True,
        dropped_at__isnull=True,
        due_at__lte=now,
    )


def claim(token: str, limit: int = PER_PASS) -> list[Outgoing]:
    """Claim up to ``limit`` rows due now for ``token``: no other sender gets them until they
    are sent, put back, or the claim lapses."""
    now = timezone.now()
    until = now + timedelta(seconds=CLAIM_SECONDS)
    due = _sendable(now).order_by("due_at", "pk")
    if connection.vendor == "postgresql":
        with transaction.atomic():
            ids = list(due.select_for_update(skip_locked=True).values_list("pk", flat=True)[:limit])
            Outgoing.objects.filter(pk__in=ids).update(claimed_by=token, claimed_until=until)
    else:
        ids = [
            pk
            for pk in due.values_list("pk", flat=True)[:limit]
            if _sendable(now).filter(pk=pk).update(claimed_by=token, claimed_until=until) == 1
        ]
    return list(Outgoing.objects.filter(pk__in=ids, claimed_by=token).order_by("due_at", "pk"))


def _settle(row: Outgoing, token: str, **fields: Any) -> None:
    Outgoing.objects.filter(pk=row.pk, claimed_by=token).update(
        claimed_by="", claimed_until=None, **fields
    )


def _still_for(row: Outgoing) -> None:
    """A member's row goes only while they are in its campaign."""
    if row.user_id is None or row.campaign_id is None:
        return
    if not Membership.objects.filter(user_id=row.user_id, campaign_id=row.campaign_id).exists():
        raise Drop("its member left the campaign")


def send_due(token: str | None = None) -> int:
    """One pass: claim what is due and send it. The rows sent."""
    token = token or secrets.token_hex(8)
    rows = claim(token)
    sent = 0
    failing: set[str] = set()  # channels whose transport failed in this pass
    for row in rows:
        if row.channel in failing:  # the next one would wait as long: next pass
            _settle(row, token)
            continue
        if not _renewed(row, token):
            continue  # its claim lapsed while the rows before it went, and another took it
        try:
            _still_for(row)
            TRANSPORTS[row.channel](row)
        except Drop as why:
            _settle(row, token, dropped_at=timezone.now(), last_error=str(why)[:300])
            continue
        except Later as wait:  # not a failure: the row waits, the pass goes on with the others
            _settle(row, token, due_at=wait.until, last_error=str(wait)[:300])
            continue
        except Exception as error:  # the server down, refused, timed out: later, with backoff
            _failed(row, token, error)
            failing.add(row.channel)  # a mail server down never holds up Discord, nor back
            continue
        _settle(row, token, sent_at=timezone.now())
        sent += 1
    return sent


def _renewed(row: Outgoing, token: str) -> bool:
    """The row's claim for one more send, if it is still this sender's."""
    until = timezone.now() + timedelta(seconds=CLAIM_SECONDS)
    return Outgoing.objects.filter(pk=row.pk, claimed_by=token).update(claimed_until=until) == 1


def _failed(row: Outgoing, token: str, error: Exception) -> None:
    attempts = row.attempts + 1
    why = f"{type(error).__name__}: {error}"[:300]
    if attempts >= MAX_ATTEMPTS:
        log.error("outbox: gave up on %s #%s (%s tries): %s", row.channel, row.pk, attempts, why)
        _settle(row, token, attempts=attempts, dropped_at=timezone.now(), last_error=why)
        return
    log.warning("outbox: %s #%s not sent (%s), tried again later", row.channel, row.pk, why)
    due = timezone.now() + backoff(attempts)
    _settle(row, token, attempts=attempts, due_at=due, last_error=why)


# --- chores and the thread -----------------------------------------------------------------------


@dataclass
class Chore:
    """Work a pass does before sending (a reader's catch-up, composing digests), at most
    every ``every`` seconds (0: every pass); the first pass runs every chore."""

    run: Callable[[], Any]
    every: float = 0.0
    last: float | None = None


CHORES: list[Chore] = []


def chore(run: Callable[[], Any], *, every: float = 0.0) -> None:
    """Have every pass run ``run`` (at most every ``every`` seconds)."""
    if not any(c.run is run for c in CHORES):
        CHORES.append(Chore(run, every))


def tick(*, everything: bool = False, token: str | None = None) -> int:
    """One pass of the sender: the chores due (every one with ``everything``), then the
    outbox. The rows sent. Tests call it directly; the thread calls it in a loop."""
    now = time.monotonic()
    for job in CHORES:
        if everything or job.last is None or now - job.last >= job.every:
            job.last = now
            try:
                job.run()
            except Exception:  # one chore's failure must not stop the others or the sending
                log.exception("outbox chore %s failed", getattr(job.run, "__qualname__", job.run))
    return send_due(token)


@dataclass
class _Running:
    thread: threading.Thread
    stopping: threading.Event
    wake: threading.Event


_running: _Running | None = None


def start(wake: threading.Event | None = None) -> None:
    """Start this process's sender thread (once; ``wake``: set to run a pass at once)."""
    global _running
    if _running is not None and _running.thread.is_alive():
        return
    stopping = threading.Event()
    waker = wake or threading.Event()
    thread = threading.Thread(
        target=_loop, args=(stopping, waker), name="tabletop-sender", daemon=True
    )
    _running = _Running(thread, stopping, waker)
    thread.start()


def stop(timeout: float = 15.0) -> None:
    """Stop the sender thread after its current pass (a row it holds is sent or put back)."""
    global _running
    running, _running = _running, None
    if running is None:
        return
    running.stopping.set()
    running.wake.set()
    running.thread.join(timeout)


def _loop(stopping: threading.Event, wake: threading.Event) -> None:
    token = secrets.token_hex(8)
    stopping.wait(START_DELAY_SECONDS)
    while not stopping.is_set():
        try:
            close_old_connections()
            tick(token=token)
        except Exception:  # the database away: the next pass tries again
            log.exception("outbox pass failed")
        finally:
            close_old_connections()
        # Woken by every event, it still passes at most once a second: a busy table's events
        # are read in batches, not one transaction per roll beside the scene's own.
        stopping.wait(MIN_GAP_SECONDS)
        wake.wait(IDLE_SECONDS)
        wake.clear()
    connection.close()


def after_restore(*, using: str = DEFAULT_DB_ALIAS, **_: object) -> None:
    """A restore (``tabletop.operating.restoring.restored``) put back the outbox and the durable
    cursors as the backup held them, behind what has left the server since: the cursors move to
    each scene's newest seq and the messages pending then are dropped, saying why, so nothing is
    mailed or posted twice. A backup older than these tables has neither."""
    tables = set(connections[using].introspection.table_names())
    if ReaderCursor._meta.db_table in tables:
        durable.resume_after_restore(using=using)
    if Outgoing._meta.db_table in tables:
        Outgoing.objects.using(using).filter(sent_at__isnull=True, dropped_at__isnull=True).update(
            dropped_at=timezone.now(), last_error="pending in a restored backup: it may have gone"
        )
