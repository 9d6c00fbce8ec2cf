"""percentile: the GM's ruleset settings in the seed's words, with the rules' own bounds.

The generic editor (tabletop.campaigns.ruleset_forms) lays the fields out from
``rules.percentile.DEFAULT_RULESET``. Two of its fields start empty, so these hints give their
rows: ``modifier_overrides`` (changes to the seed's sample modifier table, one row per condition,
one cell per column) and ``custom_modifiers`` (the campaign's own rows). A table cell is a number
or the seed's "X" / "X / 4" (the Total Penalty), written as the seed prints it. A plot point use's
``values`` pair is shown as two numbers. The bounds are those of ``validate_ruleset``.
"""

from __future__ import annotations

import re
from typing import Any

from rules import percentile
from tabletop.systems.api import NESTED, ROWS_ADDED, ROWS_FIXED, Hint, RulesetForm

MAX = percentile.MAX_BONUS
_NUMBER = re.compile(r"^[+-]?\d+$")
_FORMULA = re.compile(r"^(?:x|total_?penalty)(?:/([1-9]\d*))?$", re.IGNORECASE)


def parse_entry(text: str) -> int | dict[str, str]:
    """A modifier table cell as the GM writes it: -10, +5, 0, X or X/4 (seed "X / 4")."""
    compact = text.replace(" ", "")
    if _NUMBER.match(compact):
        number = int(compact)
        if not -MAX <= number <= MAX:
            raise ValueError(f"must be between -{MAX} and +{MAX}.")
        return number
    formula = _FORMULA.match(compact)
    if formula:
        divisor = formula.group(1)
        return {"formula": f"total_penalty/{divisor}" if divisor else "total_penalty"}
    raise ValueError("write a whole number (e.g. -10 or +5), or X or X/4 for the Total Penalty.")


def show_entry(entry: Any) -> str:
    """A table cell as the seed prints it: +30, -10, 0, X, X / 4."""
    if isinstance(entry, dict):
        formula = str(entry.get("formula", ""))
        _, _, divisor = formula.partition("/")
        return f"X / {divisor}" if divisor else "X"
    return f"{entry:+d}" if isinstance(entry, int) and entry else str(entry)


def _seed_rows() -> dict[str, dict[str, Any]]:
    table = percentile.modifier_table(None)
    return {row["condition"]: row for group in table["groups"] for row in group["rows"]}


def _row_label(row: dict[str, Any]) -> str:
    """ "Encumbrance (Total Penalty = X)", "Bleeding, per hit/round", "Stunned"."""
    label = row["condition"]
    if row["label"] != label:
        label = f"{label} ({row['label']})"
    return f"{label}, per {row['per']}" if row.get("per") else label


def _condition_choices() -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    table = percentile.modifier_table(None)
    return tuple(
        (group["group"], tuple((row["condition"], _row_label(row)) for row in group["rows"]))
        for group in table["groups"]
    )


def _seed_entry(condition: str, column: str) -> str:
    row = _seed_rows().get(condition)
    return show_entry(row["values"][column]) if row else ""


def _cells(**extra: Any) -> dict[str, Hint]:
    return {
        column: Hint(label=column, parse=parse_entry, show=show_entry, **extra)
        for column in percentile.COLUMNS
    }


_BAND_CHOICES = tuple((band, percentile.BAND_LABELS[band]) for band in percentile.BANDS)

USE_LABELS = {
    "change_roll": "Change a roll",
    "change_roll_open_ended": "Change a roll, open-ended",
    "lessen_wound": "Lessen a wound",
    "undo_wound": "Undo a wound",
    "ignore_weakness": "Ignore a weakness",
    "clue": "A clue",
    "saved_action": "A saved action",
    "coincidence": "A coincidence",
    "other": "Anything else",
}


def _bands(label: str, help: str) -> Hint:
    return Hint(label=label, help=help, choices=_BAND_CHOICES)


class PercentileSettingsForm(RulesetForm):
    hints = {
        "retry_penalty": Hint(
            label="Retry penalty (per failure)",
            help="Seed: each failure at the same attempt gives a cumulative -25.",
            min=-MAX,
            max=0,
        ),
        "retry_failure_bands": _bands(
            "Results that count as a failed attempt", "Each adds the retry penalty."
        ),
        "slump_modifier": Hint(label="In a slump", min=-MAX, max=MAX),
        "zone_modifier": Hint(label="In the zone", min=-MAX, max=MAX),
        "slump_ends_on": _bands("A slump ends on", "Seed: “until you get a full success”."),
        "zone_ends_on": _bands("The zone ends on", "Seed: “until your next failure”."),
        "running_percent": Hint(
            label="Running: movement outside the MM column",
            help="Percent of the pace's movement for the results Chart 14.1 gives no percent.",
            rows=ROWS_FIXED,
            key_label="Result",
            value_label="Movement %",
            row_labels=percentile.BAND_LABELS,
            min=0,
            max=1000,
        ),
        "max_pace": Hint(
            label="Fastest pace", help="Seed: “5 is about the fastest”.", min=1, max=100
        ),
        "breakage_lift_capacity_percent": Hint(
            label="Breakage potency (% of lift capacity)", min=0, max=100
        ),
        "breakage_force_percent": Hint(
            label="Breakage potency (% of pounds of force)", min=0, max=100
        ),
        "breakage_resistances": Hint(
            help="Suggestions shown to the GM for a breakage roll.",
            rows=ROWS_ADDED,
            noun="material",
            key_label="Material",
            value_label="Resistance",
            min=-MAX,
            max=MAX,
        ),
        "modifier_overrides": Hint(
            label="Changes to the modifier table",
            help="Change the seed's numbers for a condition; a blank cell keeps the seed's "
            "number (shown faintly).",
            shape=NESTED,
            noun="condition",
            key_label="Condition",
            row_choices=_condition_choices(),
            row_labels={c: _row_label(row) for c, row in _seed_rows().items()},
            columns=_cells(),
            drop_blank_rows=True,
            empty="No changes: every condition uses the seed's numbers.",
            placeholder=_seed_entry,
        ),
        "custom_modifiers": Hint(
            label="The campaign's own modifiers",
            help="Rows added to the modifier table; a blank cell is 0. A cell is a whole number "
            "or X, X/4 … for the Total Penalty.",
            shape=NESTED,
            noun="modifier",
            key_label="Condition",
            columns=_cells(),
            reserved=tuple(_seed_rows()),
            empty="None yet: the table holds the seed's rows only.",
            reserved_reason="is already a row of the seed's table: change it under "
            "“Changes to the modifier table”",
        ),
        "plot_point_uses": Hint(
            help="What a plot point buys (seed: change a roll, lessen a wound, a clue …).",
            aliases=("ways of changing a roll",),
            rows=ROWS_ADDED,
            noun="use",
            key_label="Use",
            row_labels=USE_LABELS,
            columns={
                "cost": Hint(label="Plot points", min=1, max=MAX),
                "lowest": Hint(
                    label="Roll from",
                    min=1,
                    max=100,
                    blank="a use that does not change a roll",
                ),
                "highest": Hint(label="Roll to", min=1, max=100),
                "open_ended": Hint(label="May go open-ended"),
                "gm_approval": Hint(label="GM approves"),
                "gm_sets_cost": Hint(label="GM sets the cost"),
                "text": Hint(label="What it does"),
            },
        ),
        "development_points_per_plot_point": Hint(
            label="Development points per plot point", min=1, max=1000
        ),
        "plot_point_cancel_seconds": Hint(
            label="Cancel window (seconds)",
            help="How long a spend waits for another player to cancel it.",
            min=0,
            max=300,
        ),
    }

    def to_form(self, key: str, value: Any) -> Any:
        # A use's "values" [lowest, highest] pair is two number inputs.
        if key != "plot_point_uses" or not isinstance(value, dict):
            return value
        shown = {}
        for use, spec in value.items():
            if not isinstance(spec, dict):
                return value
            entry = {k: v for k, v in spec.items() if k != "values"}
            pair = spec.get("values")
            if isinstance(pair, list | tuple) and len(pair) == 2:
                entry = {"cost": spec.get("cost"), "lowest": pair[0], "highest": pair[1], **entry}
            shown[use] = entry
        return shown

    def from_form(self, key: str, value: Any) -> Any:
        if key != "plot_point_uses" or not isinstance(value, dict):
            return value
        uses = {}
        for use, spec in value.items():
            entry = {k: v for k, v in spec.items() if k not in ("lowest", "highest")}
            if "lowest" in spec or "highest" in spec:
                entry["values"] = [spec.get("lowest"), spec.get("highest")]
            else:
                entry.pop("open_ended", None)  # only a use that changes a roll goes open-ended
            uses[use] = entry
        return uses
