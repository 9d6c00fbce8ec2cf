"""The keyboard at the table (static/js/scene/keys.js): where the arrow keys, Home, End and the
page keys move the log's cursor, and when "/" goes to the message box."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, run

pytestmark = needs_node


def moves(key: str, at: int, count: int) -> int:
    (answer,) = run(
        "keys.js",
        "return m.cardAfterKey(c.key, c.at, c.count);",
        [{"key": key, "at": at, "count": count}],
    )
    return answer


@pytest.mark.parametrize(
    ("key", "at", "expected"),
    [
        ("ArrowDown", 3, 4),
        ("ArrowUp", 3, 2),
        ("Home", 3, 0),
        ("End", 3, 9),
        ("PageUp", 3, 0),
        ("PageDown", 3, 8),
        ("ArrowDown", 9, 9),  # the ends hold: no wrap from the newest to the oldest
        ("ArrowUp", 0, 0),
        ("a", 3, -1),
        ("Enter", 3, -1),
    ],
)
def test_the_cursor_moves_among_ten_cards(key, at, expected):
    assert moves(key, at, 10) == expected


def test_an_empty_log_has_nowhere_to_go():
    assert moves("End", -1, 0) == -1


def test_slash_goes_to_the_box_outside_a_field_without_a_modifier_while_allowed():
    body = "return m.slashGoesToBox(c[0], c[1], c[2], c[3]);"
    cases = [
        ["/", False, False, True],
        ["/", True, False, True],  # typed in a field: it is a slash
        ["/", False, True, True],  # Ctrl+/ is someone else's
        ["/", False, False, False],  # the member turned the key off
        ["?", False, False, True],
    ]
    assert run("keys.js", body, cases) == [True, False, False, False, False]
