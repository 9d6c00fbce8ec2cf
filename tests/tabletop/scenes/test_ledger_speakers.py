"""The ledger keeps who a line or a roll was said as (issue 43, item 2), and every ledger still
verifies: files exported before speakers existed (tests/tabletop/scenes/ledgers/, made with the
code as it was) by ``manage.py verify_ledger``, by today's browser verifier and by the verifier
each HTML file carries; a ledger with speakers by all of them too, its speaker hashed in the
chain (changed, it is caught), and shown in the HTML and Markdown text."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from tabletop.scenes import actions, ledger, ledger_text
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene
from tests.support.tables import make_table, mira_and_troll
from tests.tabletop.scenes.test_ledger_verifiers import VERIFY_JS

pytestmark = pytest.mark.django_db

NODE = shutil.which("node")
BEFORE = Path(__file__).resolve().parent / "ledgers"
OLD_FILES = sorted(BEFORE.glob("before-speakers-*"))
#: Verify a ledger with a verifier (a file: verify.js, or the script an HTML export carries)
#: and check the text its page shows, as the HTML file does in a browser.
DRIVER = r"""
const verifier = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
verifier.verifyLedger(input.doc).then((report) => {
  const shown = input.shown ? verifier.shownProblems(input.doc, input.shown) : [];
  const views = input.doc.entries.map((entry, i) => verifier.entryText(i + 1, entry));
  process.stdout.write(JSON.stringify({ ok: report.ok, problems: report.problems, shown, views }));
});
"""
needs_node = pytest.mark.skipif(NODE is None, reason="node runs the browser's verifier")


def in_node(verifier: Path, doc: dict[str, Any], page: str | None = None) -> dict[str, Any]:
    shown = None
    if page is not None:
        read = ledger_text.read_shown(page)
        shown = {"head": read.head, "rows": read.rows, "stray": read.stray}
    out = subprocess.run(
        [NODE, "-e", DRIVER, str(verifier)],
        input=json.dumps({"doc": doc, "shown": shown}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


def carried_verifier(page: str, tmp_path: Path) -> Path:
    """The verifier an HTML export carries (its first inline script), as a file node reads."""
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert "verifyLedger" in scripts[0]
    path = tmp_path / f"carried-{len(list(tmp_path.iterdir()))}.js"
    path.write_text(scripts[0], "utf-8")
    return path


def says_verified(path: Path, capsys) -> str:
    call_command("verify_ledger", str(path))
    return capsys.readouterr().out


# --- ledgers exported before speakers ------------------------------------------------------------


def test_the_files_exported_before_speakers_are_there():
    assert [p.name for p in OLD_FILES] == [
        "before-speakers-bob.html",
        "before-speakers-bob.json",
        "before-speakers-gm.html",
    ]


@pytest.mark.parametrize("path", OLD_FILES, ids=lambda p: p.name)
def test_a_ledger_exported_before_speakers_still_verifies_on_the_command_line(path, capsys):
    report = ledger_text.verify_text(path.read_bytes())
    assert report.ok, report.summary()
    assert report.entries == 11
    assert says_verified(path, capsys).startswith("verified: 11 entries")


@needs_node
@pytest.mark.parametrize("path", OLD_FILES, ids=lambda p: p.name)
def test_a_ledger_exported_before_speakers_still_verifies_in_the_browser(path, tmp_path):
    text = path.read_text("utf-8")
    doc = ledger.read_document(text)
    page = text if ledger.is_html(text) else None
    verifiers = [VERIFY_JS] + ([carried_verifier(text, tmp_path)] if page else [])
    for verifier in verifiers:  # today's, and the one the file carries
        said = in_node(verifier, doc, page)
        assert (said["ok"], said["problems"], said["shown"]) == (True, [], []), verifier
    # Today's verifier draws each old entry's text as the file's own did.
    expected = [ledger_text.entry_text(i, e) for i, e in enumerate(doc["entries"], 1)]
    assert in_node(VERIFY_JS, doc)["views"] == expected


# --- a ledger with speakers ----------------------------------------------------------------------


def play_with_speakers() -> tuple[Any, dict[str, Any]]:
    table = make_table()
    mira, _troll = mira_and_troll(table)
    scene = table.scene

    def say(actor, text, **kwargs):
        return actions.chat(scene=scene, actor=actor, text=text, to=kwargs.pop("to", []), **kwargs)

    played = {
        "mira": say(table.alice, "Onwards, to the ford", speaking_as="Mira"),
        "emote": say(table.alice, "/me draws her sword", speaking_as="Mira"),
        "npc": say(table.gm, "Who goes there?", speaking_as="Old Sailor"),
        "ooc": say(table.bob, "brb", voice="ooc"),
        "desc": say(table.gm, "The fog rolls in.", voice="narration"),
        "whisper": say(table.alice, "psst", speaking_as="Mira", to=[table.gm.pk]),
        "roll": actions.roll(
            scene=scene,
            actor=table.alice,
            roll_kind="expression",
            character=mira,
            data={"expression": "1d20+3"},
            speaking_as="Mira",
        ),
        "blind": actions.roll(
            scene=scene,
            actor=table.alice,
            roll_kind="expression",
            mode="blind",
            data={"expression": "1d6"},
            speaking_as="Mira",
        ),
    }
    actions.reveal(scene=scene, actor=table.gm, seq=played["blind"].seq)
    scene = Scene.objects.select_related("campaign").get(pk=scene.pk)
    doc = ledger.export(scene=scene, viewer=Viewer(table.bob.pk, False), viewer_name="bob")
    return table, json.loads(ledger.to_json(doc))


def test_the_speaker_is_in_the_chain_and_both_exports_verify(tmp_path, capsys):
    table, doc = play_with_speakers()
    by_text = {e["public"].get("text"): e for e in doc["entries"] if e["kind"] == "chat"}
    assert by_text["Onwards, to the ford"]["public"]["speaker"] == "Mira"
    assert by_text["Who goes there?"]["public"]["voice"] == "npc"
    assert by_text["brb"]["public"]["voice"] == "ooc"
    assert by_text["The fog rolls in."]["public"]["voice"] == "narration"
    assert "psst" not in json.dumps(doc["entries"])  # a whisper is not the chain's
    opened = [e["opening"]["secret"] for e in doc["entries"] if "opening" in e]
    assert opened[0]["speaker"] == "Mira"  # the blind roll's speaker, committed and opened
    assert ledger.verify(doc).ok
    for fmt in ("json", "html"):
        text, _ = ledger_text.render(doc, fmt)
        path = tmp_path / f"ledger.{fmt}"
        path.write_text(text, "utf-8")
        assert says_verified(path, capsys).startswith("verified: ")
    page, _ = ledger_text.render(doc, "html")
    shown = " ".join(ledger_text.read_shown(page).rows)
    assert "speaker: Mira" in shown and "speaker: Old Sailor" in shown and "voice: npc" in shown
    markdown, _ = ledger_text.render(doc, "md")
    assert "chat by alice as Mira" in markdown and "chat by gm as Old Sailor" in markdown
    assert "chat by bob\n" in markdown  # out of character: in bob's own name


@needs_node
def test_a_ledger_with_speakers_verifies_in_the_browser_and_a_changed_speaker_is_caught(
    tmp_path,
):
    _table, doc = play_with_speakers()
    page, _ = ledger_text.render(doc, "html")
    for verifier in (VERIFY_JS, carried_verifier(page, tmp_path)):
        said = in_node(verifier, doc, page)
        assert (said["ok"], said["problems"], said["shown"]) == (True, [], []), verifier
        expected = [ledger_text.entry_text(i, e) for i, e in enumerate(doc["entries"], 1)]
        assert said["views"] == expected

    # Kestrel said it, not Mira: the entry's hash no longer matches, in both verifiers.
    index = next(i for i, e in enumerate(doc["entries"]) if e["public"].get("speaker") == "Mira")
    forged = json.loads(json.dumps(doc))
    forged["entries"][index]["public"]["speaker"] = "Kestrel"
    seq = forged["entries"][index]["seq"]
    message = f"entry {index + 1} (seq {seq}) was changed: its hash does not match its content."
    said = in_node(VERIFY_JS, forged)
    assert not said["ok"] and said["problems"][0]["message"] == message
    report = ledger.verify(forged)
    assert not report.ok and report.problems[0].message == message
