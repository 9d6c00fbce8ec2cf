"""The action kit: what every scene action does before and around its game logic.

``@scene_action`` authorises the actor (a member, or the GM), refuses a closed scene and a
campaign of another system, opens the transaction, locks the scene row (one move at a time per
scene: seqs stay gapless and procedure state never races) and turns a rule the engine refuses
(``RulesError``) into the player's error message. The action keeps only its game logic::

    @scene_action(gm=True, system=SLUG, what="Operation challenges")
    def challenge_call_off(*, scene, actor, context): ...

``scene`` inside is the locked row (with its campaign); ``context`` is the command's context
(``CommandContext``: a blank one for an action called outside a command), which the action
passes to ``record_event``. One lock order everywhere: an action on
one roll or spend (a benny, a heal, a reveal, a plot point) passes ``locks=False`` and locks that
row first (``rows.lock_roll``); ``record_event``'s write then takes the scene row. An action
that locked the scene first and a roll after could deadlock against it on PostgreSQL.
Actions get their dice from ``dice.game_dice`` (called through the module, so a test can
script them with ``tests.support.dice.script_dice``). Saving rows in few statements is the fast
paths' (``fastpath``); a procedure's state, ``procedures.state``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from django.core.exceptions import ValidationError
from django.db import transaction

from rules.core import RulesError
from tabletop import systems
from tabletop.scenes.access import membership, require_gm, require_open
from tabletop.scenes.context import CommandContext
from tabletop.scenes.fastpath import one_write
from tabletop.scenes.models import Scene

P = ParamSpec("P")
T = TypeVar("T")


@contextlib.contextmanager
def rules_say_no() -> Iterator[None]:
    """A move the rules refuse becomes the player's error message."""
    try:
        yield
    except RulesError as exc:
        raise ValidationError(str(exc)) from None


def lock_scene(scene: Scene) -> Scene:
    """The scene row, locked until commit (only that row: of=("self",) leaves the campaign row
    to others), with its campaign."""
    return Scene.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=scene.pk)


@contextlib.contextmanager
def scene_locked(scene: Scene, *, locks: bool = True) -> Iterator[Scene]:
    """The transaction, the scene row's lock and the rules' refusals as clear errors: the core
    of ``scene_action``, for due work no actor asks for (a window closing by itself)."""
    with transaction.atomic(), rules_say_no():
        yield lock_scene(scene) if locks else scene


def require_system(scene: Scene, slug: str, what: str) -> None:
    """Refuse an action of one system in a campaign of another."""
    if scene.campaign.system != slug:
        found = systems.find(slug)
        name = found.label.split(" (")[0] if found else slug
        raise ValidationError(f"{what} belong to the {name} system.")


def scene_action(
    *,
    gm: bool = False,
    system: str | None = None,
    what: str = "These moves",
    needs_open: bool = True,
    locks: bool = True,
    atomic: bool = True,
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Wrap an action ``f(*, scene, actor, context, ...)``, called as ``f(*, scene, actor,
    context=None, ...)`` (``context``: the command's ``CommandContext``, blank if None):
    authorise (``gm``: the GM only; else any member), refuse a scene that is not open
    (``needs_open``) and a campaign of another system (``system``, with ``what`` naming the
    moves in the error), then run it in one transaction with the scene row locked (``locks``)
    and the rules' refusals as clear errors. ``atomic=False`` (with ``locks=False``): no
    transaction is opened for the action, which runs under ``fastpath.one_write`` (marked on
    its context): its one write, its event, commits on its own, and where
    it writes more it opens ``transaction.atomic`` itself. Its first write must be its event
    (``record_event``): that write checks the scene the command went by, so its command may run
    on the scene as this process last saw it (``writes_event_first``)."""
    assert atomic or not locks, "a locked scene row needs the transaction"

    def wrap(action: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(action)
        def run(
            *, scene: Scene, actor: Any, context: CommandContext | None = None, **kwargs: Any
        ) -> T:
            context = context if context is not None else CommandContext()
            if gm:
                require_gm(scene.campaign, actor)
            else:
                membership(scene.campaign, actor, context)
            if needs_open:
                require_open(scene)
            if system is not None:
                require_system(scene, system, what)
            if not atomic:
                with rules_say_no(), one_write(context):
                    return action(scene=scene, actor=actor, context=context, **kwargs)
            with scene_locked(scene, locks=locks) as locked:
                return action(scene=locked, actor=actor, context=context, **kwargs)

        if not atomic:
            _EVENT_FIRST.add(run)
        return run  # type: ignore[return-value]

    return wrap


#: The actions declared ``scene_action(atomic=False)``: their first write is their event.
_EVENT_FIRST: set[Callable[..., Any]] = set()


def writes_event_first(action: Callable[..., Any]) -> bool:
    """Whether ``action``'s first write is its event, which checks the scene it went by (a
    ``scene_action(atomic=False)``): its command may run on the scene as last seen."""
    return action in _EVENT_FIRST
