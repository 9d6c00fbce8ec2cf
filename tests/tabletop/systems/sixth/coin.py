"""The coin system's rules and its web side: a coin toss (the call wins or loses), its odds, the
tally view, luck spent to toss again, and the Sheet tool's rollable. It uses the project only
through the plugin API, as a system under tabletop/systems/ does."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, TypedDict

from django.core.exceptions import PermissionDenied, ValidationError

from rules.core import Rng, RulesError
from tabletop.systems.api import (
    GM,
    NPC,
    PC,
    Audience,
    CommandContext,
    Currency,
    OneOf,
    Rollable,
    RollOutcome,
    Scene,
    SceneEvent,
    SheetSpec,
    amend,
    game_dice,
    lock_roll,
    odds_rows,
    pay,
    record_event,
    require_latest_roll,
    roll_data,
    scene_action,
)

FACES = ("heads", "tails")
DEFAULT_RULESET: dict[str, Any] = {"calls": True}


class Luck(TypedDict):
    """Luck spent on a toss: the toss's seq and what its card now says."""

    who: str
    character: str
    seq: int
    summary: str


#: The GM hands out luck from the dashboard; a player spends one to toss their call again.
LUCK = Currency("luck", "Luck", "luck", "luck", players_only=True, gm_steps=True)


# --- the rules (what a rules/ module would hold) ---------------------------------------------


def validate_ruleset(data: Any) -> dict[str, Any]:
    if data not in (None, {}) and not isinstance(data, dict):
        raise RulesError("The ruleset must be a mapping.")
    return {**DEFAULT_RULESET, **(data or {})}


def toss(*, rng: Rng) -> str:
    return FACES[rng.randint(1, 2) - 1]


# --- the web side -----------------------------------------------------------------------------


def _outcome(face: str, called: str) -> RollOutcome:
    won = face == called
    return RollOutcome(
        title=f"A coin toss, {called} called",
        summary=f"{face.capitalize()}: {'won' if won else 'lost'}",
        detail={"face": face, "called": called},
        outcome="success" if won else "failure",
    )


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Rng) -> RollOutcome:
    called = str(data.get("call") or (character.favours if character is not None else "heads"))
    if called not in FACES:
        raise RulesError("Call heads or tails.")
    return _outcome(toss(rng=rng), called)


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    return {"rows": odds_rows({"heads": Fraction(1, 2), "tails": Fraction(1, 2)})}


def tally(scene: Any, viewer: Any) -> dict[str, Any]:
    """The view: how many tosses the table has seen."""
    seen = SceneEvent.objects.filter(scene=scene, kind="roll", public__roll_kind="coin_flip")
    return {"tosses": seen.count()}


def sheet(ruleset: Any) -> SheetSpec:
    """The face a character favours, on its sheet page and its form (its luck is a currency)."""
    favours = OneOf(
        "Call",
        key="favours",
        label="Favours",
        options=(("heads", "Heads"), ("tails", "Tails")),
        default="heads",
        note="called on every toss",
    )
    return SheetSpec(system="coin", parts=(favours,), currencies=(LUCK.field,))


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character."""
    return [
        {"owner": "alice", "name": "Wren", "role": PC, "sheet": {}, "currencies": {"luck": 2}},
        {"owner": "bob", "name": "Kit", "role": PC, "sheet": {}, "currencies": {"luck": 1}},
        {"owner": GM, "name": "The Ferryman", "role": NPC, "sheet": {"notes": "Takes a coin."}},
    ]


def rollables(character: Any, ruleset: Any) -> list[Rollable]:
    """The Sheet tool's button: a toss with the face the character favours called."""
    return [
        Rollable(
            section="Tosses",
            label=f"a coin, {character.favours} called",
            value=str(character.luck),
            roll_kind="coin_flip",
            fields={"call": character.favours},
            verb="Toss",
            note="luck left",
        )
    ]


@scene_action(system="coin", what="Luck", locks=False)
def luck(
    *, scene: Scene, actor: Any, seq: Any, rng: Rng | None = None, context: CommandContext
) -> SceneEvent:
    """Spend one luck on the character's latest toss the table sees: the coin is tossed again
    for the same call, and the card shows the new face."""
    toss_event = lock_roll(scene, seq, "Luck")
    data = roll_data(toss_event)
    if data.get("roll_kind") != "coin_flip":
        raise ValidationError("Luck goes on coin tosses.")
    character = toss_event.character
    if character is None:
        raise ValidationError("Only a character's toss takes luck.")
    if character.owner_id != actor.pk:
        raise PermissionDenied("Only the character's player spends their luck.")
    require_latest_roll(toss_event)
    pay(character, LUCK.field, 1, "luck")  # refused with none left, before any toss
    called = str(data.get("result", {}).get("called", "heads"))
    outcome = _outcome(toss(rng=game_dice(rng)), called)
    amend(toss_event, outcome, {"by": actor.get_username(), "text": "luck: tossed again"})
    return record_event(
        scene=scene,
        kind="luck",
        actor=actor,
        character=character,
        parent=toss_event,
        public={
            "who": actor.get_username(),
            "character": character.name,
            "seq": toss_event.seq,
            "summary": outcome.summary,
        },
        context=context,
    )


def card_controls(event: SceneEvent, data: dict[str, Any]) -> dict[str, Any]:
    """A toss seen by the whole table offers its character's player a luck spend while they
    have luck (the page shows it to that player only; the action decides)."""
    in_open = event.audience == Audience.EVERYONE or event.revealed_at is not None
    if event.kind != "roll" or not in_open or event.character_id is None:
        return {}
    character = event.character.sheet
    if not character.luck:
        return {}
    return {
        "template": "systems/coin/card_spends.html",
        "luck_for": character.owner_id,
        "luck_have": character.luck,
    }
