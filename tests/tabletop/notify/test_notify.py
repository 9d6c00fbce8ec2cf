"""Between game nights (issue 45): mentions, notifications through visibility, read marks,
unread counts, mail digests with one-click unsubscribe, and the secrets none of it may leak."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character
from tabletop.notify import actions as notify_actions
from tabletop.notify import digests, selectors
from tabletop.notify.models import MailChoice, Notification, ReadMark
from tabletop.outbox import sender
from tabletop.scenes import actions
from tabletop.scenes.feed import durable
from tests.support.tables import make_table
from tests.tabletop.conftest import requires_postgres

pytestmark = pytest.mark.django_db(transaction=True)

HIDDEN = "1d1000+100000"  # a total no other number in a mail can look like


@pytest.fixture
def table(settings):
    settings.NOTIFY_EMAIL_DELAY_SECONDS = 0
    table = make_table()
    for user in (table.gm, table.alice, table.bob):
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])
    durable.take_woken()
    return table


def say(table, actor, text, to=()):
    return actions.chat(scene=table.scene, actor=actor, text=text, to=list(to))


def roll(table, actor, mode):
    return actions.roll(
        scene=table.scene, actor=actor, roll_kind="expression", mode=mode,
        data={"expression": HIDDEN},
    )  # fmt: skip


def everything_runs():
    """What the sender thread does in a pass: readers, digests, the outbox."""
    durable.sweep()
    digests.compose_due()
    sender.send_due()


def mails_to(user):
    return [m for m in mail.outbox if m.to == [user.email]]


def test_a_mention_is_resolved_when_recorded_and_nobody_stays_plain_text(table):
    Character.objects.create(campaign=table.campaign, owner=table.alice, name="Mira Vex")
    line = say(table, table.bob, '@alice, @"Mira Vex" and @nobody: the gate. @bob')
    assert line.public["mentions"] == [table.alice.pk]  # the author is not told of himself
    plain = say(table, table.bob, "@nobody is here, mail@example.org")
    assert "mentions" not in plain.public
    by_character = say(table, table.gm, '@"mira vex" look')
    assert by_character.public["mentions"] == [table.alice.pk]


def test_one_digest_lists_the_mention_and_no_canary(table):
    say(table, table.alice, "CANARY-WHISPER for the GM alone", to=[table.gm.pk])
    secret = roll(table, table.gm, "secret")
    blind = roll(table, table.alice, "blind")
    own = roll(table, table.alice, "self")
    private = roll(table, table.alice, "gm")
    say(table, table.alice, "@bob the gate is open")
    everything_runs()

    (digest,) = mails_to(table.bob)
    body = digest.body
    assert "alice mentioned you: @bob the gate is open" in body
    assert reverse("scenes:detail", kwargs={"pk": table.scene.pk}) in body
    assert "CANARY" not in body + digest.subject
    for hidden in (secret, blind, own, private):
        assert str(hidden.secret["result"]["total"]) not in body
    client = Client()
    client.force_login(table.bob)
    page = client.get(reverse("notify:list")).content.decode()
    assert "the gate is open" in page and "CANARY" not in page
    assert "just now" in page and "0 minutes" not in page  # it said "0 minutes ago"
    for hidden in (secret, blind, own, private):
        assert str(hidden.secret["result"]["total"]) not in page
    # bob may see: the scene opened, the blind and private rolls' stubs, the mention
    assert selectors.unread(user=table.bob)[table.scene.pk] == 4
    # the GM: the whisper to him, the blind and private rolls, the mention; not her self roll
    assert selectors.unread(user=table.gm)[table.scene.pk] == 4


def test_a_line_for_nobody_in_particular_is_mailed_only_to_who_chose_everything(table):
    MailChoice.objects.create(
        user=table.alice, campaign=table.campaign, level=MailChoice.Level.EVERYTHING
    )
    say(table, table.gm, "the rain falls on the square")
    everything_runs()
    assert "the rain falls on the square" in mails_to(table.alice)[0].body
    assert "rain" not in "".join(m.body for m in mails_to(table.bob))  # the scene opened, alone
    # Bob's default (mentions, whispers, turns, requests) keeps no row of it at all.
    assert not Notification.objects.filter(user=table.bob, why="").exists()
    assert Notification.objects.filter(user=table.alice, why="").exists()


def test_a_whisper_notifies_its_recipients_only(table):
    say(table, table.alice, "psst", to=[table.bob.pk])
    durable.sweep()
    assert Notification.objects.filter(user=table.bob, why="whisper").count() == 1
    assert not Notification.objects.filter(user=table.gm, what__contains="psst").exists()


def test_the_turn_handed_to_a_member_reaches_them(table):
    mira = Character.objects.create(campaign=table.campaign, owner=table.bob, name="Mira")
    troll = Character.objects.create(campaign=table.campaign, owner=table.gm, name="Troll")
    actions.turns_start(
        scene=table.scene, actor=table.gm, lineup=[(troll, "Foes"), (mira, "Heroes")]
    )
    actions.turns_end(scene=table.scene, actor=table.gm)
    durable.sweep()
    assert Notification.objects.filter(user=table.bob, why="turn").exists()


def test_a_scene_opened_reads_whom_it_notifies_once_however_large_the_table(table):
    # Whom an event singles out is worked out once an event, not once a member: a scene opened
    # notifies the whole table, which is a query.
    users = get_user_model().objects
    for n in range(6):
        player = users.create_user(f"player{n}", password="a-long-table-secret")
        Membership.objects.create(campaign=table.campaign, user=player)
    durable.sweep()
    scene = actions.scene_create(campaign=table.campaign, actor=table.gm, name="The gate")
    actions.scene_open(scene=scene, actor=table.gm)
    whole_table = (
        'SELECT "campaigns_membership"."user_id" AS "user_id" FROM "campaigns_membership" '
        f'WHERE "campaigns_membership"."campaign_id" = {table.campaign.pk} '
    )
    with CaptureQueriesContext(connection) as queries:
        durable.sweep()
    read = [q["sql"] for q in queries.captured_queries if q["sql"].startswith(whole_table)]
    # A few reads of the scene's members in all (its cursors, and whom the opening notifies),
    # where one a member would be nine.
    assert 1 <= len(read) <= 3, read
    told = Notification.objects.filter(scene=scene, why="scene")
    assert told.count() == 8  # every member but the GM who opened it


def test_no_mail_before_the_window_ends(table, settings):
    settings.NOTIFY_EMAIL_DELAY_SECONDS = 300
    say(table, table.alice, "@bob soon")
    everything_runs()
    assert mails_to(table.bob) == []
    assert Notification.objects.get(user=table.bob, why="mention").mail == ""


def test_no_mail_when_seen_or_at_the_table(table):
    say(table, table.alice, "@bob one")
    durable.sweep()
    notify_actions.mark_seen(scene=table.scene, user=table.bob, seq=10**6, visible=False)
    everything_runs()
    assert mails_to(table.bob) == []
    notify_actions.mark_seen(scene=table.scene, user=table.bob, seq=0, visible=True)
    say(table, table.alice, "@bob two")
    everything_runs()
    assert mails_to(table.bob) == []  # his scene page is in front of him
    assert selectors.at_table(table.bob.pk)
    notify_actions.mark_seen(scene=table.scene, user=table.bob, seq=0, visible=False)
    assert not selectors.at_table(table.bob.pk)  # a hidden tab is not at the table
    everything_runs()  # he left the table without seeing "two": now it is mailed, alone
    (digest,) = mails_to(table.bob)
    assert "@bob two" in digest.body and "@bob one" not in digest.body


def test_the_table_is_left_thirty_seconds_after_the_last_heartbeat(table):
    notify_actions.mark_seen(scene=table.scene, user=table.bob, seq=0, visible=True)
    ReadMark.objects.filter(user=table.bob).update(
        visible_at=timezone.now() - timedelta(seconds=selectors.AT_TABLE_SECONDS + 1)
    )
    assert not selectors.at_table(table.bob.pk)  # a closed laptop stops its heartbeats


def test_a_thousand_mentions_make_one_digest_and_six_an_hour_at_most(table):
    for n in range(40):
        say(table, table.alice, f"@bob line {n}")
    everything_runs()
    assert len(mails_to(table.bob)) == 1
    assert "and 11 more" in mails_to(table.bob)[0].body
    for n in range(10):
        say(table, table.alice, f"@bob again {n}")
        everything_runs()
    assert len(mails_to(table.bob)) == digests.MAILS_PER_HOUR


def test_only_what_may_reach_someone_wakes_the_readers_the_rest_waits_for_the_sweep(table):
    from tabletop.scenes.models import ReaderCursor

    def cursors_at() -> set[int]:
        return set(ReaderCursor.objects.filter(scene=table.scene).values_list("seq", flat=True))

    durable.sweep()
    roll(table, table.alice, "public")  # names nobody, and nobody is mailed everything
    assert durable.take_woken() == []  # no pass over the scene for it
    assert cursors_at() == {table.scene.events.count() - 1}
    say(table, table.alice, "@bob look")
    assert durable.take_woken() == [table.scene.pk]  # a mention: the next pass reads both
    say(table, table.alice, "nothing for anyone")
    assert durable.sweep() > 0 and cursors_at() == {table.scene.events.count()}

    MailChoice.objects.create(
        user=table.bob, campaign=table.campaign, level=MailChoice.Level.EVERYTHING
    )
    roll(table, table.alice, "public")
    assert durable.catch_up_woken() == 1  # bob is mailed everything: every event is news
    assert cursors_at() == {table.scene.events.count()}
    assert Notification.objects.filter(user=table.bob, why="").count() == 1


def test_a_mention_a_second_before_a_crash_is_mailed_once_after_the_restart(table):
    say(table, table.alice, "@bob before the crash")
    durable.take_woken()  # the process died with its wake
    everything_runs()
    everything_runs()
    assert len(mails_to(table.bob)) == 1


def test_rfc_8058_one_click_unsubscribe(table):
    say(table, table.alice, "@bob hello")
    everything_runs()
    (digest,) = mails_to(table.bob)
    assert digest.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = digest.extra_headers["List-Unsubscribe"].strip("<>")
    assert link.startswith(("http://", "https://"))
    path = link.split("localhost:8000", 1)[1]
    anonymous = Client(enforce_csrf_checks=True)
    assert b"Stop mail from this campaign" in anonymous.get(path).content
    assert selectors.mail_level(user=table.bob, campaign=table.campaign) == "reaches"
    altered = path.replace(path.rstrip("/").rsplit(":", 1)[-1], "AAAA")
    refused = anonymous.post(altered)
    assert refused.status_code == 400 and b"nothing was changed" in refused.content
    assert selectors.mail_level(user=table.bob, campaign=table.campaign) == "reaches"
    assert anonymous.post(path).status_code == 200
    assert selectors.mail_level(user=table.bob, campaign=table.campaign) == "nothing"
    say(table, table.alice, "@bob are you there")
    everything_runs()
    assert len(mails_to(table.bob)) == 1


def test_a_member_without_email_gets_none_and_the_settings_page_says_so(table):
    table.bob.email = ""
    table.bob.save(update_fields=["email"])
    say(table, table.alice, "@bob hello")
    everything_runs()
    assert not [m for m in mail.outbox if "Hello bob" in m.body]
    client = Client()
    client.force_login(table.bob)
    page = client.get(reverse("notify:campaign", kwargs={"campaign_pk": table.campaign.pk}))
    assert b"no email address" in page.content
    client.post(page.request["PATH_INFO"], {"level": "everything"})
    assert selectors.mail_level(user=table.bob, campaign=table.campaign) == "everything"
    assert client.post(page.request["PATH_INFO"], {"level": "all"}).status_code == 200
    assert MailChoice.objects.get(user=table.bob).level == "everything"


def test_a_removed_member_gets_nothing_more(table):
    say(table, table.alice, "@bob hello")
    durable.sweep()
    digests.compose_due()
    Membership.objects.filter(user=table.bob, campaign=table.campaign).delete()
    say(table, table.alice, "@bob still there?")
    everything_runs()
    assert mails_to(table.bob) == []  # the pending mail dropped, nothing new noticed


def test_a_member_invited_back_hears_nothing_of_while_they_were_away(table):
    say(table, table.alice, "@bob before")
    durable.sweep()
    Membership.objects.filter(user=table.bob, campaign=table.campaign).delete()
    say(table, table.alice, "@bob while you were away")
    durable.sweep()
    Membership.objects.create(user=table.bob, campaign=table.campaign)
    say(table, table.alice, "@bob welcome back")
    durable.sweep()
    mentions = Notification.objects.filter(user=table.bob, why=Notification.Why.MENTION)
    heard = [n.what for n in mentions.order_by("seq")]
    assert len(heard) == 2, heard
    assert "before" in heard[0] and "welcome back" in heard[1]


def test_the_read_mark_endpoint_and_the_unread_counts(table):
    say(table, table.alice, "hello all")
    client = Client()
    client.force_login(table.bob)
    campaigns = client.get(reverse("campaigns:list")).content.decode()
    assert 'aria-label="2 unread"' in campaigns  # the scene opened, alice's line
    seen = reverse("notify:seen", kwargs={"scene_pk": table.scene.pk})
    assert client.post(seen, {"seq": "x"}).status_code == 400
    assert client.post(seen, {"seq": "999", "visible": "1"}).json() == {
        "seq": table.scene.events.count(),
        "unseen": 0,  # the header's count, after what the page showed
    }
    assert "unread" not in client.get(reverse("campaigns:list")).content.decode()
    outsider = Client()
    outsider.force_login(table.outsider)
    assert outsider.post(seen, {"seq": "1"}).status_code == 404
    say(table, table.alice, "after you looked")
    page = client.get(reverse("scenes:detail", kwargs={"pk": table.scene.pk})).content.decode()
    assert page.index("Since you were last here") < page.index("after you looked")
    assert page.index("hello all") < page.index("Since you were last here")


def test_the_campaign_list_puts_campaigns_with_something_unread_first(table):
    # bob plays at a second table too, made after the first
    newer = Campaign.objects.create(name="Harbour", system="conductor", gm=table.gm)
    Membership.objects.create(campaign=newer, user=table.gm, role="gm")
    Membership.objects.create(campaign=newer, user=table.bob)
    client = Client()
    client.force_login(table.bob)
    client.post(reverse("notify:seen", kwargs={"scene_pk": table.scene.pk}), {"seq": "999"})
    page = client.get(reverse("campaigns:list")).content.decode()
    assert page.index("Harbour") < page.index(table.campaign.name)  # newest first
    say(table, table.alice, "news in the older campaign")
    page = client.get(reverse("campaigns:list")).content.decode()
    assert page.index(table.campaign.name) < page.index("Harbour")  # what is new first


def test_what_a_member_may_not_see_moves_no_count_and_no_marker(table):
    client = Client()
    client.force_login(table.bob)
    seen = reverse("notify:seen", kwargs={"scene_pk": table.scene.pk})
    client.post(seen, {"seq": "999", "visible": "0"})
    say(table, table.alice, "CANARY for the GM alone", to=[table.gm.pk])
    roll(table, table.gm, "secret")
    roll(table, table.alice, "self")
    durable.sweep()
    assert selectors.unread(user=table.bob) == {}
    assert selectors.unseen_notifications(user=table.bob) == 0
    page = client.get(reverse("scenes:detail", kwargs={"pk": table.scene.pk})).content.decode()
    assert "Since you were last here" not in page
    assert "unread" not in client.get(reverse("campaigns:list")).content.decode()
    assert not Notification.objects.filter(user=table.bob).exclude(seq__lte=1).exists()


@pytest.mark.services
@requires_postgres
def test_two_processes_mail_one_digest(table):
    say(table, table.alice, "@bob two processes")
    start = threading.Barrier(2)

    def run(token):
        try:
            start.wait()
            sender.tick(everything=True, token=token)
            sender.tick(everything=True, token=token)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(t,)) for t in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(mails_to(table.bob)) == 1
