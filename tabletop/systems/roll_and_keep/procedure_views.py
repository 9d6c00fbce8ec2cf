"""The contests view (roll_and_keep): directly and indirectly opposed actions and extended
actions, each side rolled live by its player (or the GM).

State: ``Scene.state["contests"] = {"next": id, "next_secret": id, "items": [item]}`` (read
and written through the action kit's ``procedure_state`` and ``store_state``); an item is
``{"id", "kind": "direct" | "indirect" | "extended", "difficulty", "sides": [side], ...}`` where
a side is the character's dice fixed when the GM set it up (``character_id``, ``name``,
``attribute``, ``attribute_value``, ``specialities``, ``rolled``, ``kept``, ``roll``).
A direct item has two sides and a ``result`` (net, winner); an indirect one the ``passive``
character (whose attribute and specialities make the difficulty) and ``secret``; an extended one
``task`` and ``action`` (``rules.roll_and_keep.ExtendedAction.to_dict()``).

A secret indirect contest belongs to the GM alone: the players' rendering never sees the item
(not its existence, not the passive character's difficulty).
"""

from __future__ import annotations

from typing import Any

from rules import roll_and_keep as rak
from tabletop.systems.api import ProcedureView, percent, procedure_state
from tabletop.systems.roll_and_keep.models import RollAndKeepSheet

NAME = "contests"


def state_of(scene: Any) -> dict[str, Any]:
    """The view's state (read through the kit, as every procedure's), with its counters: a new
    view's first contest is #1, its first secret one #s1."""
    state = procedure_state(scene, NAME) or {}
    state.setdefault("next", 1)
    state.setdefault("next_secret", 1)
    state.setdefault("items", [])
    return state


def _odds(item: dict[str, Any], ruleset: Any) -> str:
    """What the view says about the chances before the dice roll."""
    sides = item["sides"]
    if item["kind"] == "direct":
        a, b = sides
        odds = rak.direct_contest_odds(
            rolled=a["rolled"],
            kept=a["kept"],
            opponent_rolled=b["rolled"],
            opponent_kept=b["kept"],
            difficulty=item["difficulty"],
            ruleset=ruleset,
        )
        return (
            f"{a['name']} wins {percent(odds.win)} · tie {percent(odds.tie)} · "
            f"{b['name']} wins {percent(odds.lose)}"
        )
    side = sides[0]
    if item["difficulty"] > rak.SIDES:
        return "No d10 can meet a difficulty over 10: no success is possible."
    if item["kind"] == "indirect":
        odds = rak.indirect_odds(
            rolled=side["rolled"],
            kept=side["kept"],
            passive_attribute_value=item["passive"]["attribute_value"],
            passive_specialities=len(item["passive"]["specialities"]),
            ruleset=ruleset,
        )
    else:
        odds = rak.odds(
            rolled=side["rolled"], kept=side["kept"], difficulty=item["difficulty"], ruleset=ruleset
        )
    return (
        f"At least one success {percent(odds.at_least_one_success)} · botch {percent(odds.botch)}"
    )


def _view(item: dict[str, Any], owners: dict[int, int], ruleset: Any) -> dict[str, Any]:
    view = {**item, "odds": _odds(item, ruleset)}
    finished = False
    if item["kind"] == "extended":
        finished = rak.ExtendedAction.from_dict(item["action"]).finished
    view["sides"] = [
        {
            **side,
            "index": i,
            "owner_id": owners.get(side["character_id"]),
            # An extended action rolls round after round until it succeeds or fails.
            "can_roll": not finished if item["kind"] == "extended" else side["roll"] is None,
        }
        for i, side in enumerate(item["sides"])
    ]
    if item["kind"] == "extended":
        action = rak.ExtendedAction.from_dict(item["action"])
        view["progress"] = {
            "accumulated": action.accumulated,
            "target": action.target,
            "minimum": action.minimum,
            "rounds": [r.to_dict() for r in action.rounds],
            "status": action.status.value,
            "finished": action.finished,
            "remaining": action.remaining,
        }
        view["open"] = not action.finished
    else:
        view["open"] = any(side["roll"] is None for side in item["sides"])
    return view


def context(scene: Any, viewer: Any) -> dict[str, Any]:
    state = state_of(scene)
    ruleset = scene.campaign.effective_ruleset()
    characters = list(
        RollAndKeepSheet.objects.filter(campaign=scene.campaign).order_by("role", "name")
    )
    owners = {c.pk: c.owner_id for c in characters}
    items = [
        _view(item, owners, ruleset)
        for item in state.get("items", [])
        # A secret contest is the GM's alone: nothing of it enters a player's rendering.
        if viewer.is_gm or not item.get("secret")
    ]
    return {
        "contests": items,
        "characters": characters,
        "rules": ruleset,
    }


VIEW = ProcedureView(
    name=NAME,
    label="Opposed and extended actions",
    template="systems/roll_and_keep/procedures/contests.html",
    context=context,
)
