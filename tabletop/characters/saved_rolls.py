"""Saved rolls: named rolls a member keeps to make again ("Longsword: 1d20+5").

A saved roll is kept on a character (its owner and the GM change it) or by a member for
themselves in a campaign (they alone change it). Its expression is the dice box's, checked by
``rules.expression`` when it is saved. At the table it is made through the dice box: the Sheet
tool's buttons and ``/r longsword`` send its name as the dice box's expression, and the dice box
asks ``dice_for`` what that name means for whoever rolls (the one place names are looked up).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max, QuerySet

from rules import expression
from tabletop.campaigns.models import Campaign
from tabletop.characters.models import Character, SavedRoll
from tabletop.characters.selectors import can_edit, is_member

NAME_MAX = SavedRoll._meta.get_field("name").max_length
EXPRESSION_MAX = SavedRoll._meta.get_field("expression").max_length

# --- who may change one ---------------------------------------------------------------------


def can_change(*, saved: SavedRoll, user: Any) -> bool:
    """A character's: whoever may edit its sheet (its owner, the GM); a member's own: theirs."""
    if saved.character_id is not None:
        return can_edit(character=saved.character, user=user)
    return saved.owner_id == user.pk and is_member(campaign=saved.campaign, user=user)


def _clean(name: Any, dice: Any) -> tuple[str, str]:
    """The name and the expression as saved, or a ValidationError for the field at fault."""
    name = " ".join(name.split()) if isinstance(name, str) else ""
    dice = dice.strip() if isinstance(dice, str) else ""
    if not name:
        raise ValidationError({"name": "Name the roll: Longsword, Damage..."})
    if len(name) > NAME_MAX:
        raise ValidationError({"name": f"A roll's name is at most {NAME_MAX} characters."})
    if not dice:
        raise ValidationError({"expression": "Type its dice, like 1d20+5."})
    if len(dice) > EXPRESSION_MAX:
        raise ValidationError({"expression": f"Dice are at most {EXPRESSION_MAX} characters."})
    try:
        expression.parse(dice)
    except expression.ExpressionError as error:
        raise ValidationError({"expression": str(error)}) from None
    try:
        expression.parse(name)
    except expression.ExpressionError:
        return name, dice
    # "/r 2d6" must roll 2d6: a name that is dice itself would never be found.
    raise ValidationError({"name": f"{name} is dice already: name the roll with a word."})


def _saved(saved: SavedRoll) -> SavedRoll:
    try:
        with transaction.atomic():
            saved.save()
    except IntegrityError:
        where = "this character" if saved.character_id else "your own rolls"
        raise ValidationError(
            {"name": f"There is a roll called {saved.name} in {where} already."}
        ) from None
    return saved


# --- the actions ----------------------------------------------------------------------------


def saved_roll_add(
    *,
    actor: AbstractBaseUser,
    campaign: Campaign,
    character: Character | None = None,
    name: Any,
    dice: Any,
) -> SavedRoll:
    """Save a roll on ``character`` (its owner's), or ``actor``'s own in ``campaign``."""
    if character is not None:
        if character.campaign_id != campaign.pk or not can_edit(character=character, user=actor):
            raise PermissionDenied("Only the character's owner or the GM saves its rolls.")
        owner_id = character.owner_id
        siblings = SavedRoll.objects.filter(character=character)
    else:
        if not is_member(campaign=campaign, user=actor):
            raise PermissionDenied("Only members of the campaign save rolls in it.")
        owner_id = actor.pk
        siblings = own_rolls(campaign=campaign, user=actor)
    name, dice = _clean(name, dice)
    last = siblings.aggregate(last=Max("order"))["last"]
    return _saved(
        SavedRoll(
            campaign=campaign,
            owner_id=owner_id,
            character=character,
            name=name,
            expression=dice,
            order=0 if last is None else last + 1,
        )
    )


def saved_roll_update(
    *, actor: AbstractBaseUser, saved: SavedRoll, name: Any, dice: Any
) -> SavedRoll:
    """Rename a saved roll, or change its dice."""
    if not can_change(saved=saved, user=actor):
        raise PermissionDenied("That roll is not yours to change.")
    saved.name, saved.expression = _clean(name, dice)
    return _saved(saved)


def saved_roll_delete(*, actor: AbstractBaseUser, saved: SavedRoll) -> None:
    if not can_change(saved=saved, user=actor):
        raise PermissionDenied("That roll is not yours to delete.")
    saved.delete()


# --- reads ----------------------------------------------------------------------------------


def own_rolls(*, campaign: Campaign | int, user: Any) -> QuerySet[SavedRoll]:
    """The rolls ``user`` keeps for themselves in ``campaign`` (tied to no character)."""
    return SavedRoll.objects.filter(campaign=campaign, owner=user, character__isnull=True)


def character_rolls(characters: list[Character]) -> dict[int, list[SavedRoll]]:
    """Each character's saved rolls, in their order (one query)."""
    found: dict[int, list[SavedRoll]] = {c.pk: [] for c in characters}
    for saved in SavedRoll.objects.filter(character__in=characters):
        found[saved.character_id].append(saved)
    return found


# --- at the table: a name rolled through the dice box ---------------------------------------

#: The dice box's data key for who rolls (``with_roller``): set by the server, never a form's.
ROLLER = "saved_rolls.roller"


@dataclass(frozen=True)
class Roller:
    user: Any
    campaign_id: int


def with_roller(data: dict[str, Any], *, user: Any, campaign: Campaign) -> dict[str, Any]:
    """A roll form's data with who rolls, so the dice box finds their saved rolls by name: an
    object, which no JSON a page sends can be."""
    return {**data, ROLLER: Roller(user, campaign.pk)}


def dice_for(text: str, *, data: Any, character: Any) -> tuple[str, SavedRoll | None]:
    """What the dice box's ``text`` means: dice as typed, or the saved roll it names (case does
    not matter): the roller's character's first (the one picked, else their own characters'),
    then their own. A name no roll has gets a message that lists theirs."""
    try:
        expression.parse(text)
    except expression.ExpressionError:
        roller = data.get(ROLLER) if hasattr(data, "get") else None
        roller = roller if isinstance(roller, Roller) else None
        saved = _named(text, roller, character)
        if saved is not None:
            return saved.expression, saved
        if any(ch.isdigit() for ch in text):
            raise  # dice with a mistake: the expression's own message says where
        raise ValidationError(_unknown(text, roller, character)) from None
    return text, None


def _in_reach(roller: Roller | None, character: Any) -> list[QuerySet[SavedRoll]]:
    """Where a name is looked for, in order."""
    places = []
    if character is not None:
        places.append(SavedRoll.objects.filter(character_id=character.pk))
    if roller is not None:
        if character is None:
            places.append(
                SavedRoll.objects.filter(
                    campaign_id=roller.campaign_id, character__owner=roller.user
                )
            )
        places.append(own_rolls(campaign=roller.campaign_id, user=roller.user))
    return places


def _named(text: str, roller: Roller | None, character: Any) -> SavedRoll | None:
    name = " ".join(text.split())
    for place in _in_reach(roller, character):
        found = list(place.filter(name__iexact=name).select_related("character")[:2])
        if len(found) > 1:
            whose = ", ".join(sorted(s.character.name for s in found))
            raise ValidationError(
                f"More than one of your characters has a roll called {found[0].name} "
                f"({whose}): pick the character in the dice box."
            )
        if found:
            return found[0]
    return None


def _unknown(text: str, roller: Roller | None, character: Any) -> str:
    names = sorted(
        {s.name for place in _in_reach(roller, character) for s in place.only("name")},
        key=str.casefold,
    )
    shown = text if len(text) <= 40 else text[:40] + "…"
    yours = f" Your saved rolls: {', '.join(names)}." if names else ""
    return f"No saved roll is called {shown!r}, and it is not dice (like 1d20+5).{yours}"
