"""Actions on live scenes: the only code that changes scene state and emits scene events.

Each action authorises its actor, runs in one transaction and records its events with
``record_event`` (broadcast after commit). One module per domain (as Zulip's ``zerver/actions``):
``scenes`` (scenes, presence), ``rolls`` (rolls, reveals, strike-backs), ``spends`` (bennies,
awards, plot points). Each module's ``COMMANDS`` maps websocket commands to small parsers that
call its actions; ``run_command`` is the consumer's only entry point.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop.scenes.actions import base, challenges, expedition, procedures, rolls, spends
from tabletop.scenes.actions.base import FollowUp, foe_for
from tabletop.scenes.actions.challenges import (
    challenge_adjust,
    challenge_call_off,
    challenge_reveal,
    challenge_setup,
    challenge_toolkit,
)
from tabletop.scenes.actions.expedition import (
    expedition_choose_action,
    expedition_choose_travel,
    expedition_end,
    expedition_end_phase,
    expedition_forage_benny,
    expedition_party,
    expedition_start,
    heal_apply,
)
from tabletop.scenes.actions.rolls import ROLL_MODES, roll_make, roll_reveal, strike_back_accept
from tabletop.scenes.actions.scenes import (
    presence_broadcast,
    presence_join,
    presence_leave,
    scene_close,
    scene_create,
    scene_heartbeat,
    scene_open,
)
from tabletop.scenes.actions.spends import (
    ADJUSTABLE,
    CHANGE_USES,
    SPEND_STATES,
    benny_spend,
    currency_adjust,
    plot_spend,
    plot_spend_cancel,
    plot_spend_decide,
    plot_spend_settle,
    settle_due,
)
from tabletop.scenes.models import Scene

COMMANDS: dict[str, Callable[[Scene, Any, dict[str, Any]], FollowUp | None]] = {
    **rolls.COMMANDS,
    **spends.COMMANDS,
    **challenges.COMMANDS,
    **expedition.COMMANDS,
    **procedures.COMMANDS,
}


def run_command(*, command: str, scene_id: int, user: Any, data: dict[str, Any]) -> FollowUp | None:
    """Dispatch one websocket command to its action (the consumer's only entry point). A
    returned ``FollowUp`` is work to run after its delay (a spend's cancel window closing)."""
    scene = base.open_scene(scene_id, user=user)
    return COMMANDS[command](scene, user, data)


__all__ = [
    "ADJUSTABLE",
    "CHANGE_USES",
    "COMMANDS",
    "ROLL_MODES",
    "SPEND_STATES",
    "FollowUp",
    "base",
    "benny_spend",
    "challenge_adjust",
    "challenge_call_off",
    "challenge_reveal",
    "challenge_setup",
    "challenge_toolkit",
    "currency_adjust",
    "expedition_choose_action",
    "expedition_choose_travel",
    "expedition_end",
    "expedition_end_phase",
    "expedition_forage_benny",
    "expedition_party",
    "expedition_start",
    "foe_for",
    "heal_apply",
    "plot_spend",
    "plot_spend_cancel",
    "plot_spend_decide",
    "plot_spend_settle",
    "presence_broadcast",
    "presence_join",
    "presence_leave",
    "scene_heartbeat",
    "roll_make",
    "roll_reveal",
    "run_command",
    "scene_close",
    "scene_create",
    "scene_open",
    "settle_due",
    "strike_back_accept",
]
