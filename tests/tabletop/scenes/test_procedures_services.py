"""Reactions racing on real PostgreSQL (`make test-services`): the scene row's lock serialises
them, so two reactions to the same check are both applied, each exactly once."""

from __future__ import annotations

import random

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from tabletop.scenes.models import SceneEvent
from tabletop.systems.two_dice import checks
from tests.tabletop.conftest import at_once, requires_postgres
from tests.tabletop.systems.two_dice.tables import pending, start, tracker, two_dice_table

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def reaction(table, cast, who, opposition, seed):
    owner = {"garrick": table.bob}.get(who, table.gm)
    return checks.check_react(
        scene=table.scene,
        actor=owner,
        character=cast[who],
        opposition=opposition,
        attribute="Might",
        difficulty="Trivial",  # always succeeds: each reaction rolls its penalty die
        resource="Health",
        rng=random.Random(seed),  # noqa: S311 - a test's seeded dice
    )


@requires_postgres
def test_two_reactions_to_one_check_at_once_are_both_applied_once_on_postgres():
    assert connection.vendor == "postgresql"
    table, cast = two_dice_table()
    start(table, cast)
    declared = checks.check_declare(
        scene=table.scene,
        actor=table.alice,
        character=cast["tamsin"],
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
        targets=[cast["rhee"]],
    )
    moves = iter([("garrick", "hinder", 1), ("rhee", "resist", 2)])
    done, errors = at_once(2, lambda: reaction(table, cast, *next(moves)))
    assert errors == [] and len(done) == 2
    action = pending(table)
    assert sorted((o.reactor, o.kind) for o in action.oppositions) == sorted(
        [(str(cast["garrick"].pk), "hinder"), (str(cast["rhee"].pk), "resist")]
    )
    assert set(tracker(table).reacted) == {str(cast["garrick"].pk), str(cast["rhee"].pk)}
    dice = {e.character.name: e.public["result"]["penalty"]["amount"] for e in done}
    # Against Rhee both stack: Garrick's hinder (every target) and Rhee's own resist.
    assert action.known_penalty(str(cast["rhee"].pk)) == dice["Garrick"] + dice["Rhee"]
    assert action.known_penalty() == dice["Garrick"]
    reactions = SceneEvent.objects.filter(kind="roll", parent=declared)
    assert reactions.count() == 2
    result = checks.check_resolve(scene=table.scene, actor=table.gm)
    (against,) = result.public["result"]["targets"]
    assert against["penalty"] == dice["Garrick"] + dice["Rhee"]


@requires_postgres
def test_one_character_reacting_twice_at_once_is_applied_once_on_postgres():
    table, cast = two_dice_table()
    start(table, cast)
    checks.check_declare(
        scene=table.scene,
        actor=table.alice,
        character=cast["tamsin"],
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
    )
    seeds = iter([1, 2, 3, 4])
    done, errors = at_once(4, lambda: reaction(table, cast, "garrick", "hinder", next(seeds)))
    assert len(done) == 1 and len(errors) == 3
    assert all(isinstance(e, ValidationError) and "already" in str(e) for e in errors)
    assert len(pending(table).oppositions) == 1
    assert SceneEvent.objects.filter(kind="roll").count() == 1
