"""The any-game sheet's table: the table's currency, whatever the GM calls it. The rest of a
character (its notes, its saved rolls) is what every character has."""

from tabletop.systems.models import Character, models, sheet_link


class AnyGameSheet(Character):
    """An any-game character: the shared ``Character`` row plus this row."""

    character = sheet_link("any_game_sheet")
    # Never below zero (the column's CHECK): a spend is one conditional UPDATE.
    table_currency = models.PositiveIntegerField(default=0)
