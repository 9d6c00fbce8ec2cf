"""Reads about campaigns and who may do what in them (no writes here)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from tabletop.campaigns.models import Campaign, Membership


def campaigns_for(*, user: AbstractBaseUser) -> QuerySet[Campaign]:
    """The campaigns a user belongs to, as GM or player."""
    return Campaign.objects.filter(memberships__user=user).select_related("gm").distinct()


def membership_of(
    *, campaign: Campaign, user: AbstractBaseUser | AnonymousUser
) -> Membership | None:
    """The user's membership of the campaign, or None (anonymous users are never members)."""
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(campaign=campaign, user=user).first()


def is_gm(*, campaign: Campaign, user: AbstractBaseUser | AnonymousUser) -> bool:
    return user.is_authenticated and campaign.gm_id == user.pk
