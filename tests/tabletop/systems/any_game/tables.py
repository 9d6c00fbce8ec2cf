"""An any-game table: alice's Mira and bob's Bram (PCs), the GM's goblin boss (a foe)."""

from __future__ import annotations

from typing import Any

from tabletop.characters.models import Character
from tabletop.systems.any_game.models import AnyGameSheet
from tests.support.tables import Table, make_table


def any_game_table(*, held: int = 0) -> tuple[Table, dict[str, Any]]:
    table = make_table(system="any_game")
    cast = {
        "mira": AnyGameSheet.objects.create(
            campaign=table.campaign, owner=table.alice, name="Mira", table_currency=held
        ),
        "bram": AnyGameSheet.objects.create(
            campaign=table.campaign, owner=table.bob, name="Bram", table_currency=held
        ),
        "boss": AnyGameSheet.objects.create(
            campaign=table.campaign, owner=table.gm, name="Goblin boss", role=Character.Role.FOE
        ),
    }
    return table, cast


def held(character: Any) -> int:
    return AnyGameSheet.objects.values_list("table_currency", flat=True).get(pk=character.pk)
