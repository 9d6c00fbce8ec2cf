"""The GM's awards live (any system): a currency handed out or taken back, harm marked or
healed, on a character of the scene's campaign, for every system that declares the GM steps
it (``Currency.gm_steps``)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from tabletop import systems
from tabletop.characters.actions import character_adjust
from tabletop.characters.models import Character
from tabletop.scenes.commands import Command, Raw, Rolling, Text
from tabletop.scenes.context import CommandContext
from tabletop.scenes.kit import scene_action
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.record import record_event
from tabletop.scenes.values import whole

# --- the GM's awards ---------------------------------------------------------------


@scene_action(gm=True, locks=False)  # character_adjust is one conditional UPDATE
def award(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    field: str,
    amount: int,
    context: CommandContext,
) -> SceneEvent:
    """The GM awards (or takes back) a currency, or marks or heals harm, live: any the
    campaign's system declares the GM steps (``Currency.gm_steps``).

    An award raises the currency's total too when the system counts one (percentile's plot
    points: spending "reduces the number available but not the total"; an award is new points).
    """
    system = scene.campaign.game
    ruleset = scene.campaign.effective_ruleset()
    declared = system.currency(field, ruleset) if isinstance(field, str) else None
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
        context=context,
    )


# --- commands ---

COMMANDS = (
    Command(
        "award",
        award,
        gm=True,
        character=Rolling(required="Pick a character."),
        field=Text("field"),
        amount=Raw("amount"),
    ),
)
