"""Bennies on conductor rolls (seed 002): "each BENNY spent grants a +1 to the roll" (a
standard roll), "+1 to the roll of one die" (an attack). Played in the open, on the character's
latest roll, one conditional UPDATE each (simultaneous clicks never overdraw)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from rules import conductor
from rules.core import Rng
from tabletop.scenes import access as base
from tabletop.scenes.access import lock_roll, roll_data
from tabletop.scenes.actions.spends import amend, pay, require_latest_roll
from tabletop.scenes.commands import Command, Raw
from tabletop.scenes.events import record_event
from tabletop.scenes.kit import scene_action
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.systems.conductor import rolls as conductor_kinds


# locks=False: the roll's row lock (lock_roll) serialises spends on it, and record_event takes
# the scene row after it, in the order roll_reveal takes them (no deadlock with a reveal).
@scene_action(system="conductor", what="Bennies", locks=False)
def benny_spend(
    *, scene: Scene, actor: Any, seq: Any, die_index: Any = None, rng: Rng | None = None
) -> SceneEvent:
    """Spend one of the roller's character's bennies on their latest standard or attack roll.

    Seed 002: "After seeing the roll's result, the PLAYER may supplement its result using
    BENNIES" (+1 to a standard roll; +1 to one chosen attack die, which explodes on reaching 6).
    """
    # Spends are played in the open: a benny or plot point on a hidden roll would tell the
    # table that it was close. The GM reveals the roll first.
    roll = lock_roll(scene, seq, "Bennies")
    data = roll_data(roll)
    if data.get("roll_kind") not in conductor_kinds.BENNY_KINDS:
        raise ValidationError("Bennies go on standard and attack rolls.")
    character = roll.character
    if character is None:
        raise ValidationError("Only a character's roll takes bennies.")
    if character.owner_id != actor.pk:
        raise PermissionDenied("Only the character's player spends their bennies.")
    require_latest_roll(roll)
    if data.get("strike_back", {}).get("status") == "struck":
        raise ValidationError("The foe has already struck back: this attack is over.")
    outcome = conductor_kinds.spend_benny(
        data["roll_kind"], data["result"], die_index=die_index, rng=base.game_dice(rng)
    )
    pay(character, "bennies", 1, "bennies")
    die = None if die_index in (None, "") else int(die_index) + 1
    text = f"+1 on die {die}" if die else "+1"
    amend(roll, outcome, {"by": actor.get_username(), "text": f"benny {text}"})
    strike = roll.public.get("strike_back")
    if strike and strike.get("status") == "pending" and outcome.outcome == "success":
        strike["status"] = "averted"
        roll.save(update_fields=["public"])
    return record_event(
        scene=scene,
        kind="benny",
        actor=actor,
        character=character,
        parent=roll,
        public={
            "who": actor.get_username(),
            "character": character.name,
            "seq": roll.seq,
            "die": die,
            "summary": outcome.summary,
        },
    )


# --- commands ---

COMMANDS = (Command("benny", benny_spend, seq=Raw("seq"), die_index=Raw("die")),)


def card_controls(event: SceneEvent, data: dict[str, Any]) -> dict[str, Any]:
    """The conductor part of a roll card seen in full: benny buttons on a roll the table sees
    (the page shows them to the character's player only; the action decides), the foe waiting
    to strike back, or held until the GM reveals a hidden miss."""
    if event.kind != "roll":
        return {}
    controls: dict[str, Any] = {"template": "systems/conductor/card_spends.html"}
    in_open = event.audience == Audience.EVERYONE or event.revealed_at is not None
    result = data.get("result", {})
    foe = result.get("foe") or "the foe"
    if result.get("foe_strikes_back"):
        # What the miss sets going, said once (the card's summary only says "No hit").
        strike = data.get("strike_back") or {}
        if not data.get("foe_id"):
            controls["miss"] = ("strikes", foe)  # no foe picked: the GM plays it out
        elif not in_open:
            controls["miss"] = ("held", foe)
        else:
            controls["miss"] = (strike.get("status", "struck"), strike.get("foe") or foe)
    if not in_open:
        return controls
    if event.character_id is None:
        return controls
    owner = event.character.owner_id
    strike = (data.get("strike_back") or {}).get("status")
    if data.get("roll_kind") in conductor_kinds.BENNY_KINDS and strike != "struck":
        offers = _benny_offers(data.get("roll_kind"), result)
        if offers:
            controls["benny_for"] = owner
            controls["benny_offers"] = offers
    if strike == "pending":
        controls["strike_back_for"] = owner
    return controls


def _benny_offers(roll_kind: str, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The benny buttons that can change the outcome, each saying how many bennies it would
    take (issue 15): a standard roll that failed ("+1 each"), or an attack die that can still
    become a hit, or a 6 that explodes (a die explodes once; a six is already both)."""
    if roll_kind == "conductor_standard":
        need = int(result.get("bennies_to_succeed") or 0)
        if result.get("success") or need <= 0:
            return []
        return [{"die": None, "text": "Spend a benny: +1", "note": f"{need} to succeed"}]
    threshold = conductor.hit_threshold(int(result.get("difficulty", 0)))
    offers = []
    for index, die in enumerate(result.get("dice", [])):
        value = int(die.get("value", 0))
        if die.get("exploded") or value >= conductor.EXPLODES_AT:
            continue
        if value < threshold:
            note = f"{threshold - value} to hit"
        else:
            note = f"{conductor.EXPLODES_AT - value} to explode"
        offers.append({"die": index, "number": index + 1, "text": f"+1 on {value}", "note": note})
    return offers
