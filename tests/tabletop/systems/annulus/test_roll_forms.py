"""annulus's roll form: the op and challenge checks over a socket, cards, odds and bad input."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from rules import annulus
from tabletop.scenes.rollkinds import ROLL_KINDS
from tests.support.tables import make_table
from tests.tabletop.systems.roll_forms import (
    assert_odds_error,
    assert_roll_forms_render,
    meter_sum,
    odds_page,
    roll_via_socket,
    table_with_character,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


ANNULUS_SHEET = {"training_perks": {"Knowledge": 2, "Finesse": 1}}


@pytest.fixture
def annulus_table(transactional_db):
    return table_with_character("annulus", **ANNULUS_SHEET)


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


# --- odds endpoint and roll forms -----------------------------------------------------------


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
            "annulus",
            {"difficulty": "easy", "type_1": "Knowledge", "type_2": "knowledge"},
            "different",
        ),
    ],
)
def test_odds_bad_input_gives_a_clear_error(transactional_db, system, params, message):
    assert_odds_error(system, "annulus_check", params, message)


@pytest.mark.parametrize(
    ("system", "sheet", "expected"),
    [
        (
            "annulus",
            ANNULUS_SHEET,
            ["Knowledge · Ayla +2", "Hard — 4 successes", "Op check (4 dice)"],
        ),
    ],
)
def test_other_roll_forms_render(transactional_db, system, sheet, expected):
    assert_roll_forms_render(system, sheet, expected)
