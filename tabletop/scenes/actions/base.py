"""What every scene action shares: authorising the actor, reading commands' numbers, locking a
roll, and the follow-ups a command leaves for later."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Exists, OuterRef

from rules.core import (
    resolve_rng,  # noqa: F401 - patched by tests for scripted dice
)
from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character
from tabletop.scenes.models import Scene, SceneEvent

# --- authorisation helpers --------------------------------------------------------------------


def membership(campaign: Campaign, user: Any) -> None:
    """Refuse anyone who is not (or no longer) a member of the campaign."""
    if not user.is_authenticated:
        raise PermissionDenied("Log in first.")
    # A command's scene read already answered this in the same query (``open_scene``).
    known = getattr(campaign, "_member_ids", {})
    if user.pk in known:
        is_member = known[user.pk]
    else:
        is_member = Membership.objects.filter(campaign_id=campaign.pk, user_id=user.pk).exists()
    if not is_member:
        raise PermissionDenied("You are not a member of this campaign.")


def require_gm(campaign: Campaign, user: Any) -> None:
    if not user.is_authenticated or campaign.gm_id != user.pk:
        raise PermissionDenied("Only the GM can do that.")


def open_scene(scene_id: int, *, user: Any = None) -> Scene:
    """The scene with its campaign; with ``user``, whether they are a member is read in the
    same query (every command asks, and a query fewer per roll counts on a busy server)."""
    scenes = Scene.objects.select_related("campaign")
    member = user is not None and user.is_authenticated
    if member:
        scenes = scenes.annotate(
            actor_is_member=Exists(
                Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user.pk)
            )
        )
    try:
        scene = scenes.get(pk=scene_id)
    except Scene.DoesNotExist:
        raise ValidationError("That scene does not exist.") from None
    if member:
        scene.campaign._member_ids = {user.pk: scene.actor_is_member}
    return scene


def require_open(scene: Scene) -> None:
    if not scene.is_open:
        raise ValidationError("This scene is not open for play.")


def character_for_roll(*, scene: Scene, actor: Any, character_id: Any) -> Character | None:
    if character_id in (None, ""):
        return None
    try:
        character_id = int(character_id)
    except (TypeError, ValueError):
        raise ValidationError("Pick a character from the list.") from None
    character = Character.objects.filter(pk=character_id, campaign=scene.campaign).first()
    if character is None:
        raise ValidationError("That character is not in this campaign.")
    if character.owner_id != actor.pk and scene.campaign.gm_id != actor.pk:
        raise PermissionDenied("You can only roll for your own characters.")
    return character


def lock_roll(scene: Scene, seq: Any) -> SceneEvent:
    event = (
        # of=("self",): PostgreSQL can't lock the nullable side of the character join.
        SceneEvent.objects.select_for_update(of=("self",))
        .select_related("character", "scene__campaign")
        .filter(scene=scene, seq=whole(seq, "Which roll?"), kind="roll")
        .first()
    )
    if event is None:
        raise ValidationError("There is no such roll in this scene.")
    return event


def whole(raw: Any, what: str) -> int:
    if isinstance(raw, bool):
        raise ValidationError(f"{what} (a whole number)")
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ValidationError(f"{what} (a whole number)") from None


def roll_data(event: SceneEvent) -> dict[str, Any]:
    """The roll as the table sees it now: what was rolled, with any spends' amendments on top."""
    data = {**event.public, **event.secret}
    data.update(event.public.get("amended", {}))
    return data


@dataclasses.dataclass(frozen=True)
class FollowUp:
    """Work a command leaves for later: settle a spend once its cancel window closes."""

    delay: float
    run: Callable[[], Any]


def foe_for(scene: Scene, raw: Any) -> Character | None:
    """The campaign's foe a panel picked (None when none was)."""
    if raw in (None, ""):
        return None
    pk = whole(raw, "Pick a foe from the list.")
    foe = Character.objects.filter(pk=pk, campaign=scene.campaign, kind=Character.Kind.FOE).first()
    if foe is None:
        raise ValidationError("That foe is not in this campaign.")
    return foe
