"""percentile live: tracked maneuvers (slump, zone, retries), the GM's secret perception roll,
and the special rolls (running, potency, breakage, pure chance) on the roll forms."""

from __future__ import annotations

import html
import re

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.tools import render_tools_and_views
from tabletop.systems.percentile import maneuvers
from tabletop.systems.percentile import procedure_views as percentile_state
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.percentile.tables import percentile_table


def tracked(table, character, *faces, actor=None, **fields):
    data = {"skill": "Climbing", "column": "Movement", **fields}
    return maneuvers.maneuver_track(
        scene=table.scene,
        actor=actor or table.alice,
        character=character,
        data=data,
        rng=Faces(*faces),
    )


def state(table):
    return percentile_state.state_of(Scene.objects.get(pk=table.scene.pk))


def tracking_lines():
    events = SceneEvent.objects.filter(kind="maneuver_tracking").order_by("seq")
    return [line for event in events for line in event.public["lines"]]


@pytest.mark.django_db
def test_a_slump_and_the_retries_apply_to_the_next_tries_until_a_success():
    table, tom, _ = percentile_table()
    # 03 rolls again and subtracts 60: -57 + Climbing 20 = -37, an Extraordinary Failure.
    # A typed "earlier failures" is ignored: the tracker knows them.
    first = tracked(table, tom, 3, 60, retry_failures="5")
    result = first.public["result"]
    assert (
        first.public["roll_kind"] == "percentile"
        and result["row"]["band"] == "extraordinary_failure"
    )
    assert (result["retry_penalty"], result["condition"]) == (0, None)
    assert tracking_lines() == [
        "Tomalfson is in a slump at Climbing (-50) until a full success.",
        "“Climbing”: 1 failure(s), -25 on the next try.",
    ]
    # 50 + 20, in a slump (-50), one earlier failure (-25): -5, a Fumble.
    second = tracked(table, tom, 50).public["result"]
    assert (second["condition"], second["condition_modifier"]) == ("slump", -50)
    assert (second["retry_failures"], second["retry_penalty"], second["total"]) == (1, -25, -5)
    tracked_now = state(table)
    assert tracked_now["streaks"][0]["state"] == "slump"
    assert tracked_now["attempts"][0]["failures"] == 2
    # 100 + 97 + 40 (open-ended up) + 20 - 50 - 50 = 157: a Success ends both.
    third = tracked(table, tom, 100, 97, 40).public["result"]
    assert (third["total"], third["row"]["band"]) == (157, "success")
    assert state(table) == {"streaks": [], "attempts": []}
    assert tracking_lines()[-2:] == [
        "Tomalfson is back to normal at Climbing.",
        "“Climbing” succeeds after 2 failure(s).",
    ]


@pytest.mark.django_db
def test_the_zone_lasts_until_the_next_failure_and_attempts_are_per_task():
    table, tom, _ = percentile_table()
    # 100 + 98 + 96 + 60 + 20 = 374: an Extraordinary Success puts him in the zone.
    tracked(table, tom, 100, 98, 96, 60, task="The tower")
    assert state(table)["streaks"][0]["state"] == "zone"
    # 10 + 20 + 50 = 80: a Failure ends the zone and counts against this task only.
    failed = tracked(table, tom, 10, task="The tower").public["result"]
    assert (failed["condition_modifier"], failed["row"]["band"]) == (50, "failure")
    assert state(table)["streaks"] == []
    assert [(a["task"], a["failures"]) for a in state(table)["attempts"]] == [("The tower", 1)]
    other = tracked(table, tom, 10, task="The well").public["result"]
    assert other["retry_penalty"] == 0  # another attempt starts without the tower's penalty
    with pytest.raises(PermissionDenied):
        tracked(table, tom, 10, actor=table.bob)
    with pytest.raises(ValidationError, match="skill from the sheet"):
        tracked(table, tom, 10, skill="")


@pytest.mark.django_db
def test_the_gm_resets_an_attempt_and_sets_a_slump_by_hand():
    table, tom, _ = percentile_table()
    tracked(table, tom, 10, task="The lock")
    with pytest.raises(PermissionDenied):
        maneuvers.attempt_reset(scene=table.scene, actor=table.alice, character=tom, task="lock")
    event = maneuvers.attempt_reset(
        scene=table.scene, actor=table.gm, character=tom, task="the LOCK"
    )
    assert event.public["lines"] == ["GM: “The lock” starts over with no penalty."]
    assert state(table)["attempts"] == []
    with pytest.raises(ValidationError, match="no failures to forget"):
        maneuvers.attempt_reset(scene=table.scene, actor=table.gm, character=tom, task="lock")
    with pytest.raises(PermissionDenied):
        maneuvers.streak_set(
            scene=table.scene, actor=table.bob, character=tom, skill="Climbing", state="zone"
        )
    maneuvers.streak_set(
        scene=table.scene, actor=table.gm, character=tom, skill="Climbing", state="slump"
    )
    with pytest.raises(ValidationError, match="already slump"):
        maneuvers.streak_set(
            scene=table.scene, actor=table.gm, character=tom, skill="climbing", state="slump"
        )
    # The hand-set slump applies to the next tracked roll: 60 + 20 - 50 = 30.
    assert tracked(table, tom, 60).public["result"]["total"] == 30


@pytest.mark.django_db
def test_perception_is_the_gms_secret_and_never_changes_a_streak():
    table, tom, _ = percentile_table()
    with pytest.raises(PermissionDenied):
        maneuvers.perception_roll(scene=table.scene, actor=table.alice, character=tom, data={})
    # 100 + 99 + 97 + 80 + Perceptivity 5 = 381: an Extraordinary Success, yet no zone (the
    # view would tell the table).
    roll = maneuvers.perception_roll(
        scene=table.scene,
        actor=table.gm,
        character=tom,
        data={"skill": "", "condition_1": "Loud Noise"},
        rng=Faces(100, 99, 97, 80),
    )
    assert roll.audience == Audience.GM_ONLY and roll.commitment
    assert roll.public == {"roller": "gm", "mode": "secret"}
    result = roll.secret["result"]
    assert result["kind"] == "perception" and result["skill"] == "Perceptivity"
    assert [m["label"] for m in result["modifiers"]] == ["Loud Noise (Perception)"]
    assert result["total"] == 381 - 35 and result["row"]["band"] == "extraordinary_success"
    assert state(table).get("streaks", []) == []
    # A slump at the Detect skill applies to the GM's roll for it.
    maneuvers.streak_set(
        scene=table.scene, actor=table.gm, character=tom, skill="Detect Traps", state="slump"
    )
    roll = maneuvers.perception_roll(
        scene=table.scene,
        actor=table.gm,
        character=tom,
        data={"skill": "Detect Traps"},
        rng=Faces(60),
    )
    assert roll.secret["result"]["condition_modifier"] == -50
    assert roll.secret["result"]["total"] == 60 + 15 - 50
    # It is not a roll the roll forms offer: nobody can make it through the roll command.
    with pytest.raises(ValidationError, match="Unknown roll"):
        actions.roll(
            scene=table.scene,
            actor=table.gm,
            roll_kind="percentile_perception",
            mode="secret",
            character=tom,
            data={},
        )


def special(table, kind, *faces, character=None, actor=None, **data):
    return actions.roll(
        scene=table.scene,
        actor=actor or table.gm,
        roll_kind=kind,
        character=character,
        data=data,
        rng=Faces(*faces),
    )


@pytest.mark.django_db
def test_running_the_seed_example_and_with_a_running_skill():
    table, tom, ilsa = percentile_table()
    # Seed: roll 55, Quickness -9, Total Penalty -65, +110 - 60 = 31: 20% x 2 x 26 = 10.4.
    run = special(table, "percentile_running", 55, character=tom, actor=table.alice, pace="2")
    result = run.public["result"]
    assert (result["maneuver"]["total"], result["percent"], result["movement"]) == (31, 20, 10.4)
    assert run.public["summary"].endswith("20% — movement 10.4")
    # "or Running skill if you have it": Ilsa's SV 40 instead of her Quickness 12.
    run = special(table, "percentile_running", 55, character=ilsa, actor=table.bob, pace="1.5")
    result = run.public["result"]
    assert result["source"] == "Running SV" and result["maneuver"]["skill_value"] == 40
    assert result["maneuver"]["total"] == 55 + 40 - 5 + 110 - 45
    with pytest.raises(ValidationError, match="Pace must be between 1 and 5"):
        special(table, "percentile_running", character=tom, actor=table.alice, pace="6")


@pytest.mark.django_db
def test_potency_breakage_and_pure_chance():
    table, tom, _ = percentile_table()
    potency = special(
        table, "percentile_potency", 85, character=tom, potency="40", resistance="-10"
    )
    assert (
        potency.public["result"]["total"] == 115 and "it takes effect" in potency.public["summary"]
    )
    resisted = special(table, "percentile_potency", 20, potency="40", resistance="-10")
    assert "resisted" in resisted.public["summary"]
    # 10% of a 300 lb lift capacity is potency 30; iron resists -75.
    broken = special(
        table,
        "percentile_breakage",
        97,
        99,
        30,
        potency_from="lift_capacity",
        pounds="300",
        material="iron",
    )
    result = broken.public["result"]
    assert (result["skill_value"], result["modifiers"][0]["value"]) == (30, -75)
    assert result["total"] == 226 - 45 and broken.public["summary"].endswith("it breaks")
    holds = special(table, "percentile_breakage", 50, potency="0", resistance="-20")
    assert holds.public["summary"].endswith("it holds")
    chance = special(table, "percentile_pure_chance", 90, chance="30")
    assert chance.public["result"]["total"] == 120 and "it happens" in chance.public["summary"]
    with pytest.raises(ValidationError, match="between 0 and 100"):
        special(table, "percentile_pure_chance", chance="130")


@pytest.mark.django_db
def test_the_special_rolls_show_their_odds_first():
    table, tom, _ = percentile_table()
    client = Client()
    client.force_login(table.alice)
    url = f"/scenes/{table.scene.pk}/odds/"
    page = client.get(url, {"roll_kind": "percentile_running", "character": tom.pk, "pace": "2"})
    text = html.unescape(page.content.decode())
    assert "At 100%: 52 (MV × pace)" in text and "Quickness -9" in text
    page = client.get(url, {"roll_kind": "percentile_pure_chance", "chance": "100"})
    assert "It happens (Success or better)" in html.unescape(page.content.decode())


# --- over the sockets ---


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_secret_perception_roll_never_reaches_the_players(monkeypatch):
    table, tom, _ = await sync_to_async(percentile_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    for socket in (gm, alice, bob):
        socket.frames.clear()  # the replay of the scene's opening
    script_dice(monkeypatch, Faces(3, 90))
    await gm.send(command="perception_roll", character=str(tom.pk), skill="Detect Traps")
    for socket in (gm, alice, bob):
        await socket.drain(timeout=1.0)
    roll = await SceneEvent.objects.aget(kind="roll")
    summary = roll.secret["summary"]  # 3 - 90 + 15 = -72: an Extraordinary Failure
    assert summary.startswith("Extraordinary Failure (-72)")
    assert summary in html.unescape(gm.everything())
    assert "Perception for Tomalfson" in gm.everything()
    for player in (alice, bob):
        text = html.unescape(player.everything())
        assert player.event_frames() == [], "not even a stub reaches a player"
        assert "-72" not in text and "Perception for" not in text and "Detect Traps 15" not in text
    client = Client()
    await sync_to_async(client.force_login)(table.alice)
    page = html.unescape(
        (await sync_to_async(client.get)(f"/scenes/{table.scene.pk}/")).content.decode()
    )
    assert "Perception for" not in page and "-72" not in page
    for socket in (gm, alice, bob):
        await socket.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_tracked_maneuver_updates_everyones_view(monkeypatch):
    table, tom, _ = await sync_to_async(percentile_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    script_dice(monkeypatch, Faces(3, 60))
    await alice.send(
        command="maneuver_track", character=str(tom.pk), skill="Climbing", column="Movement"
    )
    for socket in (gm, alice, bob):
        await socket.drain(timeout=1.0)
        text = html.unescape(socket.everything())
        assert 'id="procedure-maneuvers"' in text and "in a slump -50" in text
        assert "Extraordinary Failure (-37)" in text
        assert "Tomalfson is in a slump at Climbing (-50) until a full success." in text
    # Only the GM's rendering has the reset button and the secret perception form.
    assert 'value="attempt_reset"' in gm.everything()
    assert 'value="perception_roll"' in gm.everything()
    for player in (alice, bob):
        assert 'value="attempt_reset"' not in player.everything()
        assert 'value="perception_roll"' not in player.everything()
    for socket in (gm, alice, bob):
        await socket.close()


@pytest.mark.django_db
def test_the_perception_roll_defaults_to_a_player_character_npcs_after():
    # Seed 004: the GM rolls perception "on his behalf" (a player's): the form's first choice,
    # what it rolls for unless the GM picks another, is a PC; the GM's NPCs and foes come after.
    table, tom, ilsa = percentile_table()
    for name, role in (("Aldo", "npc"), ("Brute", "foe")):
        Character.objects.create(campaign=table.campaign, owner=table.gm, name=name, role=role)
    text = render_tools_and_views(
        Scene.objects.get(pk=table.scene.pk),
        Viewer(user_id=table.gm.pk, is_gm=True),
        oob=True,
        only=[percentile_state.NAME],
    )
    form = re.search(r'<details id="perception-roll".*?</details>', html.unescape(text), re.S)
    picker = re.search(r'<select name="character" required>(.*?)</select>', form.group(0), re.S)
    options = re.findall(r'<option value="(\d+)"( selected)?>([^<]*)</option>', picker.group(1))
    assert [name for _, _, name in options] == ["Ilsa", "Tomalfson", "Aldo", "Brute"]
    assert not any(selected for _, selected, _ in options)  # so the first one is the default
    assert options[0][0] == str(ilsa.pk)
