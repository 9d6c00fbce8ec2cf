"""two_dice on the turn tracker's panel: the check waiting for hinder and resist, and the forms
that declare one (``TurnExtras``, registered as the system's ``extra["turns"]``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rules import two_dice
from rules.turns import TurnTracker
from tabletop.scenes.procedures.turns import TurnExtras
from tabletop.scenes.rollkinds import percent

_SUCCEEDING = (two_dice.SUCCESS, two_dice.CRITICAL_SUCCESS)


def pending_of(state: dict[str, Any]) -> two_dice.PendingAction | None:
    """The declared check waiting for reactions, if any."""
    pending = state.get("pending")
    return two_dice.PendingAction.from_dict(pending["action"]) if pending else None


def _pending_context(
    state: dict[str, Any], tracker: TurnTracker, members: dict[str, dict[str, Any]]
) -> dict[str, Any] | None:
    raw = state.get("pending")
    if not raw:
        return None
    action = two_dice.PendingAction.from_dict(raw["action"])
    opposed = {o.reactor for o in action.oppositions}

    def name(pid: str) -> str:
        return members[pid]["name"] if pid in members else pid

    odds = action.odds()
    success = odds[two_dice.SUCCESS] + odds[two_dice.CRITICAL_SUCCESS]
    targets = [
        {
            "id": t,
            "name": name(t),
            "penalty": action.known_penalty(t),
            "success": percent(
                sum((p for b, p in action.odds(t).items() if b in _SUCCEEDING), Fraction(0))
            ),
        }
        for t in action.targets
    ]
    reactors = [
        {**members[pid], "may_resist": pid in action.targets, "buys": _what_it_buys(action, pid)}
        for pid in members
        if pid != action.actor and pid not in opposed and members[pid]["can_react"]
    ]
    return {
        "seq": raw["seq"],
        "actor": members.get(action.actor, {"name": action.actor, "owner_id": None}),
        "attribute": action.attribute,
        "attribute_value": action.attribute_value,
        "difficulty": action.difficulty,
        "payment": action.payment,
        "closes_at": raw["closes_at"],
        "known_penalty": action.known_penalty(),
        "success": percent(success),
        "targets": targets,
        "oppositions": [
            {
                "kind": o.kind,
                "reactor": name(o.reactor),
                "total": o.reaction.total,
                "succeeded": o.reaction.succeeded,
                "penalty": o.penalty.amount if o.penalty else None,
            }
            for o in action.oppositions
        ],
        "reactors": reactors,
    }


def _what_it_buys(action: two_dice.PendingAction, reactor: str) -> list[dict[str, str]]:
    """What a successful hinder (and, for a target, resist) would do to the action's chance of
    success (exact, over the penalty die: rules ``success_if_opposed``)."""
    kinds = [two_dice.HINDER] + ([two_dice.RESIST] if reactor in action.targets else [])
    out = []
    for kind in kinds:
        now, then = action.success_if_opposed(kind, reactor)
        out.append({"kind": kind, "now": percent(now), "then": percent(then)})
    return out


def turn_context(
    scene: Any, state: dict[str, Any], tracker: TurnTracker, members: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    ruleset = scene.campaign.effective_ruleset()
    return {
        "pending": _pending_context(state, tracker, members),
        "two_dice_rules": ruleset,
        "reaction_seconds": ruleset["reaction_seconds"],
    }


TURN_EXTRAS = TurnExtras(template="systems/two_dice/panels/turn_checks.html", context=turn_context)
