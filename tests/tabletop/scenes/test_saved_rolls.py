"""Saved rolls at the table: ``/r longsword`` (the dice box's expression, a name) rolls the
roller's saved roll, under any mode, its card named for it; the odds preview knows the name; the
Sheet tool shows them as buttons."""

from __future__ import annotations

import html
import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import ValidationError
from django.urls import reverse

from tabletop.characters.saved_rolls import ROLLER, saved_roll_add
from tabletop.scenes import actions
from tabletop.scenes.models import Audience, SceneEvent
from tests.support.dice import dice, script_dice
from tests.support.tables import mira_and_troll
from tests.tabletop.scenes.conftest import drain_all, seat_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


def save(table, actor, character, name, expression):
    return saved_roll_add(
        actor=actor, campaign=table.campaign, character=character, name=name, dice=expression
    )


def rolls() -> list[SceneEvent]:
    return list(SceneEvent.objects.filter(kind="roll").order_by("seq"))


def roll(table, actor, expression, *, character=None, mode="public", rng=None):
    return actions.roll(
        scene=table.scene,
        actor=actor,
        roll_kind="expression",
        mode=mode,
        character=character,
        data={"expression": expression},
        rng=rng,
    )


@pytest.fixture
def saved(table):
    mira, troll = mira_and_troll(table)
    save(table, table.alice, mira, "Longsword", "1d20+5")
    save(table, table.alice, None, "Longsword", "1d4")  # her own, under the character's
    save(table, table.alice, None, "Parley", "2d6+1")
    save(table, table.gm, troll, "Club", "2d8+4")
    return mira, troll


def test_a_name_rolls_the_rollers_characters_saved_roll_then_her_own(table, saved):
    mira, _ = saved
    # Whatever its case, with no character named (the composer's /r names none).
    event = roll(table, table.alice, "longsword", rng=dice(20, 14))
    result = event.public["result"]
    assert event.public["title"] == "Longsword: 1d20 + 5"
    assert (result["total"], result["breakdown"]) == (19, "1d20 (14) + 5 = 19")
    assert (
        roll(table, table.alice, "LONGSWORD", character=mira, rng=dice(20, 3)).public["summary"]
        == "8"
    )
    parley = roll(table, table.alice, "Parley", character=mira, rng=dice(6, 2, 5))
    assert (parley.public["title"], parley.public["summary"]) == ("Parley: 2d6 + 1", "8")
    # Dice are dice: a roll form's expression that parses never looks a name up.
    assert roll(table, table.alice, "1d4", rng=dice(4, 2)).public["title"] == "1d4"


def test_the_gm_rolls_her_foes_and_nobody_reaches_another_members_rolls(table, saved):
    _, troll = saved
    club = roll(table, table.gm, "club", character=troll, rng=dice(8, 1, 2))
    assert (club.public["title"], club.public["summary"]) == ("Club: 2d8 + 4", "7")
    with pytest.raises(ValidationError, match="No saved roll is called 'Longsword'"):
        roll(table, table.bob, "Longsword")  # alice's, not bob's
    with pytest.raises(ValidationError, match="No saved roll is called 'Club'"):
        roll(table, table.alice, "Club")
    assert len(rolls()) == 1


def test_an_unknown_name_says_so_and_lists_the_rollers_rolls(table, saved):
    with pytest.raises(ValidationError) as refused:
        roll(table, table.alice, "greataxe")
    (message,) = refused.value.messages
    assert message == (
        "No saved roll is called 'greataxe', and it is not dice (like 1d20+5). "
        "Your saved rolls: Longsword, Parley."
    )
    with pytest.raises(ValidationError, match="Unexpected end at position 6"):
        roll(table, table.alice, "1d20+")  # dice with a mistake: the dice's own message
    assert rolls() == []


def test_a_page_cannot_pose_as_another_roller(table, saved):
    # The roller is the server's: a frame's key of that name is text, never a member.
    with pytest.raises(ValidationError, match="No saved roll"):
        actions.roll(
            scene=table.scene,
            actor=table.bob,
            roll_kind="expression",
            data={"expression": "Parley", ROLLER: {"user": table.alice.pk}},
        )


async def test_a_saved_roll_under_a_hidden_mode_is_committed_and_filtered(
    table, saved, monkeypatch
):
    script_dice(monkeypatch, dice(6, 6, 6))
    gm, alice, bob = await seat_table(table)
    await alice.send(command="roll", roll_kind="expression", expression="parley", mode="gm")
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(rolls)()
    assert event.audience == Audience.PRIVATE and event.commitment
    assert event.public == {"roller": "alice", "mode": "gm"}
    assert event.secret["title"] == "Parley: 2d6 + 1" and event.secret["summary"] == "13"
    for sock in (gm, alice):
        assert "Parley: 2d6 + 1" in sock.everything()
    # Hashes (the commitment, the ledger head) are random hex: "2d6" may stand in one by chance.
    unhashed = re.sub(r"[0-9a-f]{12,}", "", bob.everything())
    assert "Parley" not in unhashed and "2d6" not in unhashed
    assert "rolled privately to the GM" in bob.everything()
    for sock in (gm, alice, bob):
        await sock.close()


def test_the_odds_preview_knows_a_saved_rolls_name(client, table, saved):
    mira, _ = saved
    url = reverse("scenes:odds", args=[table.scene.pk])
    client.force_login(table.alice)
    query = {"roll_kind": "expression", "expression": "longsword", "character": mira.pk}
    odds = client.get(url, query).content.decode()
    assert "error" not in odds and "25" in odds and "5.0%" in odds  # 1d20+5: 6..25, 1 in 20
    client.force_login(table.bob)
    refused = html.unescape(client.get(url, query | {"character": ""}).content.decode())
    assert "No saved roll is called 'longsword'" in refused


def test_the_sheet_tool_shows_the_viewers_saved_rolls_as_buttons(client, table, saved):
    mira, troll = saved
    page_url = reverse("scenes:detail", args=[table.scene.pk])
    client.force_login(table.alice)
    page = client.get(page_url).content.decode()
    buttons = re.findall(r"<button[^>]*class=\"rollable outline saved-roll\"[^>]*>", page)
    fields = [json.loads(html.unescape(re.search(r'data-fields="([^"]*)"', b)[1])) for b in buttons]
    characters = [re.search(r'data-character="([^"]*)"', b)[1] for b in buttons]
    assert fields == [
        {"expression": "Longsword"},
        {"expression": "Longsword"},
        {"expression": "Parley"},
    ]
    assert characters == [str(mira.pk), "", ""]
    assert 'data-roll-kind="expression"' in buttons[0]
    assert "Club" not in page
    client.force_login(table.gm)
    assert 'aria-label="Club: 2d8+4"' in client.get(page_url).content.decode()
