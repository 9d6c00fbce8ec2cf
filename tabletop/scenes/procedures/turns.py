"""The turn tracker panel (every system) and its state in ``Scene.state["turns"]``.

The tracker itself is ``rules.turns.TurnTracker`` (teams, rounds, one action per turn, one
reaction per round). Participants are the scene's characters, by id (``str(character.pk)``),
so a renamed character keeps its place. In two_dice a check can be declared *pending*
(``rules.two_dice.PendingAction``): others may hinder or resist it with their reaction while
the reaction window is open, then it rolls once with every penalty stacked.

State: ``{"tracker": TurnTracker.to_dict(), "pending": {"seq", "character_id", "closes_at",
"action": PendingAction.to_dict()} | None, "last": {"seq", "summary"} | None}``. Only the
actions in tabletop/scenes/actions/procedures.py change it, under the scene row's lock.
Nothing here is secret: the whole table sees the turn order and every reaction.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from typing import Any

from rules import two_dice
from rules.turns import TurnTracker
from tabletop.characters.models import Character
from tabletop.scenes.procedures import ProcedurePanel, register
from tabletop.scenes.rollkinds import percent

NAME = "turns"
#: Seconds the table has to hinder or resist a declared check before it rolls by itself.
REACTION_SECONDS = 15
#: The team a character joins unless the GM names another.
DEFAULT_TEAMS = {
    Character.Kind.PC: "Heroes",
    Character.Kind.FOE: "Foes",
    Character.Kind.NPC: "Others",
}


def roster(scene: Any) -> list[Character]:
    """The campaign's characters as the start form lists them: heroes first, then the rest."""
    first = {Character.Kind.PC: 0, Character.Kind.NPC: 1, Character.Kind.FOE: 2}
    characters = Character.objects.filter(campaign=scene.campaign)
    return sorted(characters, key=lambda c: (first.get(c.kind, 3), c.name.casefold(), c.pk))


def state_of(scene: Any) -> dict[str, Any]:
    return dict((scene.state or {}).get(NAME) or {})


def tracker_of(state: dict[str, Any]) -> TurnTracker:
    return TurnTracker.from_dict(state["tracker"]) if state.get("tracker") else TurnTracker()


def pending_of(state: dict[str, Any]) -> two_dice.PendingAction | None:
    pending = state.get("pending")
    return two_dice.PendingAction.from_dict(pending["action"]) if pending else None


def participant_id(character: Character) -> str:
    return str(character.pk)


# --- the panel ---------------------------------------------------------------------------------


def _member(tracker: TurnTracker, pid: str, characters: dict[str, Character]) -> dict[str, Any]:
    p = tracker.participant(pid)
    character = characters.get(pid)
    return {
        "id": pid,
        "name": p.name,
        "team": p.team,
        "owner_id": character.owner_id if character else None,
        "acted": pid in tracker.acted,
        "reaction_spent": pid in tracker.reacted,
        "can_act": tracker.started and tracker.can_act(pid),
        "can_react": tracker.started and tracker.can_react(pid),
    }


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
        {**members[pid], "may_resist": pid in action.targets}
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


_SUCCEEDING = (two_dice.SUCCESS, two_dice.CRITICAL_SUCCESS)


def context(scene: Any, viewer: Any) -> dict[str, Any]:
    state = state_of(scene)
    tracker = tracker_of(state)
    everyone = roster(scene)
    characters = {participant_id(c): c for c in everyone}
    members = {p.id: _member(tracker, p.id, characters) for p in tracker.participants}
    teams = [
        {
            "name": team,
            "current": team == tracker.current_team,
            "first": index == 0,
            "last": index == len(tracker.order) - 1,
            "members": [members[pid] for pid in tracker.members(team)],
        }
        for index, team in enumerate(tracker.order)
    ]
    current = [members[pid] for pid in tracker.members(tracker.current_team)]
    two_dice_rules = None
    if scene.campaign.system == "two_dice":
        two_dice_rules = scene.campaign.effective_ruleset()
    return {
        "turns": {
            "exists": bool(tracker.participants),
            "started": tracker.started,
            "round": tracker.round,
            "current_team": tracker.current_team,
            "teams": teams,
            "members": list(members.values()),
            "current": current,
            # Any player with a character on the current team may pass the turn on.
            "end_turn_for": sorted({m["owner_id"] for m in current if m["owner_id"]}),
            "pending": _pending_context(state, tracker, members),
            "last": state.get("last"),
        },
        "two_dice_rules": two_dice_rules,
        "roster": [
            {
                "character": c,
                "team": DEFAULT_TEAMS.get(c.kind, "Others"),
                "taking_turns": participant_id(c) in members,
            }
            for c in everyone
        ],
        "reaction_seconds": REACTION_SECONDS,
    }


def closes_at(state: dict[str, Any]) -> datetime | None:
    pending = state.get("pending")
    return datetime.fromisoformat(pending["closes_at"]) if pending else None


register(
    ProcedurePanel(
        name=NAME,
        label="Turns",
        systems=("*",),
        template="scenes/procedures/turns.html",
        context=context,
    )
)
