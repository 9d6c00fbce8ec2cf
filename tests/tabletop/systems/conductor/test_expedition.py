"""conductor live procedures: the wilderness expedition (actions, sheets, procedure view, sockets)
and healing / poison as attack-roll variants whose effect goes on the patient's sheet."""

from __future__ import annotations

import html

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError

from rules import conductor
from tabletop.characters.models import Character
from tabletop.scenes import actions, procedures
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.tools import render_tools_and_views, stale_tools_and_views
from tabletop.systems.conductor import expedition as expedition_actions
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.conductor.tables import party_table


def start(table, *members, **kwargs):
    return expedition_actions.expedition_start(
        scene=table.scene, actor=table.gm, members=list(members), **kwargs
    )


def act(table, who, character, action, *faces):
    return expedition_actions.expedition_action(
        scene=table.scene, actor=who, character=character, phase_action=action, rng=Faces(*faces)
    )


def end_phase(table, *faces):
    return expedition_actions.expedition_end_phase(
        scene=table.scene, actor=table.gm, rng=Faces(*faces)
    )


def state(table) -> conductor.Expedition:
    scene = Scene.objects.get(pk=table.scene.pk)
    return conductor.Expedition.from_dict(scene.state["expedition"])


def lasting(*characters) -> list[int]:
    return [Character.objects.get(pk=c.pk).sheet.lasting_hits for c in characters]


@pytest.fixture
def only_the_expedition_view(monkeypatch):
    """The scene renders this view alone (other procedures' views are theirs to test)."""
    monkeypatch.setattr(procedures, "GENERIC_VIEWS", {})


# --- the expedition, action by action ---


@pytest.mark.django_db
def test_a_day_in_the_wilderness_steps_the_supply_die_and_marks_no_rest_on_the_sheets():
    table, kestrel, brannoc = party_table()
    start(table, kestrel, brannoc, leader=brannoc)
    expedition = state(table)
    assert (expedition.day, expedition.phase, expedition.supply_die) == (1, "Morning", 12)
    assert expedition.leader == str(brannoc.pk)

    # Morning: Kestrel scouts, Brannoc rests (chosen by their own players).
    act(table, table.alice, kestrel, "Scouting")
    act(table, table.bob, brannoc, "rest")
    phase = end_phase(table, 4)
    assert phase.public["wilderness"] == {"rolled": 4, "encounter": "landmark"}
    assert phase.public["supply"] is None and phase.public["next_phase"] == "Afternoon"

    # Afternoon: the party treks; nobody may then act alone.
    travel = expedition_actions.expedition_travel(
        scene=table.scene, actor=table.alice, travel="trek"
    )
    assert travel.public["hexes_travelled"] == 1
    with pytest.raises(ValidationError, match="travelling"):
        act(table, table.bob, brannoc, "Navigation")
    end_phase(table, 1)

    # Night: Brannoc (the leader) rolls the d12 supply die: 3 is not over 3, down to a d10.
    # Kestrel never rested today: a lasting hit on her sheet.
    act(table, table.alice, kestrel, "Sentinel")
    act(table, table.bob, brannoc, "Fishing by the river")
    night = end_phase(table, 2, 3)
    assert night.public["supply"]["leader"] == "Brannoc"
    assert night.public["supply"]["die"]["sides"] == 12
    assert night.public["supply"]["die_after"] == 10
    assert night.public["hits"] == [{"character": "Kestrel", "cause": "no rest"}]
    assert lasting(kestrel, brannoc) == [1, 0]
    expedition = state(table)
    assert (expedition.day, expedition.phase, expedition.supply_die) == (2, "Morning", 10)
    assert expedition.hexes_travelled == 1

    # Day 2: Kestrel rests; when the phase ends her lasting hit recovers, on the sheet too.
    act(table, table.alice, kestrel, "Rest")
    morning = end_phase(table, 6)
    assert morning.public["recovered"] == [{"character": "Kestrel", "cause": "no rest", "hits": 1}]
    assert lasting(kestrel, brannoc) == [0, 0]
    kinds = list(SceneEvent.objects.order_by("seq").values_list("kind", flat=True))
    assert kinds.count("expedition_phase") == 4 and kinds.count("expedition_action") == 5
    # Every expedition step makes its view stale (and the party's sheets), by its kind.
    assert all(
        {"expedition", "party"} <= stale_tools_and_views(e)
        for e in SceneEvent.objects.filter(kind__startswith="exped")
    )


@pytest.mark.django_db
def test_a_forage_helped_by_a_benny_skips_the_supply_roll():
    table, kestrel, brannoc = party_table()
    start(table, kestrel, brannoc)
    # d12 6 + Survival 1 = 7: not over 7. A benny makes 8.
    event = act(table, table.alice, kestrel, "Forage", 6)
    assert event.public["forage"]["total"] == 7 and not event.public["forage"]["success"]
    with pytest.raises(PermissionDenied, match="character's player"):
        expedition_actions.expedition_benny(scene=table.scene, actor=table.bob, character=kestrel)
    with pytest.raises(ValidationError, match="no Forage roll"):
        expedition_actions.expedition_benny(scene=table.scene, actor=table.bob, character=brannoc)
    benny = expedition_actions.expedition_benny(
        scene=table.scene, actor=table.alice, character=kestrel
    )
    assert benny.public["forage"]["total"] == 8 and benny.public["forage"]["success"]
    kestrel.refresh_from_db()
    assert kestrel.bennies == 1
    act(table, table.bob, brannoc, "Rest")
    end_phase(table, 3)
    end_phase(table, 3)
    # The Night: only the wilderness d6 is scripted; a supply roll would ask for a d12.
    night = end_phase(table, 3)
    assert night.public["supply"] is None and night.public["supply_skipped"] == ["Kestrel"]
    assert state(table).supply_die == 12
    assert lasting(kestrel, brannoc) == [1, 0]  # Kestrel foraged but never rested


@pytest.mark.django_db
def test_depleted_supplies_hit_every_member_until_the_party_is_fed():
    table, kestrel, brannoc = party_table()
    start(table, kestrel, brannoc)
    scene = Scene.objects.get(pk=table.scene.pk)
    scene.state["expedition"]["supply_die"] = 4
    scene.save(update_fields=["state"])
    for _ in range(2):
        act(table, table.alice, kestrel, "Rest")
        act(table, table.bob, brannoc, "Rest")
        end_phase(table, 5)
    night = end_phase(table, 5, 2)  # the d4 shows 2: depleted
    assert night.public["supply"]["depleted"] and night.public["depleted"]
    assert night.public["hits"] == [
        {"character": "Kestrel", "cause": "supplies depleted"},
        {"character": "Brannoc", "cause": "supplies depleted"},
    ]
    assert lasting(kestrel, brannoc) == [1, 1]
    fed = expedition_actions.expedition_party(scene=table.scene, actor=table.gm, change="fed")
    assert [r["character"] for r in fed.public["recovered"]] == ["Kestrel", "Brannoc"]
    assert lasting(kestrel, brannoc) == [0, 0]
    expedition = state(table)
    assert not expedition.depleted and expedition.supply_die == 12


@pytest.mark.django_db
def test_recovery_never_takes_a_sheet_below_zero():
    table, kestrel, brannoc = party_table()
    start(table, kestrel, brannoc)
    for _ in range(3):
        end_phase(table, 5, 9)
    assert lasting(kestrel, brannoc) == [1, 1]
    # The GM healed Kestrel's lasting hit by hand; her rest recovers nothing more.
    actions.award(
        scene=table.scene, actor=table.gm, character=kestrel, field="lasting_hits", amount=-1
    )
    expedition_actions.expedition_party(
        scene=table.scene, actor=table.gm, change="rest", character=kestrel
    )
    expedition_actions.expedition_party(
        scene=table.scene, actor=table.gm, change="rest", character=brannoc
    )
    assert lasting(kestrel, brannoc) == [0, 0]


@pytest.mark.django_db
def test_gallop_needs_every_member_mounted_and_the_gm_runs_the_party():
    table, kestrel, brannoc = party_table()
    start(table, kestrel, brannoc, mounted=[kestrel])
    with pytest.raises(ValidationError, match="Brannoc on foot"):
        expedition_actions.expedition_travel(scene=table.scene, actor=table.bob, travel="Gallop")
    with pytest.raises(PermissionDenied):
        expedition_actions.expedition_party(
            scene=table.scene, actor=table.bob, change="mounted", character=brannoc
        )
    expedition_actions.expedition_party(
        scene=table.scene, actor=table.gm, change="mounted", character=brannoc
    )
    gallop = expedition_actions.expedition_travel(
        scene=table.scene, actor=table.bob, travel="Gallop", civilization=False
    )
    assert gallop.public["hexes"] == 2 and gallop.public["mounts_tired"]
    end_phase(table, 4)
    with pytest.raises(ValidationError, match="tired"):
        expedition_actions.expedition_travel(scene=table.scene, actor=table.bob, travel="Gallop")
    with pytest.raises(ValidationError, match="water vehicle"):
        expedition_actions.expedition_travel(scene=table.scene, actor=table.bob, travel="Ferry")
    expedition_actions.expedition_party(scene=table.scene, actor=table.gm, change="water_vehicle")
    expedition_actions.expedition_travel(scene=table.scene, actor=table.gm, travel="Ferry")
    assert state(table).hexes_travelled == 5
    expedition_actions.expedition_party(
        scene=table.scene, actor=table.gm, change="leader", character=brannoc
    )
    expedition_actions.expedition_party(
        scene=table.scene, actor=table.gm, change="leave", character=kestrel
    )
    assert [m.name for m in state(table).members] == ["Brannoc"]
    expedition_actions.expedition_party(
        scene=table.scene, actor=table.gm, change="join", character=kestrel
    )
    assert [m.name for m in state(table).members] == ["Brannoc", "Kestrel"]
    expedition_actions.expedition_end(scene=table.scene, actor=table.gm)
    assert "expedition" not in Scene.objects.get(pk=table.scene.pk).state


@pytest.mark.django_db
def test_who_may_do_what():
    table, kestrel, brannoc = party_table()
    with pytest.raises(ValidationError, match="No expedition"):
        act(table, table.alice, kestrel, "Rest")
    with pytest.raises(PermissionDenied):
        expedition_actions.expedition_start(scene=table.scene, actor=table.alice, members=[kestrel])
    start(table, kestrel)
    with pytest.raises(ValidationError, match="already under way"):
        start(table, brannoc)
    # A player picks only their own characters' actions; the GM may pick anyone's.
    with pytest.raises(PermissionDenied, match="your own characters"):
        act(table, table.bob, kestrel, "Rest")
    with pytest.raises(PermissionDenied):
        act(table, table.outsider, kestrel, "Rest")
    # Brannoc is not in the party: his player may not choose the party's travel.
    with pytest.raises(PermissionDenied, match="party's players"):
        expedition_actions.expedition_travel(scene=table.scene, actor=table.bob, travel="Trek")
    with pytest.raises(ValidationError, match="not in the party"):
        act(table, table.bob, brannoc, "Rest")
    with pytest.raises(ValidationError, match="travel action for the whole party"):
        act(table, table.alice, kestrel, "Trek")
    # Only the GM ends a phase.
    with pytest.raises(PermissionDenied):
        expedition_actions.expedition_end_phase(scene=table.scene, actor=table.alice)
    act(table, table.gm, kestrel, "Navigation")
    with pytest.raises(ValidationError, match="already acted"):
        act(table, table.alice, kestrel, "Rest")
    expedition = state(table)
    assert expedition.phase == "Morning" and expedition.members[0].action == "Navigation"
    assert SceneEvent.objects.filter(kind="expedition_action").count() == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("only_the_expedition_view")
def test_the_view_offers_each_member_to_their_own_player_and_the_gm_controls_to_the_gm():
    table, kestrel, brannoc = party_table()
    scene = Scene.objects.select_related("campaign").get(pk=table.scene.pk)
    gm_view = render_tools_and_views(scene, Viewer(table.gm.pk, True), oob=True)
    player_view = render_tools_and_views(scene, Viewer(None, False), oob=True)
    assert "expedition_start" in gm_view and "expedition_start" not in player_view
    start(table, kestrel, brannoc)
    act(table, table.alice, kestrel, "Forage", 2)  # 2 + 1: found nothing
    scene.refresh_from_db()
    gm_view = html.unescape(render_tools_and_views(scene, Viewer(table.gm.pk, True), oob=True))
    player_view = html.unescape(render_tools_and_views(scene, Viewer(None, False), oob=True))
    for view in (gm_view, player_view):
        assert 'id="procedure-expedition" class="procedure expedition" hx-swap-oob="morph"' in view
        assert "Day 1 · Morning" in view and "d12" in view
        assert "75.0% to keep it" in view  # a d12 over 3: 9 of 12
        assert "d12 2 + Survival 1 = 3: not over 7" in view
    # Brannoc's choices go to bob only in the players' rendering; the GM's has no such limit.
    assert f'data-only-for="{table.bob.pk}"' in player_view
    assert 'value="expedition_benny"' in player_view
    assert f'data-only-for="{table.alice.pk}"' in player_view
    assert "data-only-for" not in gm_view.split('id="procedure-expedition"')[1]
    assert "expedition_end_phase" in gm_view and "expedition_end_phase" not in player_view
    assert "expedition_party" in gm_view and "expedition_party" not in player_view
    # Brannoc's Forage odds: d12 + 2 over 7, 7 faces of 12.
    assert "Forage (58.3%)" in player_view


# --- healing and poison ---


def heal(table, healer, patient, *faces, actor=None, mode="public", foe=None, difficulty="3"):
    return actions.roll(
        scene=table.scene,
        actor=actor or table.bob,
        roll_kind="conductor_heal",
        character=healer,
        mode=mode,
        data={"patient": str(patient.pk), "difficulty": difficulty},
        foe=foe,
        rng=Faces(*faces),
    )


@pytest.mark.django_db
def test_a_heal_goes_on_the_patients_sheet_once():
    table, kestrel, brannoc = party_table()
    kestrel.hits = 3
    kestrel.save()
    wight = Character.objects.create(
        campaign=table.campaign, owner=table.gm, name="Bog Wight", role="foe", difficulty=4
    )
    # Brannoc's Healing 1: 2d6 against the Bog Wight's 4. The 6 explodes into a 5: 2 hits.
    roll = heal(table, brannoc, kestrel, 6, 1, 5, foe=wight)
    result = roll.public["result"]
    assert result["difficulty"] == 4 and result["hits"] == 2 and result["hits_healed"] == 2
    assert roll.public["summary"] == "Heals 2 hits on Kestrel"
    assert "Bog Wight" in roll.public["title"]
    with pytest.raises(PermissionDenied, match="healer's player or the GM"):
        expedition_actions.heal_apply(scene=table.scene, actor=table.alice, seq=roll.seq)
    applied = expedition_actions.heal_apply(scene=table.scene, actor=table.bob, seq=roll.seq)
    kestrel.refresh_from_db()
    assert kestrel.hits == 1
    assert applied.public["before"] == 3 and applied.public["after"] == 1
    assert applied.parent_id == roll.pk and "party" in stale_tools_and_views(applied)
    with pytest.raises(ValidationError, match="already on the sheet"):
        expedition_actions.heal_apply(scene=table.scene, actor=table.gm, seq=roll.seq)
    # A heal heals no more hits than there are: 3 hits on a patient with 1.
    roll = heal(table, brannoc, kestrel, 4, 6, 3)
    expedition_actions.heal_apply(scene=table.scene, actor=table.gm, seq=roll.seq)
    kestrel.refresh_from_db()
    assert kestrel.hits == 0


@pytest.mark.django_db
def test_a_heal_where_every_die_misses_costs_the_patient_a_hit():
    table, kestrel, brannoc = party_table()
    # Healing himself; difficulty left blank: the seed's 3.
    roll = heal(table, brannoc, brannoc, 2, 1, difficulty="")
    assert roll.public["result"]["difficulty"] == 3
    assert roll.public["result"]["patient_takes_hit"] and roll.public["outcome"] == "failure"
    assert not SceneEvent.objects.filter(parent=roll).exists()  # nobody strikes back at a healer
    expedition_actions.heal_apply(scene=table.scene, actor=table.bob, seq=roll.seq)
    brannoc.refresh_from_db()
    assert brannoc.hits == 4


@pytest.mark.django_db
def test_a_hidden_heal_goes_on_the_sheet_once_revealed_and_bad_patients_are_refused():
    table, kestrel, brannoc = party_table()
    roll = heal(table, brannoc, brannoc, 5, 5, mode="gm")
    with pytest.raises(ValidationError, match="reveal this roll first"):
        expedition_actions.heal_apply(scene=table.scene, actor=table.gm, seq=roll.seq)
    actions.reveal(scene=table.scene, actor=table.gm, seq=roll.seq)
    expedition_actions.heal_apply(scene=table.scene, actor=table.gm, seq=roll.seq)
    brannoc.refresh_from_db()
    assert brannoc.hits == 1
    with pytest.raises(ValidationError, match="Pick the patient"):
        actions.roll(
            scene=table.scene,
            actor=table.bob,
            roll_kind="conductor_heal",
            character=brannoc,
            data={"difficulty": "3"},
        )
    with pytest.raises(ValidationError, match="Pick the healer"):
        actions.roll(
            scene=table.scene,
            actor=table.gm,
            roll_kind="conductor_heal",
            data={"patient": str(kestrel.pk), "skill": "2"},
        )
    not_a_heal = actions.roll(
        scene=table.scene,
        actor=table.bob,
        roll_kind="conductor_poison",
        character=brannoc,
        rng=Faces(3, 4, 1),
    )
    with pytest.raises(ValidationError, match="not a heal"):
        expedition_actions.heal_apply(scene=table.scene, actor=table.bob, seq=not_a_heal.seq)


@pytest.mark.django_db
def test_a_poison_is_as_strong_as_its_hits_and_its_card_states_time_and_loot():
    table, _, brannoc = party_table()
    # Poison 2: 3d6 against 3; 3, 4 hit, 1 misses: a poison for a difficulty-2 foe.
    roll = actions.roll(
        scene=table.scene,
        actor=table.bob,
        roll_kind="conductor_poison",
        character=brannoc,
        rng=Faces(3, 4, 1),
    )
    result = roll.public["result"]
    assert result["difficulty"] == 3 and result["foe_difficulty"] == 2 == result["hits"]
    assert result["time_spent"] == 1 and result["loot_spent"] == 1
    assert roll.public["summary"] == "A poison for a foe of difficulty 2"
    expected = conductor.make_poison(skill=2, rng=Faces(3, 4, 1))
    assert result["dice"] == expected.roll.to_dict()["dice"]


@pytest.mark.django_db
def test_heal_and_poison_odds_are_the_attack_distribution():
    from tabletop.scenes.rollkinds import ROLL_KINDS

    table, kestrel, brannoc = party_table()
    ruleset = table.campaign.effective_ruleset()
    odds = ROLL_KINDS["conductor_heal"].odds(
        data={"difficulty": "4"}, character=brannoc, ruleset=ruleset
    )
    dist = conductor.attack_hit_distribution(skill=1, difficulty=4, top=5)
    assert odds["rows"][0]["label"] == "No hit: the patient takes 1 hit"
    assert [r["value"] for r in odds["rows"]] == [f"{float(p):.4f}" for p in dist.values() if p]
    with pytest.raises(ValidationError, match="Pick the healer"):
        ROLL_KINDS["conductor_heal"].odds(data={}, character=None, ruleset=ruleset)
    odds = ROLL_KINDS["conductor_poison"].odds(data={}, character=kestrel, ruleset=ruleset)
    # Kestrel has no Poison skill: untrained, one d6 against 3.
    assert odds["rows"][0] == {
        "label": "Useless: works on no foe",
        "value": "0.3333",
        "percent": "33.3%",
    }


# --- over the sockets ---


async def settle(sender, *others) -> None:
    """Let a command's frames arrive: the sender always gets one (a frame or an error), so it is
    waited for longer; the others' frames went out with it."""
    await sender.drain(timeout=1.0)
    for socket in others:
        await socket.drain()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after", "only_the_expedition_view")
async def test_every_step_reaches_everyone_and_only_the_owner_or_gm_may_take_it(monkeypatch):
    table, kestrel, brannoc = await sync_to_async(party_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    everyone = (gm, alice, bob)

    await gm.send(
        command="expedition_start",
        members=[str(kestrel.pk), str(brannoc.pk)],
        leader=str(kestrel.pk),
    )
    await settle(gm, alice, bob)
    for socket in everyone:
        assert "The party sets out" in html.unescape(socket.everything())
        assert 'id="procedure-expedition"' in socket.everything()
        socket.frames.clear()

    # bob may not choose Kestrel's action: an error to bob only, nothing changes.
    await bob.send(command="expedition_action", character=kestrel.pk, action="Rest")
    await settle(bob, gm, alice)
    assert 'id="scene-errors"' in bob.everything() and "your own characters" in bob.everything()
    assert gm.frames == [] and alice.frames == []
    bob.frames.clear()

    # alice picks Kestrel's; everyone's view shows it.
    await alice.send(command="expedition_action", character=kestrel.pk, action="Scouting")
    await settle(alice, gm, bob)
    for socket in everyone:
        text = html.unescape(socket.everything())
        view = text.split('id="procedure-expedition"')[1]
        assert '<b class="chosen-action">Scouting</b>' in view, socket
        socket.frames.clear()

    # A player can't end the phase; the GM can, and everyone sees the wilderness roll.
    script_dice(monkeypatch, Faces(1))
    await alice.send(command="expedition_end_phase")
    await settle(alice, gm, bob)
    assert "Only the GM" in alice.everything()
    assert gm.frames == [] and bob.frames == []
    await gm.send(command="expedition_end_phase")
    await settle(gm, alice, bob)
    for socket in everyone:
        text = html.unescape(socket.everything())
        assert "End of the Morning, day 1" in text and "an adventure!" in text
        assert "Day 1 · Afternoon" in text.split('id="procedure-expedition"')[1]
    assert "expedition_end_phase" in gm.everything()
    assert "expedition_end_phase" not in alice.everything() + bob.everything()

    # Free text travels too, from a form's "other" field.
    await bob.send(
        command="expedition_action", character=brannoc.pk, action="other", other="Mends a boot"
    )
    await settle(bob)
    assert "Mends a boot" in html.unescape(bob.everything())
    assert (await sync_to_async(state)(table)).phase == "Afternoon"
    for socket in everyone:
        await socket.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after", "only_the_expedition_view")
async def test_a_heal_applied_over_the_socket_updates_the_card_and_the_party(monkeypatch):
    table, kestrel, brannoc = await sync_to_async(party_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    script_dice(monkeypatch, Faces(4, 5))
    await bob.send(
        command="roll",
        roll_kind="conductor_heal",
        character=brannoc.pk,
        patient=str(brannoc.pk),
        difficulty="",
    )
    await settle(bob, gm, alice)
    roll = await SceneEvent.objects.aget(kind="roll")
    card = html.unescape(bob.everything())
    assert "Heals 2 hits on Brannoc" in card and "Apply to Brannoc's sheet" in card
    assert f'data-only-for="{table.bob.pk}"' in card
    for socket in (gm, alice, bob):
        socket.frames.clear()
    await bob.send(command="heal_apply", seq=roll.seq)
    await settle(bob, gm, alice)
    for socket in (gm, alice, bob):
        text = html.unescape(socket.everything())
        assert f'<article id="event-{roll.seq}" hx-swap-oob="morph"' in text
        assert "On Brannoc's sheet: 3 → 1 hits" in text
        assert 'id="party"' in text
    await sync_to_async(brannoc.refresh_from_db)()
    assert brannoc.hits == 1
    for socket in (gm, alice, bob):
        await socket.close()
