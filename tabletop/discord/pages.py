"""What the campaign settings page needs for its Discord section (templates/campaigns/
settings.html, partial "discord"): the form, the mirror's status, a notice."""

from __future__ import annotations

from typing import Any

from tabletop.campaigns.models import Campaign
from tabletop.discord import selectors
from tabletop.discord.forms import MirrorForm
from tabletop.discord.webhooks import HOW_TO_GET_ONE


def settings_context(
    campaign: Campaign,
    *,
    form: MirrorForm | None = None,
    notice: str = "",
    notice_is_error: bool = False,
) -> dict[str, Any]:
    status = selectors.mirror_status(campaign=campaign)
    return {
        "discord": status,
        "discord_form": form if form is not None else MirrorForm(mirror=status.mirror),
        "discord_notice": notice,
        "discord_notice_is_error": notice_is_error,
        "discord_how": HOW_TO_GET_ONE,
    }
