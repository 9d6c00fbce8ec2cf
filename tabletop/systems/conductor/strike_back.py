"""The foe strikes back (seed 002, "Attack Rolls"): "If no d6 causes a hit, the FOE will
immediately return with an attack of its own". It is the conductor attack kind's consequence:
it runs once everyone may see the attack (at once for a public roll, on the GM's reveal for a
hidden one), so a hidden miss never shows before its reveal (SECURITY.md).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import F

from rules import conductor
from rules.core import Rng
from tabletop.systems import api
from tabletop.systems.api import (
    Audience,
    Character,
    Command,
    CommandContext,
    Raw,
    RollOutcome,
    Scene,
    SceneEvent,
    hit_bands,
    lock_roll,
    record_roll,
    roll_data,
    scene_action,
    stored_odds,
)
from tabletop.systems.conductor.models import ConductorSheet

#: The dice statistics' bands of a roll of hits: 0, 1, 2, 3 and "4+", the same for every pool so
#: that the rolls of one kind add up (``rollkinds.hit_bands``).
STATS_TOP = 4


def stats_hit_bands(*, skill: int, difficulty: int) -> list[tuple[str, Fraction]]:
    """The exact chance of each band of hits (0 .. 3, 4+) of an attack roll (a foe's too)."""
    dist = conductor.attack_hit_distribution(skill=skill, difficulty=difficulty, top=STATS_TOP)
    return hit_bands(dist, STATS_TOP)


def foe_attack_outcome(result: conductor.AttackResult, *, foe: str, target: str) -> RollOutcome:
    """The card of a foe's attack on a character (RULES-NOTES: the same procedure, against the
    character's difficulty); each hit is a hit on the character's sheet."""
    detail = result.to_dict()
    detail["skill_label"] = f"{foe}'s best skill"
    detail["foe"] = foe
    detail["target"] = target
    hits = result.hits
    summary = f"{hits} {'hit' if hits == 1 else 'hits'} on {target}" if hits else "No hit"
    # The badge says what the foe's roll did to the character: the foe's hit is not the
    # player's "Failure" (its colour still reads from the table's side: a hit hurts).
    detail["band_label"] = f"{target} is hit" if hits else f"{foe} misses"
    pool = sum(1 for d in result.dice if d.source is None)
    return RollOutcome(
        title=f"{foe} strikes back at {target} ({pool}d6 vs {result.difficulty})",
        summary=summary,
        detail=detail,
        outcome="failure" if hits else "success",  # from the table's side: a hit hurts
    )


def foe_skill(foe: Any) -> int:
    """A foe's attack skill: the best skill on its sheet (foe sheets list their attack skill)."""
    values = [row.get("value", 0) for row in foe.skills or [] if isinstance(row, dict)]
    values = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    return max([0, *values])


def after_attack(*, event: SceneEvent, rng: Rng, context: CommandContext | None = None) -> None:
    """The attack kind's consequences: a miss against a picked foe makes it strike back."""
    data = roll_data(event)
    if not data.get("result", {}).get("foe_strikes_back") or not data.get("foe_id"):
        return
    foe = ConductorSheet.objects.filter(
        pk=data["foe_id"], campaign_id=event.scene.campaign_id, role=Character.Role.FOE
    ).first()
    if foe is not None:
        _answer_the_miss(event=event, foe=foe, character=event.character, rng=rng, context=context)


def _answer_the_miss(
    *,
    event: SceneEvent,
    foe: Character,
    character: Character | None,
    rng: Rng,
    context: CommandContext | None,
) -> None:
    """RULES-NOTES: "If no die hits, the foe attacks back at once" — but "after seeing the roll
    the player may spend bennies". With bennies to spend on a roll the table sees (public, or
    revealed while still the character's latest roll), the strike-back waits for the roller
    (``strike_back``) or a benny that lands a hit; otherwise it comes now."""
    can_spend = (
        character is not None
        and (event.audience == Audience.EVERYONE or event.revealed_at is not None)
        and ConductorSheet.objects.filter(pk=character.pk, bennies__gt=0).exists()
        and api.is_latest_roll(event)
    )
    if can_spend:
        event.public["strike_back"] = {"status": "pending", "foe_id": foe.pk, "foe": foe.name}
        event.save(update_fields=["public"])
        return
    _foe_strikes(roll=event, foe=foe, target=character, rng=rng, context=context)


def _foe_strikes(
    *,
    roll: SceneEvent,
    foe: Character,
    target: Character | None,
    rng: Rng,
    context: CommandContext | None = None,
) -> SceneEvent:
    """The foe's attack on the character who missed it: the same procedure against the
    character's difficulty (a sheet field, default 3); each hit goes onto the character's sheet.
    The attack it answers is in the open, so the strike-back is too."""
    ruleset = roll.scene.campaign.effective_ruleset()
    difficulty = target.difficulty if target is not None else None
    skill = foe_skill(foe)
    if difficulty is None:
        difficulty = conductor.validate_ruleset(ruleset)["character_difficulty"]
    # Its exact odds, for the dice statistics (no headline: the card stays as it was).
    odds = stored_odds({"bands": stats_hit_bands(skill=skill, difficulty=difficulty)})
    result = conductor.foe_attack(skill=skill, difficulty=difficulty, ruleset=ruleset, rng=rng)
    name = target.name if target is not None else "the attacker"
    outcome = foe_attack_outcome(result, foe=foe.name, target=name)
    if target is not None and result.hits:
        ConductorSheet.objects.filter(pk=target.pk).update(hits=F("hits") + result.hits)
    roll.public.setdefault("strike_back", {"foe_id": foe.pk, "foe": foe.name})
    roll.public["strike_back"]["status"] = "struck"
    roll.save(update_fields=["public"])
    return record_roll(
        scene=roll.scene,
        actor=roll.actor,
        character=foe,
        roll_kind="conductor_foe_attack",
        label="Foe strikes back",
        outcome=outcome,
        parent=roll,
        roller=foe.name,
        odds=odds,
        context=context,
    )


# locks=False: the roll's row lock serialises answers to it (as with bennies, bennies.py).
@scene_action(system="conductor", what="Strike-backs", locks=False)
def strike_back(
    *, scene: Scene, actor: Any, seq: Any, rng: Rng | None = None, context: CommandContext
) -> SceneEvent:
    """The roller spends no (more) bennies on a missed attack: the foe strikes back now."""
    roll = lock_roll(scene, seq, "Strike-backs")
    strike = roll.public.get("strike_back") or {}
    if strike.get("status") != "pending":
        raise ValidationError("No foe is waiting to strike back on that roll.")
    character = roll.character
    owner = character.owner_id if character is not None else roll.actor_id
    if actor.pk not in (owner, scene.campaign.gm_id):
        raise PermissionDenied("The roller or the GM says when the foe strikes back.")
    foe = ConductorSheet.objects.filter(pk=strike.get("foe_id"), campaign=scene.campaign).first()
    if foe is None:
        raise ValidationError("That foe is no longer in this campaign.")
    return _foe_strikes(
        roll=roll, foe=foe, target=character, rng=api.game_dice(rng), context=context
    )


COMMANDS = (Command("strike_back", strike_back, seq=Raw("seq")),)


def dashboard(scene: Any) -> tuple[str, dict[str, Any]]:
    """What waits for the GM: foes waiting for the roller to spend bennies or not."""
    waiting = SceneEvent.objects.filter(
        scene=scene, kind="roll", public__strike_back__status="pending"
    ).order_by("seq")
    return "systems/conductor/dashboard.html", {"strike_backs": list(waiting)}
