"""Bennies on conductor rolls (seed 002): "each BENNY spent grants a +1 to the roll" (a
standard roll), "+1 to the roll of one die" (an attack). Played in the open, on the character's
latest roll, one conditional UPDATE each (simultaneous clicks never overdraw)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from rules import conductor
from rules.core import Rng
from tabletop.systems import api
from tabletop.systems.api import (
    Audience,
    Command,
    CommandContext,
    Raw,
    Scene,
    SceneEvent,
    amend,
    lock_roll,
    pay,
    percent,
    record_event,
    require_latest_roll,
    roll_data,
    scene_action,
)
from tabletop.systems.conductor import rolls as conductor_kinds


# locks=False: the roll's row lock (lock_roll) serialises spends on it, and record_event takes
# the scene row after it, in the order reveal takes them (no deadlock with a reveal).
@scene_action(system="conductor", what="Bennies", locks=False)
def benny(
    *,
    scene: Scene,
    actor: Any,
    seq: Any,
    die_index: Any = None,
    rng: Rng | None = None,
    context: CommandContext,
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
        data["roll_kind"],
        data["result"],
        die_index=die_index,
        rng=api.game_dice(rng),
        bennies_left=max(int(character.bennies or 0) - 1, 0),  # this one is paid just below
        name=character.name,
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
        context=context,
    )


# --- commands ---

COMMANDS = (Command("benny", benny, seq=Raw("seq"), die_index=Raw("die")),)


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
    character = event.character.sheet  # read with the event where a page shows it
    owner = character.owner_id
    strike = (data.get("strike_back") or {}).get("status")
    if data.get("roll_kind") in conductor_kinds.BENNY_KINDS and strike != "struck":
        have = int(character.bennies or 0)
        offers = _benny_offers(data.get("roll_kind"), result, have=have, name=character.name)
        if offers:
            controls["benny_for"] = owner
            controls["benny_offers"] = offers
            # Whether the bennies the character has can change the outcome at all.
            controls["benny_reaches"] = any(o["reaches"] for o in offers)
    if strike == "pending":
        controls["strike_back_for"] = owner
    return controls


def _benny_offers(
    roll_kind: str, result: dict[str, Any], *, have: int, name: str
) -> list[dict[str, Any]]:
    """The benny buttons that can change the outcome, each saying how many bennies it would
    take (issue 15) and exactly what they buy (issue 16, rules ``conductor.spends``): a
    standard roll that failed ("+1 each"), or an attack die that can still become a hit, or a
    6 that explodes (a die explodes once; a six is already both).

    Only what is within reach of the ``have`` bennies character ``name`` has: none at all
    without a benny (the spend would be refused); a count beyond them is never described as
    if it could be spent ("4 to succeed; Kestrel has 3", and what all 3 would do instead).
    Each offer says whether it ``reaches`` its goal."""
    if have <= 0:
        return []
    if roll_kind == "conductor_standard":
        need = int(result.get("bennies_to_succeed") or 0)
        if result.get("success") or need <= 0:
            return []
        standard = conductor.StandardResult.from_dict(result)
        effects = [_standard_effect(conductor.standard_benny_effect(standard))]
        most = min(need, have)
        if most > 1:
            effects.append(
                _standard_effect(conductor.standard_benny_effect(standard, bennies=most))
            )
        note = _reach(f"{need} to succeed", need, have=have, name=name)
        return [_offer(None, "Spend a benny: +1", note, effects, reaches=need <= have)]
    roll = conductor.AttackResult.from_dict(result)
    threshold = conductor.hit_threshold(roll.difficulty)
    offers = []
    for index, die in enumerate(roll.dice):
        if die.exploded or die.value >= conductor.EXPLODES_AT:
            continue
        if die.value < threshold:
            need = threshold - die.value
            goal = f"{need} to hit"
        else:
            need = conductor.EXPLODES_AT - die.value
            goal = f"{need} to explode"
        effects = [_die_effect(conductor.die_benny_effect(roll, die_index=index))]
        most = min(need, have)
        if most > 1:
            effects.append(
                _die_effect(conductor.die_benny_effect(roll, die_index=index, bennies=most))
            )
        note = _reach(goal, need, have=have, name=name)
        offers.append(_offer(index, f"+1 on {die.value}", note, effects, reaches=need <= have))
    return offers


def _reach(goal: str, need: int, *, have: int, name: str) -> str:
    """ "2 to hit", or "4 to succeed; Kestrel has 3" when the goal is beyond the purse."""
    return goal if need <= have else f"{goal}; {name} has {have}"


def _offer(
    die: int | None, text: str, note: str, effects: list[str], *, reaches: bool
) -> dict[str, Any]:
    """One benny button: its text, and an accessible name that starts with that text and
    says the exact effect in words (an arrow is not read the same by every screen reader)."""
    where = "" if die is None else f" on die {die + 1}"
    said = "; ".join(effect.replace(" → ", " to ") for effect in effects)
    return {
        "die": die,
        "number": None if die is None else die + 1,
        "text": text,
        "note": note,
        "effects": effects,
        "reaches": reaches,
        "label": f"{text} ({note}): spend a benny{where}. {said}",
    }


def _bennies(count: int) -> str:
    return f"{count} {'benny' if count == 1 else 'bennies'}"


def _verdict(success: bool) -> str:
    return "success" if success else "failure"


def _standard_effect(effect: conductor.StandardBennyEffect) -> str:
    """ "1 benny: failure → success (7 → 8 vs 7)", or "still a failure" when it falls short."""
    totals = f"{effect.total_before} → {effect.total_after} vs {effect.difficulty}"
    if effect.success_after == effect.success_before:
        return f"{_bennies(effect.bennies)}: still a {_verdict(effect.success_after)} ({totals})"
    return (
        f"{_bennies(effect.bennies)}: {_verdict(effect.success_before)} → "
        f"{_verdict(effect.success_after)} ({totals})"
    )


def _hits(count: int) -> str:
    return "no hit" if count == 0 else f"{count} {'hit' if count == 1 else 'hits'}"


def _die_effect(effect: conductor.DieBennyEffect) -> str:
    """What the bennies on one die buy: a certain new count of hits, or after an explosion the
    exact chance of each count ("1 hit → 2 hits 41.7%, …, 4+ hits 1.4%")."""
    head = f"{_bennies(effect.bennies)} on die {effect.die_index + 1} ({effect.value_before} → "
    head += f"{effect.value_after}{', explodes' if effect.explodes else ''}): "
    before = _hits(effect.hits_before)
    if not effect.explodes:
        (after,) = effect.hits_after
        if after == effect.hits_before:
            return head + f"still {before}"
        spared = " (no strike back)" if effect.hits_before == 0 else ""
        return head + f"{before} → {_hits(after)}{spared}"
    rows = []
    for hits, p in effect.hits_after.items():
        label = f"{hits}+ hits" if hits == effect.top else _hits(hits)
        rows.append(f"{label} {percent(p)}")
    spared = " (no strike back)" if effect.hits_before == 0 else ""
    return head + f"{before} → " + ", ".join(rows) + spared
