"""Speaking as (static/js/scene/speaking.js): the picked speaker goes with a line or a roll that
names none of its own, never with another command nor over /as, /ooc or /desc; what a tab kept
is read back, and nonsense kept is nothing."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one

pytestmark = needs_node

WITH = "return m.withSpeaker(c[0], c[1]);"
MIRA = {"name": "Mira Vex", "other": False}


@pytest.mark.parametrize("command", ["chat", "roll"])
def test_a_line_or_a_roll_goes_as_the_picked_speaker(command):
    frame = {"command": command, "text": "hi"}
    assert one("speaking.js", WITH, [frame, MIRA]) == {**frame, "as": "Mira Vex"}


@pytest.mark.parametrize("picked", [{"name": "", "other": False}, {"name": "  ", "other": True}])
def test_the_member_themself_adds_nothing(picked):
    frame = {"command": "chat", "text": "hi", "to": []}
    assert one("speaking.js", WITH, [frame, picked]) == frame


@pytest.mark.parametrize(
    "frame",
    [
        {"command": "chat", "text": "hi", "as": "Tamsin"},  # /as said whom
        {"command": "chat", "text": "brb", "voice": "ooc"},  # /ooc: the member themself
        {"command": "chat", "text": "Night falls.", "voice": "narration"},  # /desc
        {"command": "award", "character": "3", "amount": "1"},  # no line, no roll
    ],
)
def test_a_frame_that_says_for_itself_or_does_not_speak_is_left_as_it_is(frame):
    assert one("speaking.js", WITH, [frame, MIRA]) == frame


@pytest.mark.parametrize(
    ("kept", "read"),
    [
        ('{"name": "Mira Vex", "other": false}', MIRA),
        ('{"name": "Old Sailor", "other": true}', {"name": "Old Sailor", "other": True}),
        ('{"name": "x", "other": "yes"}', {"name": "x", "other": False}),
        ('{"name": 3}', None),
        ("not json", None),
        (None, None),
    ],
)
def test_what_a_tab_kept_is_read_back(kept, read):
    assert one("speaking.js", "return m.readKept(c);", kept) == read
