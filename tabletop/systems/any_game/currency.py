"""The table's currency, named by the GM per campaign (inspiration, hero points, luck...): the
GM steps it on the dashboard (the generic awards), and a player spends one of their own
character's here, with what it is for. A spend is one conditional UPDATE (``pay``): two clicks
at once never overdraw it, and the column's CHECK keeps it at zero or above."""

from __future__ import annotations

from typing import Any, TypedDict

from django.core.exceptions import PermissionDenied, ValidationError

from rules import any_game
from tabletop.systems.any_game.models import AnyGameSheet
from tabletop.systems.api import (
    PC,
    Character,
    Command,
    CommandContext,
    Currency,
    EventKind,
    Rolling,
    Scene,
    SceneEvent,
    Text,
    pay,
    record_event,
    scene_action,
)

#: The column; its words are the campaign's (``rules.any_game.currency_words``).
CURRENCY = Currency(
    "table_currency",
    "Currency",
    "point",
    "points",
    players_only=True,
    gm_steps=True,
    words=any_game.currency_words,
)
#: What a spend is for, as its card says it.
NOTE_MAX = 200


class Spend(TypedDict):
    """One of the table's currency spent by a character's player."""

    who: str
    character: str
    #: The currency as the card counts one ("hero point"), in the words of the moment.
    one: str
    left: int
    note: str


def _note(raw: Any) -> str:
    note = " ".join(str(raw or "").split())
    if len(note) > NOTE_MAX:
        raise ValidationError(
            f"Say what it's for in at most {NOTE_MAX} characters (this has {len(note)})."
        )
    return note


@scene_action(system="any_game", what="Spending the table's currency", locks=False)
def currency_spend(
    *, scene: Scene, actor: Any, character: Character, note: str = "", context: CommandContext
) -> SceneEvent:
    """The character's player spends one of its currency (the GM, one of an NPC's or a
    foe's, whose player the GM is); refused, changing nothing, with none left."""
    named = CURRENCY.named(scene.campaign.effective_ruleset())
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    if character.owner_id != actor.pk:
        raise PermissionDenied(f"Only {character.name}'s player spends their {named.many}.")
    note = _note(note)
    pay(character, CURRENCY.field, 1, named.many)  # refused with none left
    left = AnyGameSheet.objects.values_list(CURRENCY.field, flat=True).get(pk=character.pk)
    return record_event(
        scene=scene,
        kind="currency_spend",
        actor=actor,
        character=character,
        public={
            "who": actor.get_username(),
            "character": character.name,
            "one": named.one,
            "left": left,
            "note": note,
        },
        context=context,
    )


COMMANDS = (
    Command(
        "currency_spend",
        currency_spend,
        character=Rolling(required="Pick a character."),
        note=Text("note"),
    ),
)

EVENT_KINDS = (
    EventKind(
        "currency_spend",
        "systems/any_game/events/spend.html",
        stale=frozenset({"party", "table"}),
        public=Spend,
        mirror="spends",
    ),
)


def scene_extras(scene: Any, viewer: Any, ruleset: dict[str, Any]) -> dict[str, Any]:
    """The In play tool's spend box: the viewer's own characters (a player's PCs; the GM's
    are the NPCs and foes, stepped on the dashboard instead)."""
    if viewer.is_gm:
        return {}
    spenders = Character.objects.of_campaign(scene.campaign).filter(
        owner_id=viewer.user_id, role=PC
    )
    return {
        "side_template": "systems/any_game/scene_side.html",
        "currency": CURRENCY.named(ruleset),
        "spenders": list(spenders),
        "note_max": NOTE_MAX,
    }
