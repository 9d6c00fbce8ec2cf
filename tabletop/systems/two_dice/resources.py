"""Paying a check's resource cost from the sheet (seed 003 "Resource Cost": "Each action costs
an amount of resources determined by the difficulty"; "you suffer a penalty on the check equal
to the unpaid cost"). The cost is fixed when the check is made; the points leave the sheet when
it resolves: a roll the table sees at once, a hidden one on its reveal (its kind's
consequences), a declared check when it rolls."""

from __future__ import annotations

from typing import Any

from rules.core import Rng
from tabletop.characters.models import Character
from tabletop.scenes import selectors
from tabletop.scenes.events import note_sheet
from tabletop.scenes.kit import save_together
from tabletop.scenes.models import SceneEvent, roll_data


def pay_from_sheet(
    character: Character | None, resource: str, amount: int, *, event: SceneEvent | None = None
) -> int:
    """Take up to ``amount`` points of ``resource`` off the character's sheet (never below 0,
    the row locked so simultaneous checks never overdraw); how many it took. ``event``: the
    check it pays for: its card says how much (``paid_from_sheet``, saved with the sheet), and
    its broadcast shows the sheet as paid without reading it again."""
    paid, rows = 0, []
    if character is not None and amount > 0:
        locked = selectors.character_locked(character.pk)
        if locked is None:
            raise Character.DoesNotExist(f"No character {character.pk} to pay from.")
        if event is not None:
            note_sheet(event, locked)
        resources = dict(locked.resources or {})
        current = resources.get(resource)
        if isinstance(current, dict):
            have = current.get("current")
            have = have if isinstance(have, int) and not isinstance(have, bool) else 0
            paid = min(amount, max(have, 0))
            if paid:
                resources[resource] = {**current, "current": have - paid}
                locked.resources = resources
                rows.append((locked, ["resources"]))
    if event is not None:
        event.public["paid_from_sheet"] = paid
        rows.append((event, ["public"]))
    save_together(*rows)
    return paid


def after_check(*, event: SceneEvent, rng: Rng) -> None:
    """The two_dice roll kind's consequences: its cost leaves the roller's sheet (a roll made
    with a character; typed numbers pay nothing)."""
    if event.character is None:
        return
    payment: dict[str, Any] = roll_data(event).get("result", {}).get("payment") or {}
    resource, amount = str(payment.get("resource", "")), payment.get("paid", 0)
    pay_from_sheet(event.character, resource, amount, event=event)
