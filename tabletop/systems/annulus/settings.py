"""annulus: the GM's ruleset settings in the seed's words, with the rules' own bounds.

The generic editor (tabletop.campaigns.ruleset_forms) lays the fields out from
``rules.annulus.DEFAULT_RULESET``; these hints name them as the seed does and bound the numbers
the way ``rules.annulus.validate_ruleset`` does, so a value the form accepts the rules accept.
"""

from __future__ import annotations

from rules import annulus
from rules.core import MAX_POOL, MAX_SIDES
from tabletop.systems.api import Hint, RulesetForm

#: The toolkit effects the engine supports (RULES-NOTES "Toolkit abilities"), in plain words.
EFFECT_LABELS = {
    "set_value": "Set a die to any number",
    "unjam": "Free a jammed die",
    "reveal": "Reveal a hidden die",
    "reroll": "Reroll a die",
}


class AnnulusSettingsForm(RulesetForm):
    hints = {
        "difficulties": Hint(
            help="Successes a check needs at each difficulty (seed: easy 2 … impossible 5).",
            noun="difficulty",
            key_label="Difficulty",
            value_label="Successes needed",
            min=0,
            max=MAX_POOL,
        ),
        "challenge_types": Hint(help="The kinds of op challenge; a challenge may have two."),
        "check_die_sides": Hint(label="Check die (sides)", min=1, max=MAX_SIDES),
        "check_target": Hint(
            label="Success on (or above)",
            help="Each check die at or above this number is one success.",
            min=1,
            max=MAX_SIDES,
        ),
        "challenge_check_dice": Hint(label="Dice in a challenge check", min=0, max=MAX_POOL),
        "op_check_dice": Hint(label="Dice in an op check (adjusting a die)", min=0, max=MAX_POOL),
        "chain_length": Hint(
            label="Dice in the chain", min=annulus.MIN_LENGTH, max=annulus.MAX_LENGTH
        ),
        "mask_die_sides": Hint(label="Mask die (sides)", min=1, max=MAX_SIDES),
        "hidden_face": Hint(
            label="Mask face that hides a die",
            help="Seed: a mask die showing 1 hides its position.",
            min=1,
            max=MAX_SIDES,
        ),
        "toolkit": Hint(
            label="Toolkit abilities",
            help="Using an ability needs a check; a failed check makes it unusable for the rest "
            "of the challenge.",
            noun="ability",
            columns={
                "name": Hint(label="Name", required=True),
                "effect": Hint(
                    label="Effect",
                    choices=tuple((e, EFFECT_LABELS.get(e, e)) for e in annulus.EFFECTS),
                ),
                "dice": Hint(
                    label="Check dice",
                    min=0,
                    max=MAX_POOL,
                    blank="the challenge check's dice",
                ),
                "needed": Hint(
                    label="Successes needed",
                    min=0,
                    max=MAX_POOL,
                    blank="the challenge's difficulty",
                ),
                "description": Hint(label="What it does"),
            },
        ),
    }
