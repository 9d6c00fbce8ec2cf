"""A check's resource cost leaves the sheet when the check resolves (seed 003 "Resource Cost";
issue 15: "two_dice resource costs are paid from the sheet when the check resolves (the unpaid
part becomes the penalty, as the rules say)"). Before, nothing was ever taken."""

from __future__ import annotations

import pytest

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tests.support.dice import Faces
from tests.tabletop.systems.two_dice.tables import start, two_dice_table


def current(character, resource: str) -> int:
    return Character.objects.get(pk=character.pk).sheet.resources[resource]["current"]


def check(table, character, *, difficulty="Normal", resource="Stamina", mode="public"):
    # Easy and Hard roll three dice, the others two: three faces serve all of them.
    return actions.roll(
        scene=table.scene,
        actor=table.alice if character.owner_id == table.alice.pk else table.gm,
        roll_kind="two_dice",
        mode=mode,
        character=Character.objects.get(pk=character.pk),  # the sheet as it is now
        data={"attribute": "Agility", "difficulty": difficulty, "resource": resource},
        rng=Faces(3, 4, 5),
    )


@pytest.mark.django_db
def test_a_check_pays_its_cost_from_the_sheet_and_what_cannot_be_paid_is_the_penalty():
    table, cast = two_dice_table()
    tamsin = cast["tamsin"]  # Stamina 6
    roll = check(table, tamsin)  # Normal costs 2
    assert current(tamsin, "Stamina") == 4 and roll.public["paid_from_sheet"] == 2
    for _ in range(2):
        check(table, tamsin)
    assert current(tamsin, "Stamina") == 0
    broke = check(table, tamsin, difficulty="Hard")  # costs 3, 0 left: a −3 penalty
    assert broke.public["result"]["payment"]["unpaid"] == 3
    assert broke.public["paid_from_sheet"] == 0 and current(tamsin, "Stamina") == 0


@pytest.mark.django_db
def test_a_hidden_check_pays_when_it_is_revealed():
    table, cast = two_dice_table()
    tamsin = cast["tamsin"]
    roll = check(table, tamsin, mode="gm")
    assert current(tamsin, "Stamina") == 6  # nothing at the table gives the roll away
    actions.reveal(scene=table.scene, actor=table.gm, seq=roll.seq)
    assert current(tamsin, "Stamina") == 4


@pytest.mark.django_db
def test_declared_checks_and_reactions_pay_when_they_roll():
    from tabletop.systems.two_dice import checks

    table, cast = two_dice_table()
    start(table, cast)
    checks.check_declare(
        scene=table.scene,
        actor=table.alice,
        character=cast["tamsin"],
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
        targets=[cast["rhee"]],
    )
    assert current(cast["tamsin"], "Stamina") == 6  # declared: not paid yet
    checks.check_react(
        scene=table.scene,
        actor=table.gm,
        character=cast["rhee"],
        opposition="resist",
        attribute="Might",
        difficulty="Easy",
        resource="Health",
        rng=Faces(1, 1, 1),
    )
    assert current(cast["rhee"], "Health") == 5  # Easy costs 1
    checks.check_resolve(scene=table.scene, actor=table.gm, rng=Faces(3, 4))
    assert current(cast["tamsin"], "Stamina") == 4


@pytest.mark.django_db
def test_a_checks_frames_show_the_sheet_as_paid_without_reading_it_again(
    django_capture_on_commit_callbacks, fast_paths
):
    # The payment saved the sheet in the check's transaction: the broadcast renders the
    # roller's new numbers from that copy (bench/README.md), and they are the paid ones.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tabletop.scenes import command_threads

    table, cast = two_dice_table()
    tamsin = cast["tamsin"]  # Stamina 6 of 6
    sent = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command_threads, "group_send", lambda group, message: sent.append(message))
        with django_capture_on_commit_callbacks() as broadcasts:
            check(table, tamsin)  # Normal costs 2
        with CaptureQueriesContext(connection) as queries:
            for broadcast in broadcasts:
                broadcast()
    assert not [q for q in queries.captured_queries if "characters_character" in q["sql"]]
    frames = " ".join(message["html"] for message in sent)
    stamina = list(tamsin.resources).index("Stamina") + 1
    assert f'id="party-{tamsin.pk}-r{stamina}" hx-swap-oob="true">4 / 6<' in frames
    assert f'id="gm-table-{tamsin.pk}-r{stamina}" hx-swap-oob="true">4 / 6<' in frames
