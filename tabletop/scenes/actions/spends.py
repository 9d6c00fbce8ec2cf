"""The GM's awards and adjustments live (any system), and what every spend shares: paying a
currency in one conditional UPDATE, amending a roll card, the "latest roll" rule."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import F

from tabletop import systems
from tabletop.characters.actions import character_adjust
from tabletop.characters.models import Character, model_of
from tabletop.scenes.commands import Command, Raw, Rolling, Text
from tabletop.scenes.kit import scene_action
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.record import record_event
from tabletop.scenes.rollkinds import RollOutcome
from tabletop.scenes.rows import is_latest_roll
from tabletop.scenes.values import whole

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


# --- GM awards and adjustments ---------------------------------------------------------------


@scene_action(gm=True, locks=False)  # character_adjust is one conditional UPDATE
def currency_adjust(
    *, scene: Scene, actor: Any, character: Character, field: str, amount: int
) -> SceneEvent:
    """The GM awards (or takes back) a currency, or marks or heals harm, live: any the
    campaign's system declares the GM steps (``Currency.gm_steps``).

    An award raises the currency's total too when the system counts one (percentile's plot
    points: spending "reduces the number available but not the total"; an award is new points).
    """
    system = scene.campaign.game
    declared = system.currency(field) if isinstance(field, str) else None
    if declared is None and any(s.currency(field) for s in systems.all_systems()):
        raise ValidationError(f"This system's characters have no {field.replace('_', ' ')}.")
    if declared is None or not declared.gm_steps:
        raise ValidationError(f"The GM can't hand out {str(field)[:30]!r} here.")
    amount = whole(amount, "How many?")
    if amount == 0 or abs(amount) > 99:
        raise ValidationError("Give or take between 1 and 99 at a time.")
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    changes = {field: amount}
    total = system.total_for(field)
    if total is not None and amount > 0:
        changes[total.field] = amount
    character_adjust(character=character, actor=actor, relative=True, **changes)
    count = abs(amount)
    verb = "gave" if amount > 0 else "took back"
    if declared.harm:
        verb = "marked" if amount > 0 else "healed"
    noun = declared.one if count == 1 else declared.many
    return record_event(
        scene=scene,
        kind="award",
        actor=actor,
        character=character,
        public={
            "text": f"{verb} {count} {noun}",
            "character": character.name,
            "field": field,
            "amount": amount,
            "harm": declared.harm,
        },
    )


# --- commands ---

COMMANDS = (
    Command(
        "award",
        currency_adjust,
        gm=True,
        character=Rolling(required="Pick a character."),
        field=Text("field"),
        amount=Raw("amount"),
    ),
)
