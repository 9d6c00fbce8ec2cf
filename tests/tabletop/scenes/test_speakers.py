"""Speaking as a character (issue 43, item 2): lines, emotes and rolls said as the member, one of
their characters, or (the GM) an NPC; /ooc and /desc; who may speak as whom, refused with the
reason and nothing recorded; the speaker on cards, under the event's audience like the rest of
it (a whisper as a character is still a whisper, a hidden roll's speaker is its secret)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.commands import COMMANDS
from tabletop.scenes.models import Audience, SceneEvent
from tabletop.scenes.render import render_card
from tabletop.scenes.speakers import SPEAKER_LIMIT
from tests.support.tables import make_table, mira_and_troll

pytestmark = pytest.mark.django_db

WHISPERED = "quartz-heron-7731"


@pytest.fixture
def table():
    table = make_table()
    table.mira, table.troll = mira_and_troll(table)
    return table


def say(table, actor, text="Hold the line", **kwargs):
    return actions.chat(
        scene=table.scene, actor=actor, text=text, to=kwargs.pop("to", []), **kwargs
    )


def card(event, user, table) -> str:
    viewer = Viewer(user_id=user.pk, is_gm=user.pk == table.gm.pk)
    from tabletop.scenes.audiences import visibility

    return render_card(event, visibility(event, viewer), viewer, live=False)


def recorded() -> int:
    return SceneEvent.objects.count()


# --- who a line is said as -----------------------------------------------------------------------


def test_a_player_speaks_as_their_own_character_and_the_card_names_both(table):
    event = say(table, table.alice, speaking_as="  mira ")  # as typed: case and spaces free
    assert event.public == {
        "speaker": "Mira",
        "voice": "character",
        "by": "alice",
        "text": "Hold the line",
        "emote": False,
    }
    html = card(event, table.bob, table)
    assert '<strong class="speaker">Mira</strong>' in html
    assert "(alice)" in html and "NPC" not in html


def test_a_line_in_ones_own_name_holds_what_it_always_held(table):
    for name in ("", None, "ALICE"):
        event = say(table, table.alice, speaking_as=name)
        assert event.public == {"speaker": "alice", "text": "Hold the line", "emote": False}


def test_an_emote_as_a_character(table):
    event = say(table, table.alice, text="/me draws her sword", speaking_as="Mira")
    assert (event.public["speaker"], event.public["emote"]) == ("Mira", True)
    html = card(event, table.gm, table)
    assert '<strong class="speaker">Mira</strong>' in html and "draws her sword" in html


def test_the_gm_speaks_as_their_npcs_or_any_name_marked_as_no_players(table):
    troll = say(table, table.gm, speaking_as="cave TROLL")
    assert (troll.public["speaker"], troll.public["voice"]) == ("Cave troll", "npc")
    sailor = say(table, table.gm, speaking_as="Old   Sailor")
    assert (sailor.public["speaker"], sailor.public["voice"], sailor.public["by"]) == (
        "Old Sailor",
        "npc",
        "gm",
    )
    html = card(sailor, table.alice, table)
    assert "Old Sailor" in html and ">NPC</small>" in html and "(gm)" in html


@pytest.mark.parametrize(
    ("who", "name", "error", "message"),
    [
        ("bob", "Mira", PermissionDenied, "Mira is another player's character"),
        ("alice", "Cave troll", PermissionDenied, "Cave troll is the GM's character"),
        ("alice", "Zed", ValidationError, "You have no character called Zed"),
        ("gm", "MIRA", ValidationError, "Mira is another player's character"),
        ("gm", "Bob", ValidationError, "Bob is a member of this table"),
        ("gm", "x" * (SPEAKER_LIMIT + 1), ValidationError, f"at most {SPEAKER_LIMIT} characters"),
        ("gm", "Bad\x00name", ValidationError, "not control characters"),
        ("gm", ["Mira"], ValidationError, "Speak as a name"),
    ],
)
def test_speaking_as_someone_one_may_not_is_refused_saying_why(table, who, name, error, message):
    before = recorded()
    with pytest.raises(error, match=message):
        say(table, getattr(table, who), speaking_as=name)
    with pytest.raises(error, match=message):
        actions.roll(
            scene=table.scene,
            actor=getattr(table, who),
            roll_kind="expression",
            data={"expression": "1d6"},
            speaking_as=name,
        )
    assert recorded() == before


def test_an_npc_name_is_escaped_on_the_card(table):
    event = say(table, table.gm, speaking_as='<img src=x onerror="alert(1)">')
    html = card(event, table.alice, table)
    assert "<img" not in html and "&lt;img src=x" in html


# --- /ooc and /desc -----------------------------------------------------------------------------


def test_out_of_character_is_said_in_ones_own_name_and_marked(table):
    event = say(table, table.alice, text="brb, pizza", speaking_as="Mira", voice="ooc")
    assert event.public == {
        "speaker": "alice",
        "voice": "ooc",
        "text": "brb, pizza",
        "emote": False,
    }
    html = card(event, table.bob, table)
    assert ">OOC</small>" in html and '<strong class="speaker">alice</strong>' in html


def test_the_gms_narration_shows_no_speaker(table):
    event = say(table, table.gm, text="The wind *howls*.", voice="narration")
    assert event.public["voice"] == "narration"
    html = card(event, table.alice, table)
    assert 'class="chat-line narration"' in html and "The wind <em>howls</em>." in html
    assert "speaker" not in html and ">gm<" not in html


def test_a_player_may_not_narrate_nor_emote_out_of_character(table):
    before = recorded()
    with pytest.raises(PermissionDenied, match=r"Narration \(/desc\) is the GM's"):
        say(table, table.alice, voice="narration")
    with pytest.raises(ValidationError, match="An emote is what a character does"):
        say(table, table.alice, text="/me shrugs", voice="ooc")
    for bad in ("shout", ["ooc"], 3):
        with pytest.raises(ValidationError, match="in character, out of character"):
            say(table, table.alice, voice=bad)
    assert recorded() == before


def test_the_command_reads_as_and_voice_from_the_frame(table):
    chat = COMMANDS["chat"]
    event = chat.run(table.scene, table.alice, {"text": "Onwards", "as": "Mira"})
    assert event.public["speaker"] == "Mira"
    event = chat.run(table.scene, table.gm, {"text": "Night falls.", "voice": "narration"})
    assert event.public["voice"] == "narration"
    roll = COMMANDS["roll"]
    event = roll.run(
        table.scene,
        table.alice,
        {"roll_kind": "expression", "expression": "1d6", "mode": "public", "as": "Mira"},
    )
    assert (event.public["roller"], event.public["speaker"]) == ("alice", "Mira")


# --- secrecy ------------------------------------------------------------------------------------


def test_a_whisper_as_a_character_is_still_a_whisper(table, client):
    event = say(table, table.alice, text=WHISPERED, speaking_as="Mira", to=[table.gm.pk])
    assert event.audience == Audience.WHISPER and event.public == {}
    assert event.secret["speaker"] == "Mira" and event.secret["to"] == ["gm"]
    assert event.ledger is None  # not every member knows of it: not the chain's
    page = {}
    for user in (table.gm, table.alice, table.bob):
        client.force_login(user)
        page[user.username] = client.get(reverse("scenes:detail", args=[table.scene.pk])).content
    assert WHISPERED.encode() in page["gm"] and WHISPERED.encode() in page["alice"]
    assert WHISPERED.encode() not in page["bob"]
    assert f'data-seq="{event.seq}"'.encode() not in page["bob"]
    assert card(event, table.bob, table) == ""


def test_a_roll_as_a_character_names_it_in_the_open_and_keeps_it_secret_when_hidden(table):
    def roll(mode):
        return actions.roll(
            scene=table.scene,
            actor=table.alice,
            roll_kind="expression",
            mode=mode,
            data={"expression": "1d6"},
            speaking_as="Mira",
        )

    shown = roll("public")
    assert (shown.public["speaker"], shown.public["voice"]) == ("Mira", "character")
    assert shown.ledger["public"]["speaker"] == "Mira"  # hashed with the roll
    html = card(shown, table.bob, table)
    assert '<strong class="speaker">Mira</strong>' in html and "(alice)" in html

    blind = roll("blind")
    assert blind.public == {"roller": "alice", "mode": "blind"}  # the stub, as before
    assert blind.secret["speaker"] == "Mira"  # committed to with the dice
    stub = card(blind, table.bob, table)
    assert "Mira" not in stub and "<strong>alice</strong>" in stub
    actions.reveal(scene=table.scene, actor=table.gm, seq=blind.seq)
    blind.refresh_from_db()
    assert '<strong class="speaker">Mira</strong>' in card(blind, table.bob, table)


def test_the_gms_hidden_results_name_who_a_roll_was_made_as(table):
    from django.template.loader import render_to_string

    def hidden(actor, mode, name):
        event = actions.roll(
            scene=table.scene,
            actor=actor,
            roll_kind="expression",
            mode=mode,
            data={"expression": "1d6"},
            speaking_as=name,
        )
        return render_to_string("scenes/_hidden_result.html", {"roll": event})

    entry = hidden(table.alice, "blind", "Mira")
    assert '<strong class="speaker">Mira</strong>' in entry and "(alice)" in entry
    assert "(Mira)" not in entry  # the character once, not again after the member
    entry = hidden(table.gm, "secret", "Goblin King")
    assert '<strong class="speaker">Goblin King</strong>' in entry and "NPC" in entry
    entry = hidden(table.alice, "blind", "")  # in one's own name: as before
    assert "</a> alice, blind" in entry and 'class="speaker"' not in entry


def test_the_composer_offers_the_members_own_characters_and_the_gm_any_npc(table, client):
    client.force_login(table.alice)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    picker = page.split('id="speaking-as"', 1)[1].split("</select>", 1)[0]
    assert '<option value="Mira">Mira</option>' in picker
    assert "Cave troll" not in picker and "Another NPC" not in picker
    client.force_login(table.gm)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    picker = page.split('id="speaking-as"', 1)[1].split("</select>", 1)[0]
    assert "Cave troll (NPC)" in picker and "Mira" not in picker
    assert "Another NPC" in picker and 'id="speaking-as-name"' in page
    assert f'maxlength="{SPEAKER_LIMIT}"' in page


def test_a_member_who_leaves_is_a_former_member_beside_their_characters_lines(table):
    from tabletop.accounts.actions import FORMER_MEMBER, account_delete

    event = say(table, table.alice, speaking_as="Mira")
    ledger_entry = dict(event.ledger)
    account_delete(user=table.alice)
    event.refresh_from_db()
    assert (event.public["speaker"], event.public["by"]) == ("Mira", FORMER_MEMBER)
    assert event.ledger == ledger_entry  # the chain every member holds is never rewritten
    assert f"({FORMER_MEMBER})" in card(event, table.bob, table)
