"""A roll form's odds (static/js/scene/odds.js): those the table was away for are kept, each
once, and asked for again once it is back if still on the page; their one line beside the Roll
button (templates/scenes/_odds.html's note, error or rows)."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one

pytestmark = needs_node

#: Odds elements by name (c.on: those still on the page), kept as the page keeps them, then
#: those asked for again once the table is back.
STALE = """
const els = {};
c.kept.forEach(function (name) { els[name] = els[name] || { name: name }; });
Object.keys(els).forEach(function (name) { els[name].isConnected = c.on.indexOf(name) >= 0; });
const stale = [];
c.kept.forEach(function (name) { m.keepStale(stale, els[name]); });
return {
  kept: stale.map(function (el) { return el.name; }),
  due: m.dueOdds(stale).map(function (el) { return el.name; }),
};
"""


def test_odds_skipped_again_and_again_are_asked_for_once():
    # Every change of a roll form's fields while the table is away asks for its odds: kept once.
    case = {"kept": ["roll", "roll", "trait", "roll", "trait"], "on": ["roll", "trait"]}
    assert one("odds.js", STALE, case) == {"kept": ["roll", "trait"], "due": ["roll", "trait"]}


def test_odds_no_longer_on_the_page_are_not_asked_for():
    # A roll form swapped out meanwhile (a new party list, the GM's roll forms): its old odds
    # element is gone.
    case = {"kept": ["roll", "old-form", "trait"], "on": ["roll", "trait"]}
    assert one("odds.js", STALE, case) == {
        "kept": ["roll", "old-form", "trait"],
        "due": ["roll", "trait"],
    }


def test_nothing_kept_nothing_asked():
    assert one("odds.js", STALE, {"kept": [], "on": []}) == {"kept": [], "due": []}


LINE = "return m.oddsLine(c.note, c.error, c.rows);"
ROWS = [
    ["Fail", "41.7%"],
    ["\n   Success  ", " 58.3%\n"],
]


def line(note: str | None, rows: list, error: bool = False) -> str:
    return one("odds.js", LINE, {"note": note, "error": error, "rows": rows})


def test_a_note_with_a_chance_is_the_line():
    note = "\n  58.3% to succeed,\n   12% with a raise "
    assert line(note, ROWS) == "58.3% to succeed, 12% with a raise"


def test_without_a_note_each_outcome_and_its_chance():
    assert line(None, ROWS) == "Fail 41.7% · Success 58.3%"


def test_a_note_without_a_chance_gives_way_to_the_outcomes():
    assert line("Mean 7, against 8", ROWS) == "Fail 41.7% · Success 58.3%"


def test_rows_without_a_heading_or_a_cell_are_left_out():
    rows = [[None, "100%"], ["Fail", None], ["Tie", "8.3%"]]
    assert line(None, rows) == "Tie 8.3%"


@pytest.mark.parametrize("error", ["  Pick a\n character first. ", "The difficulty is 1 to 20."])
def test_an_error_is_the_line_even_without_a_chance(error):
    assert line(error, [], error=True) == " ".join(error.split())


def test_no_odds_at_all_is_an_empty_line():
    assert line(None, []) == ""
