"""percentile's roll form: socket rolls, the open-ended chain, cards, odds and bad input."""

from __future__ import annotations

import random
import re

import pytest

from rules import percentile
from tabletop.scenes.rollkinds import ROLL_KINDS
from tests.tabletop.systems.roll_forms import (
    assert_odds_error,
    assert_roll_forms_render,
    meter_sum,
    odds_page,
    roll_via_socket,
    table_with_character,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


PERCENTILE_SHEET = {"skills": [{"name": "Climb", "value": 45}], "total_penalty": -20}


@pytest.fixture
def percentile_table(transactional_db):
    return table_with_character("percentile", **PERCENTILE_SHEET)


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
    table, ayla = table_with_character("percentile", **PERCENTILE_SHEET)
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


# --- odds endpoint and roll forms -----------------------------------------------------------


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


@pytest.mark.parametrize(
    ("system", "params", "message"),
    [
        ("percentile", {"skill": "", "skill_value": "lots"}, "must be a whole number"),
    ],
)
def test_odds_bad_input_gives_a_clear_error(transactional_db, system, params, message):
    assert_odds_error(system, "percentile", params, message)


@pytest.mark.parametrize(
    ("system", "sheet", "expected"),
    [
        (
            "percentile",
            PERCENTILE_SHEET,
            ["Climb (SV 45)", 'name="condition_3"', "Loud Noise", "Each earlier failure: -25"],
        ),
    ],
)
def test_other_roll_forms_render(transactional_db, system, sheet, expected):
    assert_roll_forms_render(system, sheet, expected)
