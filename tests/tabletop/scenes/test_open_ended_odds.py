"""The odds of an open-ended roll (issue 42): ``3d6!`` (or any roll of many totals) shows the
exact chance of reaching a number the player types, "Chance of at least [ 15 ]: 30.3%", with a
chart of every total and the same numbers as a table, never a list of ranges ("3–28 98.4%").
A number the box does not take gets a message and breaks nothing: the chart stays, and a roll
made with it is made, its odds stored as before."""

from __future__ import annotations

import html as html_lib
import re
from fractions import Fraction

import pytest
from django.urls import reverse

from rules import expression
from tabletop.scenes import actions, dicebox
from tabletop.scenes.rollkinds import ROLL_KINDS, headline_odds
from tests.support.dice import Faces
from tests.support.tables import make_table

pytestmark = pytest.mark.django_db


def reach(text: str, at_least: str | None = None) -> dict:
    data = {"expression": text} | ({} if at_least is None else {"at_least": at_least})
    odds = dicebox.odds(data=data, character=None, ruleset=None)
    assert "rows" not in odds  # no table of ranges
    return odds["reach"]


def exact_at_least(text: str, n: int) -> Fraction:
    return sum((p for total, p in expression.distribution(text).items() if total >= n), Fraction(0))


def test_exploding_dice_give_the_exact_chance_of_the_number_typed():
    r = reach("3d6!", "15")
    assert r["chance"] == exact_at_least("3d6!", 15)
    assert r["percent"] == "30.3%" and r["gist"] == "At least 15: 30.3%"
    assert r["error"] == "" and r["at_least"] == 15
    # Below the lowest total every roll reaches it; past the highest none does.
    assert reach("3d6!", "3")["percent"] == "100%" and reach("3d6!", "-40")["percent"] == "100%"
    assert reach("3d6!", "999999")["percent"] == "0%"
    assert reach("3d6!", " +16 ")["chance"] == exact_at_least("3d6!", 16)


def test_blank_asks_of_the_total_reached_about_half_the_time():
    r = reach("3d6!")
    assert r["at_least"] == r["default"] == 12 and r["typed"] == ""
    assert r["chance"] == exact_at_least("3d6!", 12) and r["gist"] == "At least 12: 49.1%"
    assert reach("1d100")["gist"] == "At least 51: 50.0%"  # many totals, none exploding


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("abc", "“Chance of at least” takes a whole number, like 15."),
        ("1.5", "“Chance of at least” takes a whole number, like 15."),
        ("1e3", "“Chance of at least” takes a whole number, like 15."),
        ("123456789", "“Chance of at least” takes a whole number, like 15."),
        ("1000000", "“Chance of at least” takes a number from −999,999 to 999,999."),
        ("-1000000", "“Chance of at least” takes a number from −999,999 to 999,999."),
    ],
)
def test_a_number_the_box_does_not_take_says_why_and_keeps_the_chart(typed, message):
    r = reach("3d6!", typed)
    assert r["error"] == message and r["gist"] == message
    assert len(r["bars"]) == r["bar_count"] > 10  # the chart stays


def test_the_chart_runs_to_where_nearly_every_roll_ends_and_names_the_tail():
    r = reach("3d6!", "15")
    labels = [bar["label"] for bar in r["bars"]]
    assert labels[0] == "3" and labels[-1] == str(r["shown_to"]) == "40"
    assert r["high"] == max(expression.distribution("3d6!")) and r["beyond"] == "<0.1%"
    assert [bar["reached"] for bar in r["bars"]] == [int(label) >= 15 for label in labels]
    assert max(float(bar["height"]) for bar in r["bars"]) == 100.0
    nine = r["bars"][labels.index("9")]
    assert nine["percent"] == "9.0%" and r["bars"][0]["at_least"] == "100%"
    # A wide spread is grouped into at most 60 bars, each a range of totals.
    wide = reach("40d10")
    assert len(wide["bars"]) <= 60 and "–" in wide["bars"][0]["label"]


def test_a_short_roll_keeps_its_table_and_a_target_its_chance():
    assert "reach" not in dicebox.odds(data={"expression": "3d6"}, character=None, ruleset=None)
    target = dicebox.odds(
        data={"expression": "1d20+5 >= 15", "at_least": "x"}, character=None, ruleset=None
    )
    assert target["chance"] == Fraction(11, 20) and "reach" not in target


def test_a_roll_made_with_any_number_in_the_box_stores_its_odds_as_before():
    kind = ROLL_KINDS["expression"]
    plain = headline_odds(kind, data={"expression": "3d6!"}, character=None, ruleset=None)
    for typed in ("15", "abc", "1000000"):
        data = {"expression": "3d6!", "at_least": typed}
        assert headline_odds(kind, data=data, character=None, ruleset=None) == plain
    assert "percent" not in plain and plain["bands"]  # no goal: the bands, for the statistics
    table = make_table()
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": "3d6!", "at_least": "abc"},
        rng=Faces(2, 3, 4),
    )
    assert event.public["result"]["total"] == 9
    assert event.public["odds"] == plain | {"band": "9"}


def text_of(html: str) -> str:
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))).strip()


def test_the_odds_preview_shows_the_box_the_chance_the_chart_and_its_table(client):
    table = make_table()
    client.force_login(table.alice)
    url = reverse("scenes:odds", args=[table.scene.pk])
    query = {"roll_kind": "expression", "expression": "3d6!", "at_least": "15"}
    body = client.get(url, query).content.decode()
    text = text_of(body)
    assert "3–28" not in text and "98.4%" not in text  # no ranges
    assert re.search(r'<label for="odds-at-least">Chance of at least</label>', body)
    box = re.search(r"<input id=\"odds-at-least\"[^>]*>", body).group(0)
    assert 'name="at_least"' in box and "hx-preserve" in box and 'value="15"' in box
    assert 'maxlength="8"' in box and 'placeholder="12"' in box
    assert 'data-odds-gist="At least 15: 30.3%"' in body
    assert "<strong>30.3%</strong>" in body
    # The chart is an image with a name, and its numbers are a table.
    svg = re.search(r"<svg [^>]*>", body).group(0)
    assert 'role="img"' in svg and "from 3 to 40" in svg and "most likely 9 (9.0%)" in svg
    assert body.count("<rect ") == 38 and body.count('class="reached"') == 26
    assert "<title>15: 4.9%</title>" in body
    assert re.search(r'<th scope="row">15</th><td>4.9%</td><td>30.3%</td>', body)
    assert "Above 40 (up to 615): &lt;0.1% together." in body
    assert " style=" not in body

    refused = client.get(url, query | {"at_least": "lots"}).content.decode()
    assert "takes a whole number, like 15." in html_lib.unescape(refused)
    assert 'aria-invalid="true"' in refused and "data-odds-gist-error" in refused
    assert refused.count("<rect ") == 38
