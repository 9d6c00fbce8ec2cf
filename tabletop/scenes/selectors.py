"""Reads for live scenes: who may open a scene socket, who is present, who sits at the table.

What a viewer missed of a scene's log is read by the feed (``feed.replay``); its
``replay_frames`` is named here too, where the secrecy tests have always asked for it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from tabletop.campaigns.selectors import members_of, membership_of
from tabletop.characters.models import Character
from tabletop.scenes import fastpath
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.fastpath import onloop, sockets
from tabletop.scenes.feed.replay import replay_frames
from tabletop.scenes.models import Presence, Scene

__all__ = [
    "Present",
    "noticeable",
    "online_users",
    "online_users_of",
    "presence_on_loop",
    "presence_stale_after",
    "replay_frames",
    "scene_access",
    "scene_last_seq",
    "table_members",
    "viewer_for",
]


def scene_access(*, scene_id: int, user: Any) -> tuple[Viewer, int] | None:
    """The viewer a user is on a scene and the scene's campaign id, or None when they may not."""
    if user is None or not user.is_authenticated:
        return None
    read = fastpath.read_scene(scene_id, user=user)  # one statement: the scene and the membership
    if read is None or not read.member:
        return None
    campaign = read.scene.campaign
    return Viewer(user_id=user.pk, is_gm=campaign.gm_id == user.pk), campaign.pk


def scene_last_seq(*, scene_id: int) -> int:
    return Scene.objects.values_list("last_seq", flat=True).get(pk=scene_id)


def presence_stale_after() -> timedelta:
    """A socket whose presence was not refreshed for this long is gone (its process died): two
    and a half beats, so a dead player shows offline within about 30 s of the default beat."""
    return timedelta(seconds=settings.SCENE_HEARTBEAT_SECONDS * 2.5)


@dataclass(frozen=True)
class Present:
    """A member with a live socket on the scene, and their round trip (ms, when known), rounded
    to a step a person would notice: the list is sent again only when what it shows changes."""

    pk: int
    name: str
    rtt_ms: int | None

    @property
    def speed(self) -> str:
        if self.rtt_ms is None:
            return ""
        return "good" if self.rtt_ms < 150 else "fair" if self.rtt_ms < 400 else "slow"


def noticeable(ms: int | None) -> int | None:
    """A round trip rounded to what a person tells apart: 10 ms under 100, 50 under 1,000,
    then 250."""
    if ms is None:
        return None
    step = 10 if ms < 100 else 50 if ms < 1000 else 250
    return round(ms / step) * step or ms


def online_users(*, scene_id: int) -> list[Present]:
    """Members with a live socket on the scene (a presence refreshed within
    ``presence_stale_after``), in name order, with their best round trip."""
    return online_users_of(scene_ids=[scene_id]).get(scene_id, [])


def online_users_of(*, scene_ids: list[int]) -> dict[int, list[Present]]:
    """``online_users`` of several scenes in one statement (the process's beat): each scene
    with someone present, to its list."""
    fresh = timezone.now() - presence_stale_after()
    rows = (
        Presence.objects.filter(scene_id__in=scene_ids, last_seen__gte=fresh)
        .order_by("scene_id", "user__username")
        .values_list("scene_id", "user_id", "user__username", "rtt_ms")
    )
    return _present(rows)


def _present(rows: Any) -> dict[int, list[Present]]:
    """(scene id, user id, name, round trip) rows, ordered by scene and name, as each scene's
    list: one entry per user, with the best round trip of their sockets."""
    seen: dict[int, dict[int, Present]] = {}
    for scene_id, user_id, name, rtt in rows:
        users = seen.setdefault(scene_id, {})
        known = users.get(user_id)
        best = min((ms for ms in (rtt, known and known.rtt_ms) if ms is not None), default=None)
        users[user_id] = Present(user_id, name, noticeable(best))
    return {scene_id: list(users.values()) for scene_id, users in seen.items()}


async def presence_on_loop(scene_id: int) -> tuple[int, list[Present]] | None:
    """The scene's GM and ``online_users``, in one statement on the event loop
    (``fastpath.onloop``), or None when the scene is gone."""
    fresh = timezone.now() - presence_stale_after()
    rows = await onloop.fetch(sockets.presence_list_sql(), [fresh, scene_id])
    if not rows:
        return None
    gm_id = rows[0][0]
    listed = [(scene_id, user, name, rtt) for _gm, user, name, rtt in rows if user is not None]
    return gm_id, _present(listed).get(scene_id, [])


def table_members(campaign: Any) -> list[dict[str, Any]]:
    """Who sits at the campaign's table, for the composer's ``/w NAME``: each member's user id,
    name, whether they run the game, and the names of their characters (a whisper may name a
    character: it reaches the player)."""
    owned: dict[int, list[str]] = {}
    pcs = Character.objects.of_campaign(campaign).filter(role=Character.Role.PC).order_by("name")
    for owner_id, name in pcs.values_list("owner_id", "name"):
        owned.setdefault(owner_id, []).append(name)
    return [
        {
            "id": m.user_id,
            "name": m.user.get_username(),
            "gm": m.user_id == campaign.gm_id,
            "characters": owned.get(m.user_id, []),
        }
        for m in members_of(campaign=campaign)
    ]


def viewer_for(*, campaign: Any, user: Any) -> Viewer | None:
    """The viewer a user is at the campaign's table, or None for a non-member (the scene,
    ledger and statistics pages answer None with a 404: a campaign's existence isn't
    revealed)."""
    if membership_of(campaign=campaign, user=user) is None:
        return None
    return Viewer(user_id=user.pk, is_gm=campaign.gm_id == user.pk)


@dataclass(frozen=True)
class LiveScene:
    """An open scene of one of a member's campaigns, and who is at it now (``online_users``)."""

    scene: Scene
    present: list[Present]


def live_scenes_for(*, user: Any) -> list[LiveScene]:
    """The scenes open now in the campaigns ``user`` sits at (the home page's "Live now"), the
    most recently opened first, each with who is there: two statements, however many."""
    scenes = list(
        Scene.objects.filter(status=Scene.Status.OPEN, campaign__memberships__user=user)
        .select_related("campaign", "campaign__gm")
        .order_by(F("opened_at").desc(nulls_last=True), "-pk")
    )
    present = online_users_of(scene_ids=[scene.pk for scene in scenes]) if scenes else {}
    return [LiveScene(scene, present.get(scene.pk, [])) for scene in scenes]
