"""What every spend shares (a benny, a plot point, luck...): paying a currency in one
conditional UPDATE, amending a roll card, the "latest roll" rule. The GM's awards are
``awards``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import F

from tabletop.characters.models import Character, model_of
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.rollkinds import RollOutcome
from tabletop.scenes.rows import is_latest_roll

# --- shared by every spend -----------------------------------------------------------------


def require_latest_roll(event: SceneEvent) -> None:
    """Seed: spends come "after seeing the roll's result" / on "a roll just made": the
    character's newest roll in this scene, not an old one."""
    if not is_latest_roll(event):
        raise ValidationError(
            f"{event.character.name} has rolled since: spends go on the character's latest roll."
        )


def pay(character: Character, field: str, amount: int, what: str) -> None:
    """Take ``amount`` from a currency in one conditional UPDATE: two simultaneous clicks can
    never overdraw it (the second finds too little and changes nothing)."""
    sheets = model_of(character).objects
    paid = sheets.filter(pk=character.pk, **{f"{field}__gte": amount}).update(
        **{field: F(field) - amount}
    )
    if not paid:
        have = sheets.values_list(field, flat=True).get(pk=character.pk)
        raise ValidationError(f"{character.name} has {have} {what} and this takes {amount}.")


def amend(event: SceneEvent, outcome: RollOutcome, spend: dict[str, Any]) -> None:
    """Show the changed roll on its card; the committed secret keeps the roll as first rolled."""
    event.public["amended"] = {
        "title": outcome.title,
        "summary": outcome.summary,
        "outcome": outcome.outcome,
        "result": outcome.detail,
    }
    event.public.setdefault("spends", []).append(spend)
    event.save(update_fields=["public"])
