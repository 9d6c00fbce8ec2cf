"""The authorization matrix for websocket commands: every command × every role at the table
(the GM, the owner of the character concerned, another player). Non-members and anonymous users
never get a socket (tests/tabletop/scenes/test_audiences.py and the origin tests prove that), so
the matrix calls ``run_command``, the consumer's only entry point, directly.

A command added without a row here fails ``test_every_command_has_a_rule``. A refused command
raises and leaves the scene's events and every character's currencies as they were.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from rules.core import RulesError
from tabletop import systems
from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.systems.annulus import actions as challenges
from tabletop.systems.conductor import expedition
from tabletop.systems.percentile import plot_points
from tests.support.tables import make_table
from tests.tabletop.scenes.test_procedures_authorization import PROCEDURE_RULES
from tests.tabletop.systems.any_game.tables import any_game_table
from tests.tabletop.systems.percentile.tables import plot_point_table

ROLES = ("gm", "owner", "player")
OK, DENIED = "ok", "denied"


@dataclass
class Situation:
    table: Any
    payload: dict[str, Any]


def _conductor(bennies: int = 1):
    table = make_table(system="conductor")
    mira = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
        bennies=bennies,
    )
    troll = Character.objects.create(
        campaign=table.campaign, owner=table.gm, name="Troll", role="foe", difficulty=7
    )
    return table, mira, troll


def roll_dice_box() -> Situation:
    table = make_table(system="conductor")
    return Situation(table, {"roll_kind": "expression", "expression": "2d6"})


def chat() -> Situation:
    return Situation(make_table(system="conductor"), {"text": "Onwards."})


def roll_for_a_character() -> Situation:
    table, mira, _ = _conductor()
    payload = {
        "roll_kind": "conductor_standard",
        "character": mira.pk,
        "skill_name": "Acrobatics",
        "difficulty": "5",
    }
    return Situation(table, payload)


def reveal() -> Situation:
    table = make_table(system="conductor")
    roll = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        mode="gm",
        data={"expression": "1d6"},
    )
    return Situation(table, {"seq": roll.seq})


def _missed_attack(table, mira, troll) -> SceneEvent:
    # Two dice that can't reach the troll's 7 without bennies: the strike-back waits.
    return actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_attack",
        character=mira,
        data={"skill_name": "Acrobatics"},
        foe=troll,
        rng=random.Random(3),
    )


def strike_back() -> Situation:
    table, mira, troll = _conductor()
    roll = _missed_attack(table, mira, troll)
    assert roll.public["strike_back"]["status"] == "pending"
    return Situation(table, {"seq": roll.seq})


def benny() -> Situation:
    table, mira, troll = _conductor()
    roll = _missed_attack(table, mira, troll)
    return Situation(table, {"seq": roll.seq, "die": "0"})


def award() -> Situation:
    table, mira, _ = _conductor()
    return Situation(table, {"character": mira.pk, "field": "bennies", "amount": "1"})


def plot_spend() -> Situation:
    table, ann, _ = plot_point_table()
    return Situation(table, {"character": ann.pk, "use": "lessen_wound"})


def plot_decide() -> Situation:
    table, ann, _ = plot_point_table()
    spend = plot_points.plot_spend(scene=table.scene, actor=table.alice, character=ann, use="clue")
    return Situation(table, {"seq": spend.seq, "decision": "approve"})


def plot_cancel() -> Situation:
    # The "owner" is the spender, who may not cancel their own spend; the other player may.
    table, ann, ben = plot_point_table()
    spend = plot_points.plot_spend(
        scene=table.scene, actor=table.alice, character=ann, use="lessen_wound"
    )
    return Situation(table, {"seq": spend.seq, "character": "{own}"})


def _expedition() -> tuple[Any, Character]:
    table, mira, _ = _conductor()
    expedition.expedition_start(scene=table.scene, actor=table.gm, members=[mira])
    return table, mira


def expedition_start() -> Situation:
    table, mira, _ = _conductor()
    return Situation(table, {"members": [str(mira.pk)]})


def expedition_action() -> Situation:
    table, mira = _expedition()
    return Situation(table, {"character": mira.pk, "action": "Rest"})


def expedition_benny() -> Situation:
    table, mira = _expedition()
    expedition.expedition_action(
        scene=table.scene,
        actor=table.alice,
        character=mira,
        phase_action="Forage",
        rng=random.Random(1),
    )
    return Situation(table, {"character": mira.pk})


def expedition_travel() -> Situation:
    # The "owner" has a character in the party; the other player has none.
    table, _ = _expedition()
    return Situation(table, {"travel": "Trek"})


def expedition_gm() -> Situation:
    table, mira = _expedition()
    return Situation(table, {"change": "mounted", "character": mira.pk})


def heal_apply() -> Situation:
    table, mira, _ = _conductor()
    roll = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_heal",
        character=mira,
        data={"patient": str(mira.pk), "difficulty": "3"},
        rng=random.Random(2),
    )
    return Situation(table, {"seq": roll.seq})


def _challenge(seed: int = 192) -> tuple[Any, Character]:
    # Seed 192: the chain 5 7 [6] 7; seed 2: only the 5 in view, ready for a reveal.
    table = make_table(system="annulus")
    mira = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Mira")
    challenges.challenge_setup(
        scene=table.scene,
        actor=table.gm,
        difficulty="easy",
        types=["Finesse"],
        length=4,
        rng=random.Random(seed),
    )
    return table, mira


def challenge_setup() -> Situation:
    return Situation(make_table(system="annulus"), {"difficulty": "easy", "type_1": "Force"})


def challenge_adjust() -> Situation:
    table, mira = _challenge()
    return Situation(table, {"die": "0", "direction": "1", "character": mira.pk})


def challenge_reveal() -> Situation:
    table, _ = _challenge(seed=2)
    return Situation(table, {"position": "0"})


def challenge_toolkit() -> Situation:
    table, mira = _challenge()
    return Situation(table, {"ability": "Survey", "character": mira.pk})


def currency_spend() -> Situation:
    """Any game's currency: alice's Mira holds one."""
    table, cast = any_game_table(held=1)
    return Situation(table, {"character": cast["mira"].pk, "note": "a reroll"})


def challenge_call_off() -> Situation:
    table, _ = _challenge()
    return Situation(table, {})


#: command -> (situation, who may: {role: ok/denied})
RULES: dict[str, tuple[Callable[[], Situation], dict[str, str]]] = {
    "roll": (roll_dice_box, {"gm": OK, "owner": OK, "player": OK}),
    "chat": (chat, {"gm": OK, "owner": OK, "player": OK}),
    "roll (character)": (roll_for_a_character, {"gm": OK, "owner": OK, "player": DENIED}),
    "reveal": (reveal, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "strike_back": (strike_back, {"gm": OK, "owner": OK, "player": DENIED}),
    "benny": (benny, {"gm": DENIED, "owner": OK, "player": DENIED}),
    "award": (award, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "plot_spend": (plot_spend, {"gm": DENIED, "owner": OK, "player": DENIED}),
    "currency_spend": (currency_spend, {"gm": DENIED, "owner": OK, "player": DENIED}),
    "plot_decide": (plot_decide, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "plot_cancel": (plot_cancel, {"gm": DENIED, "owner": DENIED, "player": OK}),
    "expedition_start": (expedition_start, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "expedition_action": (expedition_action, {"gm": OK, "owner": OK, "player": DENIED}),
    "expedition_benny": (expedition_benny, {"gm": DENIED, "owner": OK, "player": DENIED}),
    "expedition_travel": (expedition_travel, {"gm": OK, "owner": OK, "player": DENIED}),
    "expedition_end_phase": (expedition_gm, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "expedition_party": (expedition_gm, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "expedition_end": (expedition_gm, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "heal_apply": (heal_apply, {"gm": OK, "owner": OK, "player": DENIED}),
    "challenge_setup": (challenge_setup, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "challenge_adjust": (challenge_adjust, {"gm": OK, "owner": OK, "player": DENIED}),
    "challenge_reveal": (challenge_reveal, {"gm": OK, "owner": DENIED, "player": DENIED}),
    "challenge_toolkit": (challenge_toolkit, {"gm": OK, "owner": OK, "player": DENIED}),
    "challenge_call_off": (challenge_call_off, {"gm": OK, "owner": DENIED, "player": DENIED}),
}


def test_every_command_has_a_rule():
    # The turn tracker's, contests' and maneuver tracker's rows (and their matrix test) live in
    # tests/tabletop/scenes/test_procedures_authorization.py.
    covered = {name.split(" ")[0] for name in RULES} | set(PROCEDURE_RULES)
    # The tests' sixth system (tests/tabletop/systems/sixth) proves its own command's rules.
    ours = {n for n, c in actions.COMMANDS.items() if not c.action.__module__.startswith("tests.")}
    assert ours - covered == set(), "commands without an authorization rule"
    assert covered - set(actions.COMMANDS) == set(), "rules for commands that no longer exist"


def _state() -> tuple:
    currencies = tuple(
        (system.slug, *system.sheet_model.objects.order_by("pk").values_list(*fields))
        for system in systems.all_systems()
        if (fields := [c.field for c in system.currencies])
    )
    events = tuple(SceneEvent.objects.order_by("pk").values_list("pk", "public"))
    procedures = tuple(Scene.objects.order_by("pk").values_list("state", flat=True))
    return currencies, events, procedures


MATRIX = [(name, role) for name in RULES for role in ROLES]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "role"), MATRIX, ids=[f"{n}-{r}" for n, r in MATRIX])
def test_command_authorization(settings, name: str, role: str):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    build, expect = RULES[name]
    situation = build()
    table = situation.table
    user = {"gm": table.gm, "owner": table.alice, "player": table.bob}[role]
    payload = dict(situation.payload)
    if payload.get("character") == "{own}":
        own = Character.objects.filter(owner=user, campaign=table.campaign).first()
        payload["character"] = own.pk if own else ""
    before = _state()
    command = name.split(" ")[0]
    if expect[role] == OK:
        actions.run_command(command=command, scene_id=table.scene.pk, user=user, data=payload)
        assert _state() != before, f"{name} by {role} was allowed but did nothing"
    else:
        with pytest.raises((PermissionDenied, ValidationError, RulesError)):
            actions.run_command(command=command, scene_id=table.scene.pk, user=user, data=payload)
        assert _state() == before, f"{name} refused {role} yet changed something"
