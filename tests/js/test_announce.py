"""What a screen reader hears of the table (static/js/scene/announce.js): which new cards are
spoken by the member's choice, and a line kept short for the ear."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one, run

pytestmark = needs_node

NOBODY = {"mine": False, "ownChat": False, "whisperToMe": False, "forMe": False}


def speaks(setting: str, **facts: bool) -> bool:
    case = {"setting": setting, "card": {**NOBODY, **facts}}
    return one("announce.js", "return m.shouldSpeak(c.setting, c.card);", case)


def test_everything_speaks_another_players_card_and_ones_own_result():
    assert speaks("all")
    assert speaks("all", mine=True)


def test_ones_own_chat_line_is_never_read_back():
    assert not speaks("all", mine=True, ownChat=True)
    assert not speaks("mine", mine=True, ownChat=True)


@pytest.mark.parametrize("fact", ["mine", "whisperToMe", "forMe"])
def test_mine_speaks_ones_results_whispers_to_one_and_ones_turn(fact):
    assert speaks("mine", **{fact: True})


def test_mine_keeps_quiet_about_the_others():
    assert not speaks("mine")


@pytest.mark.parametrize("fact", ["mine", "whisperToMe", "forMe"])
def test_nothing_is_nothing(fact):
    assert not speaks("none", **{fact: True})
    assert not speaks("none")


def test_a_line_is_one_line_and_cut_at_a_word_under_120_characters():
    lines = run(
        "announce.js",
        "return m.shortLine(c);",
        ["  alice\n rolled   1d20 ", "word " * 40],
    )
    assert lines[0] == "alice rolled 1d20"
    assert len(lines[1]) < 120 and lines[1].endswith("word…")
