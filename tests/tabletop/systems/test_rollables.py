"""Every system declares the rollable numbers of its sheets (``System.rollables``) and each is a
roll its own roll forms make: on every demo character of the five systems, each rollable's roll kind
is one the scene's roll forms offer, and its fields, with what the roll form holds by default (a
difficulty), pick a roll whose odds are worked out and which is made, its card naming what was
rolled. Each system's own file checks what its rollables are."""

from __future__ import annotations

import secrets
from io import StringIO

import pytest
from django.core.management import call_command

from tabletop import systems
from tabletop.characters.models import Character, sheet_joins
from tabletop.scenes.rollkinds import ROLL_KINDS, kinds_for

pytestmark = pytest.mark.django_db

SLUGS = ("annulus", "conductor", "percentile", "roll_and_keep", "two_dice")

#: What a roll form sends beside a rollable's fields: its fields' defaults (the forms'
#: templates: a difficulty, a pace), which the player leaves or changes before rolling.
ROLL_FORM_DEFAULTS = {
    "annulus_check": {"difficulty": "medium", "check": "challenge"},
    "conductor_standard": {"difficulty": "7"},
    "conductor_attack": {"difficulty": "4"},
    "conductor_heal": {"difficulty": "3"},
    "conductor_poison": {},
    "percentile": {"column": "Movement"},
    "percentile_running": {"pace": "2"},
    "roll_and_keep": {"difficulty": "Standard"},
    "two_dice": {"difficulty": "Normal"},
}


@pytest.fixture
def demo_characters():
    call_command("seed_demo", stdout=StringIO())
    found = Character.objects.select_related("campaign", *sheet_joins(character="")).order_by("pk")
    return [character.sheet for character in found]


def test_every_system_declares_its_rollables():
    for slug in SLUGS:
        assert systems.get(slug).rollables is not None, slug


@pytest.mark.parametrize("slug", SLUGS)
def test_every_demo_character_s_rollables_are_rolls_its_roll_forms_make(slug, demo_characters):
    system = systems.get(slug)
    offered = {kind.name for kind in kinds_for(slug)}
    characters = [c for c in demo_characters if c.campaign.system == slug]
    assert characters
    for character in characters:
        ruleset = character.campaign.effective_ruleset()
        found = system.rollables(character, ruleset)
        assert found, f"{character.name} has nothing to roll"
        names = [r.name for r in found]
        assert len(set(names)) == len(names), f"two buttons of one name: {names}"
        for rollable in found:
            assert rollable.roll_kind in offered, rollable
            assert rollable.section and rollable.label and rollable.value, rollable
            assert rollable.name == f"{rollable.verb} {rollable.label} ({rollable.value})"
            kind = ROLL_KINDS[rollable.roll_kind]
            data = {**ROLL_FORM_DEFAULTS[rollable.roll_kind], **rollable.fields}
            if rollable.roll_kind == "conductor_heal":
                data["patient"] = str(character.pk)  # the roll form's first patient
            odds = kind.odds(data=dict(data), character=character, ruleset=ruleset)
            assert 0 <= odds["chance"] <= 1, (rollable, odds)
            outcome = kind.roll(
                data=dict(data), character=character, ruleset=ruleset, rng=secrets.SystemRandom()
            )
            # What was rolled is on its card ("Running (pace)": "Running at pace 2 (...)").
            assert rollable.label.split(" (")[0] in outcome.title, (rollable, outcome.title)
