"""The conductor sheet's columns (seed 002): the character's skills, its own difficulty (foes
attack against it), the players' bennies, and hits and lasting hits."""

from tabletop.systems.models import Character, models, sheet_link


class ConductorSheet(Character):
    """A conductor character: the shared ``Character`` row plus this row."""

    character = sheet_link("conductor_sheet")
    # [{"name": "Weapon", "value": 2, "specialisation": "Sword"}, ...]
    skills = models.JSONField(default=list, blank=True)
    difficulty = models.PositiveSmallIntegerField(default=3)
    bennies = models.PositiveIntegerField(default=0)
    hits = models.PositiveIntegerField(default=0)
    lasting_hits = models.PositiveIntegerField(default=0)
