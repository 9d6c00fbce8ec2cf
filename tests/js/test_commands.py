"""Commands, each made once (static/js/scene/commands.js): a command's id, its tries and the
"again" mark, when it shows "sending…" and when "not sent", which command an answer is for and
what it makes of it, and the labels a command is shown with."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one, run

pytestmark = needs_node


def base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, d = divmod(n, 36)
        out = digits[d] + out
    return out or "0"


@pytest.mark.parametrize(
    "values", [[0, 1, 15, 16, 171, 255], [255] * 6, [0] * 6, [9, 200, 34, 7, 128, 64]]
)
def test_the_page_id_is_its_random_bytes_two_hex_digits_each(values):
    body = "return m.pageIdOf(new Uint8Array(c));"
    assert one("commands.js", body, values) == bytes(values).hex()


def test_command_ids_count_in_base_36_after_the_page_id():
    made = [1, 9, 10, 35, 36, 1000, 46656]
    ids = run("commands.js", 'return m.commandIdOf("c0ffee", c);', made)
    assert ids == [f"c0ffee-{base36(n)}" for n in made]


def test_a_pages_command_ids_never_repeat():
    body = """
const ids = [];
for (let n = 1; n <= c; n += 1) { ids.push(m.commandIdOf("ab12", n)); }
return ids;
"""
    ids = one("commands.js", body, 5000)
    assert len(set(ids)) == 5000


#: A command's life: steps on one record, each answered with what it shows.
LIFE = """
const command = { frame: { command: "roll", expression: "2d6" }, tries: 0 };
command.key = JSON.stringify(command.frame);
return c.map(function (step) {
  const [what, ...args] = step;
  if (what === "send") { m.sending(command, args[0], args[1], args[2]); }
  if (what === "unsent") { m.unsent(command, args[0], args[1]); }
  if (what === "frame") { return m.frameOf(command); }
  if (what === "due") {
    const due = m.overdue(command, args[0]);
    if (due === "shown") { command.shown = true; }  // as the page's watch does
    return due;
  }
  if (what === "stuck") { return m.isStuck(command, args[0]); }
  return { state: command.state, tries: command.tries, since: command.since,
           shown: command.shown, why: command.why === undefined ? null : command.why,
           key: command.key === JSON.stringify(command.frame) };
});
"""


def life(*steps: list) -> list:
    return one("commands.js", LIFE, [list(step) for step in steps])


def test_a_command_is_marked_again_only_once_a_try_went_out():
    frames = life(
        ["frame"],
        ["send", True, False, 0],
        ["frame"],
        ["send", True, False, 10],
        ["frame"],
    )
    first, _, second, _, third = frames
    assert first == {"command": "roll", "expression": "2d6"}
    assert second == third == {"command": "roll", "expression": "2d6", "again": True}


def test_a_command_kept_while_the_socket_was_closed_first_goes_out_unmarked():
    # Sent while closed, nothing went out: the server never saw it, so its first real try is
    # no repeat, and the tries count only what went out.
    (_, closed, __, opened, frame) = life(
        ["send", False, True, 0],
        ["state"],
        ["send", True, False, 500],
        ["state"],
        ["frame"],
    )
    assert closed["tries"] == 0 and closed["shown"] is True  # "sending…" at once: the table is away
    assert opened["tries"] == 1 and opened["shown"] is False
    assert frame == {"command": "roll", "expression": "2d6", "again": True}


def test_the_again_mark_is_never_written_into_the_commands_own_frame():
    # The frame kept is the form's key (pressed again, the same command): "again" is added to a
    # copy for the wire only.
    (*_, state) = life(["send", True, False, 0], ["frame"], ["send", True, False, 5], ["state"])
    assert state["key"] is True and state["tries"] == 2


def test_sending_shows_only_once_the_answer_is_slow_and_not_sent_at_eight_seconds():
    answers = life(
        ["send", True, False, 1000],
        ["due", 1499],
        ["due", 1500],
        ["due", 1600],  # shown already: nothing more until the answer is late
        ["due", 8999],
        ["due", 9000],
    )
    assert answers[1:] == [None, "shown", None, None, "unsent"]


def test_while_the_table_is_away_sending_shows_at_once():
    answers = life(["send", False, True, 0], ["due", 500], ["due", 7999], ["due", 8000])
    assert answers[1:] == [None, None, "unsent"]


@pytest.mark.parametrize(
    ("why", "offline", "said"),
    [
        (None, False, "no answer from the table's server yet."),
        (None, True, "the table is reconnecting; it goes once it is back."),
        ("The table is busy; try again.", True, "The table is busy; try again."),
        ("", False, "no answer from the table's server yet."),
    ],
)
def test_not_sent_says_why(why, offline, said):
    (*_, state) = life(["send", True, False, 0], ["unsent", why, offline], ["state"])
    assert state["state"] == "unsent" and state["why"] == said


def test_a_command_not_sent_waits_for_the_user_and_is_stuck_until_retried():
    answers = life(
        ["send", True, False, 0],
        ["unsent", None, False],
        ["due", 60_000],  # no timer takes it further: Retry or Cancel is the user's
        ["stuck", False],
        ["send", True, False, 61_000],  # Retry
        ["stuck", False],
        ["stuck", True],  # the table away: pressed again, it is retried, not made twice
        ["due", 61_499],
        ["due", 69_000],
    )
    assert answers[2:4] == [None, True]
    assert answers[5:] == [False, True, None, "unsent"]


ANSWER = """
const list = [{ cid: "p-1" }, { cid: "p-2", text: "hi" }, { cid: "p-3" }];
const match = m.answerFor(list, c);
return match ? [list.indexOf(match.command), match.outcome] : null;
"""


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ({"type": "done", "cid": "p-2"}, [1, "done"]),
        ({"type": "done", "cid": "p-2", "repeat": True}, [1, "done"]),  # recorded before
        ({"type": "done", "cid": "p-3", "error": "No bennies left."}, [2, "done"]),  # refused
        ({"type": "done", "cid": "p-1", "retry": True, "error": "Busy."}, [0, "unsent"]),
        ({"type": "done", "cid": "p-9"}, None),  # cancelled by the user: forgotten already
        ({"type": "done", "cid": "p-9", "retry": True}, None),
        ({"type": "done"}, None),
    ],
)
def test_an_answer_finds_its_command_by_cid(answer, found):
    assert one("commands.js", ANSWER, answer) == found


SAME = """
const forms = { roll: {}, spend: {}, other: {} };
const list = [
  { cid: "p-1", form: forms.roll, key: "k1" },
  { cid: "p-2", form: forms.spend, key: "k1" },
  { cid: "p-3", form: forms.roll, key: "k2" },
  { cid: "p-4", form: forms.roll, key: "k1" },
];
const same = m.byFormAndKey(list, forms[c.form], c.key);
return same ? same.cid : null;
"""


@pytest.mark.parametrize(
    ("form", "key", "cid"),
    [
        ("roll", "k1", "p-1"),  # the first made, the one pressed again
        ("roll", "k2", "p-3"),
        ("spend", "k1", "p-2"),
        ("spend", "k2", None),  # the same frame from another form is another command
        ("other", "k1", None),
    ],
)
def test_a_form_pressed_again_finds_its_waiting_command(form, key, cid):
    assert one("commands.js", SAME, {"form": form, "key": key}) == cid


def test_the_composers_line_waiting_is_found_by_its_text():
    body = """
const list = [{ cid: "p-1" }, { cid: "p-2", text: "hello" }, { cid: "p-3", text: "hello" }];
const found = m.byText(list, c);
const byCid = m.byCid(list, c);
return [found ? found.cid : null, byCid ? byCid.cid : null];
"""
    found = run("commands.js", body, ["hello", "Hello", "p-1", ""])
    assert found == [["p-2", None], [None, None], [None, "p-1"], [None, None]]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("  Onwards,\n to the   ford!  ", "“Onwards, to the ford!”"),
        ("x" * 40, "“" + "x" * 40 + "”"),
        ("x" * 41, "“" + "x" * 39 + "…”"),
        ("/r 2d6+1 " + "y" * 60, "“" + ("/r 2d6+1 " + "y" * 60)[:39] + "…”"),
        ("", "“”"),
    ],
)
def test_a_lines_label_is_quoted_on_one_line_and_cut_at_forty(text, label):
    assert one("commands.js", "return m.lineLabel(c);", text) == label


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("  Spend\n   a benny ", "Spend a benny"),
        ("Cancel the spend", "Cancel the spend"),
        ("   \n ", "Your action"),
        ("", "Your action"),
    ],
)
def test_a_buttons_label_is_its_name_on_one_line(name, label):
    assert one("commands.js", "return m.buttonLabel(c);", name) == label


#: A roll form pressed while its own roll waits (same: that roll, key: the frame pressed now).
PRESS = "return m.pressAgain(c.same, c.key, c.stuck);"


@pytest.mark.parametrize(
    ("same", "key", "stuck", "press"),
    [
        (None, "k1", False, "new"),  # nothing waits: a roll
        ({"key": "k1"}, "k1", False, "wait"),  # a double click: one roll, not two
        ({"key": "k1"}, "k2", False, "wait"),  # changed while it waits: still one roll
        ({"key": "k1"}, "k1", True, "retry"),  # the table away or "not sent": that roll again
        ({"key": "k1"}, "k2", True, "wait"),  # not a second roll behind a stuck one
    ],
)
def test_a_roll_form_sends_once_until_its_answer_comes(same, key, stuck, press):
    case = {"same": same, "key": key, "stuck": stuck}
    assert one("commands.js", PRESS, case) == press


def test_a_forms_waiting_command_is_found_whatever_its_frame():
    body = """
const forms = { roll: {}, other: {} };
const list = [{ cid: "p-1", form: forms.spend }, { cid: "p-2", form: forms.roll, key: "k9" }];
const found = m.byForm(list, forms[c]);
return found ? found.cid : null;
"""
    assert run("commands.js", body, ["roll", "other"]) == ["p-2", None]
