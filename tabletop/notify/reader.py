"""Each member's notifications: a durable reader (tabletop/scenes/feed/durable.py) of every
scene of their campaigns, reading as that member through the one ``visibility()``. An event
they may see in full, by someone else, becomes a notification with why it reaches them: a
mention, a whisper to them, a kind that names them (``EventKind.notifies``: the turn handed to
them, a scene opened, a request they must answer), or nothing in particular (kept only for
members who chose to be mailed everything). A stub (a blind roll's "someone rolled") is never a
notification."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from tabletop.campaigns.models import Membership
from tabletop.notify.models import MailChoice, Notification, ReadMark
from tabletop.scenes import kinds
from tabletop.scenes.audiences import FULL, Viewer
from tabletop.scenes.feed import durable
from tabletop.scenes.models import Audience, ReaderCursor, Scene, SceneEvent, roll_data

WHAT_MAX = 300


def _members(scene: Scene) -> list[int]:
    return list(
        Membership.objects.filter(campaign_id=scene.campaign_id).values_list("user_id", flat=True)
    )


def _start(scene: Scene, user_id: int | None) -> int:
    """A member's cursor starts after what came before they joined (none of it is news)."""
    joined = (
        Membership.objects.filter(campaign_id=scene.campaign_id, user_id=user_id)
        .values_list("joined_at", flat=True)
        .first()
    )
    if joined is None:
        return scene.last_seq
    if joined <= scene.created_at:
        return 0  # a member before the scene began: all of it may be news
    before = SceneEvent.objects.filter(scene=scene, created_at__lt=joined).order_by("-seq").first()
    return before.seq if before is not None else 0


_KIND_WHY = {"turn": Notification.Why.TURN, "scene_opened": Notification.Why.SCENE}


def _reasons(event: SceneEvent) -> Iterator[tuple[str, Callable[[], Collection[int]]]]:
    """What of the event may single someone out, most telling first, each with whom it does
    (worked out only when asked: a kind's ``notifies`` may read the database)."""
    data = {**event.public, **event.secret}
    if data.get("mentions"):
        yield Notification.Why.MENTION, lambda: data["mentions"]
    if event.audience == Audience.WHISPER:
        yield Notification.Why.WHISPER, lambda: event.recipients
    kind = kinds.EVENT_KINDS.get(event.kind)
    if kind is not None and kind.notifies is not None:
        notifies = kind.notifies
        yield _KIND_WHY.get(event.kind, Notification.Why.ASKS), lambda: set(notifies(event))


def singled_out(event: SceneEvent) -> list[tuple[str, set[int]]]:
    """Whom the event singles out, and why, most telling first (worked out once an event: a
    kind's ``notifies`` may read the database, and a scene's members are read together)."""
    return [(reason, set(whom())) for reason, whom in _reasons(event)]


def why(event: SceneEvent, user_id: int, singled: list[tuple[str, set[int]]] | None = None) -> str:
    """Why an event the member may see in full reaches them ("" for no particular reason)."""
    reasons = singled_out(event) if singled is None else singled
    return next((reason for reason, whom in reasons if user_id in whom), Notification.Why.NOTHING)


def what(event: SceneEvent) -> str:
    """The event in a line, as a viewer who sees it in full reads it (plain text)."""
    data: dict[str, Any] = {**event.public, **event.secret}
    if event.kind == "chat":
        text = str(data.get("text", ""))
        return f"* {data.get('speaker', '')} {text}" if data.get("emote") else text
    if event.kind == "scene_opened":
        return str(data.get("name", ""))
    if event.kind == "roll":
        shown = roll_data(event)
        parts = [str(shown.get(k, "")) for k in ("title", "summary", "outcome")]
        return " - ".join(p for p in parts if p)
    for key in ("message", "text", "use_text", "summary", "name"):
        if data.get(key):
            return str(data[key])
    return event.kind.replace("_", " ").capitalize()


def _wants(event: SceneEvent) -> bool:
    """An event that may single someone out (``why``)."""
    return next(_reasons(event), None) is not None


def _busy(campaigns: set[int]) -> set[int]:
    """The campaigns where a member is mailed everything: every event there is news."""
    return set(
        MailChoice.objects.filter(
            campaign_id__in=campaigns, level=MailChoice.Level.EVERYTHING
        ).values_list("campaign_id", flat=True)
    )


def _handle(cursor: ReaderCursor, viewer: Viewer, seen: durable.Seen) -> None:
    _handle_many([(cursor, viewer, seen)])


def _handle_many(batch: Sequence[durable.Handled]) -> None:
    """The notifications of a scene's members at once: one insert for them all, and a read of
    their read marks only when there is something to mark (a busy scene's readers cost one
    transaction a pass, not one a member). An event that singles nobody out is kept only for
    members who chose to be mailed everything (the rest would never hear of it: seven rows a
    roll at a table of eight were most of a roll's cost, bench/README.md "One feed")."""
    scene = batch[0][0].scene
    users = [cursor.user_id for cursor, _viewer, _seen in batch]
    everything = set(
        MailChoice.objects.filter(
            campaign_id=scene.campaign_id, user_id__in=users, level=MailChoice.Level.EVERYTHING
        ).values_list("user_id", flat=True)
    )
    notices = []
    lines: dict[int, str] = {}  # each event's line, made once for all its readers
    singled: dict[int, list[tuple[str, set[int]]]] = {}  # and whom it singles out
    for cursor, _viewer, seen in batch:
        user_id = cursor.user_id
        for event, vis in seen:
            if vis != FULL or event.actor_id == user_id:
                continue
            if event.pk not in singled:
                singled[event.pk] = singled_out(event)
            reason = why(event, user_id, singled[event.pk])
            if not reason and user_id not in everything:
                continue
            actor = event.actor
            notices.append(
                Notification(
                    user_id=user_id,
                    campaign_id=scene.campaign_id,
                    scene_id=event.scene_id,
                    seq=event.seq,
                    why=reason,
                    who=actor.get_username() if actor is not None else "",
                    what=lines.get(event.pk) or lines.setdefault(event.pk, _line(event)),
                    created_at=event.created_at,
                )
            )
    if not notices:
        return
    # What their pages showed already (the mark may pass the reader: pages move it) is seen.
    shown = dict(
        ReadMark.objects.filter(
            user_id__in={n.user_id for n in notices}, scene_id=scene.pk
        ).values_list("user_id", "seq")
    )
    for notice in notices:
        notice.seen = notice.seq <= shown.get(notice.user_id, 0)
    Notification.objects.bulk_create(notices, ignore_conflicts=True)


def _line(event: SceneEvent) -> str:
    return " ".join(what(event).split())[:WHAT_MAX]


NOTIFICATIONS = durable.Reader(
    "notifications",
    subjects=_members,
    handle=_handle,
    start=_start,
    handle_many=_handle_many,
    wants=_wants,
    busy=_busy,
)
