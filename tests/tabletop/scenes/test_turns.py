"""The live turn tracker, offered in every system: teams and rounds, one action per turn and one
reaction per round, the GM's changes, and bad commands over a socket. Most tests seat two_dice's
cast (tests/tabletop/systems/two_dice/tables.py); two_dice's checks on the tracker are tested in
tests/tabletop/systems/two_dice/test_checks.py."""

from __future__ import annotations

import html
import re

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.commands import call_action
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.systems.two_dice import checks
from tests.support.tables import make_table
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.two_dice.tables import start, tracker, two_dice_table


@pytest.mark.django_db
def test_the_gm_starts_the_turns_in_teams_and_they_pass_round_by_round():
    table, cast = two_dice_table()
    with pytest.raises(PermissionDenied):
        actions.turns_start(
            scene=table.scene, actor=table.alice, lineup=[(cast["tamsin"], "Heroes")]
        )
    event = start(table, cast)
    assert event.kind == "turn" and "Round 1. Turn: Heroes." in event.public["message"]
    assert "Heroes: Tamsin, Garrick; Foes: Rhee, Bandit" in event.public["message"]
    t = tracker(table)
    assert (t.round, t.current_team, t.order) == (1, "Heroes", ("Heroes", "Foes"))
    # A player on the current team may pass the turn on; one on another team may not.
    actions.turns_end(scene=table.scene, actor=table.alice)
    assert tracker(table).current_team == "Foes"
    with pytest.raises(PermissionDenied, match="whose turn it is"):
        actions.turns_end(scene=table.scene, actor=table.bob)
    event = actions.turns_end(scene=table.scene, actor=table.gm)
    assert (event.public["round"], event.public["team"]) == (2, "Heroes")
    with pytest.raises(ValidationError, match="already running"):
        start(table, cast)


@pytest.mark.django_db
def test_one_action_per_turn_and_one_reaction_per_round():
    table, cast = two_dice_table()
    start(table, cast)
    actions.turns_act(scene=table.scene, actor=table.alice, character=cast["tamsin"])
    with pytest.raises(ValidationError, match="already taken an action this turn"):
        actions.turns_act(scene=table.scene, actor=table.alice, character=cast["tamsin"])
    with pytest.raises(ValidationError, match="It is not Rhee's turn"):
        actions.turns_act(scene=table.scene, actor=table.gm, character=cast["rhee"])
    with pytest.raises(PermissionDenied):
        actions.turns_act(scene=table.scene, actor=table.bob, character=cast["tamsin"])
    actions.turns_react(scene=table.scene, actor=table.gm, character=cast["rhee"])
    with pytest.raises(ValidationError, match="already reacted this round"):
        actions.turns_react(scene=table.scene, actor=table.gm, character=cast["rhee"])
    actions.turns_end(scene=table.scene, actor=table.gm)  # the Foes' turn: Rhee's comes back
    event = SceneEvent.objects.filter(kind="turn").latest("seq")
    assert "Reaction back: Rhee." in event.public["message"]
    assert tracker(table).can_react(str(cast["rhee"].pk))


@pytest.mark.django_db
def test_the_gm_reorders_adds_removes_and_ends():
    table, cast = two_dice_table()
    start(table, cast)
    actions.turns_move(scene=table.scene, actor=table.gm, team="foes", step=-1)
    assert tracker(table).order == ("Foes", "Heroes")
    assert tracker(table).current_team == "Heroes"  # mid-round, the turn stays where it is
    with pytest.raises(ValidationError, match="already first"):
        actions.turns_move(scene=table.scene, actor=table.gm, team="Foes", step=-1)
    actions.turns_leave(scene=table.scene, actor=table.gm, character=cast["bandit"])
    actions.turns_join(scene=table.scene, actor=table.gm, character=cast["bandit"], team="Ambush")
    assert tracker(table).order == ("Foes", "Heroes", "Ambush")
    with pytest.raises(PermissionDenied):
        actions.turns_stop(scene=table.scene, actor=table.bob)
    actions.turns_stop(scene=table.scene, actor=table.gm)
    assert "turns" not in Scene.objects.get(pk=table.scene.pk).state


@pytest.mark.django_db
def test_the_tracker_works_in_every_system():
    table = make_table(system="conductor")
    hero = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Kestrel")
    wolf = Character.objects.create(
        campaign=table.campaign, owner=table.gm, name="Wolf", role="foe"
    )
    actions.turns_start(
        scene=table.scene, actor=table.gm, lineup=[(hero, "Heroes"), (wolf, "Foes")]
    )
    actions.turns_act(scene=table.scene, actor=table.alice, character=hero)
    actions.turns_react(scene=table.scene, actor=table.gm, character=wolf)
    t = tracker(table)
    assert t.acted == (str(hero.pk),) and t.reacted == (str(wolf.pk),)
    with pytest.raises(ValidationError, match="(?i)two dice"):
        checks.check_declare(
            scene=table.scene,
            actor=table.alice,
            character=hero,
            attribute="Might",
            difficulty="Normal",
            resource="Health",
        )


def end_our_turn_forms(user, scene) -> list[str]:
    """The "End our turn" forms of ``user``'s scene page, as the server renders them."""
    client = Client()
    client.force_login(user)
    page = client.get(f"/scenes/{scene.pk}/").content.decode()
    forms = re.findall(r"<form ws-send[^>]*>(?:(?!</form>).)*End our turn</button></form>", page)
    return [f for f in forms if f'data-only-for="{user.pk}"' in f]  # the page keeps its own


def confirm_of(form: str) -> str | None:
    found = re.search(r'data-confirm="([^"]*)"', form)
    return html.unescape(found.group(1)) if found else None


@pytest.mark.django_db
def test_ending_our_turn_asks_first_naming_who_has_not_acted():
    # Issue 42: "End our turn" ended the team's turn at once while a teammate had not acted.
    table, cast = two_dice_table()
    start(table, cast)
    [form] = end_our_turn_forms(table.alice, table.scene)
    assert confirm_of(form) == (
        "Tamsin and Garrick have not acted yet. End Heroes's turn anyway? "
        "Their action this turn is lost."
    )
    # The form names the turn it ends: sent late, it ends no other team's turn.
    assert 'name="round" value="1"' in form and 'name="team" value="Heroes"' in form
    actions.turns_act(scene=table.scene, actor=table.alice, character=cast["tamsin"])
    [form] = end_our_turn_forms(table.alice, table.scene)
    assert confirm_of(form).startswith("Garrick has not acted yet. End Heroes's turn anyway?")
    actions.turns_act(scene=table.scene, actor=table.bob, character=cast["garrick"])
    [form] = end_our_turn_forms(table.alice, table.scene)
    assert confirm_of(form) is None  # everyone has acted: it ends at once


@pytest.mark.django_db
def test_an_end_turn_sent_for_a_turn_that_has_ended_ends_nothing_more():
    # Two presses (or two teammates at once): the second must not end the Foes' turn before
    # any of them acted.
    table, cast = two_dice_table()
    start(table, cast)
    frame = {"command": "turns_end", "round": "1", "team": "Heroes"}
    call_action(command="turns_end", scene=table.scene, user=table.alice, data=frame)
    assert (tracker(table).round, tracker(table).current_team) == (1, "Foes")
    for user in (table.alice, table.gm):
        with pytest.raises(ValidationError, match="That turn has already ended: it is Foes's"):
            call_action(command="turns_end", scene=table.scene, user=user, data=frame)
    assert (tracker(table).round, tracker(table).current_team) == (1, "Foes")
    assert SceneEvent.objects.filter(kind="turn").count() == 2  # the start and the one end


# --- over the sockets ---


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_bad_turn_commands_get_an_error_frame_and_change_nothing():
    table, cast = await sync_to_async(two_dice_table)()
    await sync_to_async(start)(table, cast)
    bob = await connect(table.bob, table.scene)
    before = await SceneEvent.objects.acount()
    for command in (
        {"command": "turns_start"},  # the GM's
        {"command": "turns_act", "character": cast["tamsin"].pk},  # not bob's character
        {"command": "turns_move", "team": "Foes", "direction": "sideways"},
        {"command": "check_react", "character": cast["garrick"].pk, "opposition": "hinder"},
        {"command": "check_declare", "character": cast["garrick"].pk, "targets": ["x"]},
        {"command": "check_resolve", "seq": "nope"},
    ):
        bob.frames.clear()
        await bob.send(**command)
        await bob.drain()
        assert 'id="scene-errors"' in bob.everything(), command
    assert await SceneEvent.objects.acount() == before
    await bob.close()
