"""Reads of what reaches a member: unread counts (through the one ``visibility()``), whether
they are at the table, their notifications and mail choices."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from tabletop.campaigns.models import Membership
from tabletop.notify.models import MailChoice, Notification, ReadMark
from tabletop.scenes.audiences import Viewer, visibility
from tabletop.scenes.models import SceneEvent

#: A member is at the table while a page of theirs, visible, said so this recently.
AT_TABLE_SECONDS = 30
#: Unread events counted per member at most (the count shows "99+" past 99).
COUNTED = 2000


def at_table(user_id: int) -> bool:
    """Whether one of the member's scene pages is visible with a heartbeat in the last 30 s
    (a hidden tab or a closed laptop is not)."""
    since = timezone.now() - timedelta(seconds=AT_TABLE_SECONDS)
    return ReadMark.objects.filter(user_id=user_id, visible_at__gte=since).exists()


def read_mark(*, user: Any, scene: Any) -> int | None:
    """How far the member has seen the scene (None: never opened)."""
    return ReadMark.objects.filter(user=user, scene=scene).values_list("seq", flat=True).first()


def unread(*, user: Any) -> Counter[int]:
    """Unread events per scene id for the member: events after their read mark (or, in a scene
    they never opened, since they joined) by someone else that they may see, stub or card."""
    if not user.is_authenticated:
        return Counter()
    mark = ReadMark.objects.filter(user=user, scene=OuterRef("scene_id")).values("seq")[:1]
    joined = Membership.objects.filter(user=user, campaign=OuterRef("scene__campaign_id"))
    events = (
        SceneEvent.objects.filter(scene__campaign__memberships__user=user)
        .exclude(actor=user)
        .annotate(
            mark=Subquery(mark),
            joined=Subquery(joined.values("joined_at")[:1]),
            gm_id=F("scene__campaign__gm_id"),
        )
        .filter(
            Q(mark__isnull=False, seq__gt=F("mark"))
            | Q(mark__isnull=True, created_at__gte=Coalesce("joined", timezone.now()))
        )
        .only("scene_id", "seq", "actor_id", "audience", "recipients", "revealed_at")
        .order_by("-pk")[:COUNTED]
    )
    counts: Counter[int] = Counter()
    for event in events:
        if visibility(event, Viewer(user.pk, event.gm_id == user.pk)) is not None:
            counts[event.scene_id] += 1
    return counts


def unread_by_campaign(*, user: Any) -> Counter[int]:
    """Unread events per campaign id for the member."""
    per_scene = unread(user=user)
    if not per_scene:
        return Counter()
    from tabletop.scenes.models import Scene

    campaigns = dict(Scene.objects.filter(pk__in=per_scene).values_list("pk", "campaign_id"))
    counts: Counter[int] = Counter()
    for scene_id, n in per_scene.items():
        counts[campaigns[scene_id]] += n
    return counts


def unseen_notifications(*, user: Any) -> int:
    """The member's notifications that single them out and that they have not seen yet."""
    if not user.is_authenticated:
        return 0
    return (
        Notification.objects.filter(user=user, seen=False, campaign__memberships__user=user)
        .exclude(why="")
        .count()
    )


def notifications_for(*, user: Any, limit: int = 100) -> list[Notification]:
    """The member's newest notifications that single them out, in campaigns they are still in."""
    return list(
        Notification.objects.filter(user=user, campaign__memberships__user=user)
        .exclude(why="")
        .select_related("scene", "campaign")[:limit]
    )


def mail_level(*, user: Any, campaign: Any) -> str:
    """Which mail the member wants from the campaign."""
    level = MailChoice.objects.filter(user=user, campaign=campaign).values_list("level", flat=True)
    return level.first() or MailChoice.DEFAULT


def since_at(events: list[tuple[Any, Any]], *, user: Any, scene: Any) -> int | None:
    """Where the scene's log shows "since you were last here": before the first of the page's
    events (each with what the member may see of it) after their read mark by someone else;
    None when they never opened the scene or missed nothing on this page."""
    mark = read_mark(user=user, scene=scene)
    if mark is None:
        return None
    for index, (event, _vis) in enumerate(events):
        if event.seq > mark and event.actor_id != user.pk:
            return index
    return None
