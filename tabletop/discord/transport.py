"""The outbox's "discord" channel (tabletop/outbox/sender.py): a row is a post of up to ten
embeds, a reveal (an edit of the stub's message, or a post where none was) or the GM's test
message, sent to the campaign's webhook as it is now.

Every request carries ``allowed_mentions: {"parse": []}``: "@everyone" in a chat line pings no
one. A row for a webhook that was replaced, or a mirror turned off or stopped, is dropped. A
rate limit holds the whole webhook (``Mirror.not_before``, shared by every process) and puts
the row back without counting a failure; 401/403/404 for the webhook stop the mirror, drop
what waited and say why on the GM's settings page; any other failure (5xx, a timeout) is
retried with the sender's backoff. A scene's rows go in order (their stream), so a reveal is
sent after its stub's post.

Delivery is at least once: a post is sent again only when the process died while its request
was in flight (webhooks take no idempotency key): its claim lapses and another sends it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.utils import timezone

from tabletop.discord import actions, embeds, webhooks
from tabletop.discord.models import Message, Mirror
from tabletop.discord.reader import CHANNEL
from tabletop.outbox.models import Outgoing
from tabletop.outbox.sender import Drop, Later, transport

#: Nobody is pinged by anything the mirror posts.
NO_MENTIONS = {"parse": []}


@transport(CHANNEL)
def send(row: Outgoing) -> None:
    """Send one row to its campaign's webhook; raises as the sender expects (``Drop``,
    ``Later``, or anything else to be retried)."""
    body = json.loads(row.body)
    mirror = Mirror.objects.filter(campaign_id=row.campaign_id).first()
    if mirror is None:
        raise Drop("the Discord mirror was turned off")
    if body.get("webhook") != mirror.webhook_id:
        raise Drop("the webhook was replaced by a new URL")
    if not mirror.running:
        raise Drop(f"the mirror stopped: {mirror.stopped_why}")
    now = timezone.now()
    if mirror.not_before is not None and mirror.not_before > now:
        raise Later(mirror.not_before, "waiting for Discord's rate limit")
    hook = webhooks.Webhook(mirror.webhook_id, mirror.token)
    try:
        wait = _deliver(body, hook, mirror)
    except webhooks.RateLimited as limit:
        until = now + timedelta(seconds=limit.seconds)
        _hold(mirror, until)
        raise Later(until, str(limit)) from None
    except webhooks.WebhookGone as gone:
        actions.mirror_stopped(mirror=mirror, why=str(gone))
        raise Drop(str(gone)) from None
    except webhooks.Refused as refused:
        raise Drop(str(refused)) from None
    if wait:  # the bucket is empty: the next request waits for its reset
        _hold(mirror, timezone.now() + timedelta(seconds=wait))


def _hold(mirror: Mirror, until: Any) -> None:
    Mirror.objects.filter(pk=mirror.pk).update(not_before=until)


def _deliver(body: dict[str, Any], hook: webhooks.Webhook, mirror: Mirror) -> float:
    """Make the row's request; the wait Discord's rate limit asks for before the next."""
    if "post" in body:
        answer = webhooks.execute(hook, _payload([item["embed"] for item in body["post"]]))
        _posted(mirror, body["scene"], body["post"], answer)
    elif "reveal" in body:
        answer = _reveal(body["scene"], body["reveal"], hook, mirror)
    else:
        answer = webhooks.execute(hook, _test_payload(mirror))
        Mirror.objects.filter(pk=mirror.pk).update(tested_at=timezone.now())
    return answer.wait if answer is not None else 0.0


def _payload(embeds_: list[dict[str, Any]]) -> dict[str, Any]:
    return {"embeds": embeds_, "allowed_mentions": NO_MENTIONS}


def _test_payload(mirror: Mirror) -> dict[str, Any]:
    name = embeds.escape(embeds.cut(mirror.campaign.name, 120))
    return {
        "content": f"Tabletop: the log of **{name}** will be posted here, as someone with no "
        "role in the scene sees it (hidden rolls as a stub until they are revealed).",
        "allowed_mentions": NO_MENTIONS,
    }


def _posted(
    mirror: Mirror, scene_id: int, items: list[dict[str, Any]], answer: webhooks.Answer
) -> None:
    """Keep the message Discord made (its id: a reveal edits it) and when."""
    now = timezone.now()
    Mirror.objects.filter(pk=mirror.pk).update(posted_at=now)
    message_id = str((answer.message or {}).get("id", ""))
    if not message_id:
        return
    Message.objects.create(
        scene_id=scene_id,
        webhook_id=mirror.webhook_id,
        message_id=message_id,
        first_seq=items[0]["seq"],
        last_seq=items[-1]["seq"],
        seqs=[item["seq"] for item in items],
        stubs=[bool(item["stub"]) for item in items],
        embeds=[item["embed"] for item in items],
        posted_at=now,
    )


def _reveal(
    scene_id: int, item: dict[str, Any], hook: webhooks.Webhook, mirror: Mirror
) -> webhooks.Answer | None:
    """Edit the message that carried the roll's stub to show the roll; post the roll where
    no message of this webhook carried it (it was secret, or the mirror was off then, or
    someone deleted the message); nothing where its message shows it in full already."""
    seq = item["seq"]
    message = (
        Message.objects.filter(
            scene_id=scene_id, webhook_id=mirror.webhook_id, first_seq__lte=seq, last_seq__gte=seq
        )
        .order_by("-pk")
        .first()
    )
    if message is not None and seq in message.seqs:
        place = message.seqs.index(seq)
        if not message.stubs[place]:
            return None
        shown = list(message.embeds)
        shown[place] = item["embed"]
        try:
            answer = webhooks.edit(hook, message.message_id, _payload(shown))
        except webhooks.MessageGone:
            pass  # deleted in Discord: the roll is posted anew below
        else:
            message.embeds = shown
            message.stubs = [s and i != place for i, s in enumerate(message.stubs)]
            message.save(update_fields=["embeds", "stubs"])
            Mirror.objects.filter(pk=mirror.pk).update(posted_at=timezone.now())
            return answer
    answer = webhooks.execute(hook, _payload([item["embed"]]))
    _posted(mirror, scene_id, [item], answer)
    return answer
