"""The Discord mirror's tests: a table, a fake Discord on loopback (tests/support/fake_discord.py,
Discord's documented webhook API) with DISCORD_API_BASE pointing at it, and the sender's passes
run by the test (``deliver``)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tabletop.discord import actions, webhooks
from tabletop.outbox import sender
from tabletop.outbox.models import Outgoing
from tabletop.scenes.feed import durable
from tests.support.fake_discord import FakeDiscord
from tests.support.tables import make_table


@pytest.fixture
def fake(settings) -> Iterator[FakeDiscord]:
    with FakeDiscord() as server:
        settings.DISCORD_API_BASE = server.base
        settings.DISCORD_TIMEOUT_SECONDS = 2
        yield server


@pytest.fixture
def table(fake):
    table = make_table()
    durable.take_woken()
    return table


def mirror_on(table, fake, *, sends=None):
    """The GM sets a fresh webhook of the fake; returns (mirror, webhook id, token)."""
    webhook_id, token, url = fake.webhook()
    mirror = actions.mirror_set(
        campaign=table.campaign,
        actor=table.gm,
        webhook=webhooks.parse(url),
        sends=sends if sends is not None else ["chat", "rolls", "spends", "reveals", "scenes"],
    )
    return mirror, webhook_id, token


def pending() -> int:
    return Outgoing.objects.filter(
        channel="discord", sent_at__isnull=True, dropped_at__isnull=True
    ).count()


def deliver(passes: int = 40) -> int:
    """What the sender thread does, pass after pass, until nothing is left that is due: the
    readers, then the outbox. The rows sent."""
    sent = 0
    for _ in range(passes):
        durable.sweep()
        done = sender.send_due()
        sent += done
        if not done and not durable_behind() and not due_now():
            break
    return sent


def durable_behind() -> bool:
    from django.db.models import F

    from tabletop.scenes.models import ReaderCursor

    return ReaderCursor.objects.filter(reader="discord", seq__lt=F("scene__last_seq")).exists()


def due_now() -> bool:
    from django.utils import timezone

    return Outgoing.objects.filter(
        channel="discord", sent_at__isnull=True, dropped_at__isnull=True, due_at__lte=timezone.now()
    ).exists()


def wait_until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
