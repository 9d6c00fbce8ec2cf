"""Characters: a player's own, or the GM's NPCs and foes.

The sheet holds every field the five systems use; a campaign's system decides which ones its
sheet shows and validates (see tabletop/characters/sheets.py). Currencies (bennies, plot points)
and hits are changed only by play actions and the GM, never by the sheet form; the database
refuses a negative value so a spend can never overdraw.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from tabletop.campaigns.models import Campaign


class Character(models.Model):
    class Kind(models.TextChoices):
        PC = "pc", "Player character"
        NPC = "npc", "NPC"
        FOE = "foe", "Foe"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters"
    )
    kind = models.CharField(max_length=5, choices=Kind.choices, default=Kind.PC)
    name = models.CharField(max_length=80)
    notes = models.TextField(blank=True)

    # --- the sheet (which parts apply depends on the campaign's system) -----------------------
    # {"Cunning": 4, ...}
    attributes = models.JSONField(default=dict, blank=True)
    # [{"name": "Weapon", "value": 2, "specialisation": "Sword"}, ...]
    skills = models.JSONField(default=list, blank=True)
    # roll_and_keep: [{"name": "Deceit", "attribute": "Cunning"}, ...]
    specialities = models.JSONField(default=list, blank=True)
    # roll_and_keep: permanent mana per colour {"Black": 3, "Blue": 2}
    mana = models.JSONField(default=dict, blank=True)
    # two_dice: {"Health": {"current": 5, "max": 6}, ...}
    resources = models.JSONField(default=dict, blank=True)
    # annulus: training-perk dice per challenge type {"Knowledge": 1}
    training_perks = models.JSONField(default=dict, blank=True)
    # conductor: the character's own difficulty (foe attacks roll against it)
    difficulty = models.PositiveSmallIntegerField(default=3)
    # percentile
    quickness = models.SmallIntegerField(default=0)
    mv = models.PositiveSmallIntegerField("MV", default=0)
    total_penalty = models.SmallIntegerField(default=0)

    # --- currencies and harm: changed by play actions and the GM only ------------------------
    bennies = models.PositiveIntegerField(default=0)
    plot_points = models.PositiveIntegerField("plot points available", default=0)
    plot_points_total = models.PositiveIntegerField(default=0)
    development_points = models.PositiveIntegerField(default=0)
    hits = models.PositiveIntegerField(default=0)
    lasting_hits = models.PositiveIntegerField(default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind", "name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(plot_points__lte=models.F("plot_points_total")),
                name="plot_points_within_total",
            )
        ]

    def __str__(self) -> str:
        return self.name
