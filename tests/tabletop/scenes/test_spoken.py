"""A card's line for the ear (tabletop/scenes/spoken.py and the roll card's ".spoken" line):
who, what, the result and the outcome, under 120 characters, from the viewer's own card."""

from __future__ import annotations

from tabletop.scenes.spoken import result_words, roll_line


def test_a_dice_roll_says_who_what_in_words_and_the_total_once():
    data = {"roller": "alice", "title": "1d20 + 5", "summary": "1d20 (13) + 5 = 18"}
    assert roll_line(data) == "alice rolled 1d20 plus 5: 18"


def test_the_outcome_follows_unless_the_result_says_it():
    data = {"roller": "bob", "character": "Kestrel", "title": "d12 + 2 over 7", "summary": "9"}
    assert roll_line(data, "Success") == "bob as Kestrel rolled d12 plus 2 over 7: 9, success"
    banded = {"roller": "bob", "title": "Climb 45 (B)", "summary": "Success (31)"}
    assert roll_line(banded, "Success") == "bob rolled Climb 45 (B): Success (31)"


def test_a_result_without_an_equals_sign_is_said_whole():
    assert result_words("Partial success (8)") == "Partial success (8)"
    assert result_words("3 + 4 = 7") == "7"


def test_a_long_line_is_cut_at_a_word_under_120_characters():
    data = {"roller": "alice", "title": "a very long roll " * 12, "summary": "= 4"}
    line = roll_line(data)
    assert len(line) < 120 and line.endswith("…") and "  " not in line


def test_a_chat_line_is_said_with_each_inline_roll_its_total_alone():
    from tabletop.scenes.templatetags.chat import said_aloud

    text = "I swing [[1d20 (14) + 5 = 19]] for **hard**\n*[[4d6kh3 (5, ~~1~~, 3, 6) = 14]]*"
    first, second = text.index("[[1d20"), text.index("[[4d6")
    rolls = [
        {"at": [first, text.index("]]") + 2], "total": 19},
        {"at": [second, text.index("]]", second) + 2], "total": 14},
    ]
    assert said_aloud({"text": text, "rolls": rolls}) == "I swing 19 for hard 14"
    assert said_aloud({"text": "<b>x</b> *a*"}) == "<b>x</b> a"  # escaped where it lands
