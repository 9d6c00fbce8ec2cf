"""Actions on live scenes: the only code that changes scene state and emits scene events.

Each action authorises its actor, runs in one transaction and records its events with
``record_event`` (broadcast after commit); ``tabletop.scenes.kit`` holds what they share. One
module per domain (as Zulip's ``zerver/actions``): ``scenes`` (scenes, presence), ``talk``
(chat lines and whispers), ``rolls`` (rolls and reveals), ``awards`` (the GM's awards),
``spends`` (what every spend shares), ``turns`` (the turn tracker). A game system's
actions live in its package (tabletop/systems/<slug>/). Each module's ``COMMANDS`` are
websocket commands (tabletop.scenes.commands); ``run_command`` is the one entry point for a
command from a socket (``commands.call_action`` calls the action itself).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError

from tabletop.scenes import commands, fastpath, record
from tabletop.scenes.actions import awards, rolls, talk, turns
from tabletop.scenes.actions.awards import award
from tabletop.scenes.actions.rolls import record_roll, reveal, roll
from tabletop.scenes.actions.scenes import (
    heartbeat,
    presence_announce,
    presence_arrive,
    presence_broadcast,
    presence_depart,
    presence_join,
    presence_leave,
    scene_close,
    scene_create,
    scene_open,
)
from tabletop.scenes.actions.talk import chat
from tabletop.scenes.actions.turns import (
    initiative_add,
    initiative_remove,
    initiative_set,
    initiative_start,
    initiative_turn,
    turns_act,
    turns_end,
    turns_join,
    turns_leave,
    turns_move,
    turns_react,
    turns_start,
    turns_stop,
)
from tabletop.scenes.command_threads import AT_ONCE, Sends
from tabletop.scenes.context import CommandContext
from tabletop.scenes.due import FollowUp, settle_due
from tabletop.scenes.modes import ROLL_MODES
from tabletop.scenes.rows import foe_for

commands.register(*talk.COMMANDS, *rolls.COMMANDS, *awards.COMMANDS, *turns.COMMANDS)

#: Every websocket command, the generic ones and every registered system's (name -> Command).
COMMANDS = commands.COMMANDS


class CommandRepeated(Exception):
    """The command was recorded already: the same command sent again (a resend after a
    reconnect, a retry after a timeout). It was made once; the sender hears it is done."""


def run_command(
    *,
    command: str,
    scene_id: int,
    user: Any,
    data: dict[str, Any],
    command_id: str = "",
    sends: Sends = AT_ONCE,
) -> FollowUp | None:
    """Run one websocket command: the scene read (or as last seen), the command's action
    called (``commands.call_action``), once however often it is sent. A returned
    ``FollowUp`` is due work to run when a window the command opened closes.

    ``command_id`` is the page's id for the command: its first event holds it (with the
    sender's user id), once per scene, so a command sent again is never made twice: its write
    fails on that and it raises ``CommandRepeated``. A frame that says it is sent ``again`` is
    checked first, as a repeat must not be refused by what its first run changed (a benny it
    already spent). ``sends``: where its events' broadcasts go (a command thread's ``Held``
    outlet, ``command_threads.run_in_scene``)."""
    key = f"{user.pk}:{command_id}" if command_id else ""
    if (
        key
        and data.get("again") is True
        and record.written_already(scene_id=scene_id, command_id=key)
    ):
        raise CommandRepeated(command_id)
    try:
        return _run(command, scene_id, user, data, key, sends)
    except IntegrityError:
        if key and record.written_already(scene_id=scene_id, command_id=key):
            raise CommandRepeated(command_id) from None
        raise


def _run(
    command: str, scene_id: int, user: Any, data: dict[str, Any], key: str, sends: Sends
) -> Any:
    """One command, on the scene as last seen when it can be (``fastpath``'s map).

    A command whose event checks the scene it went by (``Command.checks_scene``) runs on the
    scene as this process last saw it, without reading it; if its write finds the scene, its
    campaign or the actor's membership changed, or the command is refused (perhaps by what
    changed), nothing was written and it runs again on the scene read afresh."""
    found = COMMANDS[command]
    read = fastpath.scene_as_seen(scene_id, user=user) if found.checks_scene else None
    if read is not None:
        seq = read.scene.last_seq
        try:
            result = _run_on(read, command, user, data, key, sends)
        except (fastpath.SceneMoved, ValidationError, PermissionDenied):
            fastpath.forget_scene(scene_id)
            if read.scene.last_seq != seq:
                raise  # an event was written: what went wrong after it stands
        except BaseException:
            fastpath.forget_scene(scene_id)
            raise
        else:
            fastpath.saw_scene(read.scene)
            return result
    if not user.is_authenticated:
        raise PermissionDenied("Log in first.")
    read = fastpath.read_scene(scene_id, user=user)
    if read is None:
        raise ValidationError("That scene does not exist.")
    result = _run_on(read, command, user, data, key, sends)
    if found.checks_scene:
        fastpath.saw_scene(read.scene)
    return result


def _run_on(
    read: fastpath.SceneRead, command: str, user: Any, data: Any, key: str, sends: Sends
) -> Any:
    """One attempt at the command on ``read``, in a context of its own (``CommandContext``):
    its first event carries ``key`` and checks the scene as seen; its broadcasts go to
    ``sends``."""
    context = CommandContext.for_command(read, key, sends)
    return commands.call_action(
        command=command, scene=read.scene, user=user, data=data, context=context
    )


__all__ = [
    "COMMANDS",
    "CommandRepeated",
    "chat",
    "ROLL_MODES",
    "FollowUp",
    "award",
    "foe_for",
    "heartbeat",
    "presence_announce",
    "presence_arrive",
    "presence_broadcast",
    "presence_depart",
    "presence_join",
    "presence_leave",
    "record_roll",
    "roll",
    "reveal",
    "run_command",
    "scene_close",
    "scene_create",
    "scene_open",
    "settle_due",
    "initiative_add",
    "initiative_remove",
    "initiative_set",
    "initiative_start",
    "initiative_turn",
    "turns_act",
    "turns_end",
    "turns_join",
    "turns_leave",
    "turns_move",
    "turns_react",
    "turns_start",
    "turns_stop",
]
