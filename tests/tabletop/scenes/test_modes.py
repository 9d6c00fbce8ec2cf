"""Roll modes are defined once (tabletop/scenes/modes.py): the roll form's select, the audience a
roll gets and the badge its card shows all come from there."""

from __future__ import annotations

import re

import pytest

from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.modes import MODES, modes_for
from tabletop.scenes.render import render_card
from tests.support.dice import Faces
from tests.support.tables import make_table


def test_players_are_not_offered_the_gms_secret_mode():
    assert [m.name for m in modes_for(is_gm=True)] == list(MODES)
    assert "secret" not in [m.name for m in modes_for(is_gm=False)]


@pytest.mark.django_db
@pytest.mark.parametrize("mode", list(MODES))
def test_a_roll_gets_its_modes_audience_and_badge(mode):
    table = make_table(system="conductor")
    actor = table.gm if MODES[mode].gm_only else table.alice
    roll = actions.roll(
        scene=table.scene,
        actor=actor,
        roll_kind="expression",
        mode=mode,
        data={"expression": "1d6"},
        rng=Faces(4),
    )
    assert roll.audience == MODES[mode].audience
    card = render_card(roll, "full", Viewer(table.gm.pk, True), live=False)
    badge = MODES[mode].badge
    assert (f'<small class="badge mode-{mode}">{badge}' in card) is bool(badge)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("roller", "mode", "reads"),
    [
        ("gm", "secret", "The GM revealed their secret roll #{seq}."),
        ("gm", "gm", "The GM revealed their private roll #{seq}."),
        ("alice", "blind", "The GM revealed alice's blind roll #{seq}."),
        ("alice", "gm", "The GM revealed alice's private roll #{seq}."),
    ],
)
def test_the_reveal_card_reads_naturally(roller, mode, reads):
    # Not "GM revealed gm's roll #4": whose roll (the GM's own is "their") and how it was hidden.
    table = make_table(system="conductor")
    roll = actions.roll(
        scene=table.scene,
        actor=getattr(table, roller),
        roll_kind="expression",
        mode=mode,
        data={"expression": "1d6"},
        rng=Faces(4),
    )
    reveal = actions.reveal(scene=table.scene, actor=table.gm, seq=roll.seq)
    card = render_card(reveal, "full", Viewer(table.bob.pk, False), live=False)
    text = " ".join(re.sub(r"<[^>]+>", "", card).split())
    assert reads.format(seq=roll.seq) in text
