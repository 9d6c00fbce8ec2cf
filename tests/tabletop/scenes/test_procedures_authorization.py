"""Who may send each procedure command: the GM, the owner of the character concerned, another
player. The same shape as tests/tabletop/authorization/test_commands.py's ``RULES`` (command ->
(situation, {role: "ok" | "denied"})), so that matrix can take these rows as they are:
``RULES.update(PROCEDURE_RULES)``. An allowed command records an event; a refused one raises
and changes neither the events nor the scene's procedure state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from rules.core import RulesError
from tabletop.scenes import actions
from tabletop.scenes.actions import turns
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.systems.percentile import maneuvers
from tabletop.systems.roll_and_keep import contests
from tabletop.systems.two_dice import checks
from tests.support.dice import Faces
from tests.tabletop.systems.any_game.tables import any_game_table
from tests.tabletop.systems.percentile.tables import percentile_table
from tests.tabletop.systems.roll_and_keep.tables import race, rak_table
from tests.tabletop.systems.two_dice.tables import two_dice_table

OK, DENIED = "ok", "denied"
GM_ONLY = {"gm": OK, "owner": DENIED, "player": DENIED}
PLAYS_IT = {"gm": OK, "owner": OK, "player": DENIED}  # the character's player or the GM


@dataclass
class Situation:
    table: Any
    payload: dict[str, Any]


def _turns(*, started: bool = True):
    """Tamsin (alice's) is a Hero, Garrick (bob's) a Rival, Rhee (the GM's) a Foe."""
    table, cast = two_dice_table()
    if started:
        actions.turns_start(
            scene=table.scene,
            actor=table.gm,
            lineup=[
                (cast["tamsin"], "Heroes"),
                (cast["garrick"], "Rivals"),
                (cast["rhee"], "Foes"),
            ],
        )
    return table, cast


def turns_start() -> Situation:
    table, cast = _turns(started=False)
    return Situation(table, {f"in:{cast['tamsin'].pk}": "on"})


def turns_started(**payload: Any) -> Callable[[], Situation]:
    def build() -> Situation:
        table, cast = _turns()
        filled = {k: cast[v].pk if v in cast else v for k, v in payload.items()}
        return Situation(table, filled)

    return build


def initiative(*, started: bool = True, **payload: Any) -> Callable[[], Situation]:
    """Any game's initiative order: Mira (alice's) at 12 and a free name, Goblin ("n1"), at 9."""

    def build() -> Situation:
        table, cast = any_game_table()
        gm = {"scene": table.scene, "actor": table.gm}
        actions.initiative_add(**gm, character=cast["mira"], initiative="12")
        actions.initiative_add(**gm, name="Goblin", initiative="9")
        if started:
            actions.initiative_start(**gm)
        return Situation(table, payload)

    return build


def check_declare() -> Situation:
    table, cast = _turns()
    payload = {
        "character": cast["tamsin"].pk,
        "attribute": "Agility",
        "difficulty": "Normal",
        "resource": "Stamina",
    }
    return Situation(table, payload)


def check_react() -> Situation:
    """Garrick (bob's) declared a check against Tamsin; the one concerned is Tamsin."""
    table, cast = _turns()
    actions.turns_end(scene=table.scene, actor=table.gm)
    checks.check_declare(
        scene=table.scene,
        actor=table.bob,
        character=cast["garrick"],
        attribute="Might",
        difficulty="Normal",
        resource="Health",
        targets=[cast["tamsin"]],
    )
    payload = {
        "character": cast["tamsin"].pk,
        "opposition": "resist",
        "attribute": "Might",
        "difficulty": "Trivial",
        "resource": "Health",
    }
    return Situation(table, payload)


def check_resolve() -> Situation:
    """Tamsin's check, its reaction window still open: only the GM may roll it now."""
    table, cast = _turns()
    checks.check_declare(
        scene=table.scene,
        actor=table.alice,
        character=cast["tamsin"],
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
    )
    return Situation(table, {})


def _rak_gm(command: str) -> Callable[[], Situation]:
    def build() -> Situation:
        table, sable, orrin = rak_table()
        side = {"a_character": sable.pk, "a_attribute": "Finesse"}
        payloads = {
            "contest_direct": {
                **side,
                "b_character": orrin.pk,
                "b_attribute": "Acuity",
                "difficulty": "Standard",
            },
            "contest_indirect": {
                **side,
                "p_character": orrin.pk,
                "p_attribute": "Acuity",
                "secret": "on",
            },
            "contest_extended": {**side, "difficulty": "Standard", "task": "Sneak", "target": 3},
        }
        if command == "contest_clear":
            race(table, sable, orrin)
            return Situation(table, {"contest": "1"})
        return Situation(table, payloads[command])

    return build


def contest_roll() -> Situation:
    table, sable, orrin = rak_table()
    race(table, sable, orrin)
    return Situation(table, {"contest": "1", "side": "0"})  # Sable's side


def maneuver_track() -> Situation:
    table, tom, _ = percentile_table()
    return Situation(table, {"character": tom.pk, "skill": "Climbing", "column": "Movement"})


def perception_roll() -> Situation:
    table, tom, _ = percentile_table()
    return Situation(table, {"character": tom.pk, "skill": ""})


def streak_set() -> Situation:
    table, tom, _ = percentile_table()
    return Situation(table, {"character": tom.pk, "skill": "Climbing", "state": "slump"})


def attempt_reset() -> Situation:
    table, tom, _ = percentile_table()
    maneuvers.maneuver_track(
        scene=table.scene,
        actor=table.alice,
        character=tom,
        data={"skill": "Climbing", "task": "The cliff"},
        rng=Faces(10),  # 10 + 20: a failure
    )
    return Situation(table, {"character": tom.pk, "task": "The cliff"})


#: command -> (situation, who may: {role: ok/denied})
PROCEDURE_RULES: dict[str, tuple[Callable[[], Situation], dict[str, str]]] = {
    "turns_start": (turns_start, GM_ONLY),
    # Any player with a character on the team whose turn it is may pass it on.
    "turns_end": (turns_started(), PLAYS_IT),
    "turns_act": (turns_started(character="tamsin"), PLAYS_IT),
    "turns_react": (turns_started(character="tamsin"), PLAYS_IT),
    "turns_join": (turns_started(character="bandit", team="Ambush"), GM_ONLY),
    "turns_leave": (turns_started(character="rhee"), GM_ONLY),
    "turns_move": (turns_started(team="Foes", direction="up"), GM_ONLY),
    "turns_stop": (turns_started(), GM_ONLY),
    # Only the GM manages an initiative order.
    "initiative_add": (initiative(name="Ogre", initiative="1d20+2"), GM_ONLY),
    "initiative_set": (initiative(entry="n1", initiative="15"), GM_ONLY),
    "initiative_remove": (initiative(entry="n1"), GM_ONLY),
    "initiative_start": (initiative(started=False), GM_ONLY),
    "initiative_turn": (initiative(direction="next"), GM_ONLY),
    "check_declare": (check_declare, PLAYS_IT),
    "check_react": (check_react, PLAYS_IT),
    # The acting player waits for the reaction window to close; the GM may roll it at once.
    "check_resolve": (check_resolve, GM_ONLY),
    "contest_direct": (_rak_gm("contest_direct"), GM_ONLY),
    "contest_indirect": (_rak_gm("contest_indirect"), GM_ONLY),
    "contest_extended": (_rak_gm("contest_extended"), GM_ONLY),
    "contest_roll": (contest_roll, PLAYS_IT),
    "contest_clear": (_rak_gm("contest_clear"), GM_ONLY),
    "maneuver_track": (maneuver_track, PLAYS_IT),
    "perception_roll": (perception_roll, GM_ONLY),
    "streak_set": (streak_set, GM_ONLY),
    "attempt_reset": (attempt_reset, GM_ONLY),
}


def test_every_procedure_command_has_a_rule():
    procedure_commands = {
        command.name
        for module in (turns, checks, contests, maneuvers)
        for command in module.COMMANDS
    }
    assert set(PROCEDURE_RULES) == procedure_commands
    assert procedure_commands <= set(actions.COMMANDS)  # registered for the consumer


def _snapshot(scene: Scene) -> tuple:
    scene.refresh_from_db()
    events = tuple(SceneEvent.objects.order_by("pk").values_list("pk", "public"))
    return events, scene.state


MATRIX = [(name, role) for name in PROCEDURE_RULES for role in ("gm", "owner", "player")]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "role"), MATRIX, ids=[f"{n}-{r}" for n, r in MATRIX])
def test_procedure_command_authorization(settings, name: str, role: str):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    build, expect = PROCEDURE_RULES[name]
    situation = build()
    table = situation.table
    user = {"gm": table.gm, "owner": table.alice, "player": table.bob}[role]
    before = _snapshot(table.scene)
    run = {"command": name, "scene_id": table.scene.pk, "user": user}
    if expect[role] == OK:
        actions.run_command(**run, data=dict(situation.payload))
        assert _snapshot(table.scene) != before, f"{name} by {role} was allowed but did nothing"
    else:
        with pytest.raises((PermissionDenied, ValidationError, RulesError)):
            actions.run_command(**run, data=dict(situation.payload))
        assert _snapshot(table.scene) == before, f"{name} refused {role} yet changed something"
