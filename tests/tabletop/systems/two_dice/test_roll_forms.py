"""two_dice's roll form: socket rolls, cards, odds and bad input."""

from __future__ import annotations

import random
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from rules import two_dice
from tabletop.scenes.rollkinds import ROLL_KINDS
from tests.tabletop.systems.roll_forms import (
    assert_odds_error,
    meter_sum,
    odds_page,
    roll_via_socket,
    table_with_character,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


TWO_DICE_SHEET = {
    "attributes": {"Might": 4, "Agility": 2, "Wits": 1, "Presence": 3},
    "resources": {
        "Health": {"current": 1, "max": 6},
        "Stamina": {"current": 5, "max": 5},
        "Focus": {"current": 2, "max": 4},
        "Resolve": {"current": 3, "max": 3},
    },
}


@pytest.fixture
def two_dice_table(transactional_db):
    return table_with_character("two_dice", **TWO_DICE_SHEET)


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
    # The 1 point there is paid from the sheet (the unpaid 2 are the penalty, seed 003).
    assert ayla.resources["Health"]["current"] == 0
    assert "1 taken from Health on the sheet" in text


async def test_two_dice_unlinked_resource_is_refused(two_dice_table):
    table, ayla = two_dice_table
    text, events = await roll_via_socket(
        table, ayla, roll_kind="two_dice", attribute="Might", difficulty="Easy", resource="Stamina"
    )
    assert events == []
    assert "Might is not linked to Stamina" in text


def test_two_dice_roll_matches_rules_with_the_same_dice(transactional_db):
    table, ayla = table_with_character("two_dice", **TWO_DICE_SHEET)
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


# --- odds endpoint and roll forms -----------------------------------------------------------


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


@pytest.mark.parametrize(
    ("system", "params", "message"),
    [
        (
            "two_dice",
            {"attribute": "Might", "difficulty": "Normal", "resource": "Focus"},
            "not linked",
        ),
    ],
)
def test_odds_bad_input_gives_a_clear_error(transactional_db, system, params, message):
    assert_odds_error(system, "two_dice", params, message)


def test_roll_forms_render_on_the_scene_page(two_dice_table):
    table, ayla = two_dice_table
    client = Client()
    client.force_login(table.alice)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    assert 'value="two_dice"' in page
    assert "Might · Ayla 4" in page and "Health · Ayla 1/6" in page
    assert "Hard — cost 3" in page
    assert "style=" not in page and "<script>" not in page
