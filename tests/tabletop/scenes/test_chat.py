"""Chat at the table: lines and emotes reach everyone; a whisper reaches its audience and no one
else, on the live, page-load and replay paths alike."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from tabletop.scenes.actions.talk import CHAT_LIMIT
from tabletop.scenes.models import Audience, SceneEvent
from tabletop.scenes.templatetags.chat import emphasis
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect, drain_all, seat_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

# Words no other text on the page can look like.
WHISPERED = "quartz-heron-7731"


async def close_all(*socks):
    for sock in socks:
        await sock.close()


def chat_events() -> list[SceneEvent]:
    return list(SceneEvent.objects.filter(kind="chat").order_by("seq"))


def page_for(client, user, scene) -> str:
    client.force_login(user)
    return client.get(reverse("scenes:detail", args=[scene.pk])).content.decode()


async def test_a_line_reaches_everyone_escaped_with_emphasis(table):
    gm, alice, bob = await seat_table(table)
    await alice.send(command="chat", text="Watch the *left* door, **now** <b>x</b>")
    await drain_all(gm, alice, bob)
    for sock in (gm, alice, bob):
        frames = sock.event_frames()
        assert len(frames) == 1
        said = "Watch the <em>left</em> door, <strong>now</strong> &lt;b&gt;x&lt;/b&gt;"
        assert said in frames[0]
        assert "alice" in frames[0]
    (event,) = await sync_to_async(chat_events)()
    assert event.audience == Audience.EVERYONE and event.public["text"].startswith("Watch")
    await close_all(gm, alice, bob)


async def test_an_emote_is_said_in_the_third_person(table):
    gm, alice, bob = await seat_table(table)
    await bob.send(command="chat", text="/me draws his sword")
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(chat_events)()
    assert event.public == {"speaker": "bob", "text": "draws his sword", "emote": True}
    assert "<strong>bob</strong> draws his sword" in alice.everything()
    assert "/me" not in alice.everything()
    await close_all(gm, alice, bob)


@pytest.mark.parametrize(
    ("sender", "to", "outsider"),
    [("alice", ["bob"], "gm"), ("alice", ["gm"], "bob"), ("gm", ["alice"], "bob")],
)
async def test_a_whisper_never_reaches_anyone_else(table, client, sender, to, outsider):
    users = {"gm": table.gm, "alice": table.alice, "bob": table.bob}
    socks = dict(zip(("gm", "alice", "bob"), await seat_table(table), strict=True))
    to_ids = [users[name].pk for name in to]
    await socks[sender].send(command="chat", text=f"psst {WHISPERED}", to=to_ids)
    await drain_all(*socks.values())
    (event,) = await sync_to_async(chat_events)()
    assert event.audience == Audience.WHISPER and event.recipients == to_ids
    assert event.public == {} and not event.commitment  # nothing for anyone else to see

    for name in [sender, *to]:
        frames = socks[name].event_frames()
        assert len(frames) == 1 and WHISPERED in frames[0], name
        assert "whisper" in frames[0]
    # The outsider's socket: not a card, not a stub, not a name; only the seq moves on.
    assert socks[outsider].event_frames() == []
    assert WHISPERED not in socks[outsider].everything()
    assert WHISPERED not in await sync_to_async(page_for)(client, users[outsider], table.scene)
    assert WHISPERED in await sync_to_async(page_for)(client, users[to[0]], table.scene)
    late = await connect(users[outsider], table.scene, hello=0)
    assert WHISPERED not in late.everything()
    assert f'data-seq="{event.seq}"' not in late.everything()
    late_recipient = await connect(users[to[0]], table.scene, hello=0)
    assert WHISPERED in late_recipient.everything()

    # The outsider's next event arrives in order: the whisper's seq left no gap to fill.
    await socks[outsider].send(command="chat", text="anyone there?")
    await drain_all(*socks.values())
    assert len(socks[outsider].event_frames()) == 1
    await close_all(*socks.values(), late, late_recipient)


async def test_a_whisper_to_several_names_them_all(table):
    gm, alice, bob = await seat_table(table)
    await alice.send(command="chat", text=WHISPERED, to=[table.bob.pk, str(table.gm.pk)])
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(chat_events)()
    assert event.recipients == sorted([table.gm.pk, table.bob.pk])
    assert event.secret["to"] == ["bob", "gm"]
    for sock in (gm, alice, bob):
        assert "to bob, gm" in sock.everything()
    await close_all(gm, alice, bob)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        ({"text": "   "}, "Say something first."),
        ({"text": "/me "}, "Say something first."),
        ({"text": None}, "Say something first."),
        ({"text": ["a"]}, "Say something first."),
        ({"text": "x" * (CHAT_LIMIT + 1)}, f"at most {CHAT_LIMIT} characters"),
        ({"text": "hi", "to": "self"}, "Whisper to whom?"),
        ({"text": "hi", "to": ["nobody"]}, "Whisper to members of this campaign."),
        ({"text": "hi", "to": [True]}, "Whisper to members of this campaign."),
        ({"text": "hi", "to": [{"id": 1}]}, "Whisper to members of this campaign."),
        ({"text": "hi", "to": "outsider"}, "only whisper to members"),
        ({"text": "hi", "to": list(range(51))}, "Too many people"),
    ],
)
async def test_bad_chat_gets_a_clear_message_and_records_nothing(table, frame, message):
    alice = await connect(table.alice, table.scene)
    ids = {"self": table.alice.pk, "outsider": table.outsider.pk}
    if isinstance(frame.get("to"), str):
        frame = {**frame, "to": [ids[frame["to"]]]}
    await alice.send(command="chat", **frame)
    frames = await alice.drain()
    assert any(message in f for f in frames), frames
    assert await sync_to_async(chat_events)() == []
    await alice.close()


async def test_a_whisper_cannot_be_revealed(table):
    gm, alice, bob = await seat_table(table)
    await alice.send(command="chat", text=WHISPERED, to=[table.gm.pk])
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(chat_events)()
    await gm.send(command="reveal", seq=event.seq)
    await drain_all(gm, alice, bob)
    assert "no such roll" in gm.everything()
    assert WHISPERED not in bob.everything()
    await close_all(gm, alice, bob)


async def test_chat_waits_for_an_open_scene(table):
    from tabletop.scenes import actions

    await sync_to_async(actions.scene_close)(scene=table.scene, actor=table.gm)
    alice = await connect(table.alice, table.scene)
    await alice.send(command="chat", text="hello?")
    assert "not open" in "".join(await alice.drain())
    assert await sync_to_async(chat_events)() == []
    await alice.close()


# --- a line of several lines, the composer's limit, a roll said in chat ------------------------


async def test_a_multi_line_line_keeps_its_breaks_escaped(table):
    # Shift+Enter in the composer: the line breaks reach the card as <br>, after escaping.
    gm, alice, bob = await seat_table(table)
    await alice.send(command="chat", text="Watch the *left*\n<b>door</b>\n\n**now**")
    await drain_all(gm, alice, bob)
    said = "Watch the <em>left</em><br>&lt;b&gt;door&lt;/b&gt;<br><br><strong>now</strong>"
    for sock in (gm, alice, bob):
        (card,) = sock.event_frames()
        assert said in card
        assert "<b>door" not in card
    await close_all(gm, alice, bob)


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("one\ntwo", "one<br>two"),
        ("one\r\ntwo\rthree", "one<br>two<br>three"),
        ("<i>\n</i>", "&lt;i&gt;<br>&lt;/i&gt;"),
        ('a "quote"\n& more', "a &quot;quote&quot;<br>&amp; more"),
        ("*one\ntwo*", "*one<br>two*"),  # emphasis stays on its line
        ("*one*\n**two**", "<em>one</em><br><strong>two</strong>"),
        ("one\n\ntwo", "one<br><br>two"),
        ("one\n\n\n \n\n\ntwo", "one<br><br>two"),  # one empty line kept, not a column
        ("<br>", "&lt;br&gt;"),
    ],
)
def test_line_breaks_become_br_only_after_escaping(text, html):
    assert emphasis(text) == html


def test_the_composer_has_the_servers_limit_and_no_silent_cut(table, client):
    page = page_for(client, table.alice, table.scene)
    (textarea,) = re.findall(r"<textarea[^>]*>", page)
    assert 'id="composer-text"' in textarea
    assert f'data-limit="{CHAT_LIMIT}"' in textarea
    assert "maxlength" not in textarea  # a long paste reaches the parser, which says why not


async def test_a_roll_said_in_chat_strikes_its_dropped_die_without_markdown(table, monkeypatch):
    # "/r 4d6kh3" in the composer sends this frame (tests/tabletop/scenes/test_composer_parser.py).
    script_dice(monkeypatch, Faces(5, 1, 3, 6))
    gm, alice, bob = await seat_table(table)
    await alice.send(command="roll", roll_kind="expression", expression="4d6kh3", mode="public")
    await drain_all(gm, alice, bob)
    for sock in (gm, alice, bob):
        (card,) = sock.event_frames()
        assert "~~" not in card
        (line,) = re.findall(r'<p class="dice-line">(.*?)</p>', card, re.S)
        assert re.findall(r"<s\b[^>]*>(.*?)</s>", line) == [
            '1<span class="visually-hidden"> dropped</span>'
        ]
        assert re.sub(r"<[^>]+>", "", line) == "4d6kh3 (5, 1 dropped, 3, 6) = 14"
    await close_all(gm, alice, bob)
