"""The roll-and-keep sheet's columns (seed 001): attributes, permanent mana per colour and
specialities."""

from tabletop.systems.models import Character, models, sheet_link


class RollAndKeepSheet(Character):
    """A roll-and-keep character: the shared ``Character`` row plus this row."""

    character = sheet_link("roll_and_keep_sheet")
    # {"Cunning": 4, ...}
    attributes = models.JSONField(default=dict, blank=True)
    # permanent mana per colour: {"Black": 3, "Blue": 2}
    mana = models.JSONField(default=dict, blank=True)
    # [{"name": "Deceit", "attribute": "Cunning"}, ...]
    specialities = models.JSONField(default=list, blank=True)
