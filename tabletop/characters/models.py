"""Characters: a player's own, or the GM's NPCs and foes.

``Character`` holds what every system shares (campaign, owner, role, name, notes, times). Each
game system keeps its own sheet in its app: a model that extends ``Character`` (Django's
multi-table inheritance: one row per character in the system's table, keyed to the character's
row), with its attributes, skills, currencies and harm as its own columns and migrations. The
campaign's system says which model its characters are (``System.sheet_model``); the
``Character`` manager creates and reads them as that model, so generic code never names one.
A currency's column keeps itself at zero or above in the database, so a spend can never
overdraw.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from tabletop import systems
from tabletop.campaigns.models import Campaign


def sheet_model(system: str) -> type[Character]:
    """The model a campaign of ``system`` keeps its characters as: the system's sheet model,
    or ``Character`` itself for a system whose characters carry nothing of their own."""
    found = systems.find(system)
    model = getattr(found, "sheet_model", None)
    return model if model is not None else Character


def _sheet_models() -> list[type[Character]]:
    return [s.sheet_model for s in systems.all_systems() if s.sheet_model is not None]


def _accessor(model: type[Character]) -> str:
    return model._meta.parents[Character].remote_field.get_accessor_name()


def sheet_joins(system: str | None = None, character: str = "character") -> tuple[str, ...]:
    """``select_related`` paths that read a row's ``character`` with its sheet, so that
    ``Character.sheet`` needs no query of its own: ``system``'s sheet, or (None) every
    registered system's, for rows whose campaign is not known before they are read.
    ``character=""``: for a query of characters."""
    models_ = [sheet_model(system)] if system is not None else _sheet_models()
    at = f"{character}__" if character else ""  # "": a query of the characters themselves
    joins = tuple(f"{at}{_accessor(m)}" for m in models_ if m is not Character)
    return joins or ((character,) if character else ())


def model_of(character: Character) -> type[Character]:
    """The sheet model ``character`` is kept as (its own class when it was read as one)."""
    if type(character) is not Character:
        return type(character)
    return sheet_model(character.campaign.system)


class CharacterQuerySet(models.QuerySet):
    def create(self, **fields: Any) -> Character:
        """A character of its campaign's system, as that system's sheet model (so a sheet row
        always exists beside the character's row), given shared and sheet fields together."""
        if self.model is Character:
            campaign = fields.get("campaign")
            if campaign is None:
                campaign = Campaign.objects.get(pk=fields["campaign_id"])
            model = sheet_model(campaign.system)
            if model is not Character:
                return model.objects.create(**fields)
        return super().create(**fields)

    def of_campaign(self, campaign: Campaign) -> models.QuerySet:
        """The campaign's characters with their sheets (one query, the sheet joined). It
        starts the query: filters before it would be dropped, so it refuses them."""
        if self.query.has_filters():
            raise TypeError("of_campaign() starts a query: filter after it, not before.")
        return sheet_model(campaign.system).objects.filter(campaign=campaign)


class Character(models.Model):
    class Role(models.TextChoices):
        PC = "pc", "Player character"
        NPC = "npc", "NPC"
        FOE = "foe", "Foe"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters"
    )
    role = models.CharField(max_length=5, choices=Role.choices, default=Role.PC)
    name = models.CharField(max_length=80)
    notes = models.TextField(blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["role", "name"]

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def in_table_order(characters: Iterable[Character]) -> list[Character]:
        """The players' characters first, then NPCs, then foes (``Role``'s order), each by
        name: how every roster and picker at the table lists them."""
        order = list(Character.Role)
        return sorted(characters, key=lambda c: (order.index(c.role), c.name.casefold(), c.pk))

    @property
    def sheet(self) -> Character:
        """This character as its system's sheet model (itself when it already is one)."""
        if type(self) is not Character:
            return self
        cache = self._state.fields_cache
        accessors = {_accessor(m) for m in _sheet_models()}
        # Read with it (``sheet_joins``): the one a join found; else this system's, read now.
        found = [cache[a] for a in accessors if cache.get(a) is not None]
        if found:
            sheet = found[0]
        else:
            model = sheet_model(self.campaign.system)
            if model is Character:
                return self
            try:
                sheet = getattr(self, _accessor(model))
            except model.DoesNotExist:
                return self  # no sheet row (made outside the app): its shared fields alone
        for name, value in cache.items():  # the campaign, the owner already read
            if name not in accessors:
                sheet._state.fields_cache.setdefault(name, value)
        return sheet


class SavedRoll(models.Model):
    """A named roll a member keeps to make again ("Longsword: 1d20+5"): on a character (its
    owner's and the GM's to edit), or their own in a campaign (``character`` None). Its
    expression is the dice box's (``rules.expression``); run it from the Sheet tool or with
    ``/r longsword`` (tabletop.characters.saved_rolls)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="saved_rolls")
    #: whose it is: the character's owner, or the member who keeps it for themselves
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_rolls"
    )
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.CASCADE, related_name="saved_rolls"
    )
    name = models.CharField(max_length=60)
    expression = models.CharField(max_length=200)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            # One name once per character, and once among a member's own in a campaign, whatever
            # its case: "/r longsword" finds one roll.
            models.UniqueConstraint(
                Lower("name"),
                "character",
                condition=models.Q(character__isnull=False),
                name="saved_roll_name_per_character",
            ),
            models.UniqueConstraint(
                Lower("name"),
                "campaign",
                "owner",
                condition=models.Q(character__isnull=True),
                name="saved_roll_name_per_member",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.expression}"
