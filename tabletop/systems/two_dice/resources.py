"""Paying a check's resource cost from the sheet (seed 003 "Resource Cost": "Each action costs
an amount of resources determined by the difficulty"; "you suffer a penalty on the check equal
to the unpaid cost"). The cost is fixed when the check is made; the points leave the sheet when
it resolves: a roll the table sees at once, a hidden one on its reveal (its kind's
consequences), a declared check when it rolls."""

from __future__ import annotations

import copy
from typing import Any

from rules.core import Rng
from tabletop.systems import api
from tabletop.systems.api import (
    Character,
    SceneEvent,
    note_sheet,
    roll_data,
    save_if_as_read,
    save_together,
)
from tabletop.systems.two_dice.models import TwoDiceSheet


def pay_from_sheet(
    character: Character | None, resource: str, amount: int, *, event: SceneEvent | None = None
) -> int:
    """Take up to ``amount`` points of ``resource`` off the character's sheet (never below 0,
    never from a sheet that changed since it was read, so simultaneous checks never overdraw);
    how many it took. ``event``: the check it pays for: its card says how much
    (``paid_from_sheet``, saved with the sheet), and its broadcast shows the sheet as paid
    without reading it again."""
    if character is not None and amount > 0 and event is not None:
        # The sheet as the roll read it pays, in the statement that saves the card, if its row
        # is still that sheet; else the row is locked and pays as it is now.
        as_read = {
            f.attname: getattr(character, f.attname)
            for f in TwoDiceSheet._meta.local_concrete_fields
        }
        paid, resources = _payment(as_read["resources"], resource, amount)
        event.public["paid_from_sheet"] = paid
        if save_if_as_read(character, as_read, {"resources": resources}, (event, ["public"])):
            sheet = copy.copy(character)  # the command's copy stays the sheet as read
            sheet.resources = resources
            note_sheet(event, sheet)
            return paid
    paid, rows = 0, []
    if character is not None and amount > 0:
        locked = api.character_locked(TwoDiceSheet, character.pk)
        if locked is None:
            raise Character.DoesNotExist(f"No character {character.pk} to pay from.")
        if event is not None:
            note_sheet(event, locked)
        paid, resources = _payment(locked.resources, resource, amount)
        if paid:
            locked.resources = resources
            rows.append((locked, ["resources"]))
    if event is not None:
        event.public["paid_from_sheet"] = paid
        rows.append((event, ["public"]))
    save_together(*rows)
    return paid


def _payment(sheet: Any, resource: str, amount: int) -> tuple[int, dict[str, Any]]:
    """What ``amount`` points of ``resource`` take off the sheet's resources (never below 0),
    and the resources after."""
    resources = dict(sheet or {})
    current = resources.get(resource)
    if not isinstance(current, dict):
        return 0, resources
    have = current.get("current")
    have = have if isinstance(have, int) and not isinstance(have, bool) else 0
    paid = min(amount, max(have, 0))
    if paid:
        resources[resource] = {**current, "current": have - paid}
    return paid, resources


def after_check(*, event: SceneEvent, rng: Rng) -> None:
    """The two_dice roll kind's consequences: its cost leaves the roller's sheet (a roll made
    with a character; typed numbers pay nothing)."""
    if event.character is None:
        return
    payment: dict[str, Any] = roll_data(event).get("result", {}).get("payment") or {}
    resource, amount = str(payment.get("resource", "")), payment.get("paid", 0)
    pay_from_sheet(event.character, resource, amount, event=event)
