"""Scenes: the GM creates, opens and closes them; who is connected shows live."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models import Case, F, PositiveIntegerField, Value, When
from django.utils import timezone

from tabletop.campaigns.models import Campaign
from tabletop.scenes import command_threads, selectors
from tabletop.scenes.access import require_gm
from tabletop.scenes.audiences import scene_group
from tabletop.scenes.command_threads import AT_ONCE, Sends
from tabletop.scenes.due import settle_due_in
from tabletop.scenes.fastpath import onloop, sockets
from tabletop.scenes.fragments import presence_frame
from tabletop.scenes.models import Presence, Scene
from tabletop.scenes.record import record_event

log = logging.getLogger(__name__)

# --- scenes --------------------------------------------------------------------------------------


def scene_create(*, campaign: Campaign, actor: Any, name: str) -> Scene:
    require_gm(campaign, actor)
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the scene a name."})
    if len(name) > 100:
        raise ValidationError({"name": "Keep the name under 100 characters."})
    with transaction.atomic():
        return Scene.objects.create(campaign=campaign, name=name)


def scene_open(*, scene: Scene, actor: Any) -> Scene:
    require_gm(scene.campaign, actor)
    with transaction.atomic():
        scene = Scene.objects.select_for_update().get(pk=scene.pk)
        if scene.status == Scene.Status.OPEN:
            return scene
        scene.status = Scene.Status.OPEN
        scene.opened_at = timezone.now()
        scene.closed_at = None
        scene.save(update_fields=["status", "opened_at", "closed_at"])
        record_event(scene=scene, kind="scene_opened", actor=actor, public={"name": scene.name})
    return scene


def scene_close(*, scene: Scene, actor: Any) -> Scene:
    require_gm(scene.campaign, actor)
    with transaction.atomic():
        scene = Scene.objects.select_for_update().get(pk=scene.pk)
        if scene.status != Scene.Status.OPEN:
            raise ValidationError("Only an open scene can be closed.")
        scene.status = Scene.Status.CLOSED
        scene.closed_at = timezone.now()
        scene.save(update_fields=["status", "closed_at"])
        record_event(scene=scene, kind="scene_closed", actor=actor, public={"name": scene.name})
    return scene


# --- presence ------------------------------------------------------------------------------------


def presence_broadcast(
    *,
    scene_id: int,
    present: tuple[selectors.Present, ...] | None = None,
    sends: Sends = AT_ONCE,
) -> tuple[selectors.Present, ...]:
    """Send who is on the scene (``present``, or as the database has it now) to all its
    sockets, and return it (``beats`` calls this once for a burst of joins and leaves, and
    when its beat finds the list changed: a member gone with their process, a round trip)."""
    scene = Scene.objects.select_related("campaign").get(pk=scene_id)
    if present is None:
        present = tuple(selectors.online_users(scene_id=scene_id))
    html = presence_frame(scene_id=scene_id, users=list(present), gm_id=scene.campaign.gm_id)
    sends.send(scene_group(scene_id), {"type": "scene.presence", "html": html})
    return present


async def presence_announce(
    *, scene_id: int, present: tuple[selectors.Present, ...] | None = None
) -> tuple[selectors.Present, ...] | None:
    """``presence_broadcast`` from the event loop: read and sent there where it can
    (``fastpath.onloop``: one statement), else on the database thread; None when the scene is
    gone."""
    if not onloop.available():
        return await command_threads.run_holding(
            presence_broadcast, scene_id=scene_id, present=present
        )
    found = await selectors.presence_on_loop(scene_id)
    if found is None:
        return None
    gm_id, listed = found
    shown = tuple(listed) if present is None else present
    html = presence_frame(scene_id=scene_id, users=list(shown), gm_id=gm_id)
    await command_threads.send_now(scene_group(scene_id), {"type": "scene.presence", "html": html})
    return shown


def presence_join(*, scene_id: int, user: Any, channel_name: str) -> None:
    """Count a new socket as present; the caller announces it (``beats.announce_presence``)."""
    # A channel name is new for every socket: a plain INSERT, no read first.
    Presence.objects.create(
        channel_name=channel_name, scene_id=scene_id, user=user, last_seen=timezone.now()
    )


def presence_leave(*, channel_name: str) -> None:
    """Forget a closed socket; the caller announces it (``beats.announce_departure``)."""
    Presence.objects.filter(channel_name=channel_name).delete()


async def presence_arrive(*, scene_id: int, user: Any, channel_name: str) -> None:
    """``presence_join`` from a socket: on the event loop where it can (``fastpath.onloop``),
    else on the database thread."""
    if not onloop.available():
        await database_sync_to_async(presence_join)(
            scene_id=scene_id, user=user, channel_name=channel_name
        )
        return
    insert, _ = sockets.presence_row_sql()
    await onloop.execute(insert, [scene_id, user.pk, channel_name, timezone.now()])


async def presence_depart(*, channel_name: str) -> None:
    """``presence_leave`` from a socket, on the event loop where it can."""
    if not onloop.available():
        await database_sync_to_async(presence_leave)(channel_name=channel_name)
        return
    _, delete = sockets.presence_row_sql()
    await onloop.execute(delete, [channel_name])


@dataclass(frozen=True)
class Heartbeat:
    """What one beat found: the scene's newest seq, and who is present as the table sees it."""

    newest_seq: int
    present: tuple[selectors.Present, ...]


def _settled(scene: Scene, sends: Sends) -> int:
    """``settle_due_in`` for one scene of a beat: a scene whose due work fails is logged and
    beats on, and so do the others of its call (the database's own failures end the call)."""
    try:
        return settle_due_in(scene, sends=sends)
    except DatabaseError:
        raise
    except Exception:
        log.exception("due work of scene %s not settled", scene.pk)
        return 0


def heartbeat(
    *, beating: dict[int, dict[str, int | None]], sends: Sends = AT_ONCE
) -> dict[int, Heartbeat]:
    """One process's beat for all its scenes at once: keep the presence of each local socket
    fresh (with the round trip its page measured last; ``beating`` maps each scene to its
    sockets' channel names and round trips, None when unknown or unchanged), settle what is
    due (spend windows, unattended checks: the safety net when the process that scheduled them
    died; their broadcasts go to ``sends``), and return each scene's newest seq, which each
    socket compares with what it has, and who is present now. A scene that is gone has no
    entry.

    Three statements for any number of quiet scenes: a beat per scene cost a thread hop and
    four statements per scene every period, most of what an idle table costs (bench/README.md,
    "Idle tables"); a beat per socket, before that, four per socket."""
    channels = [c for sockets in beating.values() for c in sockets]
    if channels:
        fresh: dict[str, Any] = {"last_seen": timezone.now()}
        known = {
            c: ms for sockets in beating.values() for c, ms in sockets.items() if ms is not None
        }
        if known:
            fresh["rtt_ms"] = Case(
                *(When(channel_name=c, then=Value(ms)) for c, ms in known.items()),
                default=F("rtt_ms"),
                output_field=PositiveIntegerField(),
            )
        Presence.objects.filter(channel_name__in=channels).update(**fresh)
    newest: dict[int, int] = {}
    # The scenes and their campaigns in one statement.
    for scene in Scene.objects.select_related("campaign").filter(pk__in=list(beating)):
        newest[scene.pk] = scene.last_seq
        if _settled(scene, sends):
            newest[scene.pk] = selectors.scene_last_seq(scene_id=scene.pk)  # what it recorded
    # Who is present: a member whose process died drops out here once their presence is stale.
    present = selectors.online_users_of(scene_ids=list(newest))
    return {pk: Heartbeat(seq, tuple(present.get(pk, ()))) for pk, seq in newest.items()}
