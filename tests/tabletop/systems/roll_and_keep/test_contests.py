"""roll_and_keep live: directly opposed (both sides roll), indirectly opposed (the passive sheet
sets the difficulty, secret if the GM says so) and extended actions with their progress."""

from __future__ import annotations

import html

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client

from rules import roll_and_keep as rak
from tabletop.scenes.audiences import Viewer, visibility
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.render import render_card
from tabletop.systems.roll_and_keep import contests as contest_actions
from tabletop.systems.roll_and_keep import procedure_views as contest_view
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.roll_and_keep.tables import race, rak_table


def settled_card(table, event) -> str:
    event = SceneEvent.objects.select_related("scene__campaign").get(pk=event.pk)
    viewer = Viewer(table.alice.pk, False)  # Sable's player
    return render_card(event, visibility(event, viewer), viewer, live=False)


def contests(table):
    return contest_view.state_of(Scene.objects.get(pk=table.scene.pk)).get("items", [])


@pytest.mark.django_db
def test_directly_opposed_both_sides_roll_and_the_net_decides():
    table, sable, orrin = rak_table()
    with pytest.raises(PermissionDenied):
        contest_actions.contest_direct(
            scene=table.scene,
            actor=table.alice,
            sides=[(sable, "Endurance", []), (orrin, "Endurance", [])],
            difficulty="Standard",
        )
    event = race(table, sable, orrin)
    assert event.kind == "contest" and "both at Challenging (7)" in event.public["message"]
    (item,) = contests(table)
    # Sable: 3 dice, keeps 1 (5 mana / 3 colours without); Orrin: 6 dice, keeps Green 2 + 1.
    assert [(s["rolled"], s["kept"]) for s in item["sides"]] == [(3, 1), (6, 3)]
    with pytest.raises(PermissionDenied):
        contest_actions.contest_roll(
            scene=table.scene, actor=table.bob, contest_id=item["id"], side=0
        )
    first = contest_actions.contest_roll(
        scene=table.scene, actor=table.alice, contest_id=item["id"], side=0, rng=Faces(8, 2, 9)
    )
    assert first.public["result"]["successes"] == 1
    assert not first.public["result"]["contest"].get("settled")
    with pytest.raises(ValidationError, match="already rolled"):
        contest_actions.contest_roll(scene=table.scene, actor=table.alice, contest_id=item["id"])
    second = contest_actions.contest_roll(
        scene=table.scene,
        actor=table.bob,
        contest_id=item["id"],
        side=1,
        rng=Faces(7, 7, 3, 1, 10, 2),
    )
    contest = second.public["result"]["contest"]
    assert (contest["winner"], contest["margin"]) == ("Orrin", 2)
    assert second.public["summary"] == "3 successes: Complete — Orrin wins by 2"
    expected = rak.resolve_directly_opposed(
        own=rak.score_dice(faces=[8, 2, 9], kept=1, difficulty=7),
        opponent=rak.score_dice(faces=[7, 7, 3, 1, 10, 2], kept=3, difficulty=7),
    )
    assert (expected.winner, expected.margin) == ("opponent", contest["margin"])
    assert contests(table)[0]["result"] == {"net": 2, "winner": "Orrin"}


@pytest.mark.django_db
def test_the_card_that_settles_a_contest_names_the_winner_never_success_to_the_loser():
    # Issue 42: the loser's second roll showed "Success … Sable wins by 2".
    table, sable, orrin = rak_table()
    race(table, sable, orrin)
    contest_actions.contest_roll(
        scene=table.scene, actor=table.bob, contest_id=1, side=1, rng=Faces(7, 7, 3, 1, 10, 2)
    )
    # Sable rolls last: one success of her own ("Success" at the difficulty), and she loses.
    last = contest_actions.contest_roll(
        scene=table.scene, actor=table.alice, contest_id=1, side=0, rng=Faces(8, 2, 9)
    )
    contest = last.public["result"]["contest"]
    assert (contest["winner"], last.public["result"]["successes"]) == ("Orrin", 1)
    html = settled_card(table, last)
    assert '<span class="outcome-badge tone-plain">Orrin wins</span>' in html
    assert ">Success<" not in html
    assert "outcome-success" not in html  # no green summary either


@pytest.mark.django_db
def test_a_tie_keeps_the_status_quo():
    table, sable, orrin = rak_table()
    race(table, sable, orrin)
    contest_actions.contest_roll(
        scene=table.scene, actor=table.gm, contest_id=1, side=0, rng=Faces(1, 2, 3)
    )
    last = contest_actions.contest_roll(
        scene=table.scene, actor=table.gm, contest_id=1, side=1, rng=Faces(1, 2, 3, 4, 5, 6)
    )
    assert last.public["result"]["contest"]["winner"] is None
    assert "a tie: the status quo holds" in last.public["summary"]


@pytest.mark.django_db
def test_set_up_mistakes_are_refused():
    table, sable, orrin = rak_table()
    with pytest.raises(ValidationError, match="goes with Cunning, not Endurance"):
        contest_actions.contest_direct(
            scene=table.scene,
            actor=table.gm,
            sides=[(sable, "Endurance", ["Deceit"]), (orrin, "Endurance", [])],
            difficulty="Standard",
        )
    with pytest.raises(ValidationError, match="two different characters"):
        contest_actions.contest_direct(
            scene=table.scene,
            actor=table.gm,
            sides=[(sable, "Endurance", []), (sable, "Endurance", [])],
            difficulty="Standard",
        )
    with pytest.raises(ValidationError, match="no dice for Strength"):
        contest_actions.contest_extended(
            scene=table.scene,
            actor=table.gm,
            side=(sable, "Strength", []),
            difficulty="Standard",
            task="Lift",
            target=3,
        )
    assert contests(table) == []


@pytest.mark.django_db
def test_indirectly_opposed_takes_the_passive_sheet_and_a_secret_stays_with_the_gm():
    table, sable, orrin = rak_table()
    event = contest_actions.contest_indirect(
        scene=table.scene,
        actor=table.gm,
        active=(sable, "Finesse", [f"{sable.pk}:Stealth"]),
        passive=(orrin, "Acuity", [f"{orrin.pk}:Keen Ears"]),
        secret=True,
    )
    assert event.audience == Audience.GM_ONLY and "difficulty 8" in event.public["message"]
    (item,) = contests(table)
    assert item["difficulty"] == 8  # Acuity 7 + Keen Ears
    # Secret ones count apart: the players' numbers show no gap where it stands.
    assert item["id"] == "s1"
    assert (item["sides"][0]["rolled"], item["sides"][0]["kept"]) == (4, 4)  # Black 3 + Stealth
    # Even Sable's player can't roll a secret one (nor learn that it exists).
    with pytest.raises(ValidationError, match="no such contest"):
        contest_actions.contest_roll(scene=table.scene, actor=table.alice, contest_id=item["id"])
    roll = contest_actions.contest_roll(
        scene=table.scene, actor=table.gm, contest_id=item["id"], rng=Faces(8, 9, 3, 10)
    )
    assert roll.audience == Audience.GM_ONLY and roll.public == {
        "roller": "gm",
        "mode": "secret",
    }
    assert roll.secret["result"]["successes"] == 3 and roll.commitment
    # The players' view holds nothing of it; the GM's shows it.
    scene = Scene.objects.get(pk=table.scene.pk)
    assert contest_view.context(scene, Viewer(table.bob.pk, False))["contests"] == []
    assert contest_view.context(scene, Viewer(table.gm.pk, True))["contests"][0]["result"] == {
        "successes": 3,
        "botch": False,
    }
    race(table, sable, orrin)
    assert [c["id"] for c in contests(table)] == ["s1", 1]


@pytest.mark.django_db
def test_the_passive_number_stands_as_it_is_over_ten_or_zero():
    table, sable, orrin = rak_table()
    orrin.attributes["Acuity"] = 10
    orrin.save()
    contest_actions.contest_indirect(
        scene=table.scene,
        actor=table.gm,
        active=(sable, "Finesse", []),
        passive=(orrin, "Acuity", [f"{orrin.pk}:Keen Ears"]),
        secret=False,
    )
    roll = contest_actions.contest_roll(
        scene=table.scene, actor=table.alice, contest_id=1, rng=Faces(10, 10, 10)
    )
    assert roll.audience == Audience.EVERYONE and roll.public["result"]["successes"] == 0
    assert roll.public["result"]["difficulty"] == 11
    # A passive attribute of 0 (Orrin has no Cunning) is difficulty 0: every kept die counts.
    contest_actions.contest_indirect(
        scene=table.scene,
        actor=table.gm,
        active=(sable, "Finesse", []),
        passive=(orrin, "Cunning", []),
        secret=False,
    )
    roll = contest_actions.contest_roll(
        scene=table.scene, actor=table.alice, contest_id=2, rng=Faces(1, 2, 1)
    )
    assert roll.public["result"]["successes"] == 3 and not roll.public["result"]["botch"]


@pytest.mark.django_db
def test_extended_actions_accumulate_to_the_target_or_fail_under_the_minimum():
    table, sable, orrin = rak_table()
    contest_actions.contest_extended(
        scene=table.scene,
        actor=table.gm,
        side=(sable, "Intelligence", [f"{sable.pk}:Artifice"]),
        difficulty="Standard",
        task="Read the warded book",
        target=4,
        minimum=1,
    )
    first = contest_actions.contest_roll(
        scene=table.scene, actor=table.alice, contest_id=1, rng=Faces(6, 6, 2, 1)
    )
    assert first.public["result"]["contest"]["accumulated"] == 2
    assert first.public["summary"].endswith("— 2 / 4")
    second = contest_actions.contest_roll(
        scene=table.scene, actor=table.alice, contest_id=1, rng=Faces(9, 7, 1, 1)
    )
    assert second.public["result"]["contest"]["status"] == "succeeded"
    with pytest.raises(ValidationError, match="already succeeded"):
        contest_actions.contest_roll(scene=table.scene, actor=table.alice, contest_id=1)
    action = rak.ExtendedAction.from_dict(contests(table)[0]["action"])
    assert action.accumulated == 4 and [r.successes for r in action.rounds] == [2, 2]
    view = contest_view.context(
        Scene.objects.get(pk=table.scene.pk), Viewer(table.alice.pk, False)
    )["contests"][0]
    assert view["progress"]["accumulated"] == 4 and not view["sides"][0]["can_roll"]

    contest_actions.contest_extended(
        scene=table.scene,
        actor=table.gm,
        side=(orrin, "Endurance", []),
        difficulty="Standard",
        task="March all night",
        target=10,
        minimum=2,
    )
    under = contest_actions.contest_roll(
        scene=table.scene, actor=table.bob, contest_id=2, rng=Faces(6, 1, 1, 1, 1)
    )
    assert under.public["result"]["contest"]["status"] == "failed"
    assert rak.ExtendedAction.from_dict(contests(table)[1]["action"]).accumulated == 0
    contest_actions.contest_clear(scene=table.scene, actor=table.gm, contest_id=1)
    assert [c["id"] for c in contests(table)] == [2]


# --- over the sockets ---


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_secret_indirect_contest_never_reaches_the_passive_player(monkeypatch):
    table, sable, orrin = await sync_to_async(rak_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)  # Orrin's player: the passive character
    # What each page had on connecting (its own roll forms, with its own character's
    # specialities: Sable's Stealth on alice's) is not the contest's: only what came after.
    for socket in (gm, alice, bob):
        await socket.drain(timeout=0.5)
        socket.frames.clear()
    await gm.send(
        command="contest_indirect",
        a_character=str(sable.pk),
        a_attribute="Finesse",
        a_specialities=[f"{sable.pk}:Stealth", f"{orrin.pk}:Keen Ears"],
        p_character=str(orrin.pk),
        p_attribute="Acuity",
        p_specialities=[f"{orrin.pk}:Keen Ears", f"{sable.pk}:Stealth"],
        secret="on",
    )
    for socket in (gm, alice, bob):
        await socket.drain(timeout=1.0)
    script_dice(monkeypatch, Faces(8, 9, 3, 10))
    await gm.send(command="contest_roll", contest="s1", side="0")
    for socket in (gm, alice, bob):
        await socket.drain(timeout=1.0)
    gm_text = html.unescape(gm.everything())
    assert "difficulty <b>8</b>" in gm_text and "Keen Ears" in gm_text
    assert "3 successes" in gm_text and "Indirectly opposed" in gm_text
    for player in (alice, bob):
        text = html.unescape(player.everything())
        for leak in ("Keen Ears", "Indirectly opposed", "difficulty 8", "<b>8</b>", "Stealth"):
            assert leak not in text, leak
        assert "data-contest" not in text
    # Nor does the page: a reload shows the players nothing of it either.
    client = Client()
    await sync_to_async(client.force_login)(table.bob)
    page = await sync_to_async(client.get)(f"/scenes/{table.scene.pk}/")
    body = html.unescape(page.content.decode())
    assert page.status_code == 200 and 'id="procedure-contests"' in body
    # (Bob's own roll form lists his sheet's Keen Ears: that is his, not the contest's.)
    for leak in ("Indirectly opposed", "difficulty <b>8</b>", "data-contest", "3 successes"):
        assert leak not in body, leak
    # The GM may reveal the roll afterwards: then everyone sees it, with its commitment.
    roll = await SceneEvent.objects.aget(kind="roll")
    await gm.send(command="reveal", seq=roll.seq)
    await bob.drain(timeout=1.0)
    assert "3 successes" in html.unescape(bob.everything())
    for socket in (gm, alice, bob):
        await socket.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_an_extended_action_shows_its_progress_to_everyone(monkeypatch):
    table, sable, orrin = await sync_to_async(rak_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    await gm.send(
        command="contest_extended",
        task="Read the warded book",
        a_character=str(sable.pk),
        a_attribute="Intelligence",
        a_specialities=f"{sable.pk}:Artifice",
        difficulty="Standard",
        target="4",
        minimum="",
    )
    for socket in (gm, alice, bob):
        await socket.drain(timeout=1.0)
    assert "needs 4 successes" in html.unescape(bob.everything())
    script_dice(monkeypatch, Faces(6, 6, 2, 1))
    await alice.send(command="contest_roll", contest="1", side="0")
    for socket in (gm, alice, bob):
        await socket.drain(timeout=1.0)
        text = html.unescape(socket.everything())
        assert '<progress value="2" max="4"' in text and "2 of 4 successes" in text
    for socket in (gm, alice, bob):
        await socket.close()
