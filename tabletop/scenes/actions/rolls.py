"""Rolls on every roll form, in every mode, and the GM's reveal of a hidden one.

What a roll sets going at the table (a foe striking back) is its kind's ``consequences``: run at
once for a roll everyone sees, on the reveal for a hidden one, never for a self roll, so nothing
that follows from a hidden result shows before it is revealed (SECURITY.md).
"""

from __future__ import annotations

import contextlib
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from rules.core import Rng
from tabletop.characters.models import Character, sheet_joins
from tabletop.characters.saved_rolls import with_roller
from tabletop.scenes import dice
from tabletop.scenes.commands import Command, Frame, Parsed, Raw, Rolling, Text, Whole
from tabletop.scenes.context import CommandContext
from tabletop.scenes.kit import scene_action
from tabletop.scenes.models import Audience, Scene, SceneEvent, roll_data, with_sheet
from tabletop.scenes.modes import MODES, ROLL_MODES
from tabletop.scenes.record import record_event, reveal_event
from tabletop.scenes.rollkinds import (
    ROLL_KINDS,
    RollOutcome,
    headline_odds,
    landed_band,
    offered,
)
from tabletop.scenes.rows import foe_for
from tabletop.scenes.speakers import speaker_for

__all__ = ["ROLL_MODES", "record_roll", "roll", "reveal"]


def record_roll(
    *,
    scene: Scene,
    actor: Any,
    character: Character | None,
    roll_kind: str,
    label: str,
    outcome: RollOutcome,
    mode: str = "public",
    parent: SceneEvent | None = None,
    extra: dict[str, Any] | None = None,
    roller: str = "",
    odds: dict[str, str] | None = None,
    context: CommandContext | None = None,
) -> SceneEvent:
    """Record a roll event, the one shape every roll card, reveal and dashboard reads. Players
    outside a hidden roll's audience get who rolled and how: no dice, no count (``public``);
    the rest is its ``secret``, committed to. ``roller``: who the card says rolled, when not
    the actor (a foe striking back). ``odds``: the chance it had before it was made
    (``rollkinds.headline_odds``); a hidden roll's odds are secret like its dice, since they
    tell what was tried (how hard, with what). With its bands (the exact distribution of its
    outcomes) it also gets the band it landed in, for the dice statistics."""
    odds = landed_band(ROLL_KINDS.get(roll_kind), odds, outcome)
    roll = {
        "roll_kind": roll_kind,
        "label": label,
        "title": outcome.title,
        "summary": outcome.summary,
        "outcome": outcome.outcome,
        "result": outcome.detail,
        "character": character.name if character else "",
        **({"odds": odds} if odds else {}),
        **(extra or {}),
    }
    if not roller:
        roller = actor.get_username() if actor is not None else ""
    who = {"roller": roller, "mode": mode}
    audience = MODES[mode].audience
    if audience == Audience.EVERYONE:
        public, secret = {**who, **roll}, {}
    else:
        public, secret = who, roll
    return record_event(
        scene=scene,
        kind="roll",
        actor=actor,
        character=character,
        audience=audience,
        public=public,
        secret=secret,
        parent=parent,
        context=context,
    )


def _refuse_bad_roll(
    kind: Any, roll_kind: str, mode: str, campaign: Any, actor: Any, foe: Any
) -> None:
    """Refuse a roll kind (``roll_kind`` as sent) the campaign's system does not offer, a mode
    that is none or not the actor's, and a self roll against a foe."""
    if not offered(kind, campaign.system):
        raise ValidationError(f"Unknown roll {str(roll_kind)[:40]!r} for this system.")
    if mode not in MODES:
        raise ValidationError(f"Unknown roll mode {str(mode)[:20]!r}.")
    if MODES[mode].gm_only and campaign.gm_id != actor.pk:
        raise PermissionDenied("Only the GM makes secret rolls.")
    if foe is not None and kind.consequences is not None and mode == "self":
        # A self roll is the roller's alone: nothing at the table may follow from it.
        raise ValidationError(
            "A self roll changes nothing at the table, so it is not made against a foe: "
            "pick another mode, or type the difficulty."
        )


@scene_action(locks=False, atomic=False)  # a transaction only where the roll writes more
def roll(
    *,
    scene: Scene,
    actor: Any,
    roll_kind: str,
    mode: str = "public",
    character: Character | None = None,
    data: dict[str, Any] | None = None,
    foe: Character | None = None,
    speaking_as: Any = "",
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """Roll one of the roll forms' roll kinds in a mode (public, gm, blind, self, secret).

    ``foe``: the foe a roll is made against (its difficulty is the roll's); the kind's
    consequences may use it (a conductor attack that misses makes it strike back).
    ``speaking_as``: the name the roll is made as (``speakers.speaker_for``; blank: the
    actor's own), kept with the roll (secret with a hidden one's dice: its stub names the
    roller alone, as before).
    """
    campaign = scene.campaign
    kind = ROLL_KINDS.get(roll_kind)
    _refuse_bad_roll(kind, roll_kind, mode, campaign, actor, foe)
    speaker = speaker_for(scene=scene, actor=actor, name=speaking_as)
    # The roll reads the system's sheet (no query when the character was read as one).
    character = character.sheet if character is not None else None
    foe = foe.sheet if foe is not None else None
    data = with_roller(dict(data or {}), user=actor, campaign=campaign)  # its saved rolls
    if foe is not None:
        data.update(kind.facing(foe))
    rng = dice.game_dice(rng)
    ruleset = campaign.effective_ruleset()
    # Worked out once, now, from the same inputs as the roll: what the roller faced.
    odds = headline_odds(kind, data=data, character=character, ruleset=ruleset)
    outcome = kind.roll(data=data, character=character, ruleset=ruleset, rng=rng)
    # What the roll sets going comes with it, all or nothing; a roll that sets nothing going
    # (or whose consequences wait for its reveal) writes its event alone (``scene_action``).
    follows = kind.consequences is not None and MODES[mode].audience == Audience.EVERYONE
    with transaction.atomic() if follows else contextlib.nullcontext():
        event = record_roll(
            scene=scene,
            actor=actor,
            character=character,
            roll_kind=kind.name,
            label=kind.label,
            outcome=outcome,
            mode=mode,
            extra={**({"foe_id": foe.pk} if foe is not None else {}), **speaker.for_roll()},
            odds=odds,
            context=context,
        )
        if follows:
            kind.consequences(event=event, rng=rng, context=context)
    return event


@scene_action(gm=True, needs_open=False, locks=False)
def reveal(
    *, scene: Scene, actor: Any, seq: int, rng: Rng | None = None, context: CommandContext
) -> SceneEvent:
    """The GM shows a hidden roll to everyone; its nonce is published so browsers verify it.

    What the roll sets going at the table (its kind's consequences) comes now, as it would have
    after a public roll."""
    event = (
        # of=("self",): PostgreSQL can't lock the nullable side of the character join.
        SceneEvent.objects.select_for_update(of=("self",))
        .select_related(*sheet_joins(scene.campaign.system))
        .filter(scene=scene, seq=seq, kind="roll")
        .first()
    )
    if event is None:
        raise ValidationError("There is no such roll in this scene.")
    with_sheet(event)  # its consequences read the character's sheet
    if event.audience == Audience.EVERYONE or event.revealed_at is not None:
        raise ValidationError("That roll is already visible to everyone.")
    if event.audience == Audience.SELF:
        raise PermissionDenied("A self roll belongs to its roller.")
    reveal_event(event)
    shown = record_event(
        scene=scene,
        kind="reveal",
        actor=actor,
        parent=event,
        public={
            "roller": event.public.get("roller", ""),
            "seq": event.seq,
            # The card reads "The GM revealed their secret roll" / "alice's blind roll".
            "mode": event.public.get("mode", ""),
            "own": event.actor_id == actor.pk,
        },
        context=context,
    )
    kind = ROLL_KINDS.get(str(roll_data(event).get("roll_kind", "")))
    if kind is not None and kind.consequences is not None:
        kind.consequences(event=event, rng=dice.game_dice(rng), context=context)
    return shown


# --- commands ---


def _foe(scene: Scene, user: Any, data: Any) -> Character | None:
    """The foe a roll form picked, for the kinds made against a foe."""
    kind = ROLL_KINDS.get(str(data.get("roll_kind", "")))
    return foe_for(scene, data.get("foe")) if kind is not None and kind.against else None


COMMANDS = (
    Command(
        "roll",
        roll,
        character=Rolling(),
        roll_kind=Text("roll_kind"),
        mode=Text("mode", "public"),
        data=Frame(),
        foe=Parsed(_foe),
        speaking_as=Raw("as"),
    ),
    Command("reveal", reveal, seq=Whole("seq", "Which roll?")),
)
