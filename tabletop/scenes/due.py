"""Work that falls due in a scene: windows that close (a cancel window, a reaction window).

One mechanism: ``settle_due(scene_id=)`` runs the scene's system's due tasks (each settles what
has closed and says how many events it recorded). The consumer runs it when a command's window
closes (``follow_up``); the heartbeat runs it on every beat, the safety net when the process
that scheduled the follow-up died. Each passes its outlet for the broadcasts (``sends``) down
to the tasks, in their ``CommandContext``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from django.utils import timezone

from tabletop import systems
from tabletop.scenes.command_threads import AT_ONCE, Sends
from tabletop.scenes.context import CommandContext
from tabletop.scenes.models import Scene

#: A follow-up runs a moment after the window closes, never a moment early.
SLACK_SECONDS = 0.25


@dataclass(frozen=True)
class FollowUp:
    """Work a command leaves for later: run ``run(sends=...)`` after ``delay`` seconds."""

    delay: float
    run: Callable[..., Any]


def settle_due(*, scene_id: int, now: datetime | None = None, sends: Sends = AT_ONCE) -> int:
    """Settle whatever has fallen due in the scene; how many events that recorded (their
    broadcasts through ``sends``)."""
    scene = Scene.objects.select_related("campaign").filter(pk=scene_id).first()
    return 0 if scene is None else settle_due_in(scene, now=now, sends=sends)


def settle_due_in(scene: Scene, *, now: datetime | None = None, sends: Sends = AT_ONCE) -> int:
    """``settle_due`` on a scene already read (with its campaign)."""
    if not scene.is_open:
        return 0
    system = systems.find(scene.campaign.system)
    tasks = system.due if system is not None else ()
    return sum(task(scene=scene, now=now, context=CommandContext(sends=sends)) for task in tasks)


def follow_up(scene_id: int, closes_at: datetime) -> FollowUp:
    """Settle the scene's due work once ``closes_at`` has passed."""
    delay = max(0.0, (closes_at - timezone.now()).total_seconds()) + SLACK_SECONDS
    return FollowUp(delay=delay, run=partial(settle_due, scene_id=scene_id))
