"""The two_dice table the tests play at (on tests.support.tables.make_table): Tamsin (alice's)
and Garrick (bob's), Rhee and a bandit (the GM's foes); ``start`` puts them in two teams on the
turn tracker, ``tracker`` and ``pending`` read the tracker and the check waiting on it."""

from __future__ import annotations

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.models import Scene
from tabletop.scenes.procedures import turns as turns_view
from tabletop.systems.two_dice import procedure_views as two_dice_view
from tests.support.tables import make_table


def resources(health, stamina, focus, resolve):
    values = {"Health": health, "Stamina": stamina, "Focus": focus, "Resolve": resolve}
    return {name: {"current": v, "max": v} for name, v in values.items()}


def two_dice_table():
    table = make_table(system="two_dice")
    make = Character.objects.create
    cast = {
        "tamsin": make(
            campaign=table.campaign,
            owner=table.alice,
            name="Tamsin",
            attributes={"Might": 1, "Agility": 3, "Wits": 2, "Presence": 0},
            resources=resources(5, 6, 5, 3),
        ),
        "garrick": make(
            campaign=table.campaign,
            owner=table.bob,
            name="Garrick",
            attributes={"Might": 3, "Agility": 1, "Wits": 0, "Presence": 2},
            resources=resources(7, 4, 3, 5),
        ),
        "rhee": make(
            campaign=table.campaign,
            owner=table.gm,
            name="Rhee",
            role="foe",
            attributes={"Might": 2, "Agility": 2, "Wits": 1, "Presence": 3},
            resources=resources(6, 5, 4, 6),
        ),
        "bandit": make(
            campaign=table.campaign,
            owner=table.gm,
            name="Bandit",
            role="foe",
            attributes={"Might": 2, "Agility": 1, "Wits": 0, "Presence": 0},
            resources=resources(4, 4, 0, 0),
        ),
    }
    return table, cast


def start(table, cast):
    return actions.turns_start(
        scene=table.scene,
        actor=table.gm,
        lineup=[
            (cast["tamsin"], "Heroes"),
            (cast["garrick"], "Heroes"),
            (cast["rhee"], "Foes"),
            (cast["bandit"], "Foes"),
        ],
    )


def tracker(table):
    return turns_view.tracker_of(turns_view.state_of(Scene.objects.get(pk=table.scene.pk)))


def pending(table):
    return two_dice_view.pending_of(turns_view.state_of(Scene.objects.get(pk=table.scene.pk)))
