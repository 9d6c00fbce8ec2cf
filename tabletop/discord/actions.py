"""The GM's Discord mirror: set its webhook and what goes, send a test message, turn it off;
and the sender's word that Discord refused the webhook (``mirror_stopped``).

A webhook set, or replaced by a new URL, starts the mirror at each scene's position then: the
reader's cursors are made there in the same transaction (nothing of the past is posted), and
whatever still waited for an earlier webhook is dropped."""

from __future__ import annotations

import json

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from tabletop.campaigns.models import Campaign
from tabletop.discord.models import Message, Mirror
from tabletop.discord.reader import CHANNEL, NAME
from tabletop.discord.webhooks import Webhook
from tabletop.outbox.models import Outgoing
from tabletop.scenes.feed import durable
from tabletop.scenes.models import ReaderCursor, Scene

SENDS = frozenset(Mirror.Sends.values)


def _gm_only(campaign: Campaign, actor: object) -> None:
    if getattr(actor, "pk", None) != campaign.gm_id:
        raise PermissionDenied("Only the campaign's GM sets its Discord mirror.")


def _waiting(campaign: Campaign):  # noqa: ANN202 - a QuerySet of Outgoing
    return Outgoing.objects.filter(
        channel=CHANNEL, campaign=campaign, sent_at__isnull=True, dropped_at__isnull=True
    )


def _start_here(campaign: Campaign) -> None:
    """The reader's cursors at every scene's position now (made afresh: no backfill)."""
    scenes = Scene.objects.filter(campaign=campaign)
    ReaderCursor.objects.filter(reader=NAME, scene__in=scenes).delete()
    ReaderCursor.objects.bulk_create(
        ReaderCursor(reader=NAME, scene_id=pk, user=None, seq=last_seq)
        for pk, last_seq in scenes.values_list("pk", "last_seq")
    )


def mirror_set(
    *, campaign: Campaign, actor: object, webhook: Webhook | None, sends: list[str]
) -> Mirror:
    """Set the mirror: a new webhook (None: keep the one set) and what goes there. A new
    webhook, or the same one pasted again after Discord refused it, starts from each scene's
    position now."""
    _gm_only(campaign, actor)
    unknown = set(sends) - SENDS
    if unknown:
        raise ValidationError("Pick what goes to Discord from the list.")
    with transaction.atomic():
        mirror = Mirror.objects.select_for_update().filter(campaign=campaign).first()
        if mirror is None and webhook is None:
            raise ValidationError("Paste the webhook's URL to turn the mirror on.")
        fresh = mirror is None or (
            webhook is not None
            and (
                (webhook.id, webhook.token) != (mirror.webhook_id, mirror.token)
                or mirror.stopped_at
            )
        )
        if mirror is None:
            mirror = Mirror(campaign=campaign)
        if fresh:
            _waiting(campaign).update(
                dropped_at=timezone.now(), last_error="the webhook was replaced by a new URL"
            )
            mirror.webhook_id, mirror.token = webhook.id, webhook.token
            mirror.started_at = timezone.now()
            mirror.stopped_at, mirror.stopped_why = None, ""
            mirror.not_before = mirror.posted_at = mirror.tested_at = None
        mirror.sends = [value for value in Mirror.Sends.values if value in sends]
        mirror.save()
        if fresh:
            _start_here(campaign)
    return mirror


def mirror_test(*, campaign: Campaign, actor: object) -> Outgoing:
    """Queue a test message to the webhook (the sender posts it within a few seconds)."""
    _gm_only(campaign, actor)
    mirror = Mirror.objects.filter(campaign=campaign).first()
    if mirror is None:
        raise ValidationError("Paste the webhook's URL first.")
    if not mirror.running:
        raise ValidationError("Discord refused this webhook: paste a new URL first.")
    stream = f"discord-test:{campaign.pk}"
    with transaction.atomic():
        waiting = Outgoing.objects.filter(
            stream=stream, sent_at__isnull=True, dropped_at__isnull=True
        ).first()
        if waiting is not None:
            return waiting  # a second click before the first went: one test message
        # The old arrival forgotten before the sender can see the row: a sender quick enough
        # to post it at once must not have its "arrived" wiped afterwards.
        Mirror.objects.filter(pk=mirror.pk).update(tested_at=None)
        row = Outgoing.objects.create(
            channel=CHANNEL,
            campaign=campaign,
            stream=stream,
            subject="A test message",
            body=json.dumps({"webhook": mirror.webhook_id, "test": True}),
        )
    durable.wake.set()  # this process's sender runs a pass soon
    return row


def mirror_off(*, campaign: Campaign, actor: object) -> None:
    """Turn the mirror off: the webhook forgotten (its token with it), nothing more posted,
    what waited dropped."""
    _gm_only(campaign, actor)
    with transaction.atomic():
        _waiting(campaign).update(
            dropped_at=timezone.now(), last_error="the Discord mirror was turned off"
        )
        scenes = Scene.objects.filter(campaign=campaign)
        ReaderCursor.objects.filter(reader=NAME, scene__in=scenes).delete()
        Message.objects.filter(scene__in=scenes).delete()
        Mirror.objects.filter(campaign=campaign).delete()


def mirror_stopped(*, mirror: Mirror, why: str) -> None:
    """Discord refused the webhook (deleted, or its token reset): the mirror stops, saying why
    on the GM's settings page, and what waited is dropped there (listed as not sent)."""
    now = timezone.now()
    with transaction.atomic():
        stopped = (
            Mirror.objects.running()
            .filter(pk=mirror.pk, webhook_id=mirror.webhook_id)
            .update(stopped_at=now, stopped_why=why[:300])
        )
        if not stopped:
            return
        _waiting(mirror.campaign).update(dropped_at=now, last_error=why[:300])
        scenes = Scene.objects.filter(campaign_id=mirror.campaign_id)
        ReaderCursor.objects.filter(reader=NAME, scene__in=scenes).delete()
