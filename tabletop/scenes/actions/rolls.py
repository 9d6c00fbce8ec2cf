"""Rolls on every roll panel, in every mode; the GM's reveal; a foe striking back."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F

from rules import conductor
from rules.core import Rng
from tabletop.characters.models import Character
from tabletop.scenes.actions import base
from tabletop.scenes.actions.base import (
    character_for_roll,
    foe_for,
    lock_roll,
    membership,
    require_gm,
    require_open,
    whole,
)
from tabletop.scenes.events import record_event, reveal_event
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.rollkinds import ROLL_KINDS, offered
from tabletop.systems.conductor import rolls as conductor_kinds

#: Roll modes offered on every roll panel, and the audience each one means.
ROLL_MODES: dict[str, str] = {
    "public": Audience.EVERYONE,
    "gm": Audience.PRIVATE,  # private to GM: the GM and the roller see it
    "blind": Audience.BLIND,  # blind to GM: only the GM sees it; the roller sees that it happened
    "self": Audience.SELF,
    "secret": Audience.GM_ONLY,  # the GM's own secret roll (e.g. perception for a player)
}

# --- rolls ---------------------------------------------------------------------------------------


def roll_make(
    *,
    scene: Scene,
    actor: Any,
    roll_kind: str,
    mode: str = "public",
    character: Character | None = None,
    data: dict[str, Any] | None = None,
    foe: Character | None = None,
    rng: Rng | None = None,
) -> SceneEvent:
    """Roll one of the panel's roll kinds in a mode (public, gm, blind, self, secret).

    ``foe``: the foe an attack is against (its difficulty is the roll's); a conductor attack with
    no hit makes it strike back (``_strike_back``), at once or once the roller declines to spend.
    """
    campaign = scene.campaign
    membership(campaign, actor)
    require_open(scene)
    kind = ROLL_KINDS.get(roll_kind)
    if not offered(kind, campaign.system):
        raise ValidationError(f"Unknown roll {str(roll_kind)[:40]!r} for this system.")
    if mode not in ROLL_MODES:
        raise ValidationError(f"Unknown roll mode {str(mode)[:20]!r}.")
    if mode == "secret" and campaign.gm_id != actor.pk:
        raise PermissionDenied("Only the GM makes secret rolls.")
    if foe is not None and ROLL_MODES[mode] == Audience.SELF:
        # A self roll is the roller's alone: nothing at the table may follow from it.
        raise ValidationError(
            "A self roll changes nothing at the table, so it is not made against a foe: "
            "pick another mode, or type the difficulty."
        )
    data = dict(data or {})
    if foe is not None:
        if not kind.targets_foe:
            raise ValidationError(f"A {kind.label.lower()} is not made against a foe.")
        data.update(difficulty=foe.difficulty, foe_name=foe.name)
    rng = base.resolve_rng(rng)
    outcome = kind.roll(
        data=data,
        character=character,
        ruleset=campaign.effective_ruleset(),
        rng=rng,
    )
    audience = ROLL_MODES[mode]
    roll = {
        "roll_kind": kind.name,
        "label": kind.label,
        "title": outcome.title,
        "summary": outcome.summary,
        "outcome": outcome.outcome,
        "result": outcome.detail,
        "character": character.name if character else "",
    }
    who = {"roller": actor.get_username(), "mode": mode}
    misses_foe = foe is not None and bool(outcome.detail.get("foe_strikes_back"))
    if misses_foe and audience != Audience.EVERYONE:
        # A hidden miss must not show: the strike-back (a card, hits on the sheet) waits for
        # the GM's reveal (SECURITY.md). The GM's card says so.
        roll["held_strike_back"] = {"foe_id": foe.pk, "foe": foe.name}
    with transaction.atomic():
        if audience == Audience.EVERYONE:
            public, secret = {**who, **roll}, {}
        else:
            # Players outside the audience learn only who rolled and how: no dice, no count.
            public, secret = who, roll
        event = record_event(
            scene=scene,
            kind="roll",
            actor=actor,
            character=character,
            audience=audience,
            public=public,
            secret=secret,
        )
        if misses_foe and audience == Audience.EVERYONE:
            _foe_misses_answer(event=event, foe=foe, character=character, rng=rng)
        return event


def _foe_misses_answer(
    *, event: SceneEvent, foe: Character, character: Character | None, rng: Rng
) -> None:
    """RULES-NOTES: "If no die hits, the foe attacks back at once" — but "after seeing the roll
    the player may spend bennies". With bennies to spend on a roll the table sees (public, or
    revealed while still the character's latest roll), the strike-back waits for the roller
    (``strike_back_accept``) or a benny that lands a hit; otherwise it comes now."""
    can_spend = (
        character is not None
        and (event.audience == Audience.EVERYONE or event.revealed_at is not None)
        and Character.objects.filter(pk=character.pk, bennies__gt=0).exists()
        and base.is_latest_roll(event)
    )
    if can_spend:
        event.public["strike_back"] = {"status": "pending", "foe_id": foe.pk, "foe": foe.name}
        event.save(update_fields=["public"])
        return
    _strike_back(roll=event, foe=foe, target=character, rng=rng)


def _strike_back(
    *, roll: SceneEvent, foe: Character, target: Character | None, rng: Rng
) -> SceneEvent:
    """The foe's attack on the character who missed it: the same procedure against the
    character's difficulty (a sheet field, default 3); each hit goes onto the character's sheet."""
    ruleset = roll.scene.campaign.effective_ruleset()
    difficulty = target.difficulty if target is not None else None
    result = conductor.foe_attack(
        skill=conductor_kinds.foe_skill(foe), difficulty=difficulty, ruleset=ruleset, rng=rng
    )
    name = target.name if target is not None else "the attacker"
    outcome = conductor_kinds.foe_attack_outcome(result, foe=foe.name, target=name)
    if target is not None and result.hits:
        Character.objects.filter(pk=target.pk).update(hits=F("hits") + result.hits)
    roll.public.setdefault("strike_back", {"foe_id": foe.pk, "foe": foe.name})
    roll.public["strike_back"]["status"] = "struck"
    roll.save(update_fields=["public"])
    data = {
        "roller": foe.name,
        "mode": _mode_of(roll),
        "roll_kind": "conductor_foe_attack",
        "label": "Foe strikes back",
        "title": outcome.title,
        "summary": outcome.summary,
        "outcome": outcome.outcome,
        "result": outcome.detail,
        "character": foe.name,
        "refresh_panels": True,
    }
    # The strike-back is as visible as the attack it answers.
    if roll.audience == Audience.EVERYONE or roll.revealed_at is not None:
        public, secret, audience = data, {}, Audience.EVERYONE
    else:
        public, secret, audience = {"roller": foe.name, "mode": _mode_of(roll)}, data, roll.audience
    return record_event(
        scene=roll.scene,
        kind="roll",
        actor=roll.actor,
        character=foe,
        audience=audience,
        public=public,
        secret=secret,
        parent=roll,
    )


def _mode_of(event: SceneEvent) -> str:
    return str(event.public.get("mode", "public"))


def roll_reveal(*, scene: Scene, actor: Any, seq: int, rng: Rng | None = None) -> SceneEvent:
    """The GM shows a hidden roll to everyone; its nonce is published so browsers verify it.

    A hidden attack that missed its foe held the strike-back; it comes now, as after a public
    miss (at once, or once the roller declines to spend bennies)."""
    require_gm(scene.campaign, actor)
    with transaction.atomic():
        event = (
            SceneEvent.objects.select_for_update().filter(scene=scene, seq=seq, kind="roll").first()
        )
        if event is None:
            raise ValidationError("There is no such roll in this scene.")
        if event.audience == Audience.EVERYONE or event.revealed_at is not None:
            raise ValidationError("That roll is already visible to everyone.")
        if event.audience == Audience.SELF:
            raise PermissionDenied("A self roll belongs to its roller.")
        reveal_event(event)
        reveal = record_event(
            scene=scene,
            kind="reveal",
            actor=actor,
            parent=event,
            public={"roller": event.public.get("roller", ""), "seq": event.seq},
        )
        held = event.secret.get("held_strike_back")
        foe = held and Character.objects.filter(pk=held.get("foe_id"), campaign=scene.campaign)
        if foe and foe.exists():
            _foe_misses_answer(
                event=event, foe=foe.get(), character=event.character, rng=base.resolve_rng(rng)
            )
        return reveal


def strike_back_accept(*, scene: Scene, actor: Any, seq: Any, rng: Rng | None = None) -> SceneEvent:
    """The roller spends no (more) bennies on a missed attack: the foe strikes back now."""
    membership(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        roll = lock_roll(scene, seq, "Strike-backs")
        strike = roll.public.get("strike_back") or {}
        if strike.get("status") != "pending":
            raise ValidationError("No foe is waiting to strike back on that roll.")
        character = roll.character
        owner = character.owner_id if character is not None else roll.actor_id
        if actor.pk not in (owner, scene.campaign.gm_id):
            raise PermissionDenied("The roller or the GM says when the foe strikes back.")
        foe = Character.objects.filter(pk=strike.get("foe_id"), campaign=scene.campaign).first()
        if foe is None:
            raise ValidationError("That foe is no longer in this campaign.")
        return _strike_back(roll=roll, foe=foe, target=character, rng=base.resolve_rng(rng))


# --- commands ---


def _cmd_roll(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    character = character_for_roll(scene=scene, actor=user, character_id=data.get("character"))
    kind = ROLL_KINDS.get(str(data.get("roll_kind", "")))
    foe = foe_for(scene, data.get("foe")) if kind is not None and kind.targets_foe else None
    roll_make(
        scene=scene,
        actor=user,
        roll_kind=str(data.get("roll_kind", "")),
        mode=str(data.get("mode", "public")),
        character=character,
        data=data,
        foe=foe,
    )


def _cmd_reveal(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    roll_reveal(scene=scene, actor=user, seq=whole(data.get("seq"), "Which roll?"))


def _cmd_strike_back(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    strike_back_accept(scene=scene, actor=user, seq=data.get("seq"))


COMMANDS = {
    "roll": _cmd_roll,
    "reveal": _cmd_reveal,
    "strike_back": _cmd_strike_back,
}
