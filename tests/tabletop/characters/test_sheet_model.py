"""How generic code reaches a character's sheet (tabletop/characters/models.py): created and read
as its system's sheet model, never a query of its own when read with its sheet, and safe with a
row made outside the app."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tabletop.characters.models import Character, sheet_joins
from tabletop.systems.conductor.models import ConductorSheet
from tests.support.tables import make_table

pytestmark = pytest.mark.django_db


def test_a_character_is_made_and_read_as_its_system_s_sheet():
    table = make_table(system="conductor")
    hero = Character.objects.create(
        campaign=table.campaign, owner=table.alice, name="Kestrel", bennies=2
    )
    assert type(hero) is ConductorSheet and hero.sheet is hero
    (found,) = Character.objects.of_campaign(table.campaign)
    assert type(found) is ConductorSheet and found.bennies == 2
    plain = Character.objects.select_related("campaign", *sheet_joins(character="")).get()
    with CaptureQueriesContext(connection) as queries:
        assert plain.sheet.bennies == 2 and plain.sheet.campaign == table.campaign
    assert len(queries) == 0  # read with its sheet and campaign: no query of its own


def test_of_campaign_starts_the_query_and_refuses_a_filter_before_it():
    table = make_table(system="conductor")
    with pytest.raises(TypeError, match="starts a query"):
        Character.objects.filter(owner=table.alice).of_campaign(table.campaign)


def test_a_character_without_a_sheet_row_still_reads_as_itself():
    table = make_table(system="conductor")
    # bulk_create makes the shared row alone (as an import or the admin of old might).
    (bare,) = Character.objects.bulk_create(
        [Character(campaign=table.campaign, owner=table.alice, name="Bare")]
    )
    bare = Character.objects.get(pk=bare.pk)
    assert bare.sheet is bare and not hasattr(bare, "bennies")
