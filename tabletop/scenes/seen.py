"""The scene cache: each scene as this process last saw it, for commands that need not read it.

A scene (its row with its campaign's) is kept for the commands whose first write, their event,
checks that nothing they went by has changed (``Command.checks_scene``,
``record.record_event``): they need not read the scene first, a round trip per roll or chat
line (bench/README.md). One command at a time per scene uses its copy
(``outbox.run_in_scene``); anything else writes through rows of its own, and a command that
then finds the scene moved runs again on the scene read afresh.
"""

from __future__ import annotations

from typing import Any

from tabletop.scenes.models import Scene

_seen: dict[int, Scene] = {}
SEEN_SCENES = 1024  # the most kept: the open scenes of one process


def scene_as_seen(scene_id: int, *, user: Any) -> Scene | None:
    """The scene as this process last saw it, for ``user``'s command (its event's write checks
    ``user``'s membership: ``seen_by``), or None when it has no copy."""
    scene = _seen.get(scene_id)
    if scene is None or not user.is_authenticated:
        return None
    scene.seen_by = user.pk
    scene.campaign.member_read_with_scene = user.pk  # the kit asks no more: the write checks it
    return scene


def saw_scene(scene: Scene) -> None:
    """Keep ``scene`` (as a command left it: its seq and head moved with its event) for the
    next command on it."""
    scene.__dict__.pop("seen_by", None)
    _seen.pop(scene.pk, None)
    _seen[scene.pk] = scene  # the newest last: the first is the longest unused
    if len(_seen) > SEEN_SCENES:
        _seen.pop(next(iter(_seen)), None)


def forget_scene(scene_id: int) -> None:
    _seen.pop(scene_id, None)
