"""The two_dice demo table (``manage.py seed_demo``) can be played: every demo character's
best attribute succeeds at sensible odds on a Normal check (seed 003: 2d6 + attribute, 15 or
higher succeeds)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tabletop.characters.models import Character
from tabletop.characters.sheets import spec_for
from tabletop.systems.two_dice import rolls

pytestmark = pytest.mark.django_db


def _best_check(character: Character) -> dict[str, str]:
    """The roll form's input for the character's best attribute, paid from the linked
    resource with the most points (so the cost is paid whenever it can be)."""
    spec = spec_for(character.campaign)
    attribute = max(spec.part("attributes").names, key=lambda a: character.attributes[a])
    linked = [r for r, attrs in spec.part("resources").names.items() if attribute in attrs]
    resource = max(linked, key=lambda r: character.resources[r]["current"])
    return {"attribute": attribute, "resource": resource, "difficulty": "Normal"}


def test_every_demo_character_succeeds_at_sensible_odds_with_their_best_attribute():
    call_command("seed_demo", stdout=StringIO())
    characters = [c.sheet for c in Character.objects.filter(campaign__system="two_dice")]
    assert len(characters) == 3
    for character in characters:
        ruleset = character.campaign.effective_ruleset()
        # The same odds the roll form shows (rolls.odds, on the rules' check_distribution).
        odds = rolls.odds(data=_best_check(character), character=character, ruleset=ruleset)
        assert 0.30 <= odds["chance"] <= 0.70, (character.name, odds["note"])
        # The Normal cost (2) is paid in full: no unpaid-cost penalty hides in those odds.
        assert "unpaid" not in odds["note"], (character.name, odds["note"])
