"""Everything that changes a campaign, its table and its invite links.

Each action authorises its actor (PermissionDenied for a member without the right,
ValidationError for a request the rules refuse) and runs in one transaction.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

import rules
from tabletop import systems
from tabletop.campaigns.models import DESCRIPTION_MAX, Campaign, Invite, Membership
from tabletop.scenes.sockets import end_user_sockets

INVITE_INVALID = "This invite link does not work: it was revoked by the GM, or it never existed."


def _require_gm(*, campaign: Campaign, actor: AbstractBaseUser) -> None:
    if not actor.is_authenticated or campaign.gm_id != actor.pk:
        raise PermissionDenied("Only the campaign's GM may do that.")


@transaction.atomic
def campaign_create(
    *, gm: AbstractBaseUser, name: str, system: str, description: str = ""
) -> Campaign:
    """Start a campaign; its creator is the GM, both on the campaign and in its memberships."""
    if not gm.is_authenticated:
        raise PermissionDenied("Log in to start a campaign.")
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the campaign a name."})
    description = (description or "").strip()
    if len(description) > DESCRIPTION_MAX:
        raise ValidationError(
            {"description": f"A description may have at most {DESCRIPTION_MAX:,} characters."}
        )
    if systems.find(system) is None:
        labels = ", ".join(label for _, label in systems.choices())
        raise ValidationError({"system": f"Choose one of the systems: {labels}."})
    campaign = Campaign.objects.create(name=name, system=system, gm=gm, description=description)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    return campaign


@transaction.atomic
def invite_create(*, campaign: Campaign, actor: AbstractBaseUser) -> Invite:
    """A fresh invite link. It replaces the current one: a campaign has one working link, so
    "new link" is also how a GM shuts out people who saw the old one."""
    _require_gm(campaign=campaign, actor=actor)
    campaign.invites.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
    return Invite.objects.create(campaign=campaign, created_by=actor)


@transaction.atomic
def invite_revoke(*, invite: Invite, actor: AbstractBaseUser) -> Invite:
    """Stop an invite link from working (revoking twice is harmless)."""
    _require_gm(campaign=invite.campaign, actor=actor)
    if invite.revoked_at is None:
        invite.revoked_at = timezone.now()
        invite.save(update_fields=["revoked_at"])
    return invite


def invite_email(
    *, invite: Invite, actor: AbstractBaseUser, address: str, link: str, wait: float | None
) -> None:
    """Send the invite link to ``address``, in a plain mail from the site that names the GM
    and the campaign. ``wait``: the sender's hourly allowance is spent (the seconds until it
    turns), refused with when to try again."""
    from django.conf import settings
    from django.core.mail import send_mail

    from tabletop.accounts.throttle import wait_words

    _require_gm(campaign=invite.campaign, actor=actor)
    if invite.revoked_at is not None:
        raise ValidationError("That invite link was revoked: make a new one first.")
    if wait is not None:
        raise ValidationError(f"You sent many invites this hour. Try again in {wait_words(wait)}.")
    campaign, gm = invite.campaign, actor.get_username()
    body = (
        f"Hello,\n\n{gm} invites you to play in {campaign.name} on {settings.SITE_NAME}.\n"
        f"Open this link, sign up or log in, and you join the table:\n\n{link}\n\n"
        f"If you don't know {gm}, ignore this mail.\n\n{settings.SITE_NAME}\n"
    )
    subject = f"{gm} invites you to {campaign.name} on {settings.SITE_NAME}"
    send_mail(subject, body, None, [address])


@transaction.atomic
def campaign_join(*, user: AbstractBaseUser, token: str) -> Membership:
    """Join the invite's campaign as a player; a member who joins again keeps their role."""
    if not user.is_authenticated:
        raise PermissionDenied("Log in to join a campaign.")
    invite = (
        Invite.objects.select_related("campaign")
        .filter(token=token, revoked_at__isnull=True)
        .first()
    )
    if invite is None:
        raise ValidationError(INVITE_INVALID, code="invite_invalid")
    membership, _ = Membership.objects.get_or_create(
        campaign=invite.campaign, user=user, defaults={"role": Membership.Role.PLAYER}
    )
    return membership


@transaction.atomic
def member_remove(*, campaign: Campaign, actor: AbstractBaseUser, user: AbstractBaseUser) -> None:
    """Take a player off the table. Their characters stay (still theirs) but they lose access,
    because every campaign page asks for a membership."""
    _require_gm(campaign=campaign, actor=actor)
    if user.pk == campaign.gm_id:
        raise ValidationError("The GM can't be removed from their own campaign.")
    deleted, _ = Membership.objects.filter(campaign=campaign, user=user).delete()
    if not deleted:
        raise ValidationError(f"{user} is not a member of {campaign}.")
    # Access is checked when a socket connects; close the open ones so no frame follows.
    transaction.on_commit(
        partial(end_user_sockets, user_id=user.pk, campaign_id=campaign.pk, reason="removed")
    )


@transaction.atomic
def campaign_delete(*, campaign: Campaign, actor: AbstractBaseUser, confirm: str) -> None:
    """Delete the campaign with its scenes, logs and characters, once the GM typed its name.
    Every member's open scene of it closes after commit, saying why."""
    _require_gm(campaign=campaign, actor=actor)
    if confirm.strip() != campaign.name:
        raise ValidationError("Type the campaign's name exactly to delete it.")
    members = list(campaign.memberships.values_list("user_id", flat=True))
    campaign_id = campaign.pk
    campaign.delete()
    for user_id in members:
        transaction.on_commit(
            partial(
                end_user_sockets,
                user_id=user_id,
                campaign_id=campaign_id,
                reason="the campaign was deleted",
            )
        )


@transaction.atomic
def ruleset_update(
    *, campaign: Campaign, actor: AbstractBaseUser, overrides: dict[str, Any]
) -> Campaign:
    """Check the GM's ruleset and store what differs from the system's defaults.

    Stored: only the top-level fields whose validated value differs from the validated
    default, in the rules module's normalised spelling. A field left at its default is not
    stored, so a later change of that default reaches the campaign; a field the GM changed is
    kept whole (the rules modules replace a top-level field whole when merging). An empty dict
    resets everything to the defaults. Nothing is saved when the rules refuse the ruleset.
    """
    _require_gm(campaign=campaign, actor=actor)
    module = campaign.rules
    try:
        merged = module.validate_ruleset(overrides)
        defaults = module.validate_ruleset({})
    except rules.RulesError as error:
        raise ValidationError(str(error), code="ruleset") from error
    changed = [
        key for key in module.DEFAULT_RULESET if key in merged and merged[key] != defaults.get(key)
    ]
    stored = {key: merged[key] for key in changed}
    try:
        faithful = module.validate_ruleset(stored) == merged
    except rules.RulesError:
        faithful = False
    if not faithful:
        # The normalised form did not round-trip: keep the GM's own spelling instead.
        stored = {key: overrides[key] for key in changed if key in overrides}
    campaign.ruleset = stored
    campaign.save(update_fields=["ruleset"])
    return campaign
