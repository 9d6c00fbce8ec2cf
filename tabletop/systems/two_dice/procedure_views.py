"""two_dice on the turn tracker's view: the check waiting for hinder and resist, and the forms
that declare one (``TurnExtras``, registered as the system's ``extra["turns"]``)."""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from typing import Any

from django.utils import timezone

from rules import two_dice
from rules.turns import TurnTracker
from tabletop.systems.api import TurnExtras, percent

_SUCCEEDING = (two_dice.SUCCESS, two_dice.CRITICAL_SUCCESS)


def pending_of(state: dict[str, Any]) -> two_dice.PendingAction | None:
    """The declared check waiting for reactions, if any."""
    pending = state.get("pending")
    return two_dice.PendingAction.from_dict(pending["action"]) if pending else None


def window_open(pending: dict[str, Any], now: datetime | None = None) -> bool:
    """Whether the pending check's reaction window is still open (the acting player may not
    roll it yet: ``checks.check_resolve`` refuses until it closes)."""
    return (now or timezone.now()) < datetime.fromisoformat(pending["closes_at"])


def _pending_context(
    state: dict[str, Any],
    tracker: TurnTracker,
    members: dict[str, dict[str, Any]],
    now: datetime | None = None,
) -> dict[str, Any] | None:
    """The check waiting for reactions as the table sees it: what it rolls, its odds, each
    target, the reactions so far and who may still react; None when no check waits."""
    raw = state.get("pending")
    if not raw:
        return None
    declared = two_dice.PendingAction.from_dict(raw["action"])
    odds = declared.odds()
    success = odds[two_dice.SUCCESS] + odds[two_dice.CRITICAL_SUCCESS]
    return {
        "seq": raw["seq"],
        "actor": members.get(declared.actor, {"name": declared.actor, "owner_id": None}),
        "attribute": declared.attribute,
        "attribute_value": declared.attribute_value,
        "difficulty": declared.difficulty,
        "payment": declared.payment,
        "closes_at": raw["closes_at"],
        # While it is open the check rolls by itself when it closes (or by the GM): the acting
        # player is offered "Roll my check" only once it has closed and the roll is late.
        "window_open": window_open(raw, now),
        "known_penalty": declared.known_penalty(),
        "success": percent(success),
        "targets": _targets_of(declared, members),
        "oppositions": _oppositions_of(declared, members),
        "reactors": _reactors_of(declared, members),
    }


def _member_name(members: dict[str, dict[str, Any]], pid: str) -> str:
    """A participant's name; its id when it is not among the members."""
    return members[pid]["name"] if pid in members else pid


def _targets_of(
    declared: two_dice.PendingAction, members: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each target of the check: the penalty known against it, and the check's chance of
    success against it."""
    return [
        {
            "id": t,
            "name": _member_name(members, t),
            "penalty": declared.known_penalty(t),
            "success": percent(
                sum((p for b, p in declared.odds(t).items() if b in _SUCCEEDING), Fraction(0))
            ),
        }
        for t in declared.targets
    ]


def _oppositions_of(
    declared: two_dice.PendingAction, members: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The hinders and resists rolled so far: who, their total, and the penalty each laid."""
    return [
        {
            "kind": o.kind,
            "reactor": _member_name(members, o.reactor),
            "total": o.reaction.total,
            "succeeded": o.reaction.succeeded,
            "penalty": o.penalty.amount if o.penalty else None,
        }
        for o in declared.oppositions
    ]


def _reactors_of(
    declared: two_dice.PendingAction, members: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """Who may still react (not the actor, not who already has, only who has a reaction left),
    each with what a successful hinder or resist would buy, in numbers and in words."""
    opposed = {o.reactor for o in declared.oppositions}
    reactors = []
    for pid in members:
        if pid == declared.actor or pid in opposed or not members[pid]["can_react"]:
            continue
        buys = _what_it_buys(declared, pid)
        label = _buys_label(_member_name(members, declared.actor), members[pid]["name"], buys)
        reactors.append(
            {**members[pid], "may_resist": pid in declared.targets, "buys": buys, "label": label}
        )
    return reactors


def _what_it_buys(declared: two_dice.PendingAction, reactor: str) -> list[dict[str, str]]:
    """What a successful hinder (and, for a target, resist) would do to the action: its chance
    of success and of every other band, before → after (exact, over the penalty die: rules
    ``opposition_effect``)."""
    kinds = [two_dice.HINDER] + ([two_dice.RESIST] if reactor in declared.targets else [])
    out = []
    for kind in kinds:
        effect = two_dice.opposition_effect(declared, opposition=kind, reactor=reactor)
        bands = ", ".join(
            f"{_BAND_WORDS[band]} {percent(effect.before[band])} → {percent(effect.after[band])}"
            for band in two_dice.BANDS
            if effect.before[band] or effect.after[band]
        )
        out.append(
            {
                "kind": kind,
                "now": percent(effect.success_before),
                "then": percent(effect.success_after),
                "bands": bands,
            }
        )
    return out


#: The bands in the words of the seed's "Making Checks".
_BAND_WORDS = {
    two_dice.CRITICAL_FAILURE: "critical failure",
    two_dice.FAILURE: "failure",
    two_dice.SUCCESS: "success",
    two_dice.CRITICAL_SUCCESS: "critical success",
}


def _buys_label(actor: str, reactor: str, buys: list[dict[str, str]]) -> str:
    """The reaction button's accessible name: what a successful reaction buys, in words."""
    said = "; ".join(
        f"a successful {b['kind']}: {actor}'s check succeeds {b['now']} to {b['then']}"
        + (f" against {reactor}" if b["kind"] == two_dice.RESIST else "")
        for b in buys
    )
    return f"Roll the reaction for {reactor} ({said})"


def turn_context(
    scene: Any, state: dict[str, Any], tracker: TurnTracker, members: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    ruleset = scene.campaign.effective_ruleset()
    return {
        "pending": _pending_context(state, tracker, members),
        "two_dice_rules": ruleset,
        "reaction_seconds": ruleset["reaction_seconds"],
    }


TURN_EXTRAS = TurnExtras(
    template="systems/two_dice/procedures/turn_checks.html", context=turn_context
)
