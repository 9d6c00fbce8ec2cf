"""What the GM's settings page shows of the campaign's Discord mirror: the webhook (masked),
what goes there, how far behind it is, why it stopped and what was not sent."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import F, Sum
from django.utils import timezone

from tabletop.campaigns.models import Campaign
from tabletop.discord.models import Mirror
from tabletop.discord.reader import CHANNEL, NAME
from tabletop.outbox.models import Outgoing
from tabletop.scenes.models import ReaderCursor

#: Rows of what was not sent the page lists at most.
NOT_SENT_SHOWN = 20


@dataclass
class Behind:
    """How far behind the mirror is: posts waiting (and the events in them), since when, the
    events not read yet, a rate limit's or a failure's wait."""

    posts: int = 0
    events: int = 0
    since: datetime | None = None
    unread: int = 0
    waiting_until: datetime | None = None
    last_error: str = ""

    @property
    def moving(self) -> bool:
        return bool(self.posts or self.unread)


@dataclass
class MirrorStatus:
    mirror: Mirror | None
    behind: Behind = field(default_factory=Behind)
    #: what was not sent when Discord refused the webhook (the subjects, newest first)
    not_sent: list[str] = field(default_factory=list)
    not_sent_count: int = 0
    test_waiting: bool = False
    test_error: str = ""

    @property
    def polling(self) -> bool:
        """Whether the page asks again in a few seconds (something is on its way)."""
        return self.mirror is not None and (self.behind.moving or self.test_waiting)


def _behind(campaign: Campaign) -> Behind:
    waiting = Outgoing.objects.filter(
        channel=CHANNEL, campaign=campaign, sent_at__isnull=True, dropped_at__isnull=True
    ).exclude(stream__startswith="discord-test:")
    behind = Behind()
    for body, created, due, error in waiting.values_list(
        "body", "created_at", "due_at", "last_error"
    ).order_by("pk")[:500]:
        behind.posts += 1
        data = json.loads(body)
        behind.events += len(data.get("post", ())) or 1
        behind.since = created if behind.since is None else min(behind.since, created)
        if due > timezone.now() and (behind.waiting_until is None or due < behind.waiting_until):
            behind.waiting_until, behind.last_error = due, error
    unread = ReaderCursor.objects.filter(
        reader=NAME, scene__campaign=campaign, seq__lt=F("scene__last_seq")
    ).aggregate(events=Sum(F("scene__last_seq") - F("seq")))
    behind.unread = unread["events"] or 0
    return behind


def mirror_status(*, campaign: Campaign) -> MirrorStatus:
    """The mirror as its GM may see it (the token never: ``Mirror.masked_url``)."""
    mirror = Mirror.objects.filter(campaign=campaign).first()
    if mirror is None:
        return MirrorStatus(None)
    status = MirrorStatus(mirror, _behind(campaign))
    if mirror.stopped_at is not None:
        dropped = Outgoing.objects.filter(
            channel=CHANNEL, campaign=campaign, dropped_at__gte=mirror.stopped_at, sent_at=None
        ).exclude(stream__startswith="discord-test:")
        status.not_sent_count = dropped.count()
        status.not_sent = list(
            dropped.order_by("-pk").values_list("subject", flat=True)[:NOT_SENT_SHOWN]
        )
    test = (
        Outgoing.objects.filter(
            channel=CHANNEL, campaign=campaign, stream__startswith="discord-test:"
        )
        .order_by("-pk")
        .first()
    )
    if test is not None and mirror.tested_at is None:
        status.test_waiting = test.sent_at is None and test.dropped_at is None
        status.test_error = test.last_error if test.sent_at is None else ""
    return status


def mirrored_to_discord(*, campaign: Campaign) -> list[str]:
    """What of the campaign goes to its group's Discord channel, in words every member may
    read (the campaign page says so); empty when nothing does."""
    mirror = Mirror.objects.running().filter(campaign=campaign).first()
    if mirror is None:
        return []
    labels = dict(Mirror.Sends.choices)
    return [str(labels[value]).split(" (")[0].lower() for value in mirror.sends if value in labels]
