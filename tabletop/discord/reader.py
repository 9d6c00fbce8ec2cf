"""The mirror's durable reader (tabletop/scenes/feed/durable.py): one outside cursor on each
scene of a campaign whose mirror runs, reading as a viewer with no role in the scene, so it
gets exactly what ``visibility()`` gives an outsider. What it may see and the GM chose to send
becomes outbox rows (tabletop/outbox) in the cursor's own transaction: a scene's posts in its
stream ("discord:<scene>"), in seq order, up to ``PER_POST`` embeds a post. A post still
waiting unclaimed takes the next events in (a busy scene, or Discord slow or down, makes
fuller posts, not more). A reveal is a row of its own: it edits the stub's message.

The mirror starts at each scene's position when it is turned on or given a new URL
(``actions``: no backfill); a scene begun later is read from its start.
"""

from __future__ import annotations

import json
from typing import Any

from tabletop.discord import embeds
from tabletop.discord.models import Mirror
from tabletop.outbox.models import Outgoing
from tabletop.scenes import kinds
from tabletop.scenes.audiences import FULL, STUB, Viewer, visibility
from tabletop.scenes.feed import durable
from tabletop.scenes.models import ReaderCursor, Scene, SceneEvent

NAME = "discord"
CHANNEL = "discord"
#: Embeds in one post at most (Discord's limit), and their characters (Discord's is 6,000).
PER_POST = 10
POST_CHARACTERS = 5800


def stream(scene_id: int) -> str:
    """The outbox stream of a scene's posts: they go one at a time, in order."""
    return f"discord:{scene_id}"


def running_mirror(campaign_id: int) -> Mirror | None:
    return Mirror.objects.running().filter(campaign_id=campaign_id).first()


def _subjects(scene: Scene) -> list[None]:
    """One outside cursor while the campaign's mirror runs; none otherwise."""
    return [None] if Mirror.objects.running().filter(campaign_id=scene.campaign_id).exists() else []


def _start(scene: Scene, subject: int | None) -> int:
    """Where a cursor the mirror meets without one starts: a scene begun since the mirror's
    webhook was set is read from its start; any other at its position now (no backfill; the
    actions make cursors for every scene there is when the mirror is set)."""
    mirror = running_mirror(scene.campaign_id)
    first = SceneEvent.objects.filter(scene=scene).order_by("seq").values("created_at").first()
    if mirror is not None and first is not None and first["created_at"] >= mirror.started_at:
        return 0
    return scene.last_seq


def _item(event: SceneEvent, embed: dict[str, Any], *, stub: bool) -> dict[str, Any]:
    return {"seq": event.seq, "stub": stub, "embed": embed}


def _subject(scene: Scene, items: list[dict[str, Any]]) -> str:
    """What a post holds, in words for the GM's list of what waits or was not sent."""
    first, last = items[0]["seq"], items[-1]["seq"]
    span = f"#{first}" if first == last else f"#{first} to #{last}"
    count = f"{len(items)} event{'s' if len(items) != 1 else ''}"
    return f"{scene.name}: {span} ({count})"[:200]


def _fits(items: list[dict[str, Any]]) -> bool:
    total = sum(embeds.size(item["embed"]) for item in items)
    return len(items) <= PER_POST and total <= POST_CHARACTERS


def _merged_into_waiting(scene: Scene, mirror: Mirror, items: list[dict[str, Any]]) -> int:
    """Put as many of ``items`` as fit into the scene's newest post still waiting unclaimed;
    how many went in. A conditional UPDATE: a post a sender claimed meanwhile is left as it
    is (on PostgreSQL the claim's row lock decides which comes first)."""
    waiting = (
        Outgoing.objects.filter(
            stream=stream(scene.pk), sent_at__isnull=True, dropped_at__isnull=True
        )
        .order_by("-pk")
        .first()
    )
    if waiting is None or waiting.claimed_by:
        return 0
    body = json.loads(waiting.body)
    if body.get("webhook") != mirror.webhook_id or "post" not in body:
        return 0
    taken = 0
    while taken < len(items) and _fits([*body["post"], *items[: taken + 1]]):
        taken += 1
    if not taken:
        return 0
    post = [*body["post"], *items[:taken]]
    moved = Outgoing.objects.filter(
        pk=waiting.pk, claimed_by="", sent_at__isnull=True, dropped_at__isnull=True
    ).update(body=json.dumps({**body, "post": post}), subject=_subject(scene, post))
    return taken if moved == 1 else 0


def _post(scene: Scene, mirror: Mirror, items: list[dict[str, Any]]) -> None:
    """Rows for ``items`` (in seq order): the waiting post filled first, then new posts."""
    if not items:
        return
    items = items[_merged_into_waiting(scene, mirror, items) :]
    while items:
        count = 1
        while count < len(items) and _fits(items[: count + 1]):
            count += 1
        batch, items = items[:count], items[count:]
        body = {"webhook": mirror.webhook_id, "scene": scene.pk, "post": batch}
        Outgoing.objects.create(
            channel=CHANNEL,
            campaign_id=scene.campaign_id,
            stream=stream(scene.pk),
            subject=_subject(scene, batch),
            body=json.dumps(body),
        )


def _reveal(scene: Scene, mirror: Mirror, event: SceneEvent) -> None:
    """A reveal: a row that edits the message of the roll's stub (or posts its card)."""
    roll = event.parent
    if roll is None or visibility(roll, embeds.OUTSIDER) != FULL:
        return
    roll.scene = scene
    body = {
        "webhook": mirror.webhook_id,
        "scene": scene.pk,
        "reveal": _item(roll, embeds.revealed(roll, scene), stub=False),
    }
    Outgoing.objects.create(
        channel=CHANNEL,
        campaign_id=scene.campaign_id,
        stream=stream(scene.pk),
        subject=f"{scene.name}: the reveal of #{roll.seq}"[:200],
        body=json.dumps(body),
    )


def _handle(cursor: ReaderCursor, viewer: Viewer, seen: durable.Seen) -> None:
    scene = cursor.scene
    mirror = running_mirror(scene.campaign_id)
    if mirror is None:
        return
    items: list[dict[str, Any]] = []
    for event, vis in seen:
        kind = kinds.EVENT_KINDS.get(event.kind)
        if kind is None or kind.mirror not in mirror.sends:
            continue
        event.scene = scene  # read already, with its campaign (a card's controls ask)
        if event.kind == "reveal":
            _post(scene, mirror, items)  # what came before it goes before it
            items = []
            _reveal(scene, mirror, event)
            continue
        embed = embeds.of(event, vis, scene)
        if embed is not None:
            items.append(_item(event, embed, stub=vis == STUB))
    _post(scene, mirror, items)


def _busy(campaigns: set[int]) -> set[int]:
    """The campaigns whose mirror runs: every event there may go to Discord."""
    running = Mirror.objects.running().filter(campaign_id__in=campaigns)
    return set(running.values_list("campaign_id", flat=True))


MIRROR = durable.Reader(
    NAME,
    subjects=_subjects,
    handle=_handle,
    start=_start,
    wants=lambda event: False,  # only where a mirror runs (``_busy``)
    busy=_busy,
)
