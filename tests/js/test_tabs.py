"""The tool tabs (static/js/scene/tabs.js): which tab shows and which tool stays beside the log,
where the arrow keys, Home and End move, and when a changed tool is out of view (its tab gets a
dot)."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one, run

pytestmark = needs_node

PLAYER = ["log", "roll", "party", "in-play"]
GM = ["log", "roll", "party", "in-play", "gm"]
CHOOSE = "return m.chooseTab(c.names, c.name, c.side, c.phone);"


def choose(name, side=None, phone=False, names=PLAYER) -> dict:
    case = {"names": names, "name": name, "side": side, "phone": phone}
    return one("tabs.js", CHOOSE, case)


def test_a_tool_chosen_shows_and_stays_beside_the_log():
    assert choose("party") == {"name": "party", "side": "party", "selected": "party"}
    assert choose("party", phone=True) == {"name": "party", "side": "party", "selected": "party"}


def test_on_a_desktop_the_log_keeps_the_last_tool_beside_it_selected():
    assert choose("log", side="in-play") == {
        "name": "log",
        "side": "in-play",
        "selected": "in-play",
    }


def test_on_a_phone_the_log_is_the_tab_selected_and_the_tool_is_kept_for_later():
    assert choose("log", side="in-play", phone=True) == {
        "name": "log",
        "side": "in-play",
        "selected": "log",
    }


def test_with_no_tool_shown_yet_the_first_tool_stands_beside_the_log():
    assert choose("log") == {"name": "log", "side": "roll", "selected": "roll"}


@pytest.mark.parametrize("name", ["gm", "", None, "sheet"])
def test_a_tab_this_page_has_not_shows_the_log(name):
    # A player's page remembered the GM tab from another login, or a tool a system removed.
    assert choose(name, side="party") == {"name": "log", "side": "party", "selected": "party"}


def test_the_gm_tab_shows_on_the_gms_page():
    assert choose("gm", names=GM) == {"name": "gm", "side": "gm", "selected": "gm"}


def test_a_page_with_only_the_log_has_no_tool_to_select():
    assert choose("roll", names=["log"]) == {"name": "log", "side": None, "selected": None}


def test_the_tool_beside_the_log_is_remembered_from_one_choice_to_the_next():
    body = """
let side = null;
return c.map(function (name) {
  const choice = m.chooseTab(["log", "roll", "party"], name, side, false);
  side = choice.side;
  return choice.selected;
});
"""
    assert one("tabs.js", body, ["log", "party", "log", "nowhere", "roll", "log"]) == [
        "roll",
        "party",
        "party",
        "party",
        "roll",
        "roll",
    ]


KEY = "return m.tabAfterKey(c.key, c.at, c.count);"


@pytest.mark.parametrize(
    ("key", "at", "count", "next_at"),
    [
        ("ArrowRight", 0, 4, 1),
        ("ArrowRight", 3, 4, 0),  # round the end
        ("ArrowLeft", 2, 4, 1),
        ("ArrowLeft", 0, 4, 3),  # round the start
        ("Home", 2, 4, 0),
        ("End", 1, 4, 3),
        ("ArrowRight", 0, 1, 0),
        ("ArrowLeft", 0, 1, 0),
        ("ArrowRight", -1, 4, 0),  # the focused tab is not among the visible: the first
    ],
)
def test_arrow_keys_home_and_end_move_among_the_visible_tabs(key, at, count, next_at):
    assert one("tabs.js", KEY, {"key": key, "at": at, "count": count}) == next_at


@pytest.mark.parametrize("key", ["Enter", " ", "ArrowDown", "ArrowUp", "Tab", "PageDown"])
def test_other_keys_move_nowhere(key):
    assert one("tabs.js", KEY, {"key": key, "at": 1, "count": 4}) == -1


def test_a_changed_tool_is_in_view_only_when_it_shows():
    cases = [
        [False, False, "log"],  # a desktop: the tool beside the log is in view
        [False, False, "party"],
        [True, False, "log"],  # another tool beside the log
        [False, True, "log"],  # a phone on the log: the tool is behind its tab
        [False, True, "party"],
        [True, True, "party"],
    ]
    shown = run("tabs.js", "return m.toolInView(c[0], c[1], c[2]);", cases)
    assert shown == [True, True, False, False, True, False]


CLOSED = ["log", "party", "in-play"]


def test_a_tool_the_page_no_longer_has_gives_way_beside_the_log():
    # The Roll tool stood beside the log and the scene closed: its tab is gone, the first tool
    # the page still has stands there, selected (not a tool nobody can see).
    assert choose("log", side="roll", names=CLOSED) == {
        "name": "log",
        "side": "party",
        "selected": "party",
    }
    assert choose("roll", side="roll", names=CLOSED, phone=True) == {
        "name": "log",
        "side": "party",
        "selected": "log",
    }
