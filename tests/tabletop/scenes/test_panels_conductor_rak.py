"""Roll panels of conductor (standard, attack) and roll_and_keep: socket rolls, cards, odds."""

from __future__ import annotations

import html

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from rules import conductor
from rules import roll_and_keep as rak
from tabletop.characters.models import Character
from tabletop.scenes.models import SceneEvent
from tests.support.dice import script_dice
from tests.tabletop.scenes.conftest import connect, make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


class ScriptedRng:
    """Returns the scripted faces in order (each must fit the die asked for)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        face = self.faces.pop(0)
        assert low <= face <= high, (face, low, high)
        return face


@pytest.fixture
def script(monkeypatch):
    """Make the next socket roll use these faces (and give a fresh copy for the rules call)."""

    def use(*faces: int) -> None:
        script_dice(monkeypatch, ScriptedRng(*faces))

    return use


def conductor_table():
    table = make_table(system="conductor")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[
            {"name": "Survival", "value": 3, "specialisation": ""},
            {"name": "Weapon", "value": 2, "specialisation": "Sword"},
        ],
        difficulty=4,
        bennies=2,
    )
    Character.objects.create(
        campaign=table.campaign, owner=table.gm, name="Cave troll", kind="foe", difficulty=5
    )
    return table, hero


def rak_table():
    table = make_table(system="roll_and_keep")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Sela",
        attributes={"Cunning": 5, "Strength": 2, "Intelligence": 3},
        specialities=[
            {"name": "Deceit", "attribute": "Cunning"},
            {"name": "Lore", "attribute": "Intelligence"},
        ],
        mana={"Black": 3, "Blue": 2},
    )
    return table, hero


def rolls() -> list[SceneEvent]:
    return list(SceneEvent.objects.filter(kind="roll").order_by("seq"))


async def roll_as(user, scene, **fields):
    sock = await connect(user, scene)
    sock.frames.clear()
    await sock.send(command="roll", mode="public", **fields)
    await sock.drain()
    await sock.close()
    return sock.everything()


# --- conductor: standard roll ------------------------------------------------------------------


async def test_standard_roll_uses_the_sheet_skill(script):
    table, hero = await sync_to_async(conductor_table)()
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
    expected = conductor.standard_roll(skill=3, difficulty=7, rng=ScriptedRng(9)).to_dict()
    result = event.public["result"]
    assert {k: result[k] for k in expected} == expected
    assert result["total"] == 12 and result["success"] is True
    assert event.public["outcome"] == "success"
    assert "Success (12 vs 7)" in text
    assert "d12 <b>9</b>" in text


async def test_standard_failure_says_how_many_bennies_would_help(script):
    table, hero = await sync_to_async(conductor_table)()
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


# --- conductor: attack roll --------------------------------------------------------------------


async def test_attack_shows_every_die_and_the_exploded_chain(script):
    table, hero = await sync_to_async(conductor_table)()
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
    expected = conductor.attack(skill=3, difficulty=4, rng=ScriptedRng(*faces)).to_dict()
    result = event.public["result"]
    assert {k: result[k] for k in expected} == expected
    assert result["hits"] == 3 and len(result["dice"]) == 5
    assert "foe_strikes_back" in result and result["foe_strikes_back"] is False
    assert "3 hits" in text
    assert "exploded" in text
    assert "from die 1's explosion" in text
    assert text.count("— hit") == 3 and text.count("<s>miss</s>") == 2


async def test_attack_without_a_hit_flags_the_foe_strike_back(script):
    table, hero = await sync_to_async(conductor_table)()
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
    assert event.public["summary"] == "No hit — the foe strikes back!"
    assert "No hit — the foe strikes back!" in text


async def test_gm_attack_against_a_picked_foe_uses_its_difficulty(script):
    table, _ = await sync_to_async(conductor_table)()
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
    table, hero = await sync_to_async(conductor_table)()
    text = await roll_as(
        table.alice, table.scene, roll_kind="conductor_attack", character=hero.pk, **fields
    )
    assert 'id="scene-errors"' in text
    assert message in html.unescape(text)
    assert await sync_to_async(rolls)() == []


async def test_gm_standard_roll_without_character_refuses_a_word_for_skill():
    table, _ = await sync_to_async(conductor_table)()
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


# --- roll_and_keep ------------------------------------------------------------------------------


async def test_roll_and_keep_keeps_by_mana_and_reads_the_degree(script):
    table, hero = await sync_to_async(rak_table)()
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
        attribute_value=5, specialities=1, kept=4, difficulty=6, rng=ScriptedRng(*faces)
    ).to_dict()
    result = event.public["result"]
    assert {k: result[k] for k in expected} == expected
    assert result["successes"] == 4 and result["degree"] == "Exceptional"
    assert result["speciality_names"] == ["Deceit"]
    assert text.count("</s> dropped") == 2
    assert "<s>1</s> dropped" in text and "<b>10</b> kept, success" in text
    assert "4 successes: Exceptional" in text


async def test_roll_and_keep_botch(script):
    table, hero = await sync_to_async(rak_table)()
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
    table, hero = await sync_to_async(rak_table)()
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
    table, hero = await sync_to_async(rak_table)()
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


# --- odds endpoint and panels ---------------------------------------------------------------


def odds(user, scene, **params):
    client = Client()
    client.force_login(user)
    response = client.get(reverse("scenes:odds", args=[scene.pk]), params)
    assert response.status_code == 200
    return response


def row_total(response) -> float:
    rows = response.context["odds"]["rows"]
    assert rows
    return sum(float(row["value"]) for row in rows)


def test_standard_odds(transactional_db):
    table, hero = conductor_table()
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
    table, hero = conductor_table()
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
    table, _ = conductor_table()
    response = odds(
        table.gm, table.scene, roll_kind="conductor_standard", skill="abc", difficulty="7"
    )
    assert response.context["odds"] is None
    assert "Skill must be a whole number." in response.content.decode()


def test_roll_and_keep_odds(transactional_db):
    table, hero = rak_table()
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


def test_conductor_panels_offer_the_sheet(transactional_db):
    table, _ = conductor_table()
    client = Client()
    client.force_login(table.gm)
    text = html.unescape(
        client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    )
    assert "Weapon (Sword): 2" in text
    assert "Cave troll (difficulty 5)" in text


def test_roll_and_keep_panel_offers_the_sheet(transactional_db):
    rtable, _ = rak_table()
    client = Client()
    client.force_login(rtable.alice)
    text = html.unescape(
        client.get(reverse("scenes:detail", args=[rtable.scene.pk])).content.decode()
    )
    assert 'name="speciality:Deceit"' in text
    assert "Cunning 5" in text
    assert "Standard (6)" in text


def test_gm_panels_offer_rolls_without_a_character(transactional_db):
    table, _ = rak_table()
    client = Client()
    client.force_login(table.gm)
    text = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    assert "Without a character" in text
    assert 'name="keep"' in text and 'name="speciality:Deceit"' in text
