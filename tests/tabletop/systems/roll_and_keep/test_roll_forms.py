"""roll_and_keep's roll form: socket rolls kept by mana, botches, refusals, odds and the sheet
on the scene page."""

from __future__ import annotations

import html
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from rules import roll_and_keep as rak
from tests.support.dice import Faces
from tests.tabletop.systems.roll_and_keep.tables import roll_form_table
from tests.tabletop.systems.roll_forms import odds, roll_as, rolls, row_total

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


async def test_roll_and_keep_keeps_by_mana_and_reads_the_degree(script):
    table, hero = await sync_to_async(roll_form_table)()
    # Cunning 5 + Deceit: 6 dice; Cunning is linked to Black (3 mana) + 1 speciality: keep 4.
    faces = (9, 1, 7, 3, 10, 6)
    script(*faces)
    text = html.unescape(
        await roll_as(
            table.alice,
            table.scene,
            roll_kind="roll_and_keep",
            character=hero.pk,
            attribute="Cunning",
            difficulty="Standard",
            **{"speciality:Deceit": "on"},
        )
    )
    [event] = await sync_to_async(rolls)()
    pool = rak.dice_pool(
        attribute="Cunning", attribute_value=5, mana={"Black": 3, "Blue": 2}, specialities=1
    )
    assert (pool.rolled, pool.kept) == (6, 4)
    expected = rak.roll(
        attribute_value=5, specialities=1, kept=4, difficulty=6, rng=Faces(*faces)
    ).to_dict()
    result = event.public["result"]
    assert {k: result[k] for k in expected} == expected
    assert result["successes"] == 4 and result["degree"] == "Exceptional"
    assert result["speciality_names"] == ["Deceit"]
    labels = re.findall(r'role="img" aria-label="([^"]*)"', text)
    assert labels == [
        "9, kept, success",
        "1, dropped",
        "7, kept, success",
        "3, dropped",
        "10, kept, success",
        "6, kept, success",
    ]
    assert "4 successes: Exceptional" in text


async def test_roll_and_keep_botch(script):
    table, hero = await sync_to_async(roll_form_table)()
    script(1, 2)  # Strength 2 (Red: no mana) keeps max(1, 5 // 3) = 1
    text = html.unescape(
        await roll_as(
            table.alice,
            table.scene,
            roll_kind="roll_and_keep",
            character=hero.pk,
            attribute="Strength",
            difficulty="Easy",
        )
    )
    [event] = await sync_to_async(rolls)()
    result = event.public["result"]
    assert result["kept"] == 1 and result["botch"] is True and result["degree"] == "Botch"
    assert event.public["outcome"] == "botch"
    assert "Botch!" in text


async def test_roll_and_keep_refuses_a_speciality_of_another_attribute():
    table, hero = await sync_to_async(roll_form_table)()
    text = html.unescape(
        await roll_as(
            table.alice,
            table.scene,
            roll_kind="roll_and_keep",
            character=hero.pk,
            attribute="Cunning",
            difficulty="Standard",
            **{"speciality:Lore": "on"},
        )
    )
    assert "Lore goes with Intelligence, not Cunning: untick it." in text
    assert await sync_to_async(rolls)() == []


async def test_roll_and_keep_unknown_difficulty_is_an_error():
    table, hero = await sync_to_async(roll_form_table)()
    text = html.unescape(
        await roll_as(
            table.alice,
            table.scene,
            roll_kind="roll_and_keep",
            character=hero.pk,
            attribute="Cunning",
            difficulty="Impossible-ish",
        )
    )
    assert "Unknown difficulty" in text
    assert await sync_to_async(rolls)() == []


# --- odds endpoint and roll forms -----------------------------------------------------------


def test_roll_and_keep_odds(transactional_db):
    table, hero = roll_form_table()
    response = odds(
        table.alice,
        table.scene,
        roll_kind="roll_and_keep",
        character=hero.pk,
        attribute="Cunning",
        difficulty="Standard",
        **{"speciality:Deceit": "on"},
    )
    assert row_total(response) == pytest.approx(1, abs=1e-3)
    expected = rak.odds(rolled=6, kept=4, difficulty=6)
    labels = [row["label"] for row in response.context["odds"]["rows"]]
    assert labels[:2] == ["Botch", "Failure"] and "Phenomenal" not in labels  # keeps only 4
    text = html.unescape(response.content.decode())
    assert f"botch: {float(expected.botch) * 100:.1f}%" in text
    assert "Roll 6, keep 4." in text


def test_roll_and_keep_roll_form_offers_the_sheet(transactional_db):
    rtable, _ = roll_form_table()
    client = Client()
    client.force_login(rtable.alice)
    text = html.unescape(
        client.get(reverse("scenes:detail", args=[rtable.scene.pk])).content.decode()
    )
    assert 'name="speciality:Deceit"' in text
    assert "Cunning 5" in text
    assert "Standard (6)" in text


def test_gm_roll_forms_offer_rolls_without_a_character(transactional_db):
    table, _ = roll_form_table()
    client = Client()
    client.force_login(table.gm)
    text = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    assert "Without a character" in text
    assert 'name="keep"' in text and 'name="speciality:Deceit"' in text
