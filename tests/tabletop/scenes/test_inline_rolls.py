"""Inline rolls in chat (``[[1d20+5]]``): rolled where they stand in a line, an emote or a
whisper, kept in the line's event under its audience; a whisper's never reaches anyone else
(live, page load, replay, ledger exports); a bad one refuses the whole line."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from tabletop.scenes import actions
from tabletop.scenes.inline_rolls import MAX_INLINE_ROLLS
from tabletop.scenes.ledger_text import verify_text
from tabletop.scenes.models import Audience, SceneEvent
from tabletop.scenes.templatetags.chat import said
from tests.support.dice import Faces, dice, script_dice
from tests.tabletop.scenes.conftest import connect, drain_all, seat_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

# Dice nothing else on a page can look like: 3d97 + 4321.
SECRET_ROLL = "3d97+4321"
SECRET_BREAKDOWN = "3d97 (11, 22, 33) + 4321 = 4387"


def chat_events() -> list[SceneEvent]:
    return list(SceneEvent.objects.filter(kind="chat").order_by("seq"))


def page_for(client, user, scene) -> str:
    client.force_login(user)
    return client.get(reverse("scenes:detail", args=[scene.pk])).content.decode()


def ledger_for(client, user, scene, fmt: str) -> str:
    client.force_login(user)
    return client.get(reverse(f"scenes:ledger_{fmt}", args=[scene.pk])).content.decode()


def shown_totals(html: str) -> list[str]:
    return re.findall(r'<span class="inline-roll-total">([^<]*)</span>', html)


async def close_all(*socks):
    for sock in socks:
        await sock.close()


async def test_inline_rolls_roll_where_they_stand_for_everyone(table, monkeypatch):
    script_dice(monkeypatch, Faces((20, 14), (6, 5), (6, 1), (6, 3), (6, 6)))
    gm, alice, bob = await seat_table(table)
    await alice.send(command="chat", text="I swing [[1d20+5]] for *[[4d6kh3]]* <b>x</b>")
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(chat_events)()
    assert event.audience == Audience.EVERYONE
    rolls = event.public["rolls"]
    # The totals are what the dice show: 14 + 5, and 5 + 3 + 6 (the 1 dropped).
    assert [r["total"] for r in rolls] == [19, 14]
    assert [r["expression"] for r in rolls] == ["1d20 + 5", "4d6kh3"]
    assert [r["result"]["breakdown"] for r in rolls] == [
        "1d20 (14) + 5 = 19",
        "4d6kh3 (5, ~~1~~, 3, 6) = 14",
    ]
    text = event.public["text"]
    assert text == (
        "I swing [[1d20 (14) + 5 = 19]] for *[[4d6kh3 (5, ~~1~~, 3, 6) = 14]]* <b>x</b>"
    )
    for roll in rolls:
        start, end = roll["at"]
        assert text[start:end] == f"[[{roll['result']['breakdown']}]]"
    for sock in (gm, alice, bob):
        (card,) = sock.event_frames()
        assert shown_totals(card) == ["19", "14"]
        assert "<em><button" in card  # the emphasis runs across the roll
        assert "1d20 (14) + 5 = 19" in card
        assert '<s class="dropped">1' in card and "~~" not in card
        assert "&lt;b&gt;x&lt;/b&gt;" in card and "<b>x" not in card
    await close_all(gm, alice, bob)


async def test_an_emote_rolls_inline_too(table, monkeypatch):
    script_dice(monkeypatch, dice(20, 17))
    gm, alice, bob = await seat_table(table)
    await bob.send(command="chat", text="/me leaps the gap [[1d20]]")
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(chat_events)()
    assert event.public["emote"] is True
    assert event.public["text"] == "leaps the gap [[1d20 (17) = 17]]"
    assert shown_totals(alice.everything()) == ["17"]
    await close_all(gm, alice, bob)


async def test_a_whispers_inline_roll_never_reaches_anyone_else(table, client, monkeypatch):
    script_dice(monkeypatch, dice(97, 11, 22, 33))
    gm, alice, bob = await seat_table(table)
    await alice.send(command="chat", text=f"my real roll [[{SECRET_ROLL}]]", to=[table.gm.pk])
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(chat_events)()
    assert event.audience == Audience.WHISPER and event.public == {}
    assert event.secret["rolls"][0]["total"] == 4387
    for sock in (gm, alice):
        assert shown_totals(sock.everything()) == ["4387"]
        assert SECRET_BREAKDOWN in sock.everything()
    # bob: no card, no total, no dice, on the live, page-load and replay paths alike.
    assert bob.event_frames() == []
    for shown in (bob.everything(), await sync_to_async(page_for)(client, table.bob, table.scene)):
        assert "4387" not in shown and "3d97" not in shown and "4321" not in shown
    late = await connect(table.bob, table.scene, hello=0)
    assert "4387" not in late.everything() and "3d97" not in late.everything()
    for fmt in ("json", "md", "html"):
        bobs = await sync_to_async(ledger_for)(client, table.bob, table.scene, fmt)
        assert "4387" not in bobs and "3d97" not in bobs, fmt
        # alice's own copy holds her whisper, its roll written in its text.
        alices = await sync_to_async(ledger_for)(client, table.alice, table.scene, fmt)
        assert "4387" in alices, fmt
    await close_all(gm, alice, bob, late)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("I hit [[1d20+]]", "Inline roll 1, [[1d20+]] at character 7: Unexpected end"),
        ("[[1d6]] then [[2d]]", "Inline roll 2, [[2d]] at character 14: "),
        ("a [[]] b", "Inline roll 1, [[]] at character 3: Type a dice expression"),
        ("[[<b>x</b>]]", "Inline roll 1, [[<b>x</b>]] at character 1: Unexpected"),
        ("[[1d6]]" * (MAX_INLINE_ROLLS + 1), f"at most {MAX_INLINE_ROLLS} inline rolls"),
    ],
)
async def test_a_bad_inline_roll_refuses_the_line_and_records_nothing(table, text, message):
    alice = await connect(table.alice, table.scene)
    await alice.send(command="chat", text=text, cid="c1")
    frames = await alice.drain()
    (done,) = [json.loads(f) for f in frames if f.startswith("{") and '"done"' in f]
    assert done["cid"] == "c1" and message in done["error"], done
    (shown,) = [f for f in frames if 'id="scene-errors"' in f]
    assert "<b>" not in shown  # the message is escaped where the page shows it
    assert await sync_to_async(chat_events)() == []
    await alice.close()


def test_totals_equal_the_dice_and_ten_rolls_fit(table):
    faces = Faces(*([(6, 4)] * MAX_INLINE_ROLLS))
    event = actions.chat(
        scene=table.scene,
        actor=table.alice,
        text="[[1d6+1]] " * MAX_INLINE_ROLLS,
        to=[],
        rng=faces,
    )
    assert faces.left == 0
    assert [r["total"] for r in event.public["rolls"]] == [5] * MAX_INLINE_ROLLS
    assert shown_totals(said(event.public)) == ["5"] * MAX_INLINE_ROLLS


def test_an_inline_roll_may_carry_a_label_in_brackets_of_its_own(table):
    event = actions.chat(
        scene=table.scene,
        actor=table.alice,
        text="I hit for [[2d6+3 [fire]]] and [[1d4 [cold]]]!",
        to=[],
        rng=Faces((6, 2), (6, 5), (4, 1)),
    )
    rolls = event.public["rolls"]
    assert [r["total"] for r in rolls] == [10, 1]
    assert all("[" in r["expression"] for r in rolls)  # the labels stayed with their rolls
    assert event.public["text"].endswith("]]!")  # nothing of either roll is left outside


def test_the_ledger_shows_each_result_in_the_lines_text_and_still_verifies(table, client):
    actions.chat(
        scene=table.scene, actor=table.bob, text="Damage: [[1d8+3]]!", to=[], rng=dice(8, 6)
    )
    line = "Damage: [[1d8 (6) + 3 = 9]]!"
    doc = json.loads(ledger_for(client, table.alice, table.scene, "json"))
    (entry,) = [e for e in doc["entries"] if e["kind"] == "chat"]
    assert entry["public"]["text"] == line
    assert "Damage\\: \\[\\[1d8 \\(6\\) \\+ 3 \\= 9\\]\\]\\!" in ledger_for(
        client, table.alice, table.scene, "md"
    )
    page = ledger_for(client, table.alice, table.scene, "html")
    assert line in page
    report = verify_text(page)
    assert report.ok, report.summary()


def test_typed_place_marks_cannot_fake_a_roll(table):
    # The card marks each roll's place with a private-use character while it adds emphasis:
    # one typed into the line is shown as a replacement character, never as a roll.
    event = actions.chat(
        scene=table.scene, actor=table.alice, text="\ue000 \ue001 [[1d4]]", to=[], rng=dice(4, 2)
    )
    html = str(said(event.public))
    assert shown_totals(html) == ["2"]
    assert html.startswith("\ufffd \ufffd <button")


def test_a_card_with_rolls_out_of_place_shows_the_line_as_text():
    data = {"text": "a <i>b</i>", "rolls": [{"total": 3, "at": [5, 99], "result": {}}]}
    assert str(said(data)) == "a &lt;i&gt;b&lt;/i&gt;"
