"""two_dice's turn view offers only what the rules will take: the acting player's "Roll my
check" appears once the reaction window has closed (``check_resolve`` refuses it before). That the
view is pushed when the window opens and when it closes is
test_checks.py::test_the_check_rolls_by_itself_when_the_window_closes."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene
from tabletop.scenes.procedures import render_procedure_views
from tabletop.systems.two_dice import checks
from tests.tabletop.systems.two_dice.tables import start, two_dice_table
from tests.tabletop.systems.two_dice.test_checks import ROLL_MY_CHECK, declare


def _turns_view(scene_pk: int, viewer: Viewer) -> str:
    scene = Scene.objects.get(pk=scene_pk)
    return html.unescape(str(render_procedure_views(scene, viewer, oob=False, only=["turns"])[0]))


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
    declared = declare(table, cast, targets=["rhee"])
    alice = Viewer(table.alice.pk, False)

    view = _turns_view(table.scene.pk, alice)
    assert "declares a <b>Normal</b> Agility check" in view
    # The rules refuse the acting player while the table may still react: no button for it.
    with pytest.raises(ValidationError, match="may still react"):
        checks.check_resolve(scene=table.scene, actor=table.alice)
    assert ROLL_MY_CHECK not in view
    assert "Rolls by itself in" in view
    # The GM may roll it at any time.
    assert "Roll it now" in _turns_view(table.scene.pk, Viewer(table.gm.pk, True))

    _close_window(table)
    view = _turns_view(table.scene.pk, alice)
    assert ROLL_MY_CHECK in view and "Rolls by itself in" not in view
    # ...and what it offers now, the rules take.
    scene = Scene.objects.get(pk=table.scene.pk)
    event = checks.check_resolve(scene=scene, actor=table.alice, seq=declared.seq)
    assert event.public["roll_kind"] == "two_dice_action"
    assert "declares a" not in _turns_view(table.scene.pk, alice)
