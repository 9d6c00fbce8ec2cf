"""No model object on the write path gets an attribute its class does not declare: what a fast
path needs is passed to it or returned by it (tabletop/scenes/fastpath), never hung on a scene,
a campaign, an event or a character (as ``scene.seen_by``, ``campaign.member_read_with_scene``
or ``event._noted_sheets`` once were).

Representative commands run through the socket's entry point (``actions.run_command``), their
broadcasts included, on both fast paths, while every model object's ``__setattr__`` is watched
and every model object made is kept, its ``__dict__`` read when the command is done (a write
into ``__dict__`` skips ``__setattr__``). Django's own code may set what it sets (annotations,
its caches); ours may set fields and what the class declares."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from django.db.models import Model

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.models import Scene, SceneEvent
from tests.support.tables import make_table, mira_and_troll
from tests.tabletop.systems.two_dice.tables import two_dice_table

pytestmark = pytest.mark.django_db(transaction=True)  # autocommit: broadcasts run in the command

#: What Django keeps on every instance.
DJANGO_OWN = frozenset({"_state", "_prefetched_objects_cache"})


def declared(obj: Model, name: str) -> bool:
    cls = type(obj)
    return (
        name in DJANGO_OWN
        or hasattr(cls, name)  # fields' descriptors, relations, properties, methods
        or name in {f.attname for f in cls._meta.concrete_fields}
    )


class Watch:
    """Every attribute set on a model object, by whom, and every model object made."""

    def __init__(self) -> None:
        self.undeclared: dict[tuple[int, str], str] = {}
        self.made: list[Model] = []
        self.by_django: set[tuple[int, str]] = set()
        self.sets = 0

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        init = Model.__init__

        def watched_init(obj: Model, *args: Any, **kwargs: Any) -> None:
            init(obj, *args, **kwargs)
            self.made.append(obj)

        def watched_setattr(obj: Model, name: str, value: Any) -> None:
            self.sets += 1
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if caller.startswith("django."):
                self.by_django.add((id(obj), name))
            elif not declared(obj, name):
                self.undeclared[(id(obj), name)] = f"{type(obj).__name__}.{name} (set in {caller})"
            object.__setattr__(obj, name, value)

        monkeypatch.setattr(Model, "__init__", watched_init)
        monkeypatch.setattr(Model, "__setattr__", watched_setattr, raising=False)

    def found(self) -> list[str]:
        """What was set outside ``__setattr__``'s sight too: each object's ``__dict__`` now."""
        seen = self.by_django | set(self.undeclared)
        extra = [
            f"{type(obj).__name__}.{name} (in its __dict__)"
            for obj in self.made
            for name in obj.__dict__
            if not declared(obj, name) and (id(obj), name) not in seen
        ]
        return sorted([*self.undeclared.values(), *extra])


@pytest.fixture
def watch(monkeypatch: pytest.MonkeyPatch) -> Watch:
    watching = Watch()
    watching.install(monkeypatch)
    return watching


def command(table: Any, user: Any, name: str, **data: Any) -> Any:
    return actions.run_command(command=name, scene_id=table.scene.pk, user=user, data=data)


def latest(table: Any, kind: str) -> SceneEvent:
    return SceneEvent.objects.filter(scene=table.scene, kind=kind).latest("seq")


def test_the_watch_sees_an_attribute_the_class_does_not_declare(watch):
    scene, event = Scene(name="Seen"), SceneEvent(seq=1)
    scene.name = "Renamed"  # a field: fine
    scene.seen_by = 7  # what the scene cache once hung on the scene
    event.__dict__["_noted_sheets"] = {}  # what the payment once wrote past __setattr__
    assert watch.found() == [
        "Scene.seen_by (set in tests.tabletop.scenes.test_declared_attributes)",
        "SceneEvent._noted_sheets (in its __dict__)",
    ]


def test_rolls_chat_a_spend_and_an_award_hang_nothing_on_model_objects(watch, fast_paths):
    table = make_table(system="conductor")
    hero, _troll = mira_and_troll(table, bennies=1)
    roll = {"roll_kind": "conductor_standard", "character": str(hero.pk)}
    command(table, table.alice, "roll", **roll, skill_name="Acrobatics", difficulty="30")
    made = latest(table, "roll")
    command(table, table.bob, "roll", roll_kind="expression", expression="2d6")  # as seen
    command(table, table.bob, "chat", text="Nice.")  # as seen
    command(table, table.alice, "benny", seq=made.seq)  # a spend on her roll
    command(table, table.gm, "award", character=str(hero.pk), field="bennies", amount="2")
    command(table, table.gm, "roll", roll_kind="expression", expression="d6", mode="gm")
    command(table, table.gm, "reveal", seq=latest(table, "roll").seq)
    assert [e.kind for e in SceneEvent.objects.filter(scene=table.scene, seq__gt=made.seq)] == [
        "roll", "chat", "benny", "award", "roll", "reveal"
    ]  # fmt: skip
    assert Character.objects.get(pk=hero.pk).sheet.bennies == 2
    assert watch.sets > 100 and len(watch.made) > 50  # it watched the commands
    found = watch.found()
    assert found == [], "\n".join(found)


def test_a_check_that_pays_from_the_sheet_hangs_nothing_on_model_objects(watch, fast_paths):
    table, cast = two_dice_table()
    tamsin = cast["tamsin"]
    check = {"attribute": "Agility", "difficulty": "Normal", "resource": "Stamina"}
    command(table, table.alice, "roll", roll_kind="two_dice", character=str(tamsin.pk), **check)
    command(table, table.alice, "roll", roll_kind="two_dice", character=str(tamsin.pk), **check)
    assert Character.objects.get(pk=tamsin.pk).sheet.resources["Stamina"]["current"] == 2
    found = watch.found()
    assert found == [], "\n".join(found)
