"""any_game: the GM's one setting, the table's currency, in plain words."""

from __future__ import annotations

from rules import any_game
from tabletop.systems.api import Hint, RulesetForm


class AnyGameSettingsForm(RulesetForm):
    hints = {
        "currency": Hint(
            label="The table's currency",
            help="What your game calls it, as the Party tool heads its column: Inspiration, "
            f"Hero points, Luck... (at most {any_game.NAME_MAX} characters).",
            required=True,
        ),
        "currency_one": Hint(
            label="One of it",
            help="How a card counts one (hero point); leave blank when it's the same word.",
            blank="the currency's name",
        ),
    }
