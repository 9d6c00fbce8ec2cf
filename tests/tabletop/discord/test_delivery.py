"""Delivery a group can trust (issue 46): a scene's posts in order, batched up to ten embeds,
Discord's rate limit honoured (429's ``retry_after``, the ``X-RateLimit-*`` headers), 5xx and
timeouts retried with backoff, a deleted webhook (401/404) stopping the mirror with why and
what was not sent, no backfill, a new URL starting from the scene's position then, and nothing
posted twice after a restore."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models.signals import post_save
from django.utils import timezone

from tabletop.discord import actions as mirror_actions
from tabletop.discord import selectors
from tabletop.discord.models import Mirror
from tabletop.operating.restoring import Restored, restored
from tabletop.outbox import sender
from tabletop.outbox.models import Outgoing
from tabletop.scenes import actions
from tabletop.scenes.feed import durable
from tabletop.scenes.models import ReaderCursor
from tests.support.tables import mira_and_troll
from tests.tabletop.discord.conftest import deliver, mirror_on, pending

pytestmark = pytest.mark.django_db(transaction=True)


def say(table, text, scene=None, actor=None):
    return actions.chat(scene=scene or table.scene, actor=actor or table.alice, text=text, to=[])


def lines(fake, scene=None) -> list[str]:
    """The chat lines Discord took, in the order it took them (of one scene, by its footer)."""
    said = []
    for post in fake.posts():
        for embed in post.body.get("embeds", ()):
            if scene is not None and not embed["footer"]["text"].startswith(scene.name + " ·"):
                continue
            if embed.get("color") == 0x5865F2:
                said.append(embed["description"])
    return said


def make_table_elsewhere(table):
    """A second campaign of the same GM and players, with an open scene and no mirror."""
    from tabletop.campaigns.models import Campaign, Membership

    campaign = Campaign.objects.create(name="Elsewhere", system="conductor", gm=table.gm)
    Membership.objects.create(campaign=campaign, user=table.gm, role="gm")
    Membership.objects.create(campaign=campaign, user=table.alice)
    scene = actions.scene_create(campaign=campaign, actor=table.gm, name="Across the sea")
    return actions.scene_open(scene=scene, actor=table.gm)


def retry_now() -> None:
    """The backoff over: every waiting row due now."""
    Outgoing.objects.update(due_at=timezone.now())


def test_nothing_before_the_mirror_was_turned_on_is_posted(table, fake):
    say(table, "before")
    mirror_on(table, fake)
    say(table, "after")
    deliver()
    assert lines(fake) == ["after"]


def test_only_what_the_gm_chose_goes(table, fake):
    mirror_on(table, fake, sends=["rolls"])
    say(table, "not this")
    actions.roll(scene=table.scene, actor=table.alice, roll_kind="expression",
                 data={"expression": "1d6"})  # fmt: skip
    deliver()
    assert lines(fake) == []
    assert len(fake.posts()) == 1 and "1d6" in json.dumps(fake.posts()[0].body)


def test_spends_and_scenes_go_as_their_cards_read_without_controls(table, fake):
    hero, _ = mira_and_troll(table)
    mirror_on(table, fake, sends=["spends", "scenes"])
    actions.award(scene=table.scene, actor=table.gm, character=hero, field="bennies", amount=1)
    actions.scene_close(scene=table.scene, actor=table.gm)
    deliver()
    texts = [e["description"] for p in fake.posts() for e in p.body["embeds"]]
    assert any("Mira" in text for text in texts)
    assert any(table.scene.name in text and "closed" in text for text in texts)
    assert not any("Reveal" in text or "Cancel" in text for text in texts)


def test_a_mirrored_campaigns_events_are_read_at_the_next_pass_not_the_sweep(table, fake):
    other = make_table_elsewhere(table)
    mirror_on(table, fake)
    durable.sweep()
    durable.take_woken()  # read by the sweep
    say(table, "to Discord")  # names nobody: only the mirror makes it news
    say(table, "not mirrored", scene=other)
    assert durable.take_woken() == [table.scene.pk]  # the mirrored scene alone, at the next pass
    durable.catch_up(table.scene.pk)
    sender.send_due()
    assert lines(fake) == ["to Discord"]


def test_a_busy_scene_is_batched_ten_embeds_a_post_in_order(table, fake):
    mirror_on(table, fake)
    for n in range(25):
        say(table, f"line {n}")
    deliver()
    posts = fake.posts()
    assert [len(p.body["embeds"]) for p in posts] == [10, 10, 5]
    assert lines(fake) == [f"line {n}" for n in range(25)]


def test_a_post_still_waiting_takes_the_next_events_in(table, fake):
    mirror_on(table, fake)
    for n in range(3):
        say(table, f"line {n}")
    durable.sweep()  # read: one post of three waits
    for n in range(3, 7):
        say(table, f"line {n}")
    durable.sweep()
    (row,) = Outgoing.objects.filter(channel="discord")
    assert len(json.loads(row.body)["post"]) == 7
    deliver()
    assert len(fake.posts()) == 1 and lines(fake) == [f"line {n}" for n in range(7)]


def test_a_scenes_posts_keep_their_order_through_a_failure_while_other_scenes_go_on(table, fake):
    other = actions.scene_open(
        scene=actions.scene_create(campaign=table.campaign, actor=table.gm, name="The far shore"),
        actor=table.gm,
    )
    mirror_on(table, fake)
    say(table, "one")
    durable.sweep()
    fake.answer_next(503, {"message": "upstream"})
    assert sender.send_due() == 0  # the first post failed: it and what follows it wait
    failed = Outgoing.objects.get(channel="discord")
    assert failed.attempts == 1 and "503" in failed.last_error
    assert failed.due_at > timezone.now() + timedelta(seconds=20)
    say(table, "two")
    say(table, "far", scene=other)
    deliver()
    assert lines(fake) == ["far"]  # the other scene went; this one waits for its first post
    retry_now()
    deliver()
    assert lines(fake, table.scene) == ["one", "two"]


def test_a_discord_outage_of_minutes_delays_but_loses_nothing(table, fake):
    mirror_on(table, fake)
    said = []
    for n in range(4):
        said.append(f"line {n}")
        say(table, said[-1])
        durable.sweep()
        fake.answer_next(502, times=1)
        sender.send_due()
        retry_now()  # minutes pass
    deliver()
    assert lines(fake) == said
    assert all(row.sent_at for row in Outgoing.objects.filter(channel="discord"))


def test_a_timeout_is_retried(table, fake, settings):
    settings.DISCORD_TIMEOUT_SECONDS = 0.3
    mirror_on(table, fake)
    say(table, "slow")
    durable.sweep()
    fake.hang_next(1.0)
    started = time.monotonic()
    assert sender.send_due() == 0
    assert time.monotonic() - started < 1.0
    row = Outgoing.objects.get(channel="discord")
    assert row.attempts == 1 and "timed out" in row.last_error
    retry_now()
    deliver()
    assert lines(fake) == ["slow"]


def test_a_429_waits_its_retry_after_and_counts_no_failure(table, fake):
    mirror_on(table, fake)
    say(table, "limited")
    durable.sweep()
    fake.rate_limit_next(0.4)
    assert sender.send_due() == 0
    row = Outgoing.objects.get(channel="discord")
    mirror = Mirror.objects.get()
    assert row.attempts == 0 and mirror.not_before is not None
    assert timezone.now() < row.due_at <= timezone.now() + timedelta(seconds=1)
    assert sender.send_due() == 0  # not before retry_after
    time.sleep(0.5)
    assert sender.send_due() == 1
    assert lines(fake) == ["limited"]


def test_the_rate_limit_headers_hold_the_next_post_before_any_429(table, fake):
    fake.limit, fake.per = 2, 1.0
    other = actions.scene_open(
        scene=actions.scene_create(campaign=table.campaign, actor=table.gm, name="Shore"),
        actor=table.gm,
    )
    mirror_on(table, fake)
    for scene in (table.scene, other, table.scene):
        say(table, "x", scene=scene)
        durable.sweep()
        sender.send_due()
    assert len(fake.posts()) == 2  # the bucket is empty: the third waits for its reset
    assert Mirror.objects.get().not_before > timezone.now()
    time.sleep(1.1)
    deliver()
    assert len(fake.posts()) == 3
    assert not [r for r in fake.requests if r.status == 429]


@pytest.mark.parametrize("refusal", ["deleted", "token"])
def test_a_deleted_webhook_stops_the_mirror_saying_why_and_what_was_not_sent(table, fake, refusal):
    mirror, webhook_id, _ = mirror_on(table, fake)
    say(table, "arrives")
    deliver()
    if refusal == "deleted":
        fake.delete(webhook_id)
    else:
        Mirror.objects.filter(pk=mirror.pk).update(token="t" * 68)
    say(table, "lost one")
    say(table, "lost two")
    durable.sweep()
    say(table, "lost three")
    deliver()
    mirror.refresh_from_db()
    assert mirror.stopped_at is not None
    assert ("404" if refusal == "deleted" else "401") in mirror.stopped_why
    assert "Paste a new webhook URL" in mirror.stopped_why
    status = selectors.mirror_status(campaign=table.campaign)
    assert status.not_sent_count == 1 and "#" in status.not_sent[0]
    assert pending() == 0 and not ReaderCursor.objects.filter(reader="discord").exists()
    assert lines(fake) == ["arrives"]

    # A new URL starts from the scene's position then: nothing said meanwhile is posted.
    mirror_on(table, fake)
    say(table, "back")
    deliver()
    assert lines(fake) == ["arrives", "back"]


def test_a_deleted_message_makes_its_reveal_a_new_post(table, fake):
    mirror_on(table, fake)
    blind = actions.roll(scene=table.scene, actor=table.alice, roll_kind="expression",
                         mode="blind", data={"expression": "1d20"})  # fmt: skip
    deliver()
    (stub_message,) = fake.messages
    fake.delete_message(stub_message)  # someone deleted it in Discord
    actions.reveal(scene=table.scene, actor=table.gm, seq=blind.seq)
    deliver()
    assert len(fake.posts()) == 2 and fake.edits() == []
    assert Mirror.objects.get().running  # a deleted message is not a deleted webhook


def test_a_new_url_drops_what_waited_for_the_old_and_starts_at_the_position(table, fake):
    mirror_on(table, fake)
    say(table, "for the old webhook")
    durable.sweep()
    mirror_on(table, fake)
    say(table, "for the new one")
    deliver()
    assert lines(fake) == ["for the new one"]
    dropped = Outgoing.objects.get(dropped_at__isnull=False)
    assert "replaced" in dropped.last_error


def test_turned_off_nothing_more_goes_and_the_token_is_forgotten(table, fake):
    mirror_on(table, fake)
    say(table, "waiting")
    durable.sweep()
    mirror_actions.mirror_off(campaign=table.campaign, actor=table.gm)
    say(table, "after")
    deliver()
    assert lines(fake) == [] and not Mirror.objects.exists()


def test_the_test_message_arrives_and_the_page_says_so(table, fake):
    mirror_on(table, fake)
    mirror_actions.mirror_test(campaign=table.campaign, actor=table.gm)
    assert selectors.mirror_status(campaign=table.campaign).test_waiting
    deliver()
    (post,) = fake.posts()
    assert table.campaign.name in post.body["content"]
    assert post.body["allowed_mentions"] == {"parse": []}
    assert Mirror.objects.get().tested_at is not None


def test_a_sender_that_posts_the_test_message_at_once_still_says_it_arrived(table, fake):
    """The sender may take the row the moment it can see it (a pass already running): the
    page must still say the message arrived, not forget it."""
    mirror_on(table, fake)

    def at_once(sender, instance, created, **kwargs):
        if created and instance.stream.startswith("discord-test:"):
            transaction.on_commit(deliver)  # the sender's pass, as soon as the row is visible

    post_save.connect(at_once, sender=Outgoing)
    try:
        mirror_actions.mirror_test(campaign=table.campaign, actor=table.gm)
    finally:
        post_save.disconnect(at_once, sender=Outgoing)
    assert len(fake.posts()) == 1
    status = selectors.mirror_status(campaign=table.campaign)
    assert not status.test_waiting
    assert Mirror.objects.get().tested_at is not None


def test_a_second_click_before_the_test_message_went_sends_one(table, fake):
    mirror_on(table, fake)
    first = mirror_actions.mirror_test(campaign=table.campaign, actor=table.gm)
    again = mirror_actions.mirror_test(campaign=table.campaign, actor=table.gm)
    assert again.pk == first.pk
    deliver()
    assert len(fake.posts()) == 1
    mirror_actions.mirror_test(campaign=table.campaign, actor=table.gm)  # after it went: anew
    deliver()
    assert len(fake.posts()) == 2


def test_after_a_restore_nothing_is_posted_twice(table, fake):
    mirror_on(table, fake)
    say(table, "one")
    deliver()
    say(table, "two")
    durable.sweep()  # read, not sent: the backup may have been taken after it went
    restored.send(sender=Restored, using="default", manifest={})
    say(table, "three")
    deliver()
    assert lines(fake) == ["one", "three"]


def test_how_far_behind_the_mirror_is(table, fake):
    mirror_on(table, fake)
    for n in range(12):
        say(table, f"line {n}")
    durable.sweep()
    fake.answer_next(503)
    sender.send_due()
    behind = selectors.mirror_status(campaign=table.campaign).behind
    assert (behind.posts, behind.events) == (2, 12)
    assert behind.waiting_until is not None and "503" in behind.last_error
