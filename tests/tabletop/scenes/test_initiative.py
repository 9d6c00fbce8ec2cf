"""The turn tracker as an initiative order, in a system whose turns go by initiative (any
game): the GM adds characters and free names, rolls (the dice language) or types each one's
initiative, the order sorts (a tie to the entry added first) and the turn moves down it and back,
with a round counter; only the GM manages it; bad input is refused and changes nothing."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError

from rules.turns import TurnTracker
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.procedures import render_procedure_views
from tests.support.dice import Faces
from tests.support.tables import make_table
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.any_game.tables import any_game_table


def order(table):
    scene = Scene.objects.get(pk=table.scene.pk)
    data = (scene.state or {}).get("turns")
    return TurnTracker.from_dict(data["tracker"]) if data else TurnTracker()


def names(table):
    tracker = order(table)
    return [(tracker.participant(p).name, tracker.participant(p).initiative) for p in tracker.order]


def add(table, actor=None, **fields):
    return actions.initiative_add(scene=table.scene, actor=actor or table.gm, **fields)


@pytest.mark.django_db
def test_the_gm_builds_an_order_of_characters_and_free_names_rolled_or_typed():
    table, cast = any_game_table()
    event = add(table, character=cast["mira"], initiative="1d20+5", rng=Faces(14))
    assert (
        event.public["message"]
        == "Mira rolls initiative: 1d20 (14) + 5 = 19. Mira joins the order."
    )
    add(table, name="  Goblin   2 ", initiative="12")
    add(table, character=cast["bram"], initiative="12")  # ties Goblin 2, added after it
    add(table, name="Ogre")  # no initiative yet: last
    assert names(table) == [("Mira", 19), ("Goblin 2", 12), ("Bram", 12), ("Ogre", None)]
    event = actions.initiative_set(
        scene=table.scene, actor=table.gm, entry="n2", initiative="2d10", rng=Faces(10, 10)
    )
    assert event.public["message"] == "Ogre rolls initiative: 2d10 (10, 10) = 20."
    actions.initiative_set(scene=table.scene, actor=table.gm, entry="n1", initiative="-1")
    assert [n for n, _ in names(table)] == ["Ogre", "Mira", "Bram", "Goblin 2"]
    assert not order(table).started


@pytest.mark.django_db
def test_the_turn_moves_down_the_order_and_back_with_the_round():
    table, cast = any_game_table()
    add(table, character=cast["mira"], initiative="15")
    add(table, name="Goblin", initiative="9")
    with pytest.raises(ValidationError, match="not started"):
        actions.initiative_turn(scene=table.scene, actor=table.gm, step=1)
    event = actions.initiative_start(scene=table.scene, actor=table.gm)
    assert event.public["message"] == "Initiative: Mira, Goblin. Round 1. Turn: Mira."
    with pytest.raises(ValidationError, match="first turn of round 1"):
        actions.initiative_turn(scene=table.scene, actor=table.gm, step=-1)
    event = actions.initiative_turn(scene=table.scene, actor=table.gm, step=1)
    assert (event.public["message"], event.public["round"]) == ("Turn: Goblin.", 1)
    event = actions.initiative_turn(scene=table.scene, actor=table.gm, step=1)
    assert (event.public["message"], event.public["round"]) == ("Round 2. Turn: Mira.", 2)
    event = actions.initiative_turn(scene=table.scene, actor=table.gm, step=-1)
    assert event.public["message"] == "Back to round 1. Turn: Goblin."
    # A late arrival with a higher initiative sorts in; the turn stays with the Goblin.
    add(table, name="Wolf", initiative="30")
    tracker = order(table)
    assert tracker.participant(tracker.current_team).name == "Goblin" and tracker.round == 1
    # The Goblin leaves on its own turn: the turn passes on (a new round: it was last).
    event = actions.initiative_remove(scene=table.scene, actor=table.gm, entry="n1")
    tracker = order(table)
    assert (tracker.round, tracker.participant(tracker.current_team).name) == (2, "Wolf")
    actions.turns_stop(scene=table.scene, actor=table.gm)
    assert order(table) == TurnTracker()


@pytest.mark.django_db
def test_only_the_gm_manages_the_order():
    table, cast = any_game_table()
    add(table, character=cast["mira"], initiative="15")
    before = order(table)
    for command, data in [
        ("initiative_add", {"name": "Goblin", "initiative": "3"}),
        ("initiative_set", {"entry": str(cast["mira"].pk), "initiative": "20"}),
        ("initiative_remove", {"entry": str(cast["mira"].pk)}),
        ("initiative_start", {}),
        ("initiative_turn", {"direction": "next"}),
    ]:
        with pytest.raises(PermissionDenied):
            actions.run_command(
                command=command, scene_id=table.scene.pk, user=table.alice, data=data
            )
    assert order(table) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"name": ""}, "Pick a character or type a name"),
        ({"name": "x" * 41}, r"Keep a name to 40 characters \(this one has 41\)"),
        ({"name": "Gob\x00lin"}, "letters, numbers"),
        ({"name": "goblin"}, "already in the order"),
        ({"name": "Ogre", "initiative": "1d" + "2" * 99}, "at most|Keep an initiative"),
        ({"name": "Ogre", "initiative": "1d20+"}, "position|expected|end"),
        ({"name": "Ogre", "initiative": "100000"}, "at most 9999"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message_and_changes_nothing(fields, says):
    table, _ = any_game_table()
    add(table, name="Goblin", initiative="5")
    before, events = order(table), SceneEvent.objects.count()
    with pytest.raises(ValidationError, match=says):
        add(table, **fields)
    assert order(table) == before and SceneEvent.objects.count() == events


@pytest.mark.django_db
def test_set_needs_a_value_and_a_known_entry():
    table, _ = any_game_table()
    add(table, name="Goblin", initiative="5")
    with pytest.raises(ValidationError, match="Type Goblin's initiative"):
        actions.initiative_set(scene=table.scene, actor=table.gm, entry="n1", initiative=" ")
    with pytest.raises(ValidationError, match="not taking turns"):
        actions.initiative_set(scene=table.scene, actor=table.gm, entry="n9", initiative="3")


@pytest.mark.django_db
def test_a_team_system_offers_no_initiative_order():
    table = make_table(system="two_dice")
    with pytest.raises(ValidationError, match="go by teams"):
        actions.initiative_add(scene=table.scene, actor=table.gm, name="Goblin")
    assert order(table) == TurnTracker()


@pytest.mark.django_db
def test_teams_and_an_initiative_order_never_mix():
    table, cast = any_game_table()
    actions.turns_start(scene=table.scene, actor=table.gm, lineup=[(cast["mira"], "Heroes")])
    with pytest.raises(ValidationError, match="running by teams"):
        add(table, name="Goblin", initiative="3")
    actions.turns_stop(scene=table.scene, actor=table.gm)
    add(table, name="Goblin", initiative="3")
    with pytest.raises(ValidationError, match="already running"):
        actions.turns_start(scene=table.scene, actor=table.gm, lineup=[(cast["mira"], "Heroes")])
    with pytest.raises(ValidationError, match="sorts itself"):
        actions.turns_move(scene=table.scene, actor=table.gm, team="n1", step=1)
    actions.initiative_start(scene=table.scene, actor=table.gm)
    with pytest.raises(ValidationError, match="its own turn"):
        actions.turns_join(scene=table.scene, actor=table.gm, character=cast["bram"], team="Heroes")
    assert names(table) == [("Goblin", 3)]


@pytest.mark.django_db
def test_the_view_shows_the_order_to_everyone_and_the_controls_to_the_gm():
    table, cast = any_game_table()
    add(table, character=cast["mira"], initiative="15")
    add(table, name="<b>Goblin</b>", initiative="9")
    actions.initiative_start(scene=table.scene, actor=table.gm)
    scene = Scene.objects.select_related("campaign").get(pk=table.scene.pk)
    player = "".join(render_procedure_views(scene, Viewer(table.alice.pk, False), oob=False))
    gm = "".join(render_procedure_views(scene, Viewer(table.gm.pk, True), oob=False))
    for html in (player, gm):
        assert "Turns · round 1" in html and 'aria-current="step"' in html
        assert "&lt;b&gt;Goblin&lt;/b&gt;" in html and "<b>Goblin</b>" not in html
        assert html.index("Mira") < html.index("&lt;b&gt;Goblin")
        assert "Start the turns" not in html  # no team form in an initiative game
    assert "initiative_turn" in gm and "initiative_add" in gm and "Next turn" in gm
    assert "initiative_" not in player and "turns_stop" not in player


@pytest.mark.django_db(transaction=True)
async def test_the_order_reaches_every_socket_live(close_db_after):
    table, cast = await sync_to_async(any_game_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    await gm.send(command="initiative_add", cid="c1", name="Goblin 2", initiative="7")
    await gm.send(
        command="initiative_add", cid="c2", character=str(cast["mira"].pk), initiative="12"
    )
    await gm.send(command="initiative_start", cid="c3")
    await gm.send(command="initiative_turn", cid="c4", direction="next")
    for _ in range(40):  # a busy machine answers late: wait for the last move to arrive
        await gm.drain()
        await alice.drain()
        if all("Turn: Goblin 2." in sock.everything() for sock in (gm, alice)):
            break
    seen = alice.everything()
    assert "Goblin 2: initiative 7. Goblin 2 joins the order." in seen
    assert "Round 1. Turn: Mira." in seen and "Turn: Goblin 2." in seen
    assert 'id="procedure-turns"' in seen and "Turns · round 1" in seen
    assert "initiative_turn" not in seen  # the GM's controls are the GM's
    assert "initiative_turn" in gm.everything()
    await gm.close()
    await alice.close()
