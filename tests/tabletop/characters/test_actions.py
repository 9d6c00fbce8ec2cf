"""The character actions: authorisation, sheet checks and the GM's adjust."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from tabletop.characters.actions import (
    character_adjust,
    character_create,
    character_delete,
    character_update,
)
from tabletop.characters.models import Character

pytestmark = pytest.mark.django_db


def test_player_creates_pc_owned_by_them(make_campaign, alice):
    campaign = make_campaign("annulus")
    character = character_create(
        campaign=campaign, actor=alice, name=" Mira ", sheet={"training_perks": {"finesse": 2}}
    )
    assert (character.name, character.owner, character.role) == ("Mira", alice, "pc")
    # Every challenge type of the ruleset is on the sheet, the one given in its own spelling.
    assert character.training_perks == {"Knowledge": 0, "Finesse": 2, "Force": 0, "Perception": 0}


@pytest.mark.parametrize("role", ["npc", "foe"])
def test_player_cannot_create_npcs_or_foes(make_campaign, alice, role):
    with pytest.raises(PermissionDenied):
        character_create(campaign=make_campaign("conductor"), actor=alice, name="X", role=role)
    assert not Character.objects.exists()


def test_gm_creates_a_foe(make_campaign, gm):
    foe = character_create(
        campaign=make_campaign("conductor"), actor=gm, name="Wight", role="foe", sheet={}
    )
    # A new conductor character starts at the ruleset's character difficulty (3).
    assert (foe.role, foe.owner, foe.difficulty) == ("foe", gm, 3)


def test_non_member_cannot_create(make_campaign, outsider):
    with pytest.raises(PermissionDenied):
        character_create(campaign=make_campaign("annulus"), actor=outsider, name="Spy")


def test_unknown_kind_and_blank_name_are_refused(make_campaign, gm):
    campaign = make_campaign("annulus")
    with pytest.raises(ValidationError) as error:
        character_create(campaign=campaign, actor=gm, name="X", role="dragon")
    assert "role" in error.value.message_dict
    with pytest.raises(ValidationError) as error:
        character_create(campaign=campaign, actor=gm, name="  ")
    assert "name" in error.value.message_dict


def test_sheet_is_checked_by_the_action_too(make_campaign, alice):
    campaign = make_campaign("roll_and_keep")
    with pytest.raises(ValidationError) as error:
        character_create(
            campaign=campaign,
            actor=alice,
            name="Sable",
            sheet={
                "mana": {"Black": -1},
                "specialities": [{"name": "Prayer", "attribute": "Wisdom"}],
            },
        )
    assert set(error.value.message_dict) == {"mana", "specialities"}
    assert "Wisdom" in error.value.message_dict["specialities"][0]
    assert not Character.objects.exists()


def test_player_updates_only_their_own(make_campaign, make_character, alice, bob):
    campaign = make_campaign("two_dice")
    character = make_character(campaign, alice)
    with pytest.raises(PermissionDenied):
        character_update(character=character, actor=bob, sheet={"attributes": {"Might": 5}})
    character_update(character=character, actor=alice, sheet={"attributes": {"Might": 5}})
    character.refresh_from_db()
    assert character.attributes == {"Might": 5, "Agility": 0, "Wits": 0, "Presence": 0}


def test_player_cannot_change_the_kind(make_campaign, make_character, alice):
    character = make_character(make_campaign("conductor"), alice)
    with pytest.raises(PermissionDenied):
        character_update(character=character, actor=alice, sheet={}, role="foe")
    character.refresh_from_db()
    assert character.role == "pc"


def test_sheet_update_refuses_currencies_and_foreign_fields(
    make_campaign, make_character, gm, alice
):
    character = make_character(make_campaign("conductor"), alice, bennies=1)
    with pytest.raises(ValidationError) as error:
        character_update(character=character, actor=gm, sheet={"bennies": 5, "mana": {}})
    assert set(error.value.message_dict) == {"bennies", "mana"}
    character.refresh_from_db()
    assert character.bennies == 1


def test_sheet_update_leaves_currencies_alone(make_campaign, make_character, alice):
    character = make_character(make_campaign("conductor"), alice, bennies=1)
    stale = Character.objects.get(pk=character.pk)
    # Meanwhile the GM hands out a benny...
    character_adjust(character=character, actor=character.campaign.gm, bennies=2)
    # ...and the player saves a sheet loaded before that: the benny stays.
    character_update(character=stale, actor=alice, sheet={"difficulty": 4})
    character.refresh_from_db()
    assert (character.bennies, character.difficulty) == (2, 4)


def test_conductor_skills_are_checked(make_campaign, make_character, alice):
    character = make_character(make_campaign("conductor"), alice)
    bad_sheets = {
        "must be specified": [{"name": "Art/Craft", "value": 1}],
        "can't be specified": [{"name": "Survival", "value": 1, "specialisation": "Desert"}],
        "Unknown skill": [{"name": "Juggling", "value": 1}],
        "listed twice": [
            {"name": "Weapon", "value": 1, "specialisation": "Sword"},
            {"name": "weapon", "value": 2, "specialisation": "sword"},
        ],
        "between 0 and 10": [{"name": "Survival", "value": 11}],
    }
    for message, skills in bad_sheets.items():
        with pytest.raises(ValidationError) as error:
            character_update(character=character, actor=alice, sheet={"skills": skills})
        assert message in error.value.message_dict["skills"][0]
    # Two different weapons are two skills.
    character_update(
        character=character,
        actor=alice,
        sheet={
            "skills": [
                {"name": "weapon", "value": 1, "specialisation": "Sword"},
                {"name": "Weapon", "value": 2, "specialisation": "Axe"},
            ]
        },
    )
    character.refresh_from_db()
    assert [skill["name"] for skill in character.skills] == ["Weapon", "Weapon"]


def test_delete_is_owner_or_gm(make_campaign, make_character, gm, alice, bob):
    campaign = make_campaign("annulus")
    first, second = make_character(campaign, alice, "A"), make_character(campaign, alice, "B")
    with pytest.raises(PermissionDenied):
        character_delete(character=first, actor=bob)
    character_delete(character=first, actor=alice)
    character_delete(character=second, actor=gm)
    assert not Character.objects.exists()


# --- adjust -------------------------------------------------------------------------------------


def test_adjust_sets_and_adds(make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("percentile"), alice)
    character_adjust(character=character, actor=gm, plot_points_total=5, plot_points=5)
    character_adjust(character=character, actor=gm, relative=True, plot_points=-2)
    character_adjust(character=character, actor=gm, development_points=6)
    character.refresh_from_db()
    assert (character.plot_points, character.plot_points_total) == (3, 5)
    assert character.development_points == 6


def test_adjust_refuses_negatives_and_changes_nothing(make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("conductor"), alice, bennies=2, hits=1)
    with pytest.raises(ValidationError) as error:
        character_adjust(character=character, actor=gm, relative=True, bennies=-3, hits=1)
    assert "below zero" in error.value.message_dict["bennies"][0]
    with pytest.raises(ValidationError):
        character_adjust(character=character, actor=gm, lasting_hits=-1)
    character.refresh_from_db()
    assert (character.bennies, character.hits, character.lasting_hits) == (2, 1, 0)


def test_adjust_refuses_plot_points_above_total(make_campaign, make_character, gm, alice):
    character = make_character(
        make_campaign("percentile"), alice, plot_points=3, plot_points_total=3
    )
    with pytest.raises(ValidationError) as error:
        character_adjust(character=character, actor=gm, relative=True, plot_points=1)
    assert "above the total" in error.value.message_dict["plot_points"][0]
    with pytest.raises(ValidationError):
        character_adjust(character=character, actor=gm, plot_points_total=2)
    character.refresh_from_db()
    assert (character.plot_points, character.plot_points_total) == (3, 3)


def test_adjust_is_gm_only_and_system_aware(make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("conductor"), alice)
    with pytest.raises(PermissionDenied):
        character_adjust(character=character, actor=alice, bennies=5)
    with pytest.raises(ValidationError) as error:
        character_adjust(character=character, actor=gm, plot_points=1)
    assert "plot_points" in error.value.message_dict
    with pytest.raises(ValidationError):
        character_adjust(character=character, actor=gm)
    with pytest.raises(ValidationError):
        character_adjust(character=character, actor=gm, bennies="3")
    character.refresh_from_db()
    assert character.bennies == 0


@pytest.mark.parametrize(
    ("system", "ruleset", "words"),
    [
        ("conductor", {}, "bennies, hits and lasting hits"),
        ("percentile", {}, "plot points and development points"),
        ("any_game", {"currency": "Hero point / Hero points"}, "hero points"),
    ],
)
def test_adjust_refusal_names_the_campaign_s_own_currencies(
    make_campaign, make_character, alice, system, ruleset, words
):
    """A player is told what only the GM adjusts in their game's words (the any-game table's
    currency as its GM named it), never another system's."""
    character = make_character(make_campaign(system, ruleset=ruleset), alice)
    with pytest.raises(PermissionDenied) as refused:
        character_adjust(character=character, actor=alice, relative=True)
    assert str(refused.value) == f"Only the GM adjusts {words}."
