"""The annulus sheet's columns (seed 000): training-perk dice per challenge type."""

from tabletop.systems.models import Character, models, sheet_link


class AnnulusSheet(Character):
    """An annulus character: the shared ``Character`` row plus this row."""

    character = sheet_link("annulus_sheet")
    # {"Knowledge": 1}
    training_perks = models.JSONField(default=dict, blank=True)
