"""two_dice's opposed checks on the turn tracker: declare, hinder and resist on the pending check,
resolve, the reaction window.

Actions first (scripted dice), then the sockets: every step reaches everyone, and the check
rolls by itself when the reaction window closes."""

from __future__ import annotations

import html
from datetime import datetime, timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from rules import two_dice
from rules.core import RulesError
from rules.two_dice import ruleset as two_dice_ruleset
from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.procedures import turns as turns_view
from tabletop.scenes.rollkinds import percent
from tabletop.systems.two_dice import checks
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.two_dice.tables import pending, start, tracker, two_dice_table

LATER = timedelta(seconds=two_dice.DEFAULT_RULESET["reaction_seconds"] + 1)


def declare(table, cast, who="tamsin", targets=("rhee", "bandit"), actor=None, **kwargs):
    fields = {"attribute": "Agility", "difficulty": "Normal", "resource": "Stamina", **kwargs}
    return checks.check_declare(
        scene=table.scene,
        actor=actor or table.alice,
        character=cast[who],
        targets=[cast[t] for t in targets],
        **fields,
    )


def react(table, cast, who, opposition, *, difficulty, faces, actor=None):
    owner = {"garrick": table.bob, "tamsin": table.alice}.get(who, table.gm)
    return checks.check_react(
        scene=table.scene,
        actor=actor or owner,
        character=cast[who],
        opposition=opposition,
        attribute="Might",
        difficulty=difficulty,
        resource="Health",
        rng=Faces(*faces),
    )


@pytest.mark.django_db
def test_hinder_and_resist_stack_on_the_pending_check_worked_by_hand():
    table, cast = two_dice_table()
    start(table, cast)
    declared = declare(table, cast)
    assert declared.kind == "check_declared" and declared.public["status"] == "pending"
    assert declared.public["targets"] == ["Rhee", "Bandit"]
    assert not tracker(table).can_act(str(cast["tamsin"].pk))  # the check is her action
    # Rhee resists (Trivial: always succeeds, no dice), penalty die 4: only against Rhee.
    resist = react(table, cast, "rhee", "resist", difficulty="Trivial", faces=[4])
    # Bandit hinders with a Normal check: 6 + 5 + Might 2 = 13, a failure: no penalty die.
    failed = react(table, cast, "bandit", "hinder", difficulty="Normal", faces=[6, 5])
    # Garrick hinders his own teammate's check (Trivial), penalty die 3: against every target.
    hinder = react(table, cast, "garrick", "hinder", difficulty="Trivial", faces=[3])
    assert resist.public["result"]["penalty"]["amount"] == 4
    assert failed.public["result"]["penalty"] is None and failed.public["outcome"] == "failure"
    assert "−3 on Tamsin's check against every target" in hinder.public["summary"]
    assert all(r.parent_id == declared.pk for r in (resist, failed, hinder))
    t = tracker(table)
    assert set(t.reacted) == {str(cast[c].pk) for c in ("rhee", "bandit", "garrick")}
    # Tamsin rolls 5 + 6 + Agility 3 = 14; the hinder makes it 11 against everyone, Rhee's
    # resist makes it 7 against Rhee alone.
    result = checks.check_resolve(scene=table.scene, actor=table.gm, rng=Faces(5, 6))
    check = result.public["result"]["check"]
    assert (check["dice_total"], check["penalty"], check["total"]) == (11, 3, 11)
    targets = {t["name"]: (t["total"], t["band"]) for t in result.public["result"]["targets"]}
    assert targets == {"Rhee": (7, "critical_failure"), "Bandit": (11, "failure")}
    assert result.public["roll_kind"] == "two_dice_action" and result.actor == table.alice
    assert result.public["summary"] == "vs Rhee: Critical failure (7); vs Bandit: Failure (11)"
    # The same moves made straight on the rules give the same result.
    action = two_dice.declare_action(
        actor="T",
        targets=["R", "B"],
        attribute="Agility",
        attribute_value=3,
        difficulty="Normal",
        resource="Stamina",
        resource_available=6,
    )
    trivial = two_dice.check(
        attribute="Might",
        attribute_value=2,
        difficulty="Trivial",
        resource="Health",
        resource_available=6,
    )
    action, _ = action.add_resist("R", trivial, rng=Faces(4))
    action, _ = action.add_hinder("G", trivial, rng=Faces(3))
    _, expected = action.resolve(rng=Faces(5, 6))
    rolled = [t["total"] for t in result.public["result"]["targets"]]
    assert [t.total for t in expected.targets] == rolled
    declared.refresh_from_db()
    assert declared.public["status"] == "rolled" and declared.public["result_seq"] == result.seq
    assert pending(table) is None
    state = turns_view.state_of(Scene.objects.get(pk=table.scene.pk))
    assert state["last"]["seq"] == result.seq


@pytest.mark.django_db
def test_reactions_the_rules_refuse():
    table, cast = two_dice_table()
    start(table, cast)
    with pytest.raises(ValidationError, match="no check waiting"):
        react(table, cast, "rhee", "hinder", difficulty="Trivial", faces=[])
    declare(table, cast, targets=["rhee"])
    with pytest.raises(ValidationError, match="own check"):
        react(table, cast, "tamsin", "hinder", difficulty="Trivial", faces=[])
    with pytest.raises(ValidationError, match="not a target"):
        react(table, cast, "bandit", "resist", difficulty="Trivial", faces=[])
    with pytest.raises(PermissionDenied):
        react(table, cast, "rhee", "hinder", difficulty="Trivial", faces=[], actor=table.bob)
    actions.turns_react(scene=table.scene, actor=table.bob, character=cast["garrick"])
    with pytest.raises(ValidationError, match="already reacted this round"):
        react(table, cast, "garrick", "hinder", difficulty="Trivial", faces=[])
    react(table, cast, "rhee", "resist", difficulty="Impossible", faces=[])  # fails: no die
    with pytest.raises(ValidationError, match="already reacted"):
        react(table, cast, "rhee", "hinder", difficulty="Trivial", faces=[])
    with pytest.raises(ValidationError, match="Another check is waiting"):
        declare(table, cast, who="garrick", actor=table.bob)
    with pytest.raises(ValidationError, match="roll it before the turn ends"):
        actions.turns_end(scene=table.scene, actor=table.gm)
    assert len(pending(table).oppositions) == 1
    assert SceneEvent.objects.filter(kind="roll").count() == 1  # refusals rolled nothing


@pytest.mark.django_db
def test_a_check_only_on_your_turn_and_only_once():
    table, cast = two_dice_table()
    start(table, cast)
    with pytest.raises(ValidationError, match="It is not Rhee's turn"):
        declare(table, cast, who="rhee", targets=["tamsin"], actor=table.gm)
    with pytest.raises(ValidationError, match="not taking turns"):
        checks.check_declare(
            scene=table.scene,
            actor=table.alice,
            character=cast["tamsin"],
            attribute="Agility",
            difficulty="Normal",
            resource="Stamina",
            targets=[Character.objects.create(campaign=table.campaign, owner=table.gm, name="X")],
        )
    with pytest.raises(ValidationError, match="Unknown difficulty"):
        declare(table, cast, difficulty="Heroic")
    assert tracker(table).can_act(str(cast["tamsin"].pk))  # refused checks spend nothing
    declare(table, cast, targets=[])
    checks.check_resolve(scene=table.scene, actor=table.gm, rng=Faces(1, 1))
    with pytest.raises(ValidationError, match="already taken an action"):
        declare(table, cast, targets=[])


@pytest.mark.django_db
def test_the_reaction_window():
    table, cast = two_dice_table()
    start(table, cast)
    declared = declare(table, cast, targets=["rhee"])
    # The acting player waits for the window; the window's own follow-up does nothing early.
    with pytest.raises(ValidationError, match="may still react"):
        checks.check_resolve(scene=table.scene, actor=table.alice)
    assert checks.check_resolve(scene=table.scene, actor=None, seq=declared.seq) is None
    with pytest.raises(PermissionDenied):
        checks.check_resolve(scene=table.scene, actor=table.bob, now=timezone.now() + LATER)
    later = timezone.now() + LATER
    event = checks.check_resolve(
        scene=table.scene, actor=None, seq=declared.seq, now=later, rng=Faces(6, 6)
    )
    assert event is not None and event.actor == table.alice  # rolled as the acting player's
    assert event.public["result"]["targets"][0]["total"] == 15
    # Once rolled, the follow-up of the same check is a no-op; the players get an error.
    assert checks.check_resolve(scene=table.scene, actor=None, seq=declared.seq) is None
    with pytest.raises(ValidationError, match="not waiting"):
        checks.check_resolve(scene=table.scene, actor=table.alice, now=later)


@pytest.mark.django_db
def test_the_heartbeat_rolls_a_check_whose_window_closed_unattended():
    # The process that scheduled the roll may have died: any socket's heartbeat rolls it.
    table, cast = two_dice_table()
    start(table, cast)
    declared = declare(table, cast, targets=["rhee"])
    # The scene's due work (one mechanism for every window: tabletop.scenes.due).
    assert actions.settle_due(scene_id=table.scene.pk) == 0  # the window is open
    assert actions.settle_due(scene_id=table.scene.pk, now=timezone.now() + LATER) == 1
    event = SceneEvent.objects.filter(scene=table.scene, kind="roll").latest("seq")
    assert event.seq > declared.seq and event.actor == table.alice
    table.scene.refresh_from_db()
    assert table.scene.state["turns"]["pending"] is None
    assert actions.settle_due(scene_id=table.scene.pk, now=timezone.now() + LATER) == 0


@pytest.mark.django_db
def test_ending_the_turns_drops_a_waiting_check():
    table, cast = two_dice_table()
    start(table, cast)
    declared = declare(table, cast)
    with pytest.raises(ValidationError, match="pending check must be rolled first"):
        actions.turns_leave(scene=table.scene, actor=table.gm, character=cast["rhee"])
    event = actions.turns_stop(scene=table.scene, actor=table.gm)
    declared.refresh_from_db()
    assert declared.public["status"] == "dropped" and event.public["refresh"] == [declared.seq]
    assert checks.check_resolve(scene=table.scene, actor=None, seq=declared.seq) is None


@pytest.mark.django_db
def test_the_view_shows_the_reactions_and_who_may_react():
    table, cast = two_dice_table()
    start(table, cast)
    declare(table, cast, targets=["rhee"])
    react(table, cast, "rhee", "resist", difficulty="Trivial", faces=[2])
    scene = Scene.objects.get(pk=table.scene.pk)
    ctx = turns_view.context(scene, Viewer(table.gm.pk, True))
    p = ctx["turns"]["pending"]
    assert p["actor"]["name"] == "Tamsin" and p["known_penalty"] == 0
    assert p["targets"][0]["penalty"] == 2
    assert p["oppositions"][0]["penalty"] == 2
    # Rhee has reacted and Tamsin is acting: only Garrick and the Bandit may still react.
    assert sorted(r["name"] for r in p["reactors"]) == ["Bandit", "Garrick"]
    assert all(not r["may_resist"] for r in p["reactors"])
    # Each reaction form says what a success would buy (issue 15), computed by rules/.
    action = pending(table)
    garrick = next(r for r in p["reactors"] if r["name"] == "Garrick")
    now, then = action.success_if_opposed("hinder", str(cast["garrick"].pk))
    assert [(b["kind"], b["now"], b["then"]) for b in garrick["buys"]] == [
        ("hinder", percent(now), percent(then))
    ]
    assert then < now


# --- over the sockets ---


ROLL_MY_CHECK = "Roll my check"


def turn_views(socket) -> list[str]:
    """The turn views pushed to the socket (each frame's procedure-turns fragment)."""
    out = []
    for frame in socket.frames:
        text = html.unescape(frame)
        at = text.find('id="procedure-turns"')
        if at != -1:
            out.append(text[at:])
    return out


def _text(socket) -> str:
    return html.unescape(socket.everything())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_every_step_of_an_opposed_check_reaches_everyone(monkeypatch):
    table, cast = await sync_to_async(two_dice_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    sockets = (gm, alice, bob)

    async def step(socket, **command):
        for s in sockets:
            s.frames.clear()
        await socket.send(**command)
        for s in sockets:
            await s.drain(timeout=1.0)  # generous: the test machine may be busy

    start_fields = {f"in:{c.pk}": "on" for c in cast.values()}
    start_fields.update({f"team:{cast['rhee'].pk}": "Foes", f"team:{cast['bandit'].pk}": "Foes"})
    await step(gm, command="turns_start", **start_fields)
    for s in sockets:
        text = _text(s)
        assert "Turns begin" in text and 'id="procedure-turns"' in text
        assert "Turn: <b>Heroes</b>" in text
    # Alice declares Tamsin's check against Rhee; everyone sees it waiting, with Garrick's
    # reaction form meant for Bob.
    await step(
        alice,
        command="check_declare",
        character=str(cast["tamsin"].pk),
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
        targets=[str(cast["rhee"].pk)],
    )
    for s in sockets:
        text = _text(s)
        assert "Declares a <b>Normal</b> Agility check (+3) against Rhee" in text
        assert "declares a <b>Normal</b> Agility check" in text  # the view's pending block
    assert f'data-only-for="{table.bob.pk}"' in bob.everything()
    assert 'id="react-' in bob.everything()
    script_dice(monkeypatch, Faces(6, 6, 5))
    await step(
        bob,
        command="check_react",
        character=str(cast["garrick"].pk),
        opposition="hinder",
        attribute="Might",
        difficulty="Normal",
        resource="Health",
    )
    for s in sockets:
        text = _text(s)
        assert "Garrick hinders Tamsin's check" in text
        assert "−5 on Tamsin's check against every target" in text
    script_dice(monkeypatch, Faces(6, 5))
    await step(gm, command="check_resolve")
    for s in sockets:
        text = _text(s)
        # 6 + 5 + Agility 3 = 14, hindered by 5: 9 against Rhee.
        assert "vs Rhee: Critical failure (9)" in text and "Hindered by Garrick: −5" in text
        assert "Last opposed check" in text
    for s in sockets:
        await s.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_the_check_rolls_by_itself_when_the_window_closes(monkeypatch):
    # The campaign's reaction window (a setting, 3 s at the least); one second here, so the
    # test need not wait three.
    monkeypatch.setattr(two_dice_ruleset, "REACTION_SECONDS_RANGE", (1, 600))
    table, cast = await sync_to_async(two_dice_table)()
    table.campaign.ruleset = {"reaction_seconds": 1}
    await sync_to_async(table.campaign.save)()
    await sync_to_async(start)(table, cast)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    alice.frames.clear()
    await alice.send(
        command="check_declare",
        character=str(cast["tamsin"].pk),
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
    )
    await alice.drain(timeout=0.3)
    # The turn view the window opens offers the acting player no "Roll my check": the rules
    # would refuse it while the table may still react.
    opened = turn_views(alice)
    assert opened and "declares a <b>Normal</b> Agility check" in opened[-1]
    assert ROLL_MY_CHECK not in opened[-1]
    alice.frames.clear()
    await alice.drain(timeout=2)
    await bob.drain(timeout=0.3)
    rolled = await SceneEvent.objects.filter(kind="roll").afirst()
    assert rolled is not None, "the consumer rolls the check once its window closes"
    assert rolled.public["roll_kind"] == "two_dice_action"
    assert rolled.public["summary"] in _text(bob)
    closed = turn_views(alice)
    assert closed, "the turn view is pushed again when the window closes"
    assert "declares a" not in closed[-1] and ROLL_MY_CHECK not in closed[-1]
    await alice.close()
    await bob.close()


@pytest.mark.django_db
def test_the_reaction_window_is_a_campaign_setting():
    # Default 30 s (issue: "the two_dice reaction window is a campaign setting"), or the GM's.
    table, cast = two_dice_table()
    start(table, cast)
    before = timezone.now()
    declared = declare(table, cast, targets=["rhee"])
    closes = datetime.fromisoformat(declared.public["closes_at"])
    assert timedelta(seconds=29) < closes - before <= timedelta(seconds=31)
    checks.check_resolve(scene=table.scene, actor=table.gm, seq=declared.seq)
    table.campaign.ruleset = {"reaction_seconds": 45}
    table.campaign.save()
    table.scene.refresh_from_db()
    view = turns_view.context(table.scene, Viewer(table.alice.pk, False))
    assert view["reaction_seconds"] == 45
    before = timezone.now()
    declared = declare(table, cast, who="garrick", targets=["rhee"], actor=table.bob)
    closes = datetime.fromisoformat(declared.public["closes_at"])
    assert timedelta(seconds=44) < closes - before <= timedelta(seconds=46)
    with pytest.raises(RulesError, match="reaction_seconds"):
        two_dice.validate_ruleset({"reaction_seconds": 1})
