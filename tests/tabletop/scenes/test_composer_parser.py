"""The composer's slash-command parser (static/js/composer.js), run as it ships, under Node.

Every line either becomes the one frame the server expects (``chat`` with ``text`` and ``to``, or a
dice-box ``roll`` in a mode) or gets a clear message and sends nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tabletop.scenes.actions.talk import CHAT_LIMIT

COMPOSER = Path(__file__).resolve().parents[3] / "static" / "js" / "composer.js"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None, reason="Node.js is not installed: the composer's parser runs under node"
)

MEMBERS = [
    {"id": 1, "name": "gm", "gm": True, "characters": []},
    {"id": 2, "name": "alice", "gm": False, "characters": ["Mira Vex"]},
    {"id": 3, "name": "Bob", "gm": False, "characters": ["Tamsin"]},
]
RUN = """
const composer = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(c => composer.parse(c.line, c.ctx))));
"""


def parse(
    *lines: str,
    me: int = 2,
    limit: int | None = CHAT_LIMIT,
    run: str = RUN,
    mode: str | None = None,
    speakers: list[str] | None = None,
) -> list[dict]:
    ctx = {"members": MEMBERS, "me": me, "limit": limit, "mode": mode, "speakers": speakers}
    cases = [{"line": line, "ctx": ctx} for line in lines]
    out = subprocess.run(
        [NODE, "-e", run, str(COMPOSER)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return json.loads(out.stdout)


def frame(line: str, me: int = 2, mode: str | None = None) -> dict:
    (result,) = parse(line, me=me, mode=mode)
    assert "frame" in result, result
    return result["frame"]


def refusal(line: str) -> str:
    (result,) = parse(line)
    assert set(result) == {"error"}, result  # nothing to send
    return result["error"]


def test_plain_text_is_said_to_everyone():
    assert frame("  Onwards, to the *ford*!  ") == {
        "command": "chat",
        "text": "Onwards, to the *ford*!",
        "to": [],
    }


def test_an_emote_keeps_its_marker_for_the_server():
    assert frame("/me draws her sword")["text"] == "/me draws her sword"
    assert frame("/ME shrugs")["text"] == "/me shrugs"


def test_a_double_slash_says_a_line_that_starts_with_a_slash():
    assert frame("//r is how you roll")["text"] == "/r is how you roll"


@pytest.mark.parametrize(
    ("line", "mode"),
    [
        ("/pr 2d6+1", "public"),
        ("/publicroll 2d6+1", "public"),
        ("/gmr 1d20", "gm"),
        ("/br 3d6", "blind"),
        ("/sr 1d100", "self"),
    ],
)
@pytest.mark.parametrize("picked", [None, "public", "secret", "blind"])
def test_forced_roll_commands_roll_in_their_mode_whatever_is_picked(line, mode, picked):
    # /pr is how a GM left on "Secret (GM)" still rolls in the open.
    assert frame(line, mode=picked) == {
        "command": "roll",
        "roll_kind": "expression",
        "expression": line.split(" ", 1)[1],
        "mode": mode,
    }


@pytest.mark.parametrize("line", ["/r 1d6+500", "/roll 1d6+500", "/R 1d6+500"])
@pytest.mark.parametrize("picked", ["public", "gm", "blind", "self", "secret"])
def test_r_rolls_in_the_mode_picked_under_the_box(line, picked):
    # As Foundry's /r: a GM on "Secret (GM)" who types /r gives nothing away.
    assert frame(line, mode=picked) == {
        "command": "roll",
        "roll_kind": "expression",
        "expression": "1d6+500",
        "mode": picked,
    }


def test_r_with_nothing_picked_rolls_in_the_open():
    # The parser on its own, with no page and no mode given: Foundry's default, public.
    assert frame("/r 2d6")["mode"] == "public"


#: The page as scene.js sees it: the "Rolls" select under the box, set to blind.
PICKED_ON_THE_PAGE = (
    """
globalThis.document = {
  getElementById: (id) => id === "table-mode" ? { value: "blind" } : null
};
"""
    + RUN
)


def test_in_the_browser_r_reads_the_mode_picked_on_the_page():
    (rolled, forced) = parse("/r 1d20", "/pr 1d20", run=PICKED_ON_THE_PAGE)
    assert rolled["frame"]["mode"] == "blind"
    assert forced["frame"]["mode"] == "public"


def test_inline_rolls_keep_the_lines_audience_whatever_is_picked():
    # [[...]] rolls for whoever sees the line: a chat frame carries no mode.
    assert frame("I hit [[1d20+5]]", mode="secret") == {
        "command": "chat",
        "text": "I hit [[1d20+5]]",
        "to": [],
    }


@pytest.mark.parametrize(
    ("line", "to"),
    [
        ("/w bob meet me at the gate", [3]),
        ("/w BOB,gm meet me", [3, 1]),
        ("/w bob, gm meet me", [3, 1]),
        ('/w "Tamsin" meet me', [3]),
        ("/w Tamsin meet me", [3]),
        ("/whisper gm meet me", [1]),
        ("/w bob,bob meet me", [3]),
        ("/w alice,bob meet me", [3]),  # yourself among others: the rest hear it
    ],
)
def test_whispers_name_members_by_their_names_or_their_characters(line, to):
    sent = frame(line)
    assert sent == {"command": "chat", "text": sent["text"], "to": to}
    assert sent["text"] == "meet me at the gate" if "gate" in line else sent["text"] == "meet me"


def test_a_quoted_name_may_have_spaces():
    assert frame('/w "Mira Vex" the vault is empty', me=3)["to"] == [2]


def test_a_whispered_emote():
    assert frame("/w gm /me winks") == {"command": "chat", "text": "/me winks", "to": [1]}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("", "Type a message first."),
        ("    ", "Type a message first."),
        ("/me", "Say what you do"),
        ("/r", "Roll what? /r 2d6+1"),
        ("/gmr   ", "Roll what? /gmr"),
        ("/r " + "1" * 201, "at most 200 characters"),
        ("/w", "Whisper to whom?"),
        ("/w bob", "What do you want to whisper?"),
        ("/w carol hello", 'No one at this table is called "carol". Whisper to: gm, Bob.'),
        ("/w bob,carol hello", 'called "carol"'),
        ("/w alice hello", "Name someone other than yourself."),
        ('/w "Mira hello', "Whisper to whom?"),
        ("/w ,bob hello", "Whisper to whom?"),
        ("/roll20 1d6", "There is no /roll20 command. Type /help for the list."),
        ("/x", "There is no /x command."),
        ("x" * 1001, "at most 1000 characters (this one has 1001)"),
        ("/w bob " + "x" * 1001, "at most 1000 characters"),
    ],
)
def test_bad_lines_get_a_clear_message_and_send_nothing(line, message):
    assert message in refusal(line)


def test_help_lists_every_command_and_sends_nothing():
    (result,) = parse("/help")
    assert set(result) == {"help"}
    text = "\n".join(result["help"])
    for command in ("/me", "/w", "/r", "/pr", "/gmr", "/br", "/sr", "/help", "[[1d20+5]]"):
        assert command in text
    for command in ("Speaking as", "/as NAME", "/emas NAME", "/ooc", "/desc"):
        assert command in text
    assert "/r longsword: make a saved roll by name" in text
    assert "/r 2d6+1: roll in the mode picked under the box" in text
    assert "roll in the open" not in text.split("/pr")[0]  # /r follows the picker


@pytest.mark.parametrize(
    ("line", "expression", "mode"),
    [
        ("/r longsword", "longsword", "self"),  # the mode picked, as any /r
        ("/gmr  Sneak attack ", "Sneak attack", "gm"),
        ("/pr longsword", "longsword", "public"),
    ],
)
def test_a_saved_rolls_name_goes_to_the_server_as_typed(line, expression, mode):
    # The server looks the name up for whoever rolls (tabletop.characters.saved_rolls).
    assert frame(line, mode="self") == {
        "command": "roll",
        "roll_kind": "expression",
        "expression": expression,
        "mode": mode,
    }


def test_inline_rolls_go_in_the_line_as_typed():
    assert frame("I hit [[1d20+5]] for [[1d8]]")["text"] == "I hit [[1d20+5]] for [[1d8]]"
    whisper = frame("/w gm sneak [[1d20]]")
    assert (whisper["text"], whisper["to"]) == ("sneak [[1d20]]", [1])
    assert frame("/me ducks [[2d6]]")["text"] == "/me ducks [[2d6]]"


def test_a_long_emote_is_measured_without_its_marker():
    assert frame("/me " + "x" * 1000)["text"] == "/me " + "x" * 1000


# --- the length limit: the server's CHAT_LIMIT, read from the page, never a silent cut ---------


def test_an_over_long_paste_is_refused_with_its_length_and_the_limit():
    # The textarea has no maxlength (it cut a 5,000-character paste to 1,000 without a word):
    # the whole paste reaches the parser, which says how long it is and what the limit is.
    message = refusal("x" * 5000)
    assert f"at most {CHAT_LIMIT} characters (this one has 5000)" in message
    assert frame("x" * CHAT_LIMIT)["text"] == "x" * CHAT_LIMIT


def test_the_limit_is_the_one_the_page_gives():
    (short, long) = parse("x" * 10, "x" * 11, limit=10)
    assert short["frame"]["text"] == "x" * 10
    assert set(long) == {"error"}
    assert "at most 10 characters (this one has 11)" in long["error"]


#: The page as scene.js sees it: the composer's textarea, its limit in ``data-limit``.
ON_A_PAGE = (
    """
globalThis.document = {
  getElementById: (id) => id === "composer-text"
    ? { getAttribute: (name) => (name === "data-limit" ? "12" : null) } : null
};
"""
    + RUN
)


def test_in_the_browser_the_limit_is_read_from_the_composers_data_limit():
    # scene.js passes members and me, not the limit: the parser reads the page's data-limit,
    # which templates/scenes/_composer.html renders from CHAT_LIMIT.
    (short, long) = parse("x" * 12, "x" * 13, limit=None, run=ON_A_PAGE)
    assert short["frame"]["text"] == "x" * 12
    assert "at most 12 characters (this one has 13)" in long["error"]


def test_characters_are_counted_as_the_server_counts_them():
    # Python's len() counts code points; an emoji is two UTF-16 units in JavaScript.
    assert frame("\U0001f3b2" * CHAT_LIMIT)["text"] == "\U0001f3b2" * CHAT_LIMIT
    message = refusal("\U0001f3b2" * (CHAT_LIMIT + 1))
    assert f"(this one has {CHAT_LIMIT + 1})" in message


def test_a_whispered_emote_is_measured_without_its_marker_too():
    # The server counts an emote's words, whispered or not.
    assert frame("/w bob /me " + "x" * CHAT_LIMIT)["text"] == "/me " + "x" * CHAT_LIMIT
    assert "at most" in refusal("/w bob /me " + "x" * (CHAT_LIMIT + 1))


def test_a_multi_line_message_keeps_its_line_breaks():
    assert frame("first\nsecond\n\nthird")["text"] == "first\nsecond\n\nthird"


# --- speaking as a character (issue 43, item 2) --------------------------------------------------


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("/as Tamsin Onwards!", {"text": "Onwards!", "as": "Tamsin"}),
        ('/as "Mira Vex" hello there', {"text": "hello there", "as": "Mira Vex"}),
        ('/AS  "Mira Vex"   hi, you', {"text": "hi, you", "as": "Mira Vex"}),
        ("/as Old_Sailor Ahoy [[1d6]]", {"text": "Ahoy [[1d6]]", "as": "Old_Sailor"}),
        ("/emas Tamsin draws her sword", {"text": "/me draws her sword", "as": "Tamsin"}),
        ('/emas "Mira Vex" bows', {"text": "/me bows", "as": "Mira Vex"}),
    ],
)
def test_as_and_emas_say_one_line_as_the_name_given(line, said):
    # The server decides who may speak as whom (tabletop.scenes.speakers).
    assert frame(line) == {"command": "chat", "to": [], **said}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("/as Mira Vex hello there", {"text": "hello there", "as": "Mira Vex"}),
        ("/emas mira vex bows low", {"text": "/me bows low", "as": "Mira Vex"}),
        ("/as Captain Varga Halt!", {"text": "Halt!", "as": "Captain Varga"}),
        ("/as Captain Vargas come here", {"text": "Vargas come here", "as": "Captain"}),
        ("/as Mira hello", {"text": "hello", "as": "Mira"}),
        ('/as "Mira" Vex says hi', {"text": "Vex says hi", "as": "Mira"}),
    ],
)
def test_as_knows_the_tables_names_with_spaces_unquoted(line, said):
    # A character's name, or one the page offers to speak as (the GM's NPC), wins over its
    # first word: "/as Captain Varga Halt!" went out as "Captain" saying "Varga Halt!".
    (result,) = parse(line, me=1, speakers=["Captain Varga"])
    assert result == {"frame": {"command": "chat", "to": [], **said}}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("/ooc brb, pizza", {"text": "brb, pizza", "voice": "ooc"}),
        ("/desc The wind *howls*.", {"text": "The wind *howls*.", "voice": "narration"}),
    ],
)
def test_ooc_and_desc_say_how_the_line_is_said(line, said):
    assert frame(line) == {"command": "chat", "to": [], **said}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/as", "Speak as whom? /as NAME text"),
        ('/as "Mira Vex hello', "Speak as whom?"),
        ('/as "" hello', "Speak as whom?"),
        ("/as Tamsin", "What does Tamsin say? /as NAME text"),
        ("/emas Tamsin  ", "What does Tamsin do? /emas NAME draws her sword"),
        ("/ooc", "Say what? /ooc text"),
        ("/desc   ", "Say what? /desc text"),
        ("/as Tamsin " + "x" * 1001, "at most 1000 characters"),
        ("/desc " + "x" * 1001, "at most 1000 characters"),
    ],
)
def test_bad_speaking_lines_get_a_clear_message_and_send_nothing(line, message):
    assert message in refusal(line)
