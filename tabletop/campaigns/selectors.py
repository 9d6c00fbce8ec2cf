"""Reads about campaigns and who may do what in them (no writes here)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Case, IntegerField, QuerySet, Value, When

import rules
from tabletop.campaigns.models import Campaign, Invite, Membership


def campaigns_for(*, user: AbstractBaseUser) -> QuerySet[Campaign]:
    """The campaigns a user belongs to, as GM or player."""
    return Campaign.objects.filter(memberships__user=user).select_related("gm").distinct()


def memberships_for(*, user: AbstractBaseUser) -> QuerySet[Membership]:
    """The user's seats at every table, newest campaign first (the campaign list page)."""
    return (
        Membership.objects.filter(user=user)
        .select_related("campaign", "campaign__gm")
        .order_by("-campaign__created_at")
    )


def membership_of(
    *, campaign: Campaign, user: AbstractBaseUser | AnonymousUser
) -> Membership | None:
    """The user's membership of the campaign, or None (anonymous users are never members)."""
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(campaign=campaign, user=user).first()


def is_gm(*, campaign: Campaign, user: AbstractBaseUser | AnonymousUser) -> bool:
    return user.is_authenticated and campaign.gm_id == user.pk


def campaign_membership(
    *, pk: int, user: AbstractBaseUser | AnonymousUser
) -> tuple[Campaign, Membership] | None:
    """The campaign and the user's membership of it, or None when either is missing.

    Callers answer None with a 404: a non-member must not learn that the campaign exists.
    """
    if not user.is_authenticated:
        return None
    membership = (
        Membership.objects.select_related("campaign", "campaign__gm")
        .filter(campaign_id=pk, user=user)
        .first()
    )
    if membership is None:
        return None
    return membership.campaign, membership


def members_of(*, campaign: Campaign) -> QuerySet[Membership]:
    """Everyone at the table, the GM first, then players in the order they joined."""
    return (
        Membership.objects.filter(campaign=campaign)
        .select_related("user")
        .order_by("role", "joined_at")  # "gm" sorts before "player"
    )


def active_invite(*, campaign: Campaign) -> Invite | None:
    """The invite link that currently works for this campaign, if any."""
    return campaign.invites.filter(revoked_at__isnull=True).order_by("-created_at").first()


def invite_for_token(*, token: str) -> Invite | None:
    """The active invite with this token, or None for an unknown or revoked one."""
    return (
        Invite.objects.select_related("campaign", "campaign__gm")
        .filter(token=token, revoked_at__isnull=True)
        .first()
    )


def characters_in(*, campaign: Campaign, viewer_is_gm: bool) -> QuerySet[Any]:
    """The characters a member sees listed: everyone's PCs; the GM also sees NPCs and foes."""
    from tabletop.characters.models import Character  # the characters app builds on campaigns

    characters = Character.objects.of_campaign(campaign).select_related("owner")
    if not viewer_is_gm:
        characters = characters.filter(role=Character.Role.PC)
    return characters


def scenes_of(*, campaign: Campaign) -> QuerySet[Any]:
    """The campaign's scenes for its page: the open ones (live now) first, then those prepared,
    then the closed ones; newest first within each."""
    from tabletop.scenes.models import Scene  # the scenes app builds on campaigns

    status_order = Case(
        When(status=Scene.Status.OPEN, then=Value(0)),
        When(status=Scene.Status.PREPARED, then=Value(1)),
        default=Value(2),
        output_field=IntegerField(),
    )
    return (
        Scene.objects.filter(campaign=campaign)
        .annotate(status_order=status_order)
        .order_by("status_order", "-created_at", "-pk")
    )


def ruleset_defaults(*, campaign: Campaign) -> dict[str, Any]:
    """The system's DEFAULT_RULESET as shipped (the shape the settings editor follows)."""
    return campaign.rules.DEFAULT_RULESET


def ruleset_in_force(*, campaign: Campaign) -> tuple[dict[str, Any], str | None]:
    """The effective ruleset and, when the stored overrides no longer validate, why.

    A default may change under a campaign's stored overrides; the GM must still be able to open
    the settings page and fix them, so this falls back to a plain merge and says what is wrong.
    """
    try:
        return campaign.effective_ruleset(), None
    except rules.RulesError as error:
        return {**campaign.rules.DEFAULT_RULESET, **(campaign.ruleset or {})}, str(error)
