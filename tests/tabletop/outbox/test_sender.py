"""The outbox and its sender (tabletop/outbox): claimed so no row goes twice, retried with
backoff while the mail server is down, dropped for a member who left, sent after a restart."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.utils import timezone

from tabletop.campaigns.models import Membership
from tabletop.outbox import sender
from tabletop.outbox.models import Outgoing
from tests.support.tables import make_table
from tests.tabletop.conftest import requires_postgres

pytestmark = pytest.mark.django_db(transaction=True)


def queue(n: int = 1, **fields) -> list[Outgoing]:
    return [
        Outgoing.objects.create(
            channel="mail",
            address=f"member{i}@example.org",
            subject=f"Mail {i}",
            body="text",
            **fields,
        )  # fmt: skip
        for i in range(n)
    ]


def test_a_pending_mail_is_sent_once_with_its_headers():
    queue(headers={"List-Unsubscribe": "<https://example.org/u/x/>"})
    assert sender.send_due() == 1
    assert sender.send_due() == 0
    assert len(mail.outbox) == 1
    assert mail.outbox[0].extra_headers["List-Unsubscribe"] == "<https://example.org/u/x/>"
    assert Outgoing.objects.get().sent_at is not None


def test_a_row_claimed_by_one_sender_is_not_claimed_by_another():
    queue(3)
    first = sender.claim("one")
    assert len(first) == 3
    assert sender.claim("two") == []


def test_a_claim_of_a_process_that_died_lapses_and_another_sends_it():
    (row,) = queue()
    sender.claim("dead")
    Outgoing.objects.filter(pk=row.pk).update(claimed_until=timezone.now() - timedelta(seconds=1))
    assert sender.send_due("alive") == 1
    assert len(mail.outbox) == 1


def test_a_row_another_sender_took_over_while_this_one_was_busy_is_not_sent_again(monkeypatch):
    queue(2)
    first, second = sender.claim("slow")
    sent = []

    def slow(row):
        sent.append(row.pk)
        # Meanwhile the second row's claim lapsed and another process claimed it.
        Outgoing.objects.filter(pk=second.pk).update(claimed_by="fast")

    monkeypatch.setattr(sender, "claim", lambda token, limit=10: [first, second])
    monkeypatch.setitem(sender.TRANSPORTS, "mail", slow)
    assert sender.send_due("slow") == 1
    assert sent == [first.pk]
    assert Outgoing.objects.get(pk=second.pk).claimed_by == "fast"


def test_a_rows_claim_is_renewed_just_before_it_is_sent(monkeypatch):
    (row,) = queue()
    claimed = sender.claim("one")[0].claimed_until
    seen = []
    monkeypatch.setattr(sender, "claim", lambda token, limit=10: [row])
    monkeypatch.setitem(
        sender.TRANSPORTS, "mail", lambda r: seen.append(Outgoing.objects.get(pk=r.pk))
    )
    Outgoing.objects.filter(pk=row.pk).update(claimed_until=claimed - timedelta(seconds=25))
    sender.send_due("one")
    assert seen[0].claimed_until > timezone.now() + timedelta(seconds=sender.CLAIM_SECONDS - 5)


def test_a_mail_server_that_is_down_is_retried_later_with_backoff(monkeypatch):
    queue(3)
    tries = []

    def down(row):
        tries.append(row.pk)
        raise ConnectionRefusedError("no mail server")

    monkeypatch.setitem(sender.TRANSPORTS, "mail", down)
    assert sender.send_due() == 0
    assert len(tries) == 1  # one timeout per pass, not one per mail
    failed = Outgoing.objects.get(pk=tries[0])
    assert failed.attempts == 1 and "no mail server" in failed.last_error
    assert failed.due_at > timezone.now() + timedelta(seconds=20)
    assert Outgoing.objects.filter(claimed_by="").count() == 3  # the others put back
    assert sender.backoff(2) == 2 * sender.backoff(1)
    assert sender.backoff(50) == timedelta(seconds=sender.BACKOFF_MAX_SECONDS)
    monkeypatch.undo()
    Outgoing.objects.update(due_at=timezone.now())
    assert sender.send_due() == 3
    assert len(mail.outbox) == 3


def test_a_mail_server_that_is_down_does_not_hold_up_another_channel(monkeypatch):
    queue(2)
    other = Outgoing.objects.create(channel="elsewhere", subject="A post", body="text")
    went = []
    monkeypatch.setitem(
        sender.TRANSPORTS, "mail", lambda row: (_ for _ in ()).throw(TimeoutError("slow"))
    )
    monkeypatch.setitem(sender.TRANSPORTS, "elsewhere", lambda row: went.append(row.pk))
    assert sender.send_due() == 1
    assert went == [other.pk]
    mails = Outgoing.objects.filter(channel="mail")
    assert sorted(mails.values_list("attempts", flat=True)) == [0, 1]  # one try, one put back
    assert not mails.exclude(claimed_by="").exists()


def test_a_row_failing_too_often_is_given_up(monkeypatch):
    (row,) = queue()
    Outgoing.objects.filter(pk=row.pk).update(attempts=sender.MAX_ATTEMPTS - 1)
    monkeypatch.setitem(sender.TRANSPORTS, "mail", lambda row: 1 / 0)
    sender.send_due()
    row.refresh_from_db()
    assert row.dropped_at is not None and row.sent_at is None


def test_a_member_who_left_the_campaign_gets_none_of_its_pending_mail():
    table = make_table()
    queue(user=table.bob, campaign=table.campaign)
    Membership.objects.filter(user=table.bob, campaign=table.campaign).delete()
    assert sender.send_due() == 0
    assert mail.outbox == []
    assert Outgoing.objects.get().dropped_at is not None


def test_the_sender_thread_sends_what_is_queued_and_stops(monkeypatch):
    monkeypatch.setattr(sender, "START_DELAY_SECONDS", 0.0)
    wake = threading.Event()
    sender.start(wake=wake)
    try:
        queue()
        wake.set()
        for _ in range(200):
            if Outgoing.objects.filter(sent_at__isnull=False).exists():
                break
            threading.Event().wait(0.05)
    finally:
        sender.stop()
    assert len(mail.outbox) == 1


@pytest.mark.services
@requires_postgres
def test_two_senders_never_send_one_row_twice(monkeypatch):
    queue(40)
    sent: list[int] = []
    lock = threading.Lock()

    def slow(row):
        with lock:
            sent.append(row.pk)
        threading.Event().wait(0.01)

    monkeypatch.setitem(sender.TRANSPORTS, "mail", slow)
    start = threading.Barrier(2)

    def send(token):
        try:
            start.wait()
            while sender.send_due(token):
                pass
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(t,)) for t in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(sent) == sorted(set(sent))
    assert len(sent) == 40


def test_the_sender_threads_first_pass_waits_for_a_restarts_reconnects(monkeypatch):
    # A restart's pages reconnect first; the sweep of what was missed comes after them.
    monkeypatch.setattr(sender, "START_DELAY_SECONDS", 0.6)
    queue()
    wake = threading.Event()
    started = time.monotonic()
    sender.start(wake=wake)
    try:
        wake.set()
        threading.Event().wait(0.3)
        assert not Outgoing.objects.filter(sent_at__isnull=False).exists()
        while not Outgoing.objects.filter(sent_at__isnull=False).exists():
            assert time.monotonic() - started < 15
            threading.Event().wait(0.05)
    finally:
        sender.stop()
    assert time.monotonic() - started >= 0.6
    assert len(mail.outbox) == 1
