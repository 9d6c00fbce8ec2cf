"""two_dice's turn panel offers only what the rules will take: the acting player's "Roll my
check" appears once the reaction window has closed (``check_resolve`` refuses it before), and the
panel is pushed again when the window opens and when it closes."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import ValidationError
from django.utils import timezone

from rules.two_dice import ruleset as two_dice_ruleset
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.procedures import render_procedure_panels
from tabletop.systems.two_dice import checks
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.two_dice.tables import start, two_dice_table

ROLL_MY_CHECK = "Roll my check"


def _turns_panel(scene_pk: int, viewer: Viewer) -> str:
    scene = Scene.objects.get(pk=scene_pk)
    return html.unescape(str(render_procedure_panels(scene, viewer, oob=False, only=["turns"])[0]))


def _declare(table, cast):
    return checks.check_declare(
        scene=table.scene,
        actor=table.alice,
        character=cast["tamsin"],
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
        targets=[cast["rhee"]],
    )


def _close_window(table) -> None:
    """The window's end moved into the past (its follow-up has not rolled the check yet)."""
    scene = Scene.objects.get(pk=table.scene.pk)
    state = dict(scene.state)
    turns = dict(state["turns"])
    past = (timezone.now() - timedelta(seconds=1)).isoformat()
    turns["pending"] = {**turns["pending"], "closes_at": past}
    state["turns"] = turns
    Scene.objects.filter(pk=scene.pk).update(state=state)


@pytest.mark.django_db
def test_roll_my_check_is_offered_only_once_the_window_has_closed():
    table, cast = two_dice_table()
    start(table, cast)
    declared = _declare(table, cast)
    alice = Viewer(table.alice.pk, False)

    panel = _turns_panel(table.scene.pk, alice)
    assert "declares a <b>Normal</b> Agility check" in panel
    # The rules refuse the acting player while the table may still react: no button for it.
    with pytest.raises(ValidationError, match="may still react"):
        checks.check_resolve(scene=table.scene, actor=table.alice)
    assert ROLL_MY_CHECK not in panel
    assert "Rolls by itself in" in panel
    # The GM may roll it at any time.
    assert "Roll it now" in _turns_panel(table.scene.pk, Viewer(table.gm.pk, True))

    _close_window(table)
    panel = _turns_panel(table.scene.pk, alice)
    assert ROLL_MY_CHECK in panel and "Rolls by itself in" not in panel
    # ...and what it offers now, the rules take.
    scene = Scene.objects.get(pk=table.scene.pk)
    event = checks.check_resolve(scene=scene, actor=table.alice, seq=declared.seq)
    assert event.public["roll_kind"] == "two_dice_action"
    assert "declares a" not in _turns_panel(table.scene.pk, alice)


def _text(socket) -> str:
    return html.unescape(socket.everything())


def _panels(socket) -> list[str]:
    """The turn panels pushed to the socket (each frame's panel-turns fragment)."""
    out = []
    for frame in socket.frames:
        text = html.unescape(frame)
        at = text.find('id="panel-turns"')
        if at != -1:
            out.append(text[at:])
    return out


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_the_panel_is_pushed_when_the_window_opens_and_when_it_closes(monkeypatch):
    monkeypatch.setattr(two_dice_ruleset, "REACTION_SECONDS_RANGE", (1, 600))
    table, cast = await sync_to_async(two_dice_table)()
    table.campaign.ruleset = {"reaction_seconds": 1}
    await sync_to_async(table.campaign.save)()
    await sync_to_async(start)(table, cast)
    alice = await connect(table.alice, table.scene)
    alice.frames.clear()
    await alice.send(
        command="check_declare",
        character=str(cast["tamsin"].pk),
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
    )
    await alice.drain(timeout=0.3)
    opened = _panels(alice)
    assert opened and "declares a <b>Normal</b> Agility check" in opened[-1]
    assert ROLL_MY_CHECK not in opened[-1]  # refused while the window is open
    alice.frames.clear()
    await alice.drain(timeout=2)  # the window closes: the check rolls by itself
    assert await SceneEvent.objects.filter(kind="roll").aexists()
    closed = _panels(alice)
    assert closed, "the turn panel is pushed again when the window closes"
    assert "declares a" not in closed[-1] and ROLL_MY_CHECK not in closed[-1]
    await alice.close()
