"""roll_and_keep: the GM's ruleset settings in the seed's words, with the rules' own bounds.

The generic editor (tabletop.campaigns.ruleset_forms) lays the fields out from
``rules.roll_and_keep.DEFAULT_RULESET``; these hints name the links and the difficulty ladder as
the seed does and bound a difficulty to what a d10 can meet, as ``validate_ruleset`` does.
"""

from __future__ import annotations

from rules import roll_and_keep
from tabletop.systems.api import Hint, RulesetForm


class RollAndKeepSettingsForm(RulesetForm):
    hints = {
        "colours": Hint(label="Colours of mana"),
        "attributes": Hint(help="Each attribute may link to colours below."),
        "links": Hint(
            label="Attribute links",
            help="The colour(s) each attribute is linked to; an attribute may link to none.",
            noun="link",
            key_label="Attribute",
            value_label="Colours (comma-separated)",
        ),
        "difficulties": Hint(
            label="Difficulty ladder",
            help="The number a kept die must equal or beat.",
            noun="difficulty",
            key_label="Difficulty",
            value_label="Number",
            min=1,
            max=roll_and_keep.SIDES,
        ),
        "degrees": Hint(
            label="Degrees of success",
            help="Names for 1, 2, 3 … successes; the last also names every higher count.",
        ),
    }
