"""The turn tracker view (every system) and its state in ``Scene.state["turns"]``.

The tracker itself is ``rules.turns.TurnTracker`` (teams, rounds, one action per turn, one
reaction per round). Participants are the scene's characters, by id (``str(character.pk)``),
so a renamed character keeps its place. A system may add to the tracker (``TurnExtras``, its
``System.turns``): an action declared *pending*, which others may react to while its
window is open (two_dice's hinder and resist), with the template that shows it.

State: ``{"tracker": TurnTracker.to_dict(), "pending": {"seq", "closes_at", "involved": [ids],
...the system's own keys} | None, "last": {"seq", "summary"} | None}``. Only the turn actions
(tabletop/scenes/actions/turns.py) and the system's change it, under the scene row's lock.
Nothing here is secret: the whole table sees the turn order and every reaction.

A system whose turns are an initiative order (``System.initiative``) shows the tracker as its
entries, sorted by initiative (``scenes/procedures/initiative.html``), and the GM builds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rules.turns import TurnTracker
from tabletop import systems
from tabletop.characters.models import Character
from tabletop.scenes.procedures import ProcedureView, register

NAME = "turns"
#: The team a character joins unless the GM names another.
DEFAULT_TEAMS = {
    Character.Role.PC: "Heroes",
    Character.Role.FOE: "Foes",
    Character.Role.NPC: "Others",
}


def roster(scene: Any) -> list[Character]:
    """The campaign's characters as the start form lists them: heroes first, then the rest."""
    return Character.in_table_order(Character.objects.of_campaign(scene.campaign))


def state_of(scene: Any) -> dict[str, Any]:
    return dict((scene.state or {}).get(NAME) or {})


def tracker_of(state: dict[str, Any]) -> TurnTracker:
    return TurnTracker.from_dict(state["tracker"]) if state.get("tracker") else TurnTracker()


def involved_in_pending(state: dict[str, Any]) -> set[str]:
    """Participants a pending action names (its actor and targets): they may not leave."""
    pending = state.get("pending")
    return {str(pid) for pid in pending.get("involved", ())} if pending else set()


@dataclass(frozen=True)
class TurnExtras:
    """What a system adds to the turn tracker: ``template`` (included in the view),
    ``context(scene, state, tracker, members) -> dict`` for it, with ``pending`` (the pending
    action as the template shows it, or None)."""

    template: str
    context: Callable[..., dict[str, Any]]


def by_initiative(scene: Any, tracker: TurnTracker) -> bool:
    """The tracker shows (and the GM builds) an initiative order: one runs, or none does and
    the system's turns go by initiative."""
    if tracker.participants:
        return tracker.by_initiative
    system = systems.find(scene.campaign.system)
    return system is not None and system.initiative


def extras_for(scene: Any) -> TurnExtras | None:
    system = systems.find(scene.campaign.system)
    return system.turns if system is not None else None


def participant_id(character: Character) -> str:
    return str(character.pk)


# --- the view ----------------------------------------------------------------------------------


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


def _names(names: list[str]) -> str:
    """ "Kestrel", "Kestrel and Brannoc", "Kestrel, Brannoc and Wren"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def end_turn_confirm(tracker: TurnTracker) -> str:
    """What a player confirms before ending the team's turn while a member has not acted (their
    action would be gone with the turn); "" once everyone has."""
    waiting = [tracker.participant(pid).name for pid in tracker.waiting()]
    if not tracker.started or not waiting:
        return ""
    verb = "has" if len(waiting) == 1 else "have"
    return (
        f"{_names(waiting)} {verb} not acted yet. "
        f"End {tracker.current_team}'s turn anyway? Their action this turn is lost."
    )


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
    extras = extras_for(scene)
    added = extras.context(scene, state, tracker, members) if extras is not None else {}
    entries = _entries(tracker)
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
            "end_turn_confirm": end_turn_confirm(tracker),
            "pending": added.pop("pending", None),
            "last": state.get("last"),
            "initiative": by_initiative(scene, tracker),
            "entries": entries,
            "current_name": next((e["name"] for e in entries if e["current"]), ""),
        },
        "turn_extras": extras.template if extras is not None else "",
        **added,
        "roster": [
            {
                "character": c,
                "team": DEFAULT_TEAMS.get(c.role, "Others"),
                "taking_turns": participant_id(c) in members,
            }
            for c in everyone
        ],
    }


def _entries(tracker: Any) -> list[dict[str, Any]]:
    """An initiative order's entries, each its own turn, in the order's order."""
    if not tracker.by_initiative:
        return []
    return [
        {
            "id": pid,
            "name": tracker.participant(pid).name,
            "initiative": tracker.participant(pid).initiative,
            "current": pid == tracker.current_team,
        }
        for pid in tracker.order
    ]


def closes_at(state: dict[str, Any]) -> datetime | None:
    pending = state.get("pending")
    return datetime.fromisoformat(pending["closes_at"]) if pending else None


register(
    ProcedureView(
        name=NAME,
        label="Turns",
        template="scenes/procedures/turns.html",
        context=context,
    )
)
