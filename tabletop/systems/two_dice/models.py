"""The two-dice sheet's columns (seed 003): attributes and resources with their current and
maximum values."""

from tabletop.systems.models import Character, models, sheet_link


class TwoDiceSheet(Character):
    """A two-dice character: the shared ``Character`` row plus this row."""

    character = sheet_link("two_dice_sheet")
    # {"Might": 2, ...}
    attributes = models.JSONField(default=dict, blank=True)
    # {"Health": {"current": 5, "max": 6}, ...}
    resources = models.JSONField(default=dict, blank=True)
