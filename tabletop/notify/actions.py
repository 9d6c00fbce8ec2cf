"""The only writes of notifications' state: a page's read mark, a member's mail choice, and
the one-click unsubscribe."""

from __future__ import annotations

from typing import Any

from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Greatest
from django.utils import timezone

from tabletop.campaigns.models import Campaign, Membership
from tabletop.notify.models import MailChoice, Notification, ReadMark
from tabletop.scenes.models import Scene

_UNSUBSCRIBE = "tabletop.notify.unsubscribe"


def mark_seen(*, scene: Scene, user: Any, seq: Any, visible: bool) -> ReadMark:
    """A member's page has shown the scene up to ``seq`` (never past its newest event, never
    back); ``visible``: the page is in front of them now (they are at the table)."""
    try:
        seq = int(seq)
    except (TypeError, ValueError):
        raise ValidationError("Say how far the page has shown the scene (a number).") from None
    if seq < 0:
        raise ValidationError("Say how far the page has shown the scene (a number).")
    seq = min(seq, Scene.objects.filter(pk=scene.pk).values_list("last_seq", flat=True)[0])
    # A hidden page is not at the table from now (its heartbeats stop too).
    fields: dict[str, Any] = {"seq": Greatest("seq", seq), "visible_at": None}
    if visible:
        fields["visible_at"] = timezone.now()
    with transaction.atomic():
        mark, made = ReadMark.objects.get_or_create(
            user=user, scene=scene, defaults={"seq": seq, "visible_at": fields.get("visible_at")}
        )
        if not made:
            ReadMark.objects.filter(pk=mark.pk).update(**fields)
            mark.refresh_from_db()
        Notification.objects.filter(user=user, scene=scene, seq__lte=mark.seq, seen=False).update(
            seen=True
        )
    return mark


def choose_mail(*, campaign: Campaign, user: Any, level: str) -> MailChoice:
    """A member chooses which mail they get from a campaign."""
    if level not in MailChoice.Level.values:
        raise ValidationError("Choose everything, mentions and turns, or no mail.")
    if not Membership.objects.filter(campaign=campaign, user=user).exists():
        raise ValidationError("You are not in this campaign.")
    choice, _ = MailChoice.objects.update_or_create(
        user=user, campaign=campaign, defaults={"level": level}
    )
    return choice


def unsubscribe_token(*, user_id: int, campaign_id: int) -> str:
    """The signed token of a mail's one-click unsubscribe link (no login needed)."""
    return signing.dumps({"u": user_id, "c": campaign_id}, salt=_UNSUBSCRIBE)


def unsubscribe(*, token: str) -> Campaign:
    """Stop mail of a campaign for the member the token names; a wrong or altered token
    changes nothing (ValidationError)."""
    try:
        said = signing.loads(token, salt=_UNSUBSCRIBE)
        user_id, campaign_id = int(said["u"]), int(said["c"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise ValidationError("This unsubscribe link is not valid: nothing was changed.") from None
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise ValidationError("That campaign is gone: it sends no mail.")
    MailChoice.objects.update_or_create(
        user_id=user_id, campaign=campaign, defaults={"level": MailChoice.Level.NOTHING}
    )
    return campaign
