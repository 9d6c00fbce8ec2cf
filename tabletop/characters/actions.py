"""The only places characters change: create, update the sheet, delete, and the GM's adjust.

Each action authorises the actor, checks the sheet against the campaign's sheet spec
(``sheets.clean_sheet``) and writes inside ``transaction.atomic()``. The sheet actions never touch
currencies or harm; ``character_adjust`` is the GM's only way to change them by hand, under a row
lock so two quick clicks can't overdraw.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from tabletop.campaigns.models import Campaign
from tabletop.characters.models import Character, model_of
from tabletop.characters.selectors import can_adjust, can_edit, is_member
from tabletop.characters.sheets import (
    SheetSpec,
    adjust_refusal,
    blank_sheet,
    clean_sheet,
    currencies,
    currency,
    currency_label,
    spec_for,
)

NAME_MAX = Character._meta.get_field("name").max_length


def _clean_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ValidationError({"name": "Give the character a name."})
    name = name.strip()
    if len(name) > NAME_MAX:
        raise ValidationError({"name": f"A name may be at most {NAME_MAX} characters."})
    return name


def _clean_role(role: Any) -> str:
    if role not in Character.Role.values:
        raise ValidationError({"role": f"Unknown role {role!r}: a PC, an NPC or a foe."})
    return role


def character_create(
    *,
    campaign: Campaign,
    actor: AbstractBaseUser,
    name: str,
    role: str = Character.Role.PC,
    sheet: dict[str, Any] | None = None,
) -> Character:
    """A new character owned by ``actor``: players make their own PCs, the GM anything."""
    role = _clean_role(role)
    if not is_member(campaign=campaign, user=actor):
        raise PermissionDenied("Only members of the campaign can create characters in it.")
    if role != Character.Role.PC and campaign.gm_id != actor.pk:
        raise PermissionDenied("Only the GM creates NPCs and foes.")
    name = _clean_name(name)
    spec = spec_for(campaign)
    values = {**blank_sheet(spec), **clean_sheet(spec, sheet or {})}
    with transaction.atomic():
        return Character.objects.create(
            campaign=campaign, owner=actor, role=role, name=name, **values
        )


def character_update(
    *,
    character: Character,
    actor: AbstractBaseUser,
    sheet: dict[str, Any],
    name: str | None = None,
    role: str | None = None,
) -> Character:
    """Rewrite the sheet fields given (owner or GM); currencies are refused, not ignored."""
    campaign = character.campaign
    if not can_edit(character=character, user=actor):
        raise PermissionDenied("Only the character's owner or the GM can edit this sheet.")
    fields: dict[str, Any] = clean_sheet(spec_for(campaign), sheet)
    if name is not None:
        fields["name"] = _clean_name(name)
    if role is not None and role != character.role:
        if campaign.gm_id != actor.pk:
            raise PermissionDenied("Only the GM changes a character's role (PC, NPC or foe).")
        fields["role"] = _clean_role(role)
    with transaction.atomic():
        # Locked first, as every writer of a character takes its rows (the sheet's, then the
        # character's): two writers never wait on each other in opposite orders.
        locked = model_of(character).objects.select_for_update().get(pk=character.pk)
        for field, value in fields.items():
            setattr(locked, field, value)
        # Only the sheet's own columns: a concurrent spend of bennies must not be overwritten.
        locked.save(update_fields=[*fields, "updated_at"])
    return locked


def character_delete(*, character: Character, actor: AbstractBaseUser) -> None:
    """Delete a character (owner or GM)."""
    if not can_edit(character=character, user=actor):
        raise PermissionDenied("Only the character's owner or the GM can delete this character.")
    with transaction.atomic():
        character.delete()


def character_adjust(
    *,
    character: Character,
    actor: AbstractBaseUser,
    relative: bool = False,
    **changes: int,
) -> Character:
    """The GM sets (or, with ``relative``, adds to) currencies and harm of one character.

    ``character_adjust(character=c, actor=gm, bennies=2)`` sets bennies to 2;
    ``character_adjust(character=c, actor=gm, relative=True, plot_points=-1)`` takes one away.
    Refuses a value below zero, above the sane cap, or plot points above their total, with
    the field named; nothing changes then.
    """
    if not can_adjust(character=character, user=actor):
        raise PermissionDenied(adjust_refusal(spec_for(character.campaign)))
    if not changes:
        raise ValidationError("Enter at least one value to change.")
    with transaction.atomic():
        locked = (
            model_of(character)
            .objects.select_for_update()
            .select_related("campaign")
            .get(pk=character.pk)
        )
        spec = spec_for(locked.campaign)
        new, errors = _adjusted(spec, locked, changes, relative=relative)
        if not errors:
            errors = _above_their_total(spec, locked, new)
        if errors:
            raise ValidationError(errors)
        for field, value in new.items():
            setattr(locked, field, value)
        locked.save(update_fields=[*new, "updated_at"])
    for field, value in new.items():
        setattr(character, field, value)
    return character


def _adjusted(
    spec: SheetSpec, locked: Character, changes: dict[str, int], *, relative: bool
) -> tuple[dict[str, int], dict[str, str]]:
    """Each change as the new amount of a currency the system declares, or the reason it is
    refused (not whole, below zero, above the cap), by field."""
    errors: dict[str, str] = {}
    new: dict[str, int] = {}
    for field, amount in changes.items():
        declared = currency(spec, field)
        if declared is None:
            errors[field] = f"This system's characters have no {field.replace('_', ' ')}."
            continue
        if isinstance(amount, bool) or not isinstance(amount, int):
            errors[field] = f"{declared.label} must be a whole number."
            continue
        value = getattr(locked, field) + amount if relative else amount
        if value < 0:
            errors[field] = f"{declared.label} can't go below zero (that would make {value})."
        elif value > declared.maximum:
            errors[field] = f"{declared.label} can't go above {declared.maximum}."
        else:
            new[field] = value
    return new, errors


def _above_their_total(spec: SheetSpec, locked: Character, new: dict[str, int]) -> dict[str, str]:
    """The first currency that would count above its total (plot points above the total of
    them), as its refusal by field; none when every one fits."""
    for declared in currencies(spec):
        if declared.total_of is None:
            continue
        counted = declared.total_of
        available = new.get(counted, getattr(locked, counted))
        total = new.get(declared.field, getattr(locked, declared.field))
        if available > total:
            return {
                counted: f"{currency_label(spec, counted)} ({available}) can't be above the total "
                f"({total})."
            }
    return {}
