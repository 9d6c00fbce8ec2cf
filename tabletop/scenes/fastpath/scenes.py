"""The scene a command goes by: read with the actor's membership in one statement, or taken
from this process's cache of scenes as it last saw them, and handed down as a ``SceneRead``.

A scene (its row with its campaign's) is kept for the commands whose first write, their event,
checks that nothing they went by has changed (``Command.checks_scene``): they need not read the
scene first, a round trip per roll or chat line (bench/README.md). One command at a time per
scene uses its copy (``command_threads.run_in_scene``); anything else writes through rows of its
own, and a command that then finds the scene moved runs again on the scene read afresh
(``actions.run_command``). While a command runs (``running_on``), the kit asks ``member_known``
before it queries the membership, and the command's first event asks ``check_as_seen`` whether
its write must check the scene.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from tabletop.campaigns.models import Campaign
from tabletop.scenes.fastpath import statements
from tabletop.scenes.models import Scene


@dataclass(frozen=True)
class SceneRead:
    """A scene as a command read it, with its campaign, for one user.

    ``member``: whether the user is a member of the campaign, read in the same statement. For a
    scene ``as_seen`` (this process's copy, not read for the command) it is assumed, and the
    command's first write checks it with the scene and campaign rows: nothing is written unless
    all three are still what the command went by (``SceneMoved``)."""

    scene: Scene
    user_id: int
    member: bool
    as_seen: bool = False


class SceneMoved(Exception):
    """The scene as this process last saw it is not the scene any more (an event came, its
    campaign or the actor's membership changed): nothing was written, and the command runs
    again on the scene read afresh (``actions.run_command``)."""


def read_scene(scene_id: int, *, user: Any) -> SceneRead | None:
    """The scene, its campaign and whether ``user`` is a member, in one statement (every socket
    opening and every command asks), or None when there is no such scene."""
    found = statements.scene_read(scene_id, user.pk)
    if found is None:
        return None
    scene, member = found
    return SceneRead(scene, user.pk, member)


_seen: dict[int, Scene] = {}
SEEN_SCENES = 1024  # the most kept: the open scenes of one process


def scene_as_seen(scene_id: int, *, user: Any) -> SceneRead | None:
    """The scene as this process last saw it, for ``user``'s command (its first write checks
    the scene, its campaign and ``user``'s membership), or None when it has no copy."""
    scene = _seen.get(scene_id)
    if scene is None or not user.is_authenticated:
        return None
    return SceneRead(scene, user.pk, member=True, as_seen=True)


def saw_scene(scene: Scene) -> None:
    """Keep ``scene`` (as a command left it: its seq and head moved with its event) for the
    next command on it."""
    _seen.pop(scene.pk, None)
    _seen[scene.pk] = scene  # the newest last: the first is the longest unused
    if len(_seen) > SEEN_SCENES:
        _seen.pop(next(iter(_seen)), None)


def forget_scene(scene_id: int) -> None:
    _seen.pop(scene_id, None)


@dataclass
class _Running:
    read: SceneRead
    unchecked: bool = field(default=False)  # a scene as seen whose first write is still to come


_running: ContextVar[_Running | None] = ContextVar("scene_read", default=None)


@contextlib.contextmanager
def running_on(read: SceneRead) -> Iterator[None]:
    """Run one command on ``read``: what the kit and the first event ask below."""
    token = _running.set(_Running(read, unchecked=read.as_seen))
    try:
        yield
    finally:
        _running.reset(token)


def member_known(campaign: Campaign, user: Any) -> bool | None:
    """Whether ``user`` is a member of ``campaign`` as the running command's read says (the
    same campaign object, the same user), or None when it says nothing about them."""
    running = _running.get()
    if running is None:
        return None
    read = running.read
    if read.user_id != user.pk or read.scene.campaign is not campaign:
        return None
    return read.member


def check_as_seen(scene: Scene) -> SceneRead | None:
    """The scene as seen that this event's write must check: the running command's copy, for
    its first event only (later ones are numbered as usual); None otherwise."""
    running = _running.get()
    if running is None or not running.unchecked or running.read.scene is not scene:
        return None
    running.unchecked = False
    return running.read
