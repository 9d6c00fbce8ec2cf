"""Spend odds on the toolkit (issue 16): each ability says what it buys if its check passes,
counted on the chain as the players see it. Two challenges whose visible dice agree give a
player the very same toolkit, whatever the hidden dice are; only the GM reads what a reveal
would show."""

from __future__ import annotations

import html
import re

import pytest

from rules.annulus import Challenge
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.tools import render_tools_and_views
from tabletop.systems.annulus import actions as challenges
from tabletop.systems.annulus.actions import STATE_KEY
from tests.support.dice import Faces
from tests.tabletop.systems.annulus.tables import annulus_table

pytestmark = pytest.mark.django_db


def set_up(mask, dice, table=None):
    if table is None:
        table, _, _ = annulus_table()
    else:
        challenges.challenge_call_off(scene=table.scene, actor=table.gm)
    challenges.challenge_setup(
        scene=table.scene,
        actor=table.gm,
        difficulty="easy",
        types=["Finesse"],
        length=len(mask),
        rng=Faces(*mask, *dice),
    )
    return table


def toolkit(table, user, *, gm=False) -> str:
    text = render_tools_and_views(
        table.scene, Viewer(user_id=user.pk, is_gm=gm), oob=True, only=[STATE_KEY]
    )
    found = re.search(r'<details class="toolkit".*?</details>', text, re.S)
    return html.unescape(found.group(0))


def test_a_player_sees_the_same_toolkit_odds_whatever_the_hidden_dice():
    # Players see [5][6][3] in both; the hidden die is a 9 second in one, a 12 last in the other.
    table = set_up((2, 1, 2, 2), (5, 9, 6, 3))
    mine = toolkit(table, table.alice)
    set_up((2, 2, 2, 1), (5, 6, 3, 12), table)
    assert mine == toolkit(table, table.alice)
    # What it buys, from [5][6][3] (2 adjustments: the 3 up to 5): setting the 6 to 4 or the
    # 3 to 5 solves it; setting the 5 never helps (2 left at best, first reached at 3).
    assert "If it passes: 2 adjustments left → solved (die 2 to 4)." in mine
    assert "die 1 (5): best 3, 2 adjustments left" in mine
    assert "die 3 (3): best 5, solved" in mine
    assert '<option value="2">die 3: 3</option>' in mine
    assert "Use Calibrate (check passes 50.0% without training): 2 adjustments left to solved" in (
        mine
    )
    # A reroll of the 3: a 5 or a 7 (2 in 12) solves it.
    assert "die 3 (3): solved 16.7%, " in mine
    assert "what it shows is hidden until it passes" in mine and "position" not in mine


def test_only_the_gm_reads_what_a_reveal_would_show():
    table = set_up((2, 1, 2, 2), (5, 9, 6, 3))
    gm = toolkit(table, table.gm, gm=True)
    # Revealing the 9 makes [5][9][6][3]; the cheapest solution is 5 adjustments away
    # ([5][6][5][4]: 9 down 3, 6 down 1, 3 up 1).
    assert "position 2 (9): 2 adjustments left → 5 adjustments left" in gm
    assert "position 2" not in toolkit(table, table.alice)


def _calibrate_form(text: str) -> tuple[str, str]:
    """The Calibrate form's defaults: (the die picked, the new number)."""
    form = re.search(r'<form[^>]*>(?:(?!</form>).)*?value="Calibrate".*?</form>', text, re.S)
    assert form is not None
    picked = re.findall(r'<option value="(\d+)" selected>', form.group(0))
    number = re.search(r'name="value"[^>]*value="(\d+)"', form.group(0))
    assert len(picked) == 1 and number is not None, form.group(0)
    return picked[0], number.group(1)


def test_calibrate_defaults_to_the_best_move_the_view_shows():
    # Players see [5][6][3]: 2 adjustments left; die 2 to 4 solves it (the headline). The form
    # used to start at die 1 to 1 ([1][6][3]: 4 adjustments left, worse than before).
    table = set_up((2, 1, 2, 2), (5, 9, 6, 3))
    mine = toolkit(table, table.alice)
    assert "If it passes: 2 adjustments left → solved (die 2 to 4)." in mine
    die, value = _calibrate_form(mine)
    assert (die, value) == ("1", "4")
    # The other pickers start where they did: no die singled out for them.
    assert mine.count(" selected>") == 1
    # Used as offered (its check passing), the chain the players see is solved.
    challenges.challenge_toolkit(
        scene=table.scene,
        actor=table.alice,
        ability="Calibrate",
        die=die,
        value=value,
        in_view="3",
        rng=Faces(6, 6, 1),
    )
    table.scene.refresh_from_db()
    state = table.scene.state[STATE_KEY]
    assert Challenge.from_dict(state["challenge"]).remaining_adjustments == 0
