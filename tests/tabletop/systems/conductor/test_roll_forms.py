"""conductor's roll forms (standard, attack): socket rolls, cards, odds and the sheet on the
scene page."""

from __future__ import annotations

import html
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from rules import conductor
from tabletop.characters.models import Character
from tests.support.dice import Faces
from tests.tabletop.systems.conductor.tables import roll_form_table
from tests.tabletop.systems.roll_forms import odds, roll_as, rolls, row_total

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


# --- standard roll ------------------------------------------------------------------------


async def test_standard_roll_uses_the_sheet_skill(script):
    table, hero = await sync_to_async(roll_form_table)()
    script(9)
    text = await roll_as(
        table.alice,
        table.scene,
        roll_kind="conductor_standard",
        character=hero.pk,
        skill_name="Survival",
        difficulty="7",
    )
    [event] = await sync_to_async(rolls)()
    expected = conductor.standard_roll(skill=3, difficulty=7, rng=Faces(9)).to_dict()
    result = event.public["result"]
    assert {k: result[k] for k in expected} == expected
    assert result["total"] == 12 and result["success"] is True
    assert event.public["outcome"] == "success"
    assert "Success (12 vs 7)" in text
    assert 'class="die die-d12" role="img" aria-label="9"' in text  # the d12 drawn, showing 9


async def test_standard_failure_says_how_many_bennies_would_help(script):
    table, hero = await sync_to_async(roll_form_table)()
    script(2)
    text = await roll_as(
        table.alice,
        table.scene,
        roll_kind="conductor_standard",
        character=hero.pk,
        skill_name="Survival",
        difficulty="7",
    )
    [event] = await sync_to_async(rolls)()
    assert event.public["result"]["success"] is False
    assert event.public["outcome"] == "failure"
    assert "Failure (5 vs 7)" in html.unescape(text)
    assert "3 bennies would make it" in html.unescape(text)


# --- attack roll --------------------------------------------------------------------------


async def test_attack_shows_every_die_and_the_exploded_chain(script):
    table, hero = await sync_to_async(roll_form_table)()
    # Weapon (Sword) 2, specified: skill 3, so 4d6; the 6 explodes into a 5.
    faces = (6, 2, 1, 4, 5)
    script(*faces)
    text = html.unescape(
        await roll_as(
            table.alice,
            table.scene,
            roll_kind="conductor_attack",
            character=hero.pk,
            skill_name="Weapon (Sword)",
            difficulty="4",
        )
    )
    [event] = await sync_to_async(rolls)()
    expected = conductor.attack(skill=3, difficulty=4, rng=Faces(*faces)).to_dict()
    result = event.public["result"]
    assert {k: result[k] for k in expected} == expected
    assert result["hits"] == 3 and len(result["dice"]) == 5
    assert "foe_strikes_back" in result and result["foe_strikes_back"] is False
    assert "3 hits" in text
    labels = re.findall(r'role="img" aria-label="([^"]*)"', text)
    assert labels == ["6, hit, exploded", "2, miss", "1, miss", "4, hit", "5, hit, from die 1"]


async def test_attack_without_a_hit_flags_the_foe_strike_back(script):
    table, hero = await sync_to_async(roll_form_table)()
    script(1, 2, 3, 1)
    text = html.unescape(
        await roll_as(
            table.alice,
            table.scene,
            roll_kind="conductor_attack",
            character=hero.pk,
            skill_name="Weapon (Sword)",
            difficulty="4",
        )
    )
    [event] = await sync_to_async(rolls)()
    assert event.public["result"]["hits"] == 0
    assert event.public["result"]["foe_strikes_back"] is True
    # A miss says one thing: the summary, then what comes of it, once.
    assert event.public["summary"] == "No hit"
    assert "The foe strikes back." in text and text.count("strikes back") == 1


async def test_gm_attack_against_a_picked_foe_uses_its_difficulty(script):
    table, _ = await sync_to_async(roll_form_table)()
    troll = await Character.objects.aget(name="Cave troll")
    script(5, 6, 2)  # skill 1: 2d6, the 6 explodes into a 2
    await roll_as(
        table.gm,
        table.scene,
        roll_kind="conductor_attack",
        character="",
        skill="1",
        foe=str(troll.pk),
        difficulty="2",  # the picked foe's difficulty wins over the typed one
    )
    [event] = await sync_to_async(rolls)()
    assert event.public["result"]["difficulty"] == 5
    assert event.public["result"]["hits"] == 2
    assert event.public["result"]["foe"] == "Cave troll"


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"skill_name": "Weapon (Axe)", "difficulty": "4"}, "has no Weapon (Axe) skill"),
        ({"skill_name": "Survival", "difficulty": "abc"}, "must be a whole number"),
        ({"skill_name": "Survival", "difficulty": "99"}, "between 0 and 20"),
    ],
)
async def test_bad_attack_input_gives_an_error_frame_and_no_event(fields, message):
    table, hero = await sync_to_async(roll_form_table)()
    text = await roll_as(
        table.alice, table.scene, roll_kind="conductor_attack", character=hero.pk, **fields
    )
    assert 'id="scene-errors"' in text
    assert message in html.unescape(text)
    assert await sync_to_async(rolls)() == []


async def test_gm_standard_roll_without_character_refuses_a_word_for_skill():
    table, _ = await sync_to_async(roll_form_table)()
    text = await roll_as(
        table.gm,
        table.scene,
        roll_kind="conductor_standard",
        character="",
        skill="abc",
        difficulty="7",
    )
    assert "Skill must be a whole number." in text
    assert await sync_to_async(rolls)() == []


# --- odds endpoint and roll forms -----------------------------------------------------------


def test_standard_odds(transactional_db):
    table, hero = roll_form_table()
    response = odds(
        table.alice,
        table.scene,
        roll_kind="conductor_standard",
        character=hero.pk,
        skill_name="Survival",
        difficulty="7",
    )
    assert row_total(response) == pytest.approx(1, abs=1e-3)
    text = response.content.decode()
    assert "66.7%" in text  # d12 over 4
    assert "+1 to the total per benny" in text
    assert "Willing to spend all 2: 83.3% success" in text


def test_attack_odds_hit_distribution(transactional_db):
    table, hero = roll_form_table()
    response = odds(
        table.alice,
        table.scene,
        roll_kind="conductor_attack",
        character=hero.pk,
        skill_name="Weapon (Sword)",
        difficulty="4",
    )
    assert row_total(response) == pytest.approx(1, abs=1e-3)
    any_hit = conductor.attack_hit_probability(skill=3, difficulty=4)
    labels = [row["label"] for row in response.context["odds"]["rows"]]
    assert labels[0] == "No hit (foe strikes back)" and labels[-1] == "7+ hits"
    assert f"At least one hit: {float(any_hit) * 100:.1f}%" in response.content.decode()


def test_odds_error_for_a_word_as_skill(transactional_db):
    table, _ = roll_form_table()
    response = odds(
        table.gm, table.scene, roll_kind="conductor_standard", skill="abc", difficulty="7"
    )
    assert response.context["odds"] is None
    assert "Skill must be a whole number." in response.content.decode()


def test_conductor_roll_forms_offer_the_sheet(transactional_db):
    table, _ = roll_form_table()
    client = Client()
    client.force_login(table.gm)
    text = html.unescape(
        client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    )
    assert "Weapon (Sword): 2" in text
    assert "Cave troll (difficulty 5)" in text


def test_the_gms_skill_list_names_each_character(transactional_db):
    # (A snag from issue 15.) The GM's list holds every character's skills: each names whose.
    table, hero = roll_form_table()
    Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Brannoc",
        skills=[{"name": "Strength", "value": 3, "specialisation": ""}],
    )
    for user, named in ((table.gm, True), (table.bob, False)):
        client = Client()
        client.force_login(user)
        text = html.unescape(
            client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
        )
        assert ("Brannoc · Strength: 3" in text) is named
        assert "Strength: 3" in text
