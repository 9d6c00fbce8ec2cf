"""Campaigns, who belongs to them, and the invite links that let people join."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models

from tabletop import systems

#: A campaign's description: what the players should know, not a whole setting book.
DESCRIPTION_MAX = 2000


class Campaign(models.Model):
    name = models.CharField(max_length=100)
    # The slug of a registered game system (tabletop.systems); the choices follow the registry.
    system = models.CharField(max_length=20, choices=systems.choices)
    gm = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="campaigns_run"
    )
    description = models.TextField(blank=True)
    # The GM's overrides of the system's DEFAULT_RULESET; the system's rules merge and check
    # them (validate_ruleset), so an empty dict means "the defaults from RULES-NOTES.md".
    ruleset = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def game(self) -> systems.System:
        """The campaign's game system, from the registry."""
        return systems.get(self.system)

    @property
    def rules(self):  # noqa: ANN201 - a module
        return self.game.rules

    def effective_ruleset(self) -> dict[str, Any]:
        """The full ruleset in force: defaults with this campaign's overrides, validated."""
        return self.game.effective_ruleset(self.ruleset)


class Membership(models.Model):
    class Role(models.TextChoices):
        GM = "gm", "Game master"
        PLAYER = "player", "Player"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.campaign} ({self.role})"


def new_invite_token() -> str:
    return secrets.token_urlsafe(18)


class Invite(models.Model):
    """A revocable link that lets any signed-in user join a campaign as a player."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Invite to {self.campaign}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
