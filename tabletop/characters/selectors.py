"""Reads about characters and who may see or change them (no writes here)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet

from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character

User = AbstractBaseUser | AnonymousUser


def is_member(*, campaign: Campaign, user: User) -> bool:
    """A member is the campaign's GM or anyone with a membership (a removed player is not)."""
    if not user.is_authenticated:
        return False
    return (
        campaign.gm_id == user.pk
        or Membership.objects.filter(campaign=campaign, user=user).exists()
    )


def characters_visible_to(*, user: User) -> QuerySet[Character]:
    """Every character in a campaign the user belongs to: sheets are open to the whole table."""
    if not user.is_authenticated:
        return Character.objects.none()
    member_of = Membership.objects.filter(user=user).values("campaign_id")
    return (
        Character.objects.filter(Q(campaign__in=member_of) | Q(campaign__gm=user))
        .select_related("campaign", "owner")
        .distinct()
    )


def can_edit(*, character: Character, user: User) -> bool:
    """The GM edits any sheet in the campaign; a player only their own, while still a member."""
    if not user.is_authenticated:
        return False
    if character.campaign.gm_id == user.pk:
        return True
    return character.owner_id == user.pk and is_member(campaign=character.campaign, user=user)


def can_adjust(*, character: Character, user: User) -> bool:
    """Currencies and harm are the GM's to hand out and take away."""
    return user.is_authenticated and character.campaign.gm_id == user.pk
