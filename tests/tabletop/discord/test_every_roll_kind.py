"""Every roll kind of every system, made in the open, goes to Discord as its card reads: who,
the roll, its dice, its summary and outcome; nothing of the card's controls."""

from __future__ import annotations

import json
import random

import pytest

from tabletop.scenes import actions
from tests.support.tables import make_table, mira_and_troll
from tests.tabletop.discord.conftest import deliver, mirror_on
from tests.tabletop.systems.roll_forms import ROLL_FORM_INPUTS

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("kind", sorted(ROLL_FORM_INPUTS))
def test_a_public_roll_of_every_kind_goes_with_its_dice(kind, fake):
    system, data = ROLL_FORM_INPUTS[kind]
    table = make_table(system=system)
    mira, troll = mira_and_troll(table)
    data = dict(data)
    if kind == "conductor_heal":
        data["patient"] = str(mira.pk)
    mirror_on(table, fake, sends=["rolls"])
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind=kind,
        character=mira if kind.startswith("conductor_") else None,
        foe=troll if kind == "conductor_attack" else None,
        data=data,
        rng=random.Random(7),
    )
    deliver()
    # (An attack on the troll may bring its strike-back: the roll is the first embed.)
    embed = fake.posts()[0].body["embeds"][0]
    assert embed["footer"]["text"].endswith(f"#{event.seq}")
    description = embed["description"]
    lines = description.split("\n")
    assert len(lines) >= 2, description  # the roll, then its dice (and summary)
    summary = str(event.public.get("summary", ""))
    assert summary.split(" ")[0].replace("-", "\\-") in description
    assert not any(word in json.dumps(embed) for word in ("Reveal", "Cancel", "Spend a"))
