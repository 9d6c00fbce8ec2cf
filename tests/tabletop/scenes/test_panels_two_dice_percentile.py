"""Roll panels of two_dice, percentile and annulus: socket rolls, cards, odds and bad input."""

from __future__ import annotations

import html
import random
import re
from fractions import Fraction

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from rules import annulus, percentile, two_dice
from tabletop.characters.models import Character
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.rollkinds import ROLL_KINDS
from tests.tabletop.scenes.conftest import connect, make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


def _table_with_character(system: str, **sheet):
    table = make_table(system=system)
    character = Character.objects.create(
        campaign=table.campaign, owner=table.alice, name="Ayla", **sheet
    )
    return table, character


TWO_DICE_SHEET = {
    "attributes": {"Might": 4, "Agility": 2, "Wits": 1, "Presence": 3},
    "resources": {
        "Health": {"current": 1, "max": 6},
        "Stamina": {"current": 5, "max": 5},
        "Focus": {"current": 2, "max": 4},
        "Resolve": {"current": 3, "max": 3},
    },
}
PERCENTILE_SHEET = {"skills": [{"name": "Climb", "value": 45}], "total_penalty": -20}
ANNULUS_SHEET = {"training_perks": {"Knowledge": 2, "Finesse": 1}}


@pytest.fixture
def two_dice_table(transactional_db):
    return _table_with_character("two_dice", **TWO_DICE_SHEET)


@pytest.fixture
def percentile_table(transactional_db):
    return _table_with_character("percentile", **PERCENTILE_SHEET)


@pytest.fixture
def annulus_table(transactional_db):
    return _table_with_character("annulus", **ANNULUS_SHEET)


def roll_events() -> list[SceneEvent]:
    return list(SceneEvent.objects.filter(kind="roll").order_by("seq"))


async def roll_via_socket(table, character, **fields):
    sock = await connect(table.alice, table.scene)
    sock.frames.clear()
    await sock.send(command="roll", character=str(character.pk), mode="public", **fields)
    await sock.drain()
    await sock.close()
    events = await sync_to_async(roll_events)()
    return html.unescape(sock.everything()), events


# --- two_dice ------------------------------------------------------------------------------------


async def test_two_dice_roll_pays_from_sheet_and_shows_unpaid_penalty(two_dice_table):
    table, ayla = two_dice_table
    text, events = await roll_via_socket(
        table,
        ayla,
        roll_kind="two_dice",
        attribute="Might",
        difficulty="Hard",
        resource="Health",
        penalty="1",
    )
    assert len(events) == 1
    result = events[0].public["result"]
    rebuilt = two_dice.CheckResult.from_dict(result)  # totals recomputed by the rules
    assert result["attribute_value"] == 4
    assert result["payment"]["available"] == 1 and result["payment"]["unpaid"] == 2
    assert [(p["source"], p["amount"]) for p in result["penalties"]] == [
        ("unpaid_cost", 2),
        ("Other penalty", 1),
    ]
    assert rebuilt.total == result["total"] == result["dice_total"] + 4 - 3
    assert rebuilt.band == result["band"] == events[0].public["outcome"]
    assert len(result["dice"]) == 3 and sum(not d["kept"] for d in result["dice"]) == 1
    assert f"= {result['total']}" in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text))
    assert "unpaid 2" in text and "dropped" in text
    assert result["band_label"] in text
    await sync_to_async(ayla.refresh_from_db)()
    assert ayla.resources["Health"]["current"] == 1  # nothing is spent by rolling


async def test_two_dice_unlinked_resource_is_refused(two_dice_table):
    table, ayla = two_dice_table
    text, events = await roll_via_socket(
        table, ayla, roll_kind="two_dice", attribute="Might", difficulty="Easy", resource="Stamina"
    )
    assert events == []
    assert "Might is not linked to Stamina" in text


def test_two_dice_roll_matches_rules_with_the_same_dice(transactional_db):
    table, ayla = _table_with_character("two_dice", **TWO_DICE_SHEET)
    data = {"attribute": "agility", "difficulty": "Easy", "resource": "Stamina", "penalty": ""}
    outcome = ROLL_KINDS["two_dice"].roll(
        data=data, character=ayla, ruleset=table.campaign.effective_ruleset(), rng=random.Random(3)
    )
    expected = two_dice.check(
        attribute="Agility",
        attribute_value=2,
        difficulty="Easy",
        resource="Stamina",
        resource_available=5,
        rng=random.Random(3),
    )
    assert outcome.detail["dice"] == expected.to_dict()["dice"]
    assert outcome.detail["total"] == expected.total and outcome.outcome == expected.band


# --- percentile ----------------------------------------------------------------------------------


async def test_percentile_roll_shows_chain_modifiers_and_chart(percentile_table):
    table, ayla = percentile_table
    text, events = await roll_via_socket(
        table,
        ayla,
        roll_kind="percentile",
        skill="Climb",
        skill_value="",
        column="Movement",
        condition_1="Hard",
        condition_2="Encumbrance",
        condition_3="",
        other_modifier="5",
        retry_failures="1",
    )
    assert len(events) == 1
    result = events[0].public["result"]
    assert result["skill"] == "Climb" and result["skill_value"] == 45
    assert result["modifiers"] == [
        {"label": "Hard (Movement)", "value": -10},
        {"label": "Encumbrance (Movement)", "value": -20},  # the sheet's total penalty
        {"label": "Other modifier", "value": 5},
    ]
    assert result["retry_penalty"] == -25
    rebuilt = percentile.ManeuverResult.from_dict(result)
    assert rebuilt.total == result["total"] == result["roll"]["total"] + 45 - 10 - 20 + 5 - 25
    assert result["row"] == percentile.chart(result["total"]).to_dict()
    for die in result["roll"]["dice"]:
        assert f'aria-label="{die["face"]}' in text
    assert f"Total {result['total']}" in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text))
    assert percentile.BAND_LABELS[result["row"]["band"]] in text
    assert "Hard (Movement): -10" in text and "Retry (1 earlier failure): -25" in text


async def test_percentile_skill_not_on_sheet_is_refused(percentile_table):
    table, ayla = percentile_table
    text, events = await roll_via_socket(
        table, ayla, roll_kind="percentile", skill="Swim", column="Movement"
    )
    assert events == []
    assert "Ayla has no skill 'Swim'" in text


def test_percentile_open_ended_chain_matches_rules(transactional_db):
    table, ayla = _table_with_character("percentile", **PERCENTILE_SHEET)
    ruleset = table.campaign.effective_ruleset()
    # Find a seed whose first die goes open-ended, so the chain has more than one die.
    seed = next(
        s
        for s in range(5000)
        if percentile.roll_open_ended(rng=random.Random(s)).direction != "none"
    )
    data = {"skill": "", "skill_value": "30", "column": "Magic", "condition_1": "Stunned"}
    outcome = ROLL_KINDS["percentile"].roll(
        data=data, character=None, ruleset=ruleset, rng=random.Random(seed)
    )
    expected = percentile.roll(
        skill_value=30, modifiers=[("Stunned (Magic)", -50)], rng=random.Random(seed)
    )
    assert len(outcome.detail["roll"]["dice"]) >= 2
    assert outcome.detail["roll"] == expected.roll.to_dict()
    assert outcome.detail["total"] == expected.total and outcome.outcome == expected.band


# --- annulus -------------------------------------------------------------------------------------


async def test_annulus_op_check_adds_training_dice(annulus_table):
    table, ayla = annulus_table
    text, events = await roll_via_socket(
        table,
        ayla,
        roll_kind="annulus_check",
        difficulty="hard",
        type_1="Knowledge",
        type_2="Finesse",
        check="op",
    )
    assert len(events) == 1
    result = events[0].public["result"]
    faces = [d["value"] for d in result["dice"]]
    assert result["kind"] == "op_check"
    assert (result["base_dice"], result["perk_dice"], len(faces)) == (4, 2, 6)
    assert result["needed"] == 4
    assert result["successes"] == sum(f >= 4 for f in faces)
    assert result["passed"] == (result["successes"] >= 4)
    assert events[0].public["outcome"] == ("success" if result["passed"] else "failure")
    assert len(re.findall(r'aria-label="\d+, success"', text)) == result["successes"]
    assert f"{result['successes']} success" in re.sub(r"<[^>]+>", "", text)


async def test_annulus_unknown_difficulty_is_refused(annulus_table):
    table, ayla = annulus_table
    text, events = await roll_via_socket(
        table, ayla, roll_kind="annulus_check", difficulty="nightmare", type_1="Knowledge"
    )
    assert events == []
    assert "Unknown difficulty 'nightmare'" in text


def test_annulus_challenge_check_matches_rules(transactional_db):
    table = make_table(system="annulus")
    data = {"difficulty": "medium", "type_1": "Force", "check": "challenge", "perk_dice": "1"}
    outcome = ROLL_KINDS["annulus_check"].roll(
        data=data,
        character=None,
        ruleset=table.campaign.effective_ruleset(),
        rng=random.Random(11),
    )
    expected = annulus.roll_check(dice=3, perk_dice=1, needed=3, rng=random.Random(11))
    assert outcome.detail["dice"] == expected.to_dict()["dice"]
    assert outcome.detail["passed"] == expected.passed


# --- odds endpoint -------------------------------------------------------------------------------


def odds_page(table, **params) -> str:
    client = Client()
    client.force_login(table.alice)
    response = client.get(reverse("scenes:odds", args=[table.scene.pk]), params)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def meter_sum(page: str) -> float:
    values = [float(v) for v in re.findall(r'<meter [^>]*value="([0-9.]+)"', page)]
    assert values, page
    return sum(values)


def test_two_dice_odds_use_the_unpaid_penalty(two_dice_table):
    table, ayla = two_dice_table
    page = odds_page(
        table,
        roll_kind="two_dice",
        character=ayla.pk,
        attribute="Might",
        difficulty="Hard",
        resource="Health",
        penalty="0",
    )
    assert meter_sum(page) == pytest.approx(1, abs=1e-3)
    dist = two_dice.check_distribution(attribute=4, difficulty="Hard", penalty=2)
    assert f'value="{float(dist["failure"]):.4f}"' in page
    assert "2 unpaid" in page and "Critical failure" in page


def test_percentile_odds_note_success_or_better(percentile_table):
    table, ayla = percentile_table
    page = odds_page(
        table,
        roll_kind="percentile",
        character=ayla.pk,
        skill="Climb",
        column="Influence",
        condition_1="Loud Noise",
    )
    assert meter_sum(page) == pytest.approx(1, abs=1e-3)
    p = percentile.success_or_better(modifier=45 - 25)
    assert f"Success or better: {float(p) * 100:.1f}%" in page
    assert "Extraordinary Failure" in page


def test_annulus_odds_pass_probability(annulus_table):
    table, ayla = annulus_table
    page = odds_page(
        table,
        roll_kind="annulus_check",
        character=ayla.pk,
        difficulty="easy",
        type_1="Finesse",
        check="challenge",
    )
    assert meter_sum(page) == pytest.approx(1, abs=1e-3)
    p = annulus.challenge_check_probability(difficulty="easy", perk_dice=1)
    assert p != Fraction(1)
    assert f"Pass: {float(p) * 100:.1f}%" in page


@pytest.mark.parametrize(
    ("system", "params", "message"),
    [
        (
            "two_dice",
            {"attribute": "Might", "difficulty": "Normal", "resource": "Focus"},
            "not linked",
        ),
        ("percentile", {"skill": "", "skill_value": "lots"}, "must be a whole number"),
        (
            "annulus",
            {"difficulty": "easy", "type_1": "Knowledge", "type_2": "knowledge"},
            "different",
        ),
    ],
)
def test_odds_bad_input_gives_a_clear_error(transactional_db, system, params, message):
    table, ayla = _table_with_character(system)
    kind = {"annulus": "annulus_check"}.get(system, system)
    page = odds_page(table, roll_kind=kind, character=ayla.pk, **params)
    assert 'class="odds-error"' in page and message in page
    assert "<meter" not in page


def test_panels_render_on_the_scene_page(two_dice_table):
    table, ayla = two_dice_table
    client = Client()
    client.force_login(table.alice)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    assert 'value="two_dice"' in page
    assert "Might · Ayla 4" in page and "Health · Ayla 1/6" in page
    assert "Hard — cost 3" in page
    assert "style=" not in page and "<script>" not in page


@pytest.mark.parametrize(
    ("system", "sheet", "expected"),
    [
        (
            "percentile",
            PERCENTILE_SHEET,
            ["Climb (SV 45)", 'name="condition_3"', "Loud Noise", "Each earlier failure: -25"],
        ),
        (
            "annulus",
            ANNULUS_SHEET,
            ["Knowledge · Ayla +2", "Hard — 4 successes", "Op check (4 dice)"],
        ),
    ],
)
def test_other_panels_render(transactional_db, system, sheet, expected):
    table, _ayla = _table_with_character(system, **sheet)
    client = Client()
    client.force_login(table.alice)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    for text in expected:
        assert text in page
    assert "style=" not in page and "<script>" not in page
