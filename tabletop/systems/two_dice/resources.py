"""Paying a check's resource cost from the sheet (seed 003 "Resource Cost": "Each action costs
an amount of resources determined by the difficulty"; "you suffer a penalty on the check equal
to the unpaid cost"). The cost is fixed when the check is made; the points leave the sheet when
it resolves: a roll the table sees at once, a hidden one on its reveal (its kind's
consequences), a declared check when it rolls."""

from __future__ import annotations

from typing import Any

from rules.core import Rng
from tabletop.systems.api import (
    Character,
    SceneEvent,
    change_row,
    note_sheet,
    roll_data,
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
    if character is None or amount <= 0:
        if event is not None:
            event.public["paid_from_sheet"] = 0
            save_together((event, ["public"]))
        return 0
    paid = 0

    def pay(sheet: TwoDiceSheet) -> dict[str, Any]:
        # The sheet as the roll read it pays if its row is still that sheet; else the row,
        # locked, pays as it is now.
        nonlocal paid
        paid, resources = _payment(sheet.resources, resource, amount)
        if event is not None:
            event.public["paid_from_sheet"] = paid
        return {"resources": resources}

    sheet = change_row(character, pay, *([(event, ["public"])] if event is not None else []))
    if event is not None:
        note_sheet(event, sheet)
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


def after_check(*, event: SceneEvent, rng: Rng, context: Any = None) -> None:
    """The two_dice roll kind's consequences: its cost leaves the roller's sheet (a roll made
    with a character; typed numbers pay nothing). It records nothing (``context`` unused)."""
    if event.character is None:
        return
    payment: dict[str, Any] = roll_data(event).get("result", {}).get("payment") or {}
    resource, amount = str(payment.get("resource", "")), payment.get("paid", 0)
    pay_from_sheet(event.character, resource, amount, event=event)
