"""The rows a command names, found in its scene's campaign: the character a member acts with,
any character or foe of the campaign, a roll to spend on (locked, and in the open), and whether
a roll is its character's latest. A name that is not there (or a character the actor may not
roll for) is refused with a clear error; who may act on what else is ``access``'s to say."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Q

from tabletop.characters.models import Character, sheet_joins, sheet_model
from tabletop.scenes import fastpath
from tabletop.scenes.access import require_player
from tabletop.scenes.models import Audience, Scene, SceneEvent, with_sheet
from tabletop.scenes.values import row_number


def character_for_roll(*, scene: Scene, actor: Any, character_id: Any) -> Character | None:
    """The character a member rolls with, read as its system's sheet: their own (the GM's: any
    of the campaign's), or None when none is named."""
    if character_id in (None, ""):
        return None
    try:
        character_id = int(character_id)
    except (TypeError, ValueError):
        raise ValidationError("Pick a character from the list.") from None
    character = fastpath.character_in_campaign(
        sheet_model(scene.campaign.system), character_id, scene.campaign_id
    )
    if character is None:
        raise ValidationError("That character is not in this campaign.")
    require_player(scene, actor, character, "You can only roll for your own characters.")
    return character


def lock_roll(scene: Scene, seq: Any, what: str) -> SceneEvent:
    """Lock a roll the whole table sees, for ``what`` (bennies, plot points, a heal, a
    strike-back): public or revealed. A hidden event gets the same refusal whatever it is,
    checked before anything else, so no error word tells its kind, owner or outcome."""
    event = (
        # of=("self",): PostgreSQL can't lock the nullable side of the character join.
        SceneEvent.objects.select_for_update(of=("self",))
        .select_related(*sheet_joins(scene.campaign.system), "scene__campaign")
        .filter(scene=scene, seq=row_number(seq, "Which roll?"))
        .first()
    )
    if event is not None:
        with_sheet(event)  # its character as its system keeps it, read with it
    if event is not None and event.audience != Audience.EVERYONE and event.revealed_at is None:
        raise ValidationError(f"{what} go on rolls the whole table sees: reveal this roll first.")
    if event is None or event.kind != "roll":
        raise ValidationError("There is no such roll in this scene.")
    return event


def campaign_character(scene: Scene, raw: Any, what: str = "Pick a character.") -> Character:
    """Any character of the scene's campaign, by id (the action decides what may be done)."""
    if raw in (None, ""):
        raise ValidationError(what)
    return _of_campaign(scene, raw, what, "That character is not in this campaign.")


def is_latest_roll(event: SceneEvent) -> bool:
    """Is this the character's newest roll the table has seen (spends go only on that one)?

    Only rolls in the open count: a later hidden roll (the GM's secret perception roll for the
    character, say) must not make a spend fail and so tell the player it exists."""
    later = (
        SceneEvent.objects.filter(
            scene_id=event.scene_id, kind="roll", character_id=event.character_id, seq__gt=event.seq
        )
        .filter(Q(audience=Audience.EVERYONE) | Q(revealed_at__isnull=False))
        .exclude(parent=event)  # the foe's strike-back answers this roll; it is not a new one
    )
    return not later.exists()


def foe_for(scene: Scene, raw: Any) -> Character | None:
    """The campaign's foe a roll form picked (None when none was)."""
    if raw in (None, ""):
        return None
    missing = "That foe is not in this campaign."
    return _of_campaign(scene, raw, "Pick a foe from the list.", missing, role=Character.Role.FOE)


def _of_campaign(scene: Scene, raw: Any, what: str, missing: str, **only: Any) -> Character:
    """The campaign's character ``raw`` names (a whole number, else ``what`` as the error),
    of those matching ``only``; ``missing`` as the error when there is none."""
    found = Character.objects.of_campaign(scene.campaign).filter(pk=row_number(raw, what), **only)
    character = found.first()
    if character is None:
        raise ValidationError(missing)
    return character
