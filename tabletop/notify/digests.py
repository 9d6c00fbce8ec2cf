"""Mail digests: the first notification a member has not seen in a scene starts a window of
``NOTIFY_EMAIL_DELAY_SECONDS``; at its end, unless they have seen it meanwhile or are at the
table, ONE plain-text mail lists everything still unseen there (who, what, a link to the
scene), at most ``MAILS_PER_HOUR`` per member. The mail goes into the outbox in the same
transaction that marks its notifications mailed (a conditional UPDATE: two processes never
compose one twice); the sender sends it (tabletop/outbox/sender.py).

Each mail carries ``List-Unsubscribe`` (an https URL whose POST, without a login, stops mail
of that campaign for that member) and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``
(RFC 8058)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from tabletop.campaigns.models import Membership
from tabletop.notify import actions, selectors
from tabletop.notify.models import MailChoice, Notification
from tabletop.outbox.models import Outgoing

#: How often the sender looks for windows that ended.
COMPOSE_SECONDS = 5.0
#: A member gets this many digests an hour at most; more wait for the next hour.
MAILS_PER_HOUR = 6
#: Lines one mail lists at most (the rest: "and N more").
LINES = 30

Mail = Notification.Mail


def site_url(path: str) -> str:
    """An absolute link to ``path`` for mail (SITE_URL, else the local server)."""
    return f"{settings.SITE_URL or 'http://localhost:8000'}{path}"


def compose_due() -> int:
    """Every (member, scene) whose window ended: its digest composed (or its notifications
    settled without one). The mails queued."""
    ended = timezone.now() - timedelta(seconds=settings.NOTIFY_EMAIL_DELAY_SECONDS)
    due = (
        Notification.objects.filter(mail=Mail.PENDING, created_at__lte=ended)
        .values_list("user_id", "scene_id")
        .distinct()
    )
    return sum(compose(user_id=user_id, scene_id=scene_id) for user_id, scene_id in list(due))


def compose(*, user_id: int, scene_id: int) -> int:
    """The member's digest of the scene, when one is due (1: queued, 0: not)."""
    with transaction.atomic():
        pending = list(
            Notification.objects.filter(user_id=user_id, scene_id=scene_id, mail=Mail.PENDING)
            .select_related("scene", "campaign")
            .order_by("seq")
        )
        if not pending:
            return 0
        campaign = pending[0].campaign
        user = get_user_model().objects.get(pk=user_id)
        wanted = _wanted(user, campaign, pending)
        if not wanted:
            return 0
        if _this_hour(user_id) >= MAILS_PER_HOUR:
            return 0  # the window stays open: the next hour's first mail lists it
        ids = [n.pk for n in wanted]
        claimed = Notification.objects.filter(pk__in=ids, mail=Mail.PENDING)
        if claimed.update(mail=Mail.MAILED) != len(ids):
            transaction.set_rollback(True)  # another process composed it first
            return 0
        Outgoing.objects.create(channel="mail", user=user, campaign=campaign, **_mail(user, wanted))
        return 1


def _settle(notices: list[Notification]) -> None:
    Notification.objects.filter(pk__in=[n.pk for n in notices], mail=Mail.PENDING).update(
        mail=Mail.SKIPPED
    )


def _wanted(user: Any, campaign: Any, pending: list[Notification]) -> list[Notification]:
    """What of the pending notifications a mail should list now; the rest are settled
    without one (seen, not wanted, nobody to mail, left the campaign). None while the member
    is at the table: the window waits until they leave it (what their page showed is seen)."""
    if not Membership.objects.filter(user=user, campaign=campaign).exists():
        _settle(pending)
        return []
    level = selectors.mail_level(user=user, campaign=campaign)
    if not user.email or level == MailChoice.Level.NOTHING:
        _settle(pending)
        return []
    if selectors.at_table(user.pk):
        return []  # a page of theirs is in front of them: what it shows moves the read mark
    wanted = [n for n in pending if not n.seen and (n.why or level == MailChoice.Level.EVERYTHING)]
    _settle([n for n in pending if n not in wanted])
    return wanted


def _this_hour(user_id: int) -> int:
    since = timezone.now() - timedelta(hours=1)
    return Outgoing.objects.filter(user_id=user_id, channel="mail", created_at__gte=since).count()


def _mail(user: Any, notices: list[Notification]) -> dict[str, Any]:
    scene, campaign = notices[0].scene, notices[0].campaign
    token = actions.unsubscribe_token(user_id=user.pk, campaign_id=campaign.pk)
    unsubscribe = site_url(reverse("notify:unsubscribe", kwargs={"token": token}))
    scene_link = site_url(reverse("scenes:detail", kwargs={"pk": scene.pk}))
    choices = site_url(reverse("notify:campaign", kwargs={"campaign_pk": campaign.pk}))
    lines = [f"- {n.who or 'The table'} {n.get_why_display()}: {n.what}" for n in notices[:LINES]]
    if len(notices) > LINES:
        lines.append(f"- and {len(notices) - LINES} more")
    count = f"{len(notices)} new" if len(notices) > 1 else "New"
    body = "\n".join(
        [
            f"Hello {user.get_username()},",
            "",
            f'While you were away, in the scene "{scene.name}" of {campaign.name}:',
            "",
            *lines,
            "",
            f"Open the scene: {scene_link}",
            "",
            "--",
            f"You get this mail as a member of {campaign.name}.",
            f"Choose which mail you get: {choices}",
            f"Stop all mail from this campaign: {unsubscribe}",
        ]
    )
    subject = " ".join(f"[{settings.SITE_NAME}] {count} in {scene.name} ({campaign.name})".split())
    return {
        "address": user.email,
        "subject": subject[:200],
        "body": body,
        "headers": {
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    }
