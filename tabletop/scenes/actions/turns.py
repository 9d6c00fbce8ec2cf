"""The turn tracker, in every system (seed 003's action economy; offered everywhere):
teams, turns and rounds, one action per turn and one reaction per round; or, in a system whose
turns are an initiative order (``System.initiative``), entries (a character or a free name)
sorted by the initiative the GM rolls or types, the turn moving down it. State: the
``turns`` view's ``Scene.state`` entry, changed only by these actions (and a system's, as
two_dice's checks) through ``procedures.state``, under the scene row's lock."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from rules import expression
from rules.core import Rng, lookup
from rules.turns import TurnTracker
from tabletop.characters.models import Character
from tabletop.scenes import dice
from tabletop.scenes.access import require_player
from tabletop.scenes.commands import Blank, Choice, Command, Member, Parsed, Rolling, Text, Whole
from tabletop.scenes.context import CommandContext
from tabletop.scenes.kit import rules_say_no, scene_action
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.procedures import turns as turns_view
from tabletop.scenes.procedures.state import procedure_state, store_state
from tabletop.scenes.record import record_event

# --- the turn tracker (every system) -------------------------------------------------------------


def _turn_event(
    scene: Scene, actor: Any, message: str, *, context: CommandContext | None = None, **extra: Any
) -> SceneEvent:
    return record_event(
        scene=scene,
        kind="turn",
        actor=actor,
        public={"message": message, **extra},
        context=context,
    )


def turn_to(scene: Scene, tracker: TurnTracker) -> list[int]:
    """The members whose characters' turn it is now (they are told: tabletop/notify)."""
    if not tracker.started or not tracker.current_team:
        return []
    ids = [int(p) for p in tracker.members(tracker.current_team) if p.isdigit()]
    owners = Character.objects.filter(campaign=scene.campaign, pk__in=ids)
    return sorted(set(owners.values_list("owner_id", flat=True)))


def turns_state(scene: Scene) -> tuple[dict[str, Any], TurnTracker]:
    """The turn tracker's state on the locked scene (a system's pending action is in it), and
    its tracker."""
    state = procedure_state(scene, turns_view.NAME) or {}
    with rules_say_no():
        return state, turns_view.tracker_of(state)


def close_pending(scene: Scene, seq: int, **changes: Any) -> SceneEvent | None:
    """Mark the card of a pending action (rolled, dropped): its event's public status."""
    declared = SceneEvent.objects.select_for_update().filter(scene=scene, seq=seq).first()
    if declared is not None:
        declared.public.update(changes)
        declared.save(update_fields=["public"])
    return declared


def require_started(tracker: TurnTracker) -> None:
    if not tracker.started:
        raise ValidationError("The GM has not started the turns.")


def _team_name(raw: Any, default: str) -> str:
    team = str(raw or "").strip() or default
    if len(team) > 40:
        raise ValidationError("Keep team names under 40 characters.")
    return team


@scene_action(gm=True)
def turns_start(
    *, scene: Scene, actor: Any, lineup: Iterable[tuple[Character, str]], context: CommandContext
) -> SceneEvent:
    """The GM starts the turns with the scene's characters in teams (seed 003 "Turn Order": "if
    you find the characters in a scene grouped into teams, have the teams take turns
    together"). Teams go in the order they are first named; the GM may reorder them."""
    lineup = list(lineup)
    if not lineup:
        raise ValidationError("Pick at least one character to take turns.")
    state, tracker = turns_state(scene)
    if tracker.participants:
        raise ValidationError("The turns are already running: end them first.")
    tracker = TurnTracker()
    with rules_say_no():
        for character, team in lineup:
            if character.campaign_id != scene.campaign_id:
                raise ValidationError("That character is not in this campaign.")
            tracker, _ = tracker.add_participant(
                turns_view.participant_id(character), name=character.name, team=team
            )
        tracker, event = tracker.start()
    store_state(scene, turns_view.NAME, {"tracker": tracker.to_dict(), "pending": None})
    order = "; ".join(
        f"{team}: {', '.join(tracker.participant(p).name for p in tracker.members(team))}"
        for team in tracker.order
    )
    message = f"Turns begin ({order}). {event.message}"
    return _turn_event(scene, actor, message, turn_to=turn_to(scene, tracker), context=context)


def _current_player(scene: Scene, actor: Any, tracker: TurnTracker) -> None:
    if scene.campaign.gm_id == actor.pk:
        return
    owners = Character.objects.filter(
        campaign=scene.campaign,
        pk__in=[int(p) for p in tracker.members(tracker.current_team) if p.isdigit()],
    ).values_list("owner_id", flat=True)
    if actor.pk not in set(owners):
        raise PermissionDenied("Only the GM or a player whose turn it is can end the turn.")


@scene_action()
def turns_end(
    *,
    scene: Scene,
    actor: Any,
    shown_round: int | None = None,
    shown_team: str | None = None,
    context: CommandContext,
) -> SceneEvent:
    """End the current team's turn; the next one's begins (a new round after the last team).

    ``shown_round`` and ``shown_team`` name the turn the button ended, as the page showed
    it: a second press, or one sent just as someone else ended that turn, is refused rather
    than ending the next team's turn before any of them could act."""
    state, tracker = turns_state(scene)
    require_started(tracker)
    if shown_round is not None and (shown_round, shown_team) != (
        tracker.round,
        tracker.current_team,
    ):
        raise ValidationError(
            f"That turn has already ended: it is {tracker.current_team}'s turn now "
            f"(round {tracker.round})."
        )
    _current_player(scene, actor, tracker)
    if state.get("pending"):
        raise ValidationError("A check is waiting for reactions: roll it before the turn ends.")
    with rules_say_no():
        tracker, event = tracker.end_turn()
    store_state(scene, turns_view.NAME, {**state, "tracker": tracker.to_dict()})
    message = event.message
    if event.refreshed:
        back = ", ".join(tracker.participant(p).name for p in event.refreshed)
        message += f" Reaction back: {back}."
    handed = turn_to(scene, tracker)
    return _turn_event(
        scene, actor, message, round=event.round, team=event.team, turn_to=handed, context=context
    )


@scene_action()
def turns_act(
    *, scene: Scene, actor: Any, character: Character, context: CommandContext
) -> SceneEvent:
    """The character spends their one action this turn (on something that needs no check here)."""
    return _player_spends(
        scene, actor, character, lambda tracker, pid: tracker.take_action(pid), context
    )


@scene_action()
def turns_react(
    *, scene: Scene, actor: Any, character: Character, context: CommandContext
) -> SceneEvent:
    """The character spends their reaction for this round (seed: "You can react once per
    round, to any event you are aware of")."""
    return _player_spends(
        scene, actor, character, lambda tracker, pid: tracker.use_reaction(pid), context
    )


def _player_spends(
    scene: Scene, actor: Any, character: Character, spend: Callable, context: CommandContext
) -> SceneEvent:
    """A player's character spends its action or reaction on the tracker (``spend``)."""
    require_player(scene, actor, character)
    state, tracker = turns_state(scene)
    with rules_say_no():
        tracker, event = spend(tracker, turns_view.participant_id(character))
    store_state(scene, turns_view.NAME, {**state, "tracker": tracker.to_dict()})
    return _turn_event(scene, actor, event.message, context=context)


@scene_action(gm=True)
def turns_join(
    *, scene: Scene, actor: Any, character: Character, team: str = "", context: CommandContext
) -> SceneEvent:
    """The GM adds a character (a new team goes last in the order)."""
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    team = _team_name(team, turns_view.DEFAULT_TEAMS.get(character.role, "Others"))
    state, tracker = turns_state(scene)
    require_started(tracker)
    with rules_say_no():
        tracker, event = tracker.add_participant(
            turns_view.participant_id(character), name=character.name, team=team
        )
    store_state(scene, turns_view.NAME, {**state, "tracker": tracker.to_dict()})
    return _turn_event(scene, actor, event.message, context=context)


@scene_action(gm=True)
def turns_leave(
    *, scene: Scene, actor: Any, character: Character, context: CommandContext
) -> SceneEvent:
    """The GM takes a character out of the turns (the turn passes on if their team empties)."""
    state, tracker = turns_state(scene)
    pid = turns_view.participant_id(character)
    if pid in turns_view.involved_in_pending(state):
        raise ValidationError(f"{character.name}'s pending check must be rolled first.")
    with rules_say_no():
        tracker, event = tracker.remove_participant(pid)
    if not tracker.participants:
        store_state(scene, turns_view.NAME, None)
        return _turn_event(
            scene, actor, f"{event.message} Nobody is left: the turns end.", context=context
        )
    store_state(scene, turns_view.NAME, {**state, "tracker": tracker.to_dict()})
    return _turn_event(scene, actor, event.message, context=context)


@scene_action(gm=True)
def turns_move(
    *, scene: Scene, actor: Any, team: str, step: int, context: CommandContext
) -> SceneEvent:
    """The GM moves a team one place earlier (-1) or later (+1) in the turn order."""
    if step not in (-1, 1):
        raise ValidationError("Move a team one place up or down.")
    state, tracker = turns_state(scene)
    if tracker.by_initiative:
        raise ValidationError("An initiative order sorts itself: set an initiative instead.")
    with rules_say_no():
        name = lookup(team, tracker.order, "team")
    order = list(tracker.order)
    at = order.index(name)
    to = at + step
    if not 0 <= to < len(order):
        raise ValidationError(f"{name} is already {'first' if step < 0 else 'last'}.")
    order[at], order[to] = order[to], order[at]
    with rules_say_no():
        tracker, event = tracker.set_order(order)
    store_state(scene, turns_view.NAME, {**state, "tracker": tracker.to_dict()})
    return _turn_event(scene, actor, event.message, context=context)


@scene_action(gm=True)
def turns_stop(*, scene: Scene, actor: Any, context: CommandContext) -> SceneEvent:
    """The GM ends the turns (a check still waiting for reactions is dropped, never rolled)."""
    state, tracker = turns_state(scene)
    if not tracker.participants:
        raise ValidationError("No turns are running.")
    message = f"The GM ends the turns after round {tracker.round}."
    refresh = []
    if state.get("pending"):
        close_pending(scene, state["pending"]["seq"], status="dropped")
        refresh.append(state["pending"]["seq"])
        message += " The waiting check is dropped."
    store_state(scene, turns_view.NAME, None)
    return _turn_event(scene, actor, message, refresh=refresh, context=context)


# --- an initiative order (a system whose turns go by initiative) ----------------------------

#: An entry's name, as the order shows it ("Goblin 2").
ENTRY_NAME_MAX = 40
#: An initiative as the GM writes it: a number, or a roll in the dice language.
INITIATIVE_TEXT_MAX = 100
_WHOLE = re.compile(r"[+-]?\d{1,6}")


def _initiative_order(scene: Scene) -> tuple[dict[str, Any], TurnTracker]:
    if not scene.campaign.game.initiative:
        raise ValidationError("This game's turns go by teams, not by initiative.")
    state, tracker = turns_state(scene)
    if tracker.participants and not tracker.by_initiative:
        raise ValidationError("The turns are running by teams: end them first.")
    return state, tracker


def _entry_name(raw: Any) -> str:
    name = " ".join(str(raw or "").split())
    if not name:
        raise ValidationError("Pick a character or type a name (Goblin 2).")
    if len(name) > ENTRY_NAME_MAX:
        raise ValidationError(
            f"Keep a name to {ENTRY_NAME_MAX} characters (this one has {len(name)})."
        )
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ValidationError("A name can only hold letters, numbers, spaces and punctuation.")
    return name


def _initiative(raw: Any, who: str, rng: Rng | None) -> tuple[int | None, str]:
    """An initiative typed (15) or rolled in the dice language (1d20+2), and how the log says
    it; (None, "") for a blank."""
    text = " ".join(str(raw or "").split())
    if not text:
        return None, ""
    if len(text) > INITIATIVE_TEXT_MAX:
        raise ValidationError(
            f"Keep an initiative to {INITIATIVE_TEXT_MAX} characters (this one has {len(text)})."
        )
    if _WHOLE.fullmatch(text):
        return int(text), f"{who}: initiative {int(text)}"
    with rules_say_no():
        rolled = expression.roll(text, rng=dice.game_dice(rng))
    return rolled.total, f"{who} rolls initiative: {rolled.breakdown}"


def _free_entry_id(tracker: TurnTracker) -> str:
    """A free name's id ("n3"): never a character's (those are its row's number)."""
    taken = [int(p.id[1:]) for p in tracker.participants if re.fullmatch(r"n\d+", p.id)]
    return f"n{max(taken, default=0) + 1}"


def _store_order(scene: Scene, state: dict[str, Any], tracker: TurnTracker) -> None:
    store_state(scene, turns_view.NAME, {**state, "tracker": tracker.to_dict(), "pending": None})


@scene_action(gm=True)
def initiative_add(
    *,
    scene: Scene,
    actor: Any,
    character: Character | None = None,
    name: str = "",
    initiative: str = "",
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """The GM adds an entry to the initiative order: a character of the campaign, or a free
    name ("Goblin 2"), with its initiative typed or rolled, or none yet. The order sorts."""
    state, tracker = _initiative_order(scene)
    if character is not None:
        if character.campaign_id != scene.campaign_id:
            raise ValidationError("That character is not in this campaign.")
        name, entry = character.name, turns_view.participant_id(character)
    else:
        name, entry = _entry_name(name), _free_entry_id(tracker)
    value, told = _initiative(initiative, name, rng)
    with rules_say_no():
        tracker, event = tracker.add_entry(entry, name=name, initiative=value)
    _store_order(scene, state, tracker)
    message = f"{told}. {name} joins the order." if told else event.message
    return _turn_event(scene, actor, message, round=tracker.round, context=context)


@scene_action(gm=True)
def initiative_set(
    *,
    scene: Scene,
    actor: Any,
    entry: str,
    initiative: str,
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """The GM rolls (1d20+2) or types (15) an entry's initiative; the order sorts, and the
    entry whose turn it is keeps it."""
    state, tracker = _initiative_order(scene)
    with rules_say_no():
        who = tracker.participant(str(entry)[:20])
    value, told = _initiative(initiative, who.name, rng)
    if value is None:
        raise ValidationError(f"Type {who.name}'s initiative (15) or a roll (1d20+2).")
    with rules_say_no():
        tracker, _ = tracker.set_initiative(who.id, value)
    _store_order(scene, state, tracker)
    return _turn_event(scene, actor, f"{told}.", round=tracker.round, context=context)


@scene_action(gm=True)
def initiative_remove(
    *, scene: Scene, actor: Any, entry: str, context: CommandContext
) -> SceneEvent:
    """The GM takes an entry out of the order (the turn passes on if it was theirs)."""
    state, tracker = _initiative_order(scene)
    with rules_say_no():
        tracker, event = tracker.remove_participant(str(entry)[:20])
    if not tracker.participants:
        store_state(scene, turns_view.NAME, None)
        return _turn_event(scene, actor, f"{event.message} The order is empty.", context=context)
    _store_order(scene, state, tracker)
    return _turn_event(scene, actor, event.message, round=tracker.round, context=context)


@scene_action(gm=True)
def initiative_start(*, scene: Scene, actor: Any, context: CommandContext) -> SceneEvent:
    """Round 1 begins at the top of the order."""
    state, tracker = _initiative_order(scene)
    with rules_say_no():
        tracker, event = tracker.start()
    _store_order(scene, state, tracker)
    order = ", ".join(f"{tracker.participant(p).name}" for p in tracker.order)
    message = f"Initiative: {order}. {event.message}"
    return _turn_event(
        scene, actor, message, round=tracker.round, turn_to=turn_to(scene, tracker), context=context
    )


@scene_action(gm=True)
def initiative_turn(*, scene: Scene, actor: Any, step: int, context: CommandContext) -> SceneEvent:
    """The GM moves the turn to the next entry (a new round after the last) or back one."""
    if step not in (-1, 1):
        raise ValidationError("Move the turn to the next or the previous entry.")
    state, tracker = _initiative_order(scene)
    require_started(tracker)
    with rules_say_no():
        tracker, event = tracker.end_turn() if step == 1 else tracker.previous_turn()
    _store_order(scene, state, tracker)
    handed = turn_to(scene, tracker)
    return _turn_event(
        scene, actor, event.message, round=event.round, turn_to=handed, context=context
    )


# --- commands ---


def _lineup(scene: Scene, user: Any, data: Any) -> list[tuple[Character, str]]:
    """The start form: a tick and a team per character of the roster."""
    lineup = []
    for character in turns_view.roster(scene):
        if data.get(f"in:{character.pk}") in (None, "", False, "off"):
            continue
        default = turns_view.DEFAULT_TEAMS.get(character.role, "Others")
        lineup.append((character, _team_name(data.get(f"team:{character.pk}"), default)))
    return lineup


COMMANDS = (
    Command("turns_start", turns_start, gm=True, lineup=Parsed(_lineup)),
    Command(
        "turns_end",
        turns_end,
        shown_round=Whole("round", "The round", optional=True),
        shown_team=Blank("team"),
    ),
    Command("turns_act", turns_act, character=Rolling(required="Pick a character.")),
    Command("turns_react", turns_react, character=Rolling(required="Pick a character.")),
    Command("turns_join", turns_join, gm=True, character=Member("character"), team=Text("team")),
    Command("turns_leave", turns_leave, gm=True, character=Member("character")),
    Command(
        "turns_move",
        turns_move,
        team=Text("team"),
        step=Choice("direction", {"up": -1, "down": 1}, "Move the team up or down."),
    ),
    Command("turns_stop", turns_stop),
    Command(
        "initiative_add",
        initiative_add,
        gm=True,
        character=Member("character", optional=True),
        name=Text("name"),
        initiative=Text("initiative"),
    ),
    Command(
        "initiative_set",
        initiative_set,
        gm=True,
        entry=Text("entry"),
        initiative=Text("initiative"),
    ),
    Command("initiative_remove", initiative_remove, gm=True, entry=Text("entry")),
    Command("initiative_start", initiative_start, gm=True),
    Command(
        "initiative_turn",
        initiative_turn,
        gm=True,
        step=Choice("direction", {"next": 1, "previous": -1}, "Move the turn on or back."),
    ),
)
