"""The scene a command goes by: read with the actor's membership in one statement, or taken
from this process's cache of scenes as it last saw them, and handed down as a ``SceneRead``.

A scene (its row with its campaign's) is kept for the commands whose first write, their event,
checks that nothing they went by has changed (``Command.checks_scene``): they need not read the
scene first, a round trip per roll or chat line (bench/README.md). One command at a time per
scene uses its copy (``command_threads.run_in_scene``); anything else writes through rows of its
own, and a command that then finds the scene moved runs again on the scene read afresh
(``actions.run_command``). The command carries its read in its context (``CommandContext``): the
kit asks it whether the actor is a member before it queries the membership, and the command's
first event asks it whether its write must check the scene.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
