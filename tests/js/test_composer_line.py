"""The composer's line (static/js/scene/composer-line.js): what the parser's result shows under
the box, or that it is sent, for lines read by the shipped parser (static/js/composer.js), and
the lines ArrowUp recalls."""

from __future__ import annotations

import pytest

from tests.support.node import STATIC_JS, needs_node, one, run

pytestmark = needs_node

#: A line read by composer.js as the page reads it, then given to lineStatus.
PARSED = """
const { createRequire } = await import("node:module");
const composer = createRequire(c.composer)(c.composer);
const members = [
  { id: 1, name: "gm", gm: true, characters: [] },
  { id: 2, name: "alice", gm: false, characters: ["Mira Vex"] },
];
return m.lineStatus(composer.parse(c.line, { members: members, me: 2, limit: 1000 }));
"""


def status(line: str) -> dict:
    case = {"composer": str(STATIC_JS / "composer.js"), "line": line}
    return one("composer-line.js", PARSED, case)


@pytest.mark.parametrize(
    "line", ["Onwards, to the ford!", "/r 2d6+1", "/w gm meet me", "/me waves"]
)
def test_a_line_the_server_answers_is_sent_with_nothing_shown(line):
    assert status(line) == {"kind": "", "lines": []}


@pytest.mark.parametrize(
    ("line", "error"),
    [("", "Type a message first."), ("/x", "There is no /x command."), ("/w bob hi", "bob")],
)
def test_a_line_the_parser_refuses_shows_its_error_only(line, error):
    shown = status(line)
    assert shown["kind"] == "error" and len(shown["lines"]) == 1
    assert error in shown["lines"][0]


def test_help_shows_every_line_of_it():
    shown = status("/help")
    assert shown["kind"] == "help"
    assert len(shown["lines"]) > 3 and any("/gmr" in line for line in shown["lines"])


@pytest.mark.parametrize(
    ("result", "shown"),
    [
        ({"error": "No.", "help": ["a"]}, {"kind": "error", "lines": ["No."]}),
        ({"frame": {"text": "hi"}}, {"kind": "error", "lines": ["That line could not be sent."]}),
        (
            {"frame": {"command": "", "text": "hi"}},
            {"kind": "error", "lines": ["That line could not be sent."]},
        ),
        ({"frame": {"command": "chat", "text": "hi", "to": []}}, {"kind": "", "lines": []}),
    ],
)
def test_an_error_comes_first_and_a_frame_without_a_command_is_not_sent(result, shown):
    # The server answers only its commands: a frame without one would wait for an answer that
    # never comes.
    assert one("composer-line.js", "return m.lineStatus(c);", result) == shown


RECALL = """
let recalled = -1;
const shown = [];
for (let press = 0; press < c.presses; press += 1) {
  recalled = m.recallAt(recalled, c.count);
  shown.push(recalled);
}
return shown;
"""


@pytest.mark.parametrize(
    ("count", "presses", "recalled"),
    [
        (3, 5, [2, 1, 0, 0, 0]),  # the last line first, back to the first, and it stays there
        (1, 3, [0, 0, 0]),
        (2, 1, [1]),
    ],
)
def test_arrow_up_walks_back_through_the_lines_sent(count, presses, recalled):
    assert one("composer-line.js", RECALL, {"count": count, "presses": presses}) == recalled


def test_a_line_sent_starts_the_recall_again_from_the_newest():
    # Once a line is answered the page sets recalled back to -1: the next ArrowUp is the newest.
    assert run("composer-line.js", "return m.recallAt(-1, c);", [4, 5]) == [3, 4]


@pytest.mark.parametrize(
    ("length", "words"),
    [
        (0, ""),
        (799, ""),  # far from the limit: nothing to say
        (800, "800 / 1,000 characters"),
        (1000, "1,000 / 1,000 characters"),
        (1207, "1,207 / 1,000 characters"),  # over: the count says by how much
    ],
)
def test_a_long_lines_length_shows_against_the_limit_before_it_is_sent(length, words):
    assert one("composer-line.js", "return m.lengthWords(c, 1000);", length) == words
