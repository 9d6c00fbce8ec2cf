"""two_dice: the GM's ruleset settings in the seed's words, with the rules' own bounds.

The generic editor (tabletop.campaigns.ruleset_forms) lays the fields out from
``rules.two_dice.DEFAULT_RULESET``; these hints name the difficulties' dice modes as the seed
does ("Roll three dice, and use the higher two") and bound the numbers as
``rules.two_dice.validate_ruleset`` does.
"""

from __future__ import annotations

from typing import Any

from rules import two_dice
from rules.core import MAX_POOL
from rules.two_dice.ruleset import REACTION_SECONDS_RANGE
from tabletop.systems.api import Hint, RulesetForm

#: The seed's words for each dice mode.
DICE_MODE_LABELS = {
    two_dice.AUTOMATIC_SUCCESS: "Always succeed (two 6s)",
    two_dice.KEEP_HIGHEST: "Roll extra dice, keep the higher two",
    two_dice.ROLL: "Roll two dice",
    two_dice.KEEP_LOWEST: "Roll extra dice, keep the lower two",
    two_dice.AUTOMATIC_FAILURE: "Always fail (two 1s)",
}
_KEEP_MODES = (two_dice.KEEP_HIGHEST, two_dice.KEEP_LOWEST)


class TwoDiceSettingsForm(RulesetForm):
    hints = {
        "attributes": Hint(help="Each attribute links to two resources (below)."),
        "resources": Hint(
            help="Each resource names its two linked attributes; each attribute must end up "
            "linked to exactly two resources.",
            noun="resource",
            key_label="Resource",
            value_label="Linked attributes (two, comma-separated)",
        ),
        "difficulties": Hint(
            help="A difficulty's resource cost and how its check is rolled (seed: Trivial, "
            "Easy, Normal, Hard, Impossible).",
            noun="difficulty",
            key_label="Difficulty",
            columns={
                "cost": Hint(label="Resource cost", min=0, max=two_dice.MAX_NUMBER),
                "dice": Hint(
                    label="Dice",
                    choices=tuple((m, DICE_MODE_LABELS.get(m, m)) for m in two_dice.DICE_MODES),
                ),
                "rolled": Hint(
                    label="Dice rolled",
                    help="Only when keeping the higher or lower two.",
                    min=two_dice.COUNTED_DICE,
                    max=MAX_POOL,
                    blank="three",
                ),
            },
        ),
        "reaction_seconds": Hint(
            label="Reaction window (seconds)",
            help="How long the table has to hinder or resist a declared check before it rolls.",
            min=REACTION_SECONDS_RANGE[0],
            max=REACTION_SECONDS_RANGE[1],
        ),
    }

    def to_form(self, key: str, value: Any) -> Any:
        # The rules fill in "rolled" for every mode (2 to roll, 0 when automatic); only the keep
        # modes let the GM choose it, so the others show a blank.
        if key != "difficulties" or not isinstance(value, dict):
            return value
        return {
            name: {
                k: v for k, v in entry.items() if k != "rolled" or entry.get("dice") in _KEEP_MODES
            }
            if isinstance(entry, dict)
            else entry
            for name, entry in value.items()
        }
