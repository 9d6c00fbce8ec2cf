"""Both ledger verifiers, the command line's (tabletop/scenes/ledger.py, and ledger_text.py for
what a page shows) and the browser's (templates/scenes/ledger/verify.js, run here under node),
against a played scene's ledger: any byte changed in any entry, an entry dropped or moved, or a
wrong opening (even with every hash recomputed) is caught by both, which name the same entry in
the same words. The browser's canonical JSON is Python's byte for byte (Hypothesis-generated
values), and so is the text each draws for an entry; both find the same words changed on an
HTML file's page, in the same words."""

from __future__ import annotations

import copy
import json
import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django.test import override_settings
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from tabletop.scenes import ledger, ledger_text
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.commitments import canonical_json
from tabletop.scenes.models import Audience, Scene
from tabletop.scenes.record import record_event, reveal_event
from tests.support.tables import make_table
from tests.tabletop.scenes.test_ledger import play

pytestmark = pytest.mark.django_db

NODE = shutil.which("node")
VERIFY_JS = Path(__file__).resolve().parents[3] / "templates" / "scenes" / "ledger" / "verify.js"
# One node process answers every example: a line of JSON in, a line of JSON out.
DRIVER = r"""
const ledger = require(process.argv[1]);
const lines = require("readline").createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on("line", (line) => {
  queue = queue.then(async () => {
    const request = JSON.parse(line);
    let answer;
    if (request.op === "canonical") {
      try { answer = { text: ledger.canonicalJson(JSON.parse(request.json)) }; }
      catch (error) { answer = { error: error.message }; }
    } else if (request.op === "view") {
      const entries = JSON.parse(request.json);
      answer = entries.map((entry, i) =>
        [ledger.entryView(i + 1, entry), ledger.entryText(i + 1, entry)]);
    } else if (request.op === "shown") {
      answer = ledger.shownProblems(JSON.parse(request.json), request.shown);
    } else {
      try { answer = await ledger.verifyLedger(JSON.parse(request.text)); }
      catch (error) { answer = { unreadable: error.message }; }
    }
    process.stdout.write(JSON.stringify(answer) + "\n");
  });
});
"""
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


class Node:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [NODE, "-e", DRIVER, str(VERIFY_JS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, **request: Any) -> dict[str, Any]:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def canonical(self, json_text: str) -> str:
        answer = self.ask(op="canonical", json=json_text)
        assert "error" not in answer, answer["error"]
        return answer["text"]

    def views(self, entries: list[Any]) -> list[list[Any]]:
        """verify.js's entryView and entryText of each entry (1 = first)."""
        return self.ask(op="view", json=json.dumps(entries, ensure_ascii=False))

    def shown_problems(self, doc: dict[str, Any], shown: ledger_text.Shown) -> list[dict[str, Any]]:
        page = {"head": shown.head, "rows": shown.rows, "stray": shown.stray}
        return self.ask(op="shown", json=json.dumps(doc, ensure_ascii=False), shown=page)

    def verdict(self, text: str) -> dict[str, Any]:
        answer = self.ask(op="verify", text=text)
        if "unreadable" in answer:
            return answer
        return {"ok": answer["ok"], "problems": answer["problems"]}

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def node():
    if NODE is None:
        pytest.skip("node is not installed: the browser's verifier (verify.js) runs under node")
    runner = Node()
    yield runner
    runner.close()


@pytest.fixture
def doc() -> dict[str, Any]:
    """The ledger of a played scene: every audience, reveals of a blind and a GM-only roll, and
    a revealed secret holding 12.0 (opened as its committed text)."""
    table = make_table()
    play(table)
    # A secret no roll kind writes (a float, text beyond ASCII), to hold both verifiers to the
    # ledger's canonical text of any JSON: its shape is not a roll's, so it is not checked.
    with transaction.atomic(), override_settings(CHECK_EVENT_PAYLOADS=False):
        scene = Scene.objects.select_related("campaign").get(pk=table.scene.pk)
        moved = record_event(
            scene=scene,
            kind="roll",
            actor=table.gm,
            audience=Audience.PRIVATE,
            public={"roller": "gm", "mode": "gm"},
            secret={"movement": 12.0, "pace": 0.5, "note": "ünïcödé 🎲"},
        )
        reveal_event(moved)
        record_event(
            scene=scene,
            kind="reveal",
            actor=table.gm,
            parent=moved,
            public={"roller": "gm", "seq": moved.seq},
        )
    scene = Scene.objects.select_related("campaign").get(pk=table.scene.pk)
    exported = ledger.export(scene=scene, viewer=Viewer(table.bob.pk, False), viewer_name="bob")
    openings = [entry["opening"] for entry in exported["entries"] if "opening" in entry]
    assert len(openings) == 2 and "text" in openings[-1] and "secret" in openings[0]
    return json.loads(ledger.to_json(exported))  # as a member's file holds it


def python_verdict(data: bytes) -> dict[str, Any]:
    try:
        report = ledger.verify(ledger.read_document(data))
    except ledger.LedgerError as exc:
        return {"unreadable": str(exc)}
    return {"ok": report.ok, "problems": ledger.problems_as_dicts(report.problems)}


def verdicts(node: Node, data: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    # A browser reads bytes that are not UTF-8 as U+FFFD.
    return python_verdict(data), node.verdict(data.decode("utf-8", errors="replace"))


def document(head: str, entry_texts: list[bytes]) -> bytes:
    return (
        b'{"head":' + json.dumps(head).encode() + b',"entries":[' + b",".join(entry_texts) + b"]}"
    )


def rechained(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The entries chained afresh: every prev and hash recomputed, as a forger would."""
    prev = ledger.GENESIS
    chained = []
    for entry in entries:
        entry = {**entry, "prev": prev}
        entry["hash"] = ledger.entry_hash(entry)
        prev = entry["hash"]
        chained.append(entry)
    return {"head": prev, "entries": chained}


def as_bytes(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode()


def test_the_played_scene_verifies_in_both(doc, node):
    py, js = verdicts(node, as_bytes(doc))
    assert py == js == {"ok": True, "problems": []}


@SETTINGS
@given(data=st.data())
def test_changing_any_byte_of_any_entry_is_caught_by_both(doc, node, data):
    texts = [canonical_json(entry).encode() for entry in doc["entries"]]
    index = data.draw(st.integers(0, len(texts) - 1), label="entry")
    original = texts[index]
    at = data.draw(st.integers(0, len(original) - 1), label="byte")
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != original[at]), label="new byte")
    changed = original[:at] + bytes([byte]) + original[at + 1 :]
    try:
        value = ledger.for_javascript(json.loads(changed))
        same = canonical_json(value) == canonical_json(doc["entries"][index])
    except (ValueError, RecursionError):
        same = False
    assume(not same)  # 1.5e016 is 1.5e+16: the same entry, spelled otherwise
    texts[index] = changed
    py, js = verdicts(node, document(doc["head"], texts))
    assert not py.get("ok") and not js.get("ok")
    readable = [v for v in (py, js) if "unreadable" not in v]
    for verdict in readable:
        assert verdict["problems"][0]["index"] == index + 1, verdict
    if len(readable) == 2:
        assert py == js


@SETTINGS
@given(data=st.data())
def test_dropping_or_moving_an_entry_is_caught_by_both(doc, node, data):
    entries = list(doc["entries"])
    count = len(entries)
    if data.draw(st.booleans(), label="drop"):
        at = data.draw(st.integers(0, count - 1), label="dropped")
        del entries[at]
        first = at + 1 if at < count - 1 else None  # the last one: only the head tells
    else:
        at = data.draw(st.integers(0, count - 1), label="from")
        to = data.draw(st.integers(0, count - 1).filter(lambda j: j != at), label="to")
        entries.insert(to, entries.pop(at))
        first = min(at, to) + 1
    py, js = verdicts(node, as_bytes({**doc, "entries": entries}))
    assert py == js and not py["ok"]
    assert py["problems"][0]["index"] == first
    if first is not None:
        assert "breaks the chain" in py["problems"][0]["message"]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@SETTINGS
@given(data=st.data())
def test_a_wrong_opening_is_caught_by_both_even_with_every_hash_recomputed(doc, node, data):
    openers = [i for i, entry in enumerate(doc["entries"]) if "opening" in entry]
    index = data.draw(st.sampled_from(openers), label="reveal")
    entry = copy.deepcopy(doc["entries"][index])
    opening = entry["opening"]
    field = data.draw(st.sampled_from(["nonce", "secret", "seq"]), label="field")
    if field == "nonce":
        hex64 = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
        opening["nonce"] = data.draw(hex64.filter(lambda n: n != opening["nonce"]))
    elif field == "secret":
        committed = opening.pop("secret", None) or json.loads(opening.pop("text"))
        opening["secret"] = data.draw(
            json_values.filter(
                lambda v: (
                    canonical_json(ledger.for_javascript(v))
                    != canonical_json(ledger.for_javascript(committed))
                )
            ),
            label="secret",
        )
    else:
        opening["seq"] = data.draw(
            st.integers(-3, entry["seq"] + 3).filter(lambda s: s != opening["seq"]), label="seq"
        )
    entries = [*doc["entries"][:index], entry, *doc["entries"][index + 1 :]]
    forged = rechained(entries)
    py, js = verdicts(node, as_bytes(forged))
    assert py == js and not py["ok"]
    assert [p["index"] for p in py["problems"]] == [index + 1]  # the chain itself holds
    message = py["problems"][0]["message"]
    assert "fails its commitment" in message or "not an earlier entry with a commitment" in message
    # The same chain with the true opening verifies: it is the opening that was caught.
    honest = rechained(doc["entries"])
    assert honest == {"head": doc["head"], "entries": doc["entries"]}


@SETTINGS
@given(value=json_values)
@example(value=[1e-05, 1.5e16, 1e16, 1e15, 0.0001, 123456789012345680000.0, 5e-324, -0.0])
@example(value=[2**53, 2**53 - 1, -(2**53), 10**21, 1.7976931348623157e308, 0.1, 1e22])
@example(value={"\uffff": 1, "\U00010000": 2, "a": 3, "": 4, "é": 5})
@example(value='\x00\x08\t\n\x0c\r\x1f\x7f"\\/\u2028\u2029🎲')
def test_the_browsers_canonical_json_is_pythons_byte_for_byte(node, value):
    expected = canonical_json(ledger.for_javascript(value))
    assert node.canonical(json.dumps(value)) == expected


def test_python_float_spelling_examples(node):
    # Python's repr, which verify.js must reproduce (exponent < -4 or >= 16: scientific).
    for number, spelled in (
        (1e-05, "1e-05"),
        (0.0001, "0.0001"),
        (1.5e16, "1.5e+16"),
        (9007199254740992.0, "9007199254740992.0"),
        (2.5e-300, "2.5e-300"),
        (-123.456, "-123.456"),
    ):
        assert canonical_json(ledger.for_javascript(number)) == spelled
        assert node.canonical(json.dumps(number)) == spelled
    assert math.isclose(json.loads(node.canonical("0.30000000000000004")), 0.1 + 0.2)


# --- the text a reader sees -------------------------------------------------------------------


def python_views(entries: list[Any]) -> list[list[Any]]:
    entries = [ledger.for_javascript(entry) for entry in entries]
    return [
        [ledger_text.entry_view(i, entry), ledger_text.entry_text(i, entry)]
        for i, entry in enumerate(entries, 1)
    ]


def test_both_draw_the_same_text_for_every_entry_of_the_played_scene(doc, node):
    views = python_views(doc["entries"])
    assert node.views(doc["entries"]) == views
    texts = [text for _, text in views]
    reveal = next(t for t, e in zip(texts, doc["entries"], strict=True) if "opening" in e)
    assert "reveals seq" in reveal and "{" not in "".join(texts)  # read as text, never JSON
    assert any("12 " in t or "movement: 12" in t for t in texts)  # 12.0 opened as its text


dice = st.fixed_dictionaries(
    {"sides": st.sampled_from([6, 10, 12]), "value": st.integers(-3, 30)},
    optional={
        "rolled": st.integers(1, 12) | st.none(),
        "kept": st.booleans(),
        "exploded": st.booleans(),
        "bonus": st.integers(-2, 2) | st.floats(-2, 2, allow_nan=False),
        "source": st.none() | st.text(max_size=5),
    },
)
readable_values = st.recursive(
    json_values | dice,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [*ledger_text.HEADLINE, "roller", "dice", "odds", "a_b", "é", "\U00010000"]
            )
            | st.text(max_size=4),
            children,
            max_size=5,
        )
    ),
    max_leaves=14,
)


@SETTINGS
@given(
    public=readable_values,
    extra=st.dictionaries(
        st.sampled_from(["opening", "commitment", "actor", "audience", "time", "seq", "prev"]),
        readable_values | st.just("2026-01-02T03:04:05.678901Z"),
    ),
    dropped=st.lists(st.sampled_from(["kind", "time", "actor", "hash", "public"]), max_size=2),
)
@example(
    public={"title": "T", "summary": "", "dice": [{"sides": 6, "value": 1, "kept": False}]},
    extra={"opening": {"seq": 2, "nonce": "n", "text": '{"total":12.0,"big":1e400}'}},
    dropped=[],
)
@example(public=[], extra={"opening": {"seq": 2, "nonce": "n", "text": "1" * 400}}, dropped=[])
def test_both_draw_the_same_text_for_any_entry(doc, node, public, extra, dropped):
    entry = {**doc["entries"][0], "public": public, **extra}
    for key in dropped:
        entry.pop(key, None)
    entries = [entry, public]  # an entry that is no object is drawn the same way too
    assert node.views(entries) == python_views(entries)


def html_page(doc: dict[str, Any]) -> str:
    return ledger_text.render(doc, "html")[0]


def test_an_untouched_html_file_shows_exactly_its_data_in_both(doc, node):
    shown = ledger_text.read_shown(html_page(doc))
    assert len(shown.rows) == len(doc["entries"]) and shown.head == doc["head"]
    assert ledger_text.shown_problems(doc, shown) == [] == node.shown_problems(doc, shown)


@SETTINGS
@given(data=st.data())
def test_a_word_changed_on_the_page_is_found_by_both_in_the_same_words(doc, node, data):
    page = html_page(doc)
    shown = ledger_text.read_shown(page)
    rows = list(shown.rows)
    index = data.draw(st.integers(0, len(rows) - 1), label="entry")
    text = ledger_text.plain_text(rows[index])
    at = data.draw(st.integers(0, len(text)), label="at")
    cut = data.draw(st.integers(0, 3), label="removed")
    put = data.draw(st.text(min_size=0, max_size=3), label="put")
    changed = text[:at] + put + text[at + cut :]
    assume(ledger_text.plain_text(changed) != text)
    rows[index] = changed
    forged = ledger_text.Shown(head=shown.head, rows=rows, stray=shown.stray)
    problems = ledger.problems_as_dicts(ledger_text.shown_problems(doc, forged))
    assert [p["index"] for p in problems] == [index + 1]
    seq = doc["entries"][index]["seq"]
    assert problems[0]["message"].startswith(
        f"entry {index + 1} (seq {seq}) is shown otherwise than its data: the page reads"
    )
    assert node.shown_problems(doc, forged) == problems


def test_the_page_without_an_entry_with_more_or_with_other_text_is_caught_by_both(doc, node):
    shown = ledger_text.read_shown(html_page(doc))
    rows, last = shown.rows, len(doc["entries"])
    for forged, first in (
        (ledger_text.Shown(shown.head, rows[:-1], ""), f"entry {last} (seq"),
        (ledger_text.Shown(shown.head, [*rows, rows[-1]], ""), "The page shows 1 more entry than"),
        (ledger_text.Shown(shown.head, rows, " Bob wins 🎲 "), "The chain on the page shows text"),
        (ledger_text.Shown("0" * 64, rows, ""), "The head shown on the page is not"),
        (ledger_text.Shown(None, None, ""), "The page does not show the chain"),
    ):
        problems = ledger.problems_as_dicts(ledger_text.shown_problems(doc, forged))
        assert problems and problems[0]["message"].startswith(first), problems
        assert node.shown_problems(doc, forged) == problems


def test_read_shown_reads_the_page_as_a_browser_holds_it():
    page = (
        '<p>Head: <code id="head">ab<!-- c -->&amp;cd</code></p><code id="head">no</code>'
        '<ol id="ledger-entries"> <li data-entry="1">one <b>1</b><br>&lt;x&gt;'
        '<li data-entry="2">two <span data-entry="x">inner</span> end</li>stray</ol>'
        '<li data-entry="3">outside the chain</li>'
    )
    shown = ledger_text.read_shown(page)
    assert shown.head == "ab&cd"  # the first element with that id, as getElementById finds
    assert shown.rows == ["one 1<x>", "two  end", "inner"]  # an <li> ends the one before it
    assert ledger_text.plain_text(shown.stray) == "stray"
