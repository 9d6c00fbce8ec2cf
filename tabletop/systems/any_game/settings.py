"""any_game: the GM's one setting, the table's currency, in plain words."""

from __future__ import annotations

from rules import any_game
from tabletop.systems.api import Hint, RulesetForm


class AnyGameSettingsForm(RulesetForm):
    hints = {
        "currency": Hint(
            label="The table's currency",
            help="What your game calls it: Inspiration, Luck... or, for a word with a plural, "
            f"one and many with a / between: Hero point / Hero points (at most "
            f"{any_game.NAME_MAX} characters).",
        ),
    }
