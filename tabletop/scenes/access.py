"""Who may do what in a scene: the actor is a member of its campaign (or its GM, or the player
of the character they act for), and the scene is open for play. The rows a command names are
found by ``rows``; the scene a command goes by is read by ``fastpath``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character
from tabletop.scenes.context import CommandContext
from tabletop.scenes.models import Scene


def membership(campaign: Campaign, user: Any, context: CommandContext) -> None:
    """Refuse anyone who is not (or no longer) a member of the campaign."""
    if not user.is_authenticated:
        raise PermissionDenied("Log in first.")
    # The command read it with the scene, moments ago (or its first write checks it).
    member = context.member_known(campaign, user)
    if member is None:
        member = Membership.objects.filter(campaign_id=campaign.pk, user_id=user.pk).exists()
    if not member:
        raise PermissionDenied("You are not a member of this campaign.")


def require_gm(campaign: Campaign, user: Any) -> None:
    if not user.is_authenticated or campaign.gm_id != user.pk:
        raise PermissionDenied("Only the GM can do that.")


def require_open(scene: Scene) -> None:
    if not scene.is_open:
        raise ValidationError("This scene is not open for play.")


def require_player(
    scene: Scene, actor: Any, character: Character, refusal: str | None = None
) -> None:
    """The character's own player, or the GM (who plays every NPC and foe); anyone else gets
    ``refusal`` (by default: only the player or the GM can do that)."""
    if character.owner_id != actor.pk and scene.campaign.gm_id != actor.pk:
        raise PermissionDenied(refusal or f"Only {character.name}'s player or the GM can do that.")
