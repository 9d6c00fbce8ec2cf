"""The session ledger of a played scene: it chains, verifies, is the same for every member, is
frozen when recorded, moves the live head, and never gives a member a secret they may not see
(in any of its three formats), like the live, page and replay paths."""

from __future__ import annotations

import enum
import hashlib
import html
import importlib
import json
import random
import re

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tabletop.scenes import actions, ledger
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.commitments import canonical_json
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.record import record_event
from tabletop.scenes.render import render_frame
from tabletop.systems.conductor import bennies
from tests.support.dice import Faces
from tests.support.statements import kinds
from tests.support.tables import make_table
from tests.tabletop.systems.conductor.tables import conductor_table, standard

pytestmark = pytest.mark.django_db

# 1d1000 + 100000: a total nothing else in a ledger can look like.
DISTINCT = "1d1000+100000"


def distinct(n: int) -> str:
    """A roll of its own range (1d1000 + n00000): two rolls of 1d1000 tie one night in a
    thousand, and a hidden roll tied with one the reader may see would read as a leak."""
    return f"1d1000+{n}00000"


WHISPERED = "quartz-heron-7731"
FORMATS = ("json", "md", "html")


def roll(table, actor, mode, expression=DISTINCT):
    return actions.roll(
        scene=table.scene,
        actor=actor,
        roll_kind="expression",
        mode=mode,
        data={"expression": expression},
    )


def play(table) -> dict[str, SceneEvent]:
    """A short game night in every audience, some hidden rolls revealed and some not."""
    t = table
    played = {
        "public": roll(t, t.alice, "public", "2d6"),
        "private": roll(t, t.alice, "gm", distinct(1)),  # alice and the GM see it; bob a stub
        "blind": roll(t, t.bob, "blind", distinct(2)),  # revealed below
        "blind_kept": roll(t, t.bob, "blind", distinct(3)),  # not even bob sees it
        "secret": roll(t, t.gm, "secret", distinct(4)),  # revealed below
        "secret_kept": roll(t, t.gm, "secret", distinct(5)),
        "self": roll(t, t.alice, "self", distinct(6)),
        "line": actions.chat(scene=t.scene, actor=t.bob, text="Watch the door", to=[]),
        "whisper": actions.chat(scene=t.scene, actor=t.alice, text=WHISPERED, to=[t.gm.pk]),
    }
    played["reveal_blind"] = actions.reveal(scene=t.scene, actor=t.gm, seq=played["blind"].seq)
    played["reveal_secret"] = actions.reveal(scene=t.scene, actor=t.gm, seq=played["secret"].seq)
    for event in played.values():
        event.refresh_from_db()
    return played


def download(client, user, scene, fmt):
    client.force_login(user)
    return client.get(reverse(f"scenes:ledger_{fmt}", args=[scene.pk]))


def exported(client, user, scene) -> dict:
    return json.loads(download(client, user, scene, "json").content)


def markers(event: SceneEvent) -> list[str]:
    """What would give a hidden roll away: its dice, its total, its nonce."""
    result = event.secret["result"]
    return [result["breakdown"], f'"total":{result["total"]}', event.nonce]


def holds(text: str, marker: str) -> bool:
    compact = re.sub(r'":\s+', '":', text)  # the JSON export is indented
    return marker in compact or marker in text


def test_a_played_scene_chains_every_event_every_member_knows_of_and_verifies(table, client):
    played = play(table)
    doc = exported(client, table.gm, table.scene)
    chain_seqs = [entry["seq"] for entry in doc["entries"]]
    everyone_knows = SceneEvent.objects.filter(
        scene=table.scene, audience__in=[Audience.EVERYONE, Audience.PRIVATE, Audience.BLIND]
    ).order_by("seq")
    assert chain_seqs == [event.seq for event in everyone_knows]
    for hidden in ("secret", "secret_kept", "self", "whisper"):
        assert played[hidden].seq not in chain_seqs
    assert doc["entries"][0]["prev"] == ledger.GENESIS
    for before, entry in zip(doc["entries"], doc["entries"][1:], strict=False):
        assert entry["prev"] == before["hash"]
    for entry in doc["entries"]:
        body = {key: value for key, value in entry.items() if key != "hash"}
        text = entry["prev"] + canonical_json(body)
        assert entry["hash"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    table.scene.refresh_from_db()
    assert doc["head"] == doc["entries"][-1]["hash"] == table.scene.ledger_head
    report = ledger.verify(doc)
    assert report.ok, report.summary()


def test_an_entry_holds_what_every_member_may_know_and_a_reveal_opens_the_roll(table, client):
    played = play(table)
    doc = exported(client, table.bob, table.scene)
    by_seq = {entry["seq"]: entry for entry in doc["entries"]}
    private = by_seq[played["private"].seq]
    assert private["public"] == {"roller": "alice", "mode": "gm"}  # the stub, nothing more
    assert private["commitment"] == played["private"].commitment
    assert private["actor"] == "alice" and private["audience"] == "private"
    assert private["time"] == ledger.iso_time(played["private"].created_at)
    assert private["time"].endswith("Z")
    public = by_seq[played["public"].seq]
    assert public["public"]["result"]["total"] == played["public"].public["result"]["total"]
    assert "commitment" not in public
    blind = played["blind"]
    reveal = by_seq[played["reveal_blind"].seq]
    assert reveal["kind"] == "reveal"
    assert reveal["opening"] == {"seq": blind.seq, "secret": blind.secret, "nonce": blind.nonce}
    opened = canonical_json(reveal["opening"]["secret"]) + ":" + reveal["opening"]["nonce"]
    assert hashlib.sha256(opened.encode()).hexdigest() == by_seq[blind.seq]["commitment"]
    # The stub entry is never changed by the reveal: the chain still verifies over it.
    assert by_seq[blind.seq]["public"] == {"roller": "bob", "mode": "blind"}
    # A GM-only roll's reveal opens nothing in the chain (it never held that commitment); the
    # revealed roll is in every member's details, nonce and all.
    assert "opening" not in by_seq[played["reveal_secret"].seq]
    secret = played["secret"]
    assert doc["details"][str(secret.seq)]["secret"] == secret.secret
    assert doc["details"][str(secret.seq)]["nonce"] == secret.nonce


def test_every_member_gets_the_same_chain_and_head_and_the_page_shows_it(table, client):
    play(table)
    docs = {user.username: exported(client, user, table.scene) for user in table_members(table)}
    assert docs["gm"]["entries"] == docs["alice"]["entries"] == docs["bob"]["entries"]
    heads = {doc["head"] for doc in docs.values()}
    assert len(heads) == 1
    for user in table_members(table):
        client.force_login(user)
        page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
        shown = re.search(r'<code id="ledger-head"[^>]*>([0-9a-f]{64})</code>', page).group(1)
        assert shown in heads
        for fmt in FORMATS:
            assert f'href="{reverse(f"scenes:ledger_{fmt}", args=[table.scene.pk])}"' in page
    # The details differ: each member's own.
    assert docs["gm"]["details"] != docs["bob"]["details"]


def table_members(table):
    return (table.gm, table.alice, table.bob)


@pytest.mark.parametrize("stored", ["", ledger.GENESIS])
def test_an_empty_scenes_ledger_says_it_has_no_entries_yet(table, client, tmp_path, stored):
    # A scene made before the ledger was filled in holds the chain's all-zero start; a new one
    # holds nothing: neither is shown as a hash, which would read as an error.
    scene = Scene.objects.create(
        campaign=table.scene.campaign, name="The empty hall", status=table.scene.status
    )
    Scene.objects.filter(pk=scene.pk).update(ledger_head=stored)
    client.force_login(table.alice)
    page = client.get(reverse("scenes:detail", args=[scene.pk])).content.decode()
    shown = re.search(r'<(\w+) id="ledger-head"[^>]*>([^<]*)</\1>', page)
    assert shown.group(2) == "no entries yet"
    assert ledger.GENESIS not in page
    # The exports still carry the chain's start as their head, and still verify.
    assert exported(client, table.alice, scene)["head"] == ledger.GENESIS
    path = tmp_path / "ledger.html"
    path.write_bytes(download(client, table.alice, scene, "html").content)
    call_command("verify_ledger", str(path))
    # The first entry's swap replaces the words with the hash, in the same place.
    line = actions.chat(scene=scene, actor=table.alice, text="Hello", to=[])
    frame = render_frame(line, Viewer(table.alice.pk, False), live=True)
    assert f'<code id="ledger-head" class="ledger-hash" hx-swap-oob="true">{line.ledger_hash}<' in (
        frame
    )


def test_a_players_export_never_holds_a_secret_they_may_not_see(table, client):
    played = play(table)
    for fmt in FORMATS:
        files = {
            user.username: download(client, user, table.scene, fmt).content.decode()
            for user in table_members(table)
        }
        bob, alice, gm = files["bob"], files["alice"], files["gm"]
        # Bob: alice's private roll, his own blind roll kept hidden, the GM's kept secret roll,
        # alice's self roll and her whisper to the GM are none of his.
        for name in ("private", "blind_kept", "secret_kept", "self"):
            assert not any(holds(bob, m) for m in markers(played[name])), (fmt, name)
        assert WHISPERED not in bob
        # Alice sees her private roll but never its nonce; not bob's blind roll kept hidden,
        # nor the GM's kept secret roll.
        private = markers(played["private"])
        assert holds(alice, private[0]) and not holds(alice, private[2]), fmt
        for name in ("blind_kept", "secret_kept"):
            assert not any(holds(alice, m) for m in markers(played[name])), (fmt, name)
        assert WHISPERED in alice
        # The GM sees every hidden result but no nonce before its reveal, and no self roll.
        for name in ("private", "blind_kept", "secret_kept"):
            found = markers(played[name])
            assert holds(gm, found[0]) and not holds(gm, found[2]), (fmt, name)
        assert not any(holds(gm, m) for m in markers(played["self"])), fmt
        assert WHISPERED in gm
        # Once revealed, a roll is everyone's, nonce and all.
        for name in ("blind", "secret"):
            assert all(holds(bob, m) for m in markers(played[name])), (fmt, name)


#: Who rolls in each hidden mode, and who is outside its audience (the blind roller too).
OUTSIDERS = {
    "gm": ("alice", ("bob",)),
    "blind": ("alice", ("alice", "bob")),
    "secret": ("gm", ("alice", "bob")),
    "self": ("alice", ("gm", "bob")),
}


@pytest.mark.parametrize("mode", sorted(OUTSIDERS))
def test_outsiders_get_the_same_ledger_whatever_a_hidden_roll_shows(table, client, mode):
    roller, outsiders = OUTSIDERS[mode]
    users = {user.username: user for user in table_members(table)}
    files: dict[str, set[str]] = {name: set() for name in outsiders}
    totals = set()
    for seed in (1, 2):
        undo = transaction.savepoint()
        event = actions.roll(
            scene=table.scene,
            actor=users[roller],
            roll_kind="expression",
            mode=mode,
            data={"expression": DISTINCT},
            rng=random.Random(seed),
        )
        totals.add(event.secret["result"]["total"])
        for name in outsiders:
            text = download(client, users[name], table.scene, "json").content.decode()
            # Hashes, commitments and times differ between any two rolls; nothing else may.
            text = re.sub(r"[0-9a-f]{64}", "<hash>", text)
            files[name].add(re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z", "<time>", text))
        transaction.savepoint_rollback(undo)
    assert len(totals) == 2  # two different outcomes...
    for name in outsiders:
        assert len(files[name]) == 1, (mode, name)  # ...and the same file for each outsider


def test_an_entry_is_frozen_when_recorded_though_a_spend_amends_the_roll(client):
    table, hero, _ = conductor_table()
    first = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_standard",
        character=hero,
        data={"skill_name": "Acrobatics", "difficulty": "8"},
        rng=Faces(7),
    )
    entry = dict(first.ledger)
    bennies.benny(scene=table.scene, actor=table.alice, seq=first.seq)
    first.refresh_from_db()
    assert "amended" in first.public  # the card changed...
    assert first.ledger == entry and "amended" not in first.ledger["public"]  # ...its entry not
    doc = exported(client, table.alice, table.scene)
    assert [e["kind"] for e in doc["entries"]][-2:] == ["roll", "benny"]
    assert ledger.verify(doc).ok


def test_an_op_challenges_end_opens_its_layout_in_the_chain(client):
    from tabletop.systems.annulus import actions as challenges

    table = make_table(system="annulus")
    setup = challenges.challenge_setup(
        scene=table.scene,
        actor=table.gm,
        difficulty="easy",
        types=["Finesse"],
        length=3,
        rng=Faces(1, 2, 2, 5, 9, 11),  # the first die hidden (it shows 5)
    )
    sealed = exported(client, table.bob, table.scene)
    assert '"mask"' not in json.dumps(sealed) and setup.nonce not in json.dumps(sealed)
    end = challenges.challenge_call_off(scene=table.scene, actor=table.gm)
    doc = exported(client, table.bob, table.scene)
    (entry,) = [e for e in doc["entries"] if e["seq"] == end.seq]
    setup.refresh_from_db()
    assert entry["opening"] == {"seq": setup.seq, "secret": setup.secret, "nonce": setup.nonce}
    assert ledger.verify(doc).ok


def test_an_event_is_written_with_its_seq_and_head_in_as_few_statements_as_the_database_allows(
    table, fast_paths
):
    def statements(scene, **kwargs):
        with transaction.atomic(), CaptureQueriesContext(connection) as queries:
            before = len(queries)
            record_event(scene=scene, kind="chat", actor=table.alice, **kwargs)
            return kinds(q["sql"] for q in queries.captured_queries[before:])

    said = {"speaker": "alice", "text": "hi", "emote": False}
    fresh = Scene.objects.get(pk=table.scene.pk)
    chained = statements(fresh, public=said)
    whisper = {**said, "to": ["bob"]}
    whispered = statements(
        fresh, audience=Audience.WHISPER, secret=whisper, recipients=[table.bob.pk]
    )
    # Numbered from the scene as read: PostgreSQL writes the event, its seq and the head in one
    # statement; the twin moves the scene's seq and head (if still as read), then the event.
    numbered = ["write"] if fast_paths.name == "postgresql" else ["move", "event"]
    assert chained == whispered == numbered
    # A scene read before those two events: its numbers are stale, and the event still gets
    # the next seq and chains onto the real head. The numbered write wrote nothing, then the
    # next seq under the row's lock and the event with the head (PostgreSQL: in one statement).
    late = statements(table.scene, public=said)
    if fast_paths.name == "postgresql":
        assert late == ["write", "seq", "event"]
    else:
        assert late == ["move", "seq", "event", "head"]
    events = {e.seq: e for e in SceneEvent.objects.filter(scene=table.scene, seq__gte=2)}
    assert sorted(events) == [2, 3, 4]
    assert events[3].ledger is None  # the whisper: outside the chain, the head unmoved
    assert events[4].ledger["prev"] == events[2].ledger_hash
    table.scene.refresh_from_db()
    assert table.scene.ledger_head == events[4].ledger_hash and table.scene.last_seq == 4


def test_a_chain_events_frame_swaps_in_the_new_head_and_a_whisper_leaves_it(table):
    line = actions.chat(scene=table.scene, actor=table.bob, text="Ready?", to=[])
    whisper = actions.chat(scene=table.scene, actor=table.bob, text="psst", to=[table.gm.pk])
    swap = f'<code id="ledger-head" class="ledger-hash" hx-swap-oob="true">{line.ledger_hash}<'
    for viewer in (Viewer(table.gm.pk, True), Viewer(table.alice.pk, False), Viewer(None, False)):
        assert swap in render_frame(line, viewer, live=True)
        assert swap in render_frame(line, viewer, live=False)  # the replay brings it too
    assert "ledger-head" not in render_frame(whisper, Viewer(table.gm.pk, True), live=True)


def test_downloads_are_attachments_each_a_whole_ledger(table, client):
    play(table)
    head = exported(client, table.alice, table.scene)["head"]
    for fmt, content_type in (
        ("json", "application/json"),
        ("md", "text/markdown"),
        ("html", "text/html"),
    ):
        response = download(client, table.alice, table.scene, fmt)
        assert response.status_code == 200
        assert response["Content-Type"].startswith(content_type)
        assert response["Content-Disposition"] == (
            f'attachment; filename="ledger-scene-{table.scene.pk}.{fmt}"'
        )
        assert head in response.content.decode()
    page = download(client, table.alice, table.scene, "html").content.decode()
    assert ledger.read_document(page)["head"] == head  # the embedded JSON
    assert "crypto.subtle" in page and 'id="ledger-status"' in page
    markdown = download(client, table.alice, table.scene, "md").content.decode()
    assert markdown.count("- hash: `") == len(exported(client, table.alice, table.scene)["entries"])


def test_the_markdown_shows_typed_text_as_text(client):
    table = make_table()
    actions.chat(scene=table.scene, actor=table.bob, text="<b>*loud*</b> `x`", to=[])
    markdown = download(client, table.bob, table.scene, "md").content.decode()
    assert r"- said: \<b\>\*loud\*\<\/b\> \`x\`" in markdown
    html_file = download(client, table.bob, table.scene, "html").content.decode()
    assert "<b>*loud*</b>" not in html_file and "&lt;b&gt;*loud*&lt;/b&gt;" in html_file


def test_only_members_download_a_ledger(table, client):
    for fmt in FORMATS:
        url = reverse(f"scenes:ledger_{fmt}", args=[table.scene.pk])
        client.logout()
        assert client.get(url).status_code == 302  # to the login page
        client.force_login(table.outsider)
        assert client.get(url).status_code == 404  # like the scene page: no scene to see
        assert client.post(url).status_code in (403, 405)


def test_the_data_migration_chains_the_events_recorded_before_it(table, client):
    play(table)
    live = exported(client, table.bob, table.scene)["entries"]
    SceneEvent.objects.update(ledger=None, ledger_hash="")
    Scene.objects.update(ledger_head="")
    migration = importlib.import_module(
        "tabletop.scenes.migrations.0004_ledger_for_recorded_events"
    )
    migration.build_chains(apps, None)
    rebuilt = exported(client, table.bob, table.scene)
    assert rebuilt["entries"] == live  # nothing was amended since: the same chain
    assert ledger.verify(rebuilt).ok
    assert Scene.objects.get(pk=table.scene.pk).ledger_head == rebuilt["head"]


def test_a_secret_that_javascript_would_spell_otherwise_is_opened_as_its_committed_text():
    parent = SceneEvent(
        seq=4, secret={"movement": 12.0, "pace": 0.5}, nonce="ab" * 32, commitment="c" * 64
    )
    opening = ledger.opening_of(parent)
    assert opening == {"seq": 4, "nonce": "ab" * 32, "text": '{"movement":12.0,"pace":0.5}'}
    plain = SceneEvent(seq=5, secret={"pace": 0.5, "n": 3}, nonce="cd" * 32)
    assert ledger.opening_of(plain)["secret"] == {"pace": 0.5, "n": 3}


def test_for_javascript_reads_numbers_as_a_browser_does():
    assert ledger.for_javascript({"a": 1.0, "b": [2.5, -0.0, True], "c": 2**60}) == {
        "a": 1,
        "b": [2.5, 0, True],
        "c": float(2**60),
    }
    # 2**60 == float(2**60) in Python, not in the bytes that are hashed.
    assert canonical_json(ledger.for_javascript({"c": [2**60, -(2**60)]})) == (
        '{"c":[1.152921504606847e+18,-1.152921504606847e+18]}'
    )
    with pytest.raises(ValueError, match="not a JSON number"):
        ledger.for_javascript({"x": float("nan")})
    with pytest.raises(ValueError, match="not a JSON number"):
        ledger.for_javascript([{"deep": [float("inf")]}])
    with pytest.raises(ValueError, match="keys are text"):
        ledger.for_javascript({"ok": 1, 2: "no"})
    with pytest.raises(ValueError, match="a set is not JSON"):
        ledger.for_javascript({"x": [{1}]})


def test_for_javascript_gives_plain_json_values_at_every_depth():
    class Size(enum.IntEnum):
        BIG = 3

    tree = {
        Audience.EVERYONE: Audience.BLIND,  # TextChoices, a key and a value
        "deep": [(1, -(2**53) + 1, -(2**53) - 2), {"size": Size.BIG, "yes": True, "no": None}],
    }
    plain = ledger.for_javascript(tree)
    assert plain == {
        "everyone": "blind",
        "deep": [[1, -(2**53) + 1, float(-(2**53) - 2)], {"size": 3, "yes": True, "no": None}],
    }
    # Types as JSON reads them back: the canonical bytes (and the hash) depend on it.
    assert [type(k) for k in plain] == [str, str]
    assert type(plain["everyone"]) is str and type(plain["deep"][0]) is list
    assert type(plain["deep"][1]["size"]) is int and plain["deep"][1]["yes"] is True
    assert canonical_json(plain) == canonical_json(json.loads(canonical_json(plain)))


# --- the command-line verifier -------------------------------------------------------------------


def test_verify_ledger_says_verified_for_both_exports(table, client, tmp_path, capsys):
    play(table)
    for fmt in ("json", "html"):
        path = tmp_path / f"ledger.{fmt}"
        path.write_bytes(download(client, table.bob, table.scene, fmt).content)
        call_command("verify_ledger", str(path))
        out = capsys.readouterr().out
        assert (
            out.startswith("verified: ")
            and table.scene.__class__.objects.get(pk=table.scene.pk).ledger_head in out
        )


def test_verify_ledger_names_the_entry_that_breaks_and_refuses_what_is_no_ledger(
    table, client, tmp_path
):
    play(table)
    doc = exported(client, table.bob, table.scene)
    doc["entries"][2]["public"]["roller"] = "mallory"
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CommandError) as caught:
        call_command("verify_ledger", str(path))
    assert caught.value.returncode == 1
    seq = doc["entries"][2]["seq"]
    assert f"entry 3 (seq {seq}) was changed: its hash does not match its content." in str(
        caught.value
    )
    for content, why in (
        (b"\xff\xfe", "Not UTF-8 text"),
        (b"{not json", "Not valid JSON"),
        (b'{"head": "x"}', 'expected an object with an "entries" list'),
        (b"<html><body>hello</body></html>", "holds no ledger"),
        (b'{"entries": [], "head": NaN}', "NaN is not a JSON number"),
    ):
        path.write_bytes(content)
        with pytest.raises(CommandError, match=why) as caught:
            call_command("verify_ledger", str(path))
        assert caught.value.returncode == 2
    with pytest.raises(CommandError, match="Can't read"):
        call_command("verify_ledger", str(tmp_path / "missing.json"))


DATA = '<script id="ledger-data"'


def shown_and_data(page: str) -> tuple[str, str]:
    """The HTML file as the reader sees it and its embedded data (from its <script> on)."""
    shown, data = page.split(DATA, 1)
    return shown, DATA + data


def verdict(path) -> str:
    """What ``verify_ledger`` says of a file: its output, or its error (exit 1 only)."""
    try:
        call_command("verify_ledger", str(path))
    except CommandError as exc:
        assert exc.returncode == 1, exc
        return str(exc)
    return "OK"


def test_verify_ledger_checks_the_text_a_reader_sees_not_only_the_data(client, tmp_path):
    table, hero, _ = conductor_table()
    actions.chat(scene=table.scene, actor=table.bob, text="Mira tries the wall", to=[])
    roll = standard(table, hero, 5)  # d12 5 + Acrobatics 1 = 6 against 8
    assert roll.public["summary"].startswith("Failure (6 vs 8)")
    actions.chat(scene=table.scene, actor=table.alice, text="Again!", to=[])
    page = download(client, table.bob, table.scene, "html").content.decode()
    doc = ledger.read_document(page)
    index = next(i for i, e in enumerate(doc["entries"], 1) if e["seq"] == roll.seq)
    entry = f"entry {index} (seq {roll.seq})"
    shown, data = shown_and_data(page)
    assert "Failure (6 vs 8)" in shown
    path = tmp_path / "ledger.html"
    path.write_text(page, "utf-8")
    assert verdict(path) == "OK"  # the untouched file

    # The outcome a reader sees, changed; the data (and so every hash) left as it was.
    path.write_text(shown.replace("Failure (6 vs 8)", "Success") + data, "utf-8")
    said = verdict(path)
    assert "NOT VERIFIED" in said
    assert f"- {entry} is shown otherwise than its data: the page reads" in said
    assert "Success" in said and "Failure (6 vs 8)" in said
    assert said.count("\n- ") == 1  # that entry alone: its data is whole
    assert ledger.verify(doc).ok  # the data alone is whole: only its text was changed

    # A head shown that is not the ledger's, a row taken out, words slipped in between rows.
    head = doc["head"]
    other = "f" * 64
    rows = re.findall(r'<li class="entry" id="entry-.*?</li>', shown, re.S)
    assert len(rows) == len(doc["entries"])
    for forged, expected in (
        (shown.replace(f">{head}<", f">{other}<"), "The head shown on the page is not"),
        (shown.replace(rows[index - 1], ""), f"- {entry} is shown otherwise than its data"),
        (
            shown.replace(rows[index - 1], rows[index - 1] + "<li>Mira succeeds</li>"),
            "The chain on the page shows text that is in no entry",
        ),
    ):
        assert forged != shown
        path.write_text(forged + data, "utf-8")
        said = verdict(path)
        assert "NOT VERIFIED" in said and expected in said, said


def test_the_html_file_says_what_the_chain_covers_and_what_it_does_not(table, client):
    play(table)
    page = download(client, table.alice, table.scene, "html").content.decode()
    shown, _ = shown_and_data(page)
    covers = re.search(r'<section id="ledger-covers".*?</section>', shown, re.S).group(0)
    for words in ("whispers", "self rolls", "commitment", "revealed", "not part of the chain"):
        assert words in covers.lower(), words
    # A hidden roll alice may not see is a stub with its commitment; her own whisper is hers.
    assert WHISPERED in shown
    assert '{"' not in html.unescape(shown)  # readable text, never the data's JSON


@pytest.fixture
def table(db):
    return make_table()
