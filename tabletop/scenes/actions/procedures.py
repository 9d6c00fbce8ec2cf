"""Table procedures live: the turn tracker (with two_dice's hinder and resist), roll_and_keep's
opposed and extended actions, and percentile's tracked maneuvers, slumps, zones and the GM's
secret perception rolls.

Each procedure keeps its state in ``Scene.state[<panel name>]`` (see tabletop/scenes/procedures/)
and changes it only here, after locking the scene row, in the transaction that records its events.
Dice are rolled by ``rules/``; every roll is a ``roll`` event (so the GM can reveal a secret one
and the dashboard lists it), the procedure's other steps are events of their own kinds:
``turn``, ``check_declared``, ``contest`` and ``maneuver_tracking``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from rules import percentile, two_dice
from rules import roll_and_keep as rak
from rules.core import Rng, RulesError, lookup
from rules.turns import TurnTracker
from tabletop.characters.models import Character
from tabletop.scenes.actions import base
from tabletop.scenes.actions.base import (
    FollowUp,
    character_for_roll,
    membership,
    require_gm,
    require_open,
    whole,
)
from tabletop.scenes.events import record_event
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.procedures import contest as contest_panel
from tabletop.scenes.procedures import percentile_state
from tabletop.scenes.procedures import turns as turns_panel
from tabletop.scenes.rollkinds import ROLL_KINDS, RollOutcome
from tabletop.systems.percentile import rolls as percentile_kinds
from tabletop.systems.two_dice.rolls import BAND_LABELS as TWO_DICE_BANDS
from tabletop.systems.two_dice.rolls import OTHER_PENALTY

# --- shared helpers ------------------------------------------------------------------------------


@contextlib.contextmanager
def _rules_say_no() -> Iterator[None]:
    """A move the rules refuse becomes the player's error message."""
    try:
        yield
    except RulesError as exc:
        raise ValidationError(str(exc)) from None


def _lock(scene: Scene) -> Scene:
    """The scene row, locked until commit: one procedure move at a time per scene (only that
    row: of=("self",) leaves the campaign row to others)."""
    return Scene.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=scene.pk)


def _store(scene: Scene, name: str, value: dict[str, Any] | None) -> None:
    state = dict(scene.state or {})
    if value is None:
        state.pop(name, None)
    else:
        state[name] = value
    scene.state = state
    scene.save(update_fields=["state"])


def _require_system(scene: Scene, system: str, what: str) -> None:
    if scene.campaign.system != system:
        raise ValidationError(f"{what} belong to the {system.replace('_', ' ')} system.")


def _campaign_character(scene: Scene, raw: Any, what: str = "Pick a character.") -> Character:
    if raw in (None, ""):
        raise ValidationError(what)
    pk = whole(raw, what)
    character = Character.objects.filter(pk=pk, campaign=scene.campaign).first()
    if character is None:
        raise ValidationError("That character is not in this campaign.")
    return character


def _require_player(scene: Scene, actor: Any, character: Character) -> None:
    """The character's own player, or the GM (who plays every NPC and foe)."""
    if character.owner_id != actor.pk and scene.campaign.gm_id != actor.pk:
        raise PermissionDenied(f"Only {character.name}'s player or the GM can do that.")


def _record_roll(
    *,
    scene: Scene,
    actor: Any,
    character: Character | None,
    roll_kind: str,
    label: str,
    outcome: RollOutcome,
    audience: str = Audience.EVERYONE,
    parent: SceneEvent | None = None,
) -> SceneEvent:
    """A roll event shaped like the roll panels' (``rolls.roll_make``): the card, reveals and the
    dashboard treat it alike. A secret roll puts everything but who rolled in ``secret``."""
    roll = {
        "roll_kind": roll_kind,
        "label": label,
        "title": outcome.title,
        "summary": outcome.summary,
        "outcome": outcome.outcome,
        "result": outcome.detail,
        "character": character.name if character else "",
    }
    who = {
        "roller": actor.get_username() if actor is not None else "",
        "mode": "public" if audience == Audience.EVERYONE else "secret",
        "refresh_panels": True,
    }
    if audience == Audience.EVERYONE:
        public, secret = {**who, **roll}, {}
    else:
        public, secret = who, roll
    return record_event(
        scene=scene,
        kind="roll",
        actor=actor,
        character=character,
        audience=audience,
        public=public,
        secret=secret,
        parent=parent,
    )


def _sheet_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _names(raw: Any) -> list[str]:
    """A form's multi-valued field: one value, a list of them, or nothing."""
    if raw in (None, ""):
        return []
    values = raw if isinstance(raw, list) else [raw]
    return [str(v).strip() for v in values if str(v).strip()][:40]


# --- the turn tracker (every system) -------------------------------------------------------------


def _turn_event(scene: Scene, actor: Any, message: str, **extra: Any) -> SceneEvent:
    return record_event(
        scene=scene,
        kind="turn",
        actor=actor,
        public={"message": message, "refresh_panels": True, **extra},
    )


def _tracker_state(scene: Scene) -> tuple[dict[str, Any], TurnTracker]:
    state = turns_panel.state_of(scene)
    with _rules_say_no():
        return state, turns_panel.tracker_of(state)


def _started(tracker: TurnTracker) -> None:
    if not tracker.started:
        raise ValidationError("The GM has not started the turns.")


def _team_name(raw: Any, default: str) -> str:
    team = str(raw or "").strip() or default
    if len(team) > 40:
        raise ValidationError("Keep team names under 40 characters.")
    return team


def turns_start(*, scene: Scene, actor: Any, lineup: Iterable[tuple[Character, str]]) -> SceneEvent:
    """The GM starts the turns with the scene's characters in teams (seed 003 "Turn Order": "if
    you find the characters in a scene grouped into teams, have the teams take turns
    together"). Teams go in the order they are first named; the GM may reorder them."""
    require_gm(scene.campaign, actor)
    require_open(scene)
    lineup = list(lineup)
    if not lineup:
        raise ValidationError("Pick at least one character to take turns.")
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        if tracker.started:
            raise ValidationError("The turns are already running: end them first.")
        tracker = TurnTracker()
        with _rules_say_no():
            for character, team in lineup:
                if character.campaign_id != scene.campaign_id:
                    raise ValidationError("That character is not in this campaign.")
                tracker, _ = tracker.add_participant(
                    turns_panel.participant_id(character), name=character.name, team=team
                )
            tracker, event = tracker.start()
        _store(scene, turns_panel.NAME, {"tracker": tracker.to_dict(), "pending": None})
        order = "; ".join(
            f"{team}: {', '.join(tracker.participant(p).name for p in tracker.members(team))}"
            for team in tracker.order
        )
        return _turn_event(scene, actor, f"Turns begin ({order}). {event.message}")


def _current_player(scene: Scene, actor: Any, tracker: TurnTracker) -> None:
    if scene.campaign.gm_id == actor.pk:
        return
    owners = Character.objects.filter(
        campaign=scene.campaign,
        pk__in=[int(p) for p in tracker.members(tracker.current_team) if p.isdigit()],
    ).values_list("owner_id", flat=True)
    if actor.pk not in set(owners):
        raise PermissionDenied("Only the GM or a player whose turn it is can end the turn.")


def turns_end(*, scene: Scene, actor: Any) -> SceneEvent:
    """End the current team's turn; the next one's begins (a new round after the last team)."""
    membership(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        _started(tracker)
        _current_player(scene, actor, tracker)
        if state.get("pending"):
            raise ValidationError("A check is waiting for reactions: roll it before the turn ends.")
        with _rules_say_no():
            tracker, event = tracker.end_turn()
        _store(scene, turns_panel.NAME, {**state, "tracker": tracker.to_dict()})
        message = event.message
        if event.refreshed:
            back = ", ".join(tracker.participant(p).name for p in event.refreshed)
            message += f" Reaction back: {back}."
        return _turn_event(scene, actor, message, round=event.round, team=event.team)


def turns_act(*, scene: Scene, actor: Any, character: Character) -> SceneEvent:
    """The character spends their one action this turn (on something that needs no check here)."""
    return _player_spends(scene, actor, character, lambda tracker, pid: tracker.take_action(pid))


def turns_react(*, scene: Scene, actor: Any, character: Character) -> SceneEvent:
    """The character spends their reaction for this round (seed: "You can react once per
    round, to any event you are aware of")."""
    return _player_spends(scene, actor, character, lambda tracker, pid: tracker.use_reaction(pid))


def _player_spends(scene: Scene, actor: Any, character: Character, spend: Callable) -> SceneEvent:
    """A player's character spends its action or reaction on the tracker (``spend``)."""
    membership(scene.campaign, actor)
    require_open(scene)
    _require_player(scene, actor, character)
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        with _rules_say_no():
            tracker, event = spend(tracker, turns_panel.participant_id(character))
        _store(scene, turns_panel.NAME, {**state, "tracker": tracker.to_dict()})
        return _turn_event(scene, actor, event.message)


def turns_join(*, scene: Scene, actor: Any, character: Character, team: str = "") -> SceneEvent:
    """The GM adds a character (a new team goes last in the order)."""
    require_gm(scene.campaign, actor)
    require_open(scene)
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    team = _team_name(team, turns_panel.DEFAULT_TEAMS.get(character.kind, "Others"))
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        _started(tracker)
        with _rules_say_no():
            tracker, event = tracker.add_participant(
                turns_panel.participant_id(character), name=character.name, team=team
            )
        _store(scene, turns_panel.NAME, {**state, "tracker": tracker.to_dict()})
        return _turn_event(scene, actor, event.message)


def turns_leave(*, scene: Scene, actor: Any, character: Character) -> SceneEvent:
    """The GM takes a character out of the turns (the turn passes on if their team empties)."""
    require_gm(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        pid = turns_panel.participant_id(character)
        pending = turns_panel.pending_of(state)
        if pending is not None and pid in (pending.actor, *pending.targets):
            raise ValidationError(f"{character.name}'s pending check must be rolled first.")
        with _rules_say_no():
            tracker, event = tracker.remove_participant(pid)
        if not tracker.participants:
            _store(scene, turns_panel.NAME, None)
            return _turn_event(scene, actor, f"{event.message} Nobody is left: the turns end.")
        _store(scene, turns_panel.NAME, {**state, "tracker": tracker.to_dict()})
        return _turn_event(scene, actor, event.message)


def turns_move_team(*, scene: Scene, actor: Any, team: str, step: int) -> SceneEvent:
    """The GM moves a team one place earlier (-1) or later (+1) in the turn order."""
    require_gm(scene.campaign, actor)
    require_open(scene)
    if step not in (-1, 1):
        raise ValidationError("Move a team one place up or down.")
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        with _rules_say_no():
            name = lookup(team, tracker.order, "team")
        order = list(tracker.order)
        at = order.index(name)
        to = at + step
        if not 0 <= to < len(order):
            raise ValidationError(f"{name} is already {'first' if step < 0 else 'last'}.")
        order[at], order[to] = order[to], order[at]
        with _rules_say_no():
            tracker, event = tracker.set_order(order)
        _store(scene, turns_panel.NAME, {**state, "tracker": tracker.to_dict()})
        return _turn_event(scene, actor, event.message)


def turns_stop(*, scene: Scene, actor: Any) -> SceneEvent:
    """The GM ends the turns (a check still waiting for reactions is dropped, never rolled)."""
    require_gm(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        if not tracker.participants:
            raise ValidationError("No turns are running.")
        message = f"The GM ends the turns after round {tracker.round}."
        refresh = []
        if state.get("pending"):
            _close_declaration(scene, state["pending"]["seq"], status="dropped")
            refresh.append(state["pending"]["seq"])
            message += " The waiting check is dropped."
        _store(scene, turns_panel.NAME, None)
        return _turn_event(scene, actor, message, refresh=refresh)


# --- two_dice: a check others may hinder or resist ----------------------------------------------


def _two_dice_sheet(
    character: Character, *, attribute: Any, resource: Any, ruleset: Any
) -> tuple[str, int, str, int]:
    with _rules_say_no():
        attribute, resource = two_dice.check_pairing(
            attribute=str(attribute or "")[:60], resource=str(resource or "")[:60], ruleset=ruleset
        )
    value = _sheet_int((character.attributes or {}).get(attribute))
    points = (character.resources or {}).get(resource)
    available = _sheet_int(points.get("current") if isinstance(points, dict) else 0)
    return attribute, value, resource, max(available, 0)


def _closes_at(seconds: float, now: datetime | None) -> datetime:
    return (now or timezone.now()) + timedelta(seconds=seconds)


def check_declare(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    attribute: Any,
    difficulty: Any,
    resource: Any,
    targets: Iterable[Character] = (),
    penalty: Any = 0,
    now: datetime | None = None,
) -> SceneEvent:
    """The character's action this turn is a check that others may oppose before it rolls.

    Seed 003 "Opposing": a character "uses a reaction to prevent another character from doing
    something". The check is declared now (its cost and dice fixed), the table has
    ``REACTION_SECONDS`` to hinder or resist it, then it rolls with every penalty stacked.
    """
    _require_system(scene, "two_dice", "Hinder and resist")
    membership(scene.campaign, actor)
    require_open(scene)
    _require_player(scene, actor, character)
    ruleset = scene.campaign.effective_ruleset()
    attribute, value, resource, available = _two_dice_sheet(
        character, attribute=attribute, resource=resource, ruleset=ruleset
    )
    extra = 0 if penalty in (None, "") else whole(penalty, "Extra penalty")
    if not 0 <= extra <= two_dice.MAX_NUMBER:
        raise ValidationError(f"The extra penalty must be between 0 and {two_dice.MAX_NUMBER}.")
    targets = list(targets)
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        _started(tracker)
        if state.get("pending"):
            raise ValidationError("Another check is waiting for reactions: it rolls first.")
        pid = turns_panel.participant_id(character)
        target_ids = [turns_panel.participant_id(t) for t in targets]
        with _rules_say_no():
            for target in target_ids:
                tracker.participant(target)
            if pid in target_ids:
                raise ValidationError(f"{character.name} cannot target their own check.")
            tracker, _ = tracker.take_action(pid)
            action = two_dice.declare_action(
                actor=pid,
                targets=target_ids,
                attribute=attribute,
                attribute_value=value,
                difficulty=str(difficulty or "")[:60],
                resource=resource,
                resource_available=available,
                penalties=[(OTHER_PENALTY, extra)] if extra else [],
                ruleset=ruleset,
            )
        closes = _closes_at(turns_panel.REACTION_SECONDS, now)
        payment = action.payment
        event = record_event(
            scene=scene,
            kind="check_declared",
            actor=actor,
            character=character,
            public={
                "who": actor.get_username(),
                "character": character.name,
                "attribute": attribute,
                "attribute_value": value,
                "difficulty": action.difficulty,
                "resource": resource,
                "cost": payment.cost,
                "unpaid": payment.unpaid,
                "penalty": extra,
                "targets": [t.name for t in targets],
                "closes_at": closes.isoformat(),
                "status": "pending",
                "refresh_panels": True,
            },
        )
        state.update(
            tracker=tracker.to_dict(),
            pending={
                "seq": event.seq,
                "character_id": character.pk,
                "closes_at": closes.isoformat(),
                "action": action.to_dict(),
            },
        )
        _store(scene, turns_panel.NAME, state)
        return event


def _names_by_id(tracker: TurnTracker) -> dict[str, str]:
    return {p.id: p.name for p in tracker.participants}


def _named(penalties: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    """Penalties name their hinderer or resister by participant id: add the name to show."""
    return [{**p, "by_name": names.get(p.get("by") or "", p.get("by"))} for p in penalties]


def _check_detail(result: two_dice.CheckResult, names: dict[str, str]) -> dict[str, Any]:
    detail = result.to_dict()
    detail.update(
        band_label=TWO_DICE_BANDS[result.band], penalties=_named(detail["penalties"], names)
    )
    return detail


def check_react(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    opposition: str,
    attribute: Any,
    difficulty: Any,
    resource: Any,
    rng: Rng | None = None,
) -> SceneEvent:
    """Hinder or resist the pending check with the character's reaction for this round.

    Seed: the reactor makes their own check; "If the hindering character succeeds, roll a die
    and apply the result as a penalty ... against all targets"; a successful resist's die counts
    "against only the resisting character". Penalties stack. The reaction is spent either way.
    """
    _require_system(scene, "two_dice", "Hinder and resist")
    membership(scene.campaign, actor)
    require_open(scene)
    _require_player(scene, actor, character)
    if opposition not in (two_dice.HINDER, two_dice.RESIST):
        raise ValidationError("Hinder or resist?")
    ruleset = scene.campaign.effective_ruleset()
    attribute, value, resource, available = _two_dice_sheet(
        character, attribute=attribute, resource=resource, ruleset=ruleset
    )
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        pending = turns_panel.pending_of(state)
        if pending is None:
            raise ValidationError("There is no check waiting for reactions.")
        pid = turns_panel.participant_id(character)
        rng = base.resolve_rng(rng)
        with _rules_say_no():
            if pid == pending.actor:
                raise ValidationError(f"{character.name} cannot {opposition} their own check.")
            if any(o.reactor == pid for o in pending.oppositions):
                raise ValidationError(f"{character.name} has already reacted to this check.")
            if opposition == two_dice.RESIST and pid not in pending.targets:
                raise ValidationError(
                    f"{character.name} is not a target of this check: only targets resist "
                    "(a resist protects only the resister). Hinder it instead."
                )
            tracker, _ = tracker.use_reaction(pid)
            reaction = two_dice.check(
                attribute=attribute,
                attribute_value=value,
                difficulty=str(difficulty or "")[:60],
                resource=resource,
                resource_available=available,
                rng=rng,
                ruleset=ruleset,
            )
            oppose = pending.add_hinder if opposition == two_dice.HINDER else pending.add_resist
            pending, opposed = oppose(pid, reaction, rng=rng)
        state["tracker"] = tracker.to_dict()
        state["pending"] = {**state["pending"], "action": pending.to_dict()}
        _store(scene, turns_panel.NAME, state)
        names = _names_by_id(tracker)
        against = names.get(pending.actor, pending.actor)
        verb = "hinders" if opposition == two_dice.HINDER else "resists"
        detail = {
            "check": _check_detail(reaction, names),
            "opposition": opposition,
            "against": against,
            "penalty": opposed.penalty.to_dict() if opposed.penalty else None,
            "declared": state["pending"]["seq"],
        }
        if opposed.penalty:
            whom = "every target" if opposition == two_dice.HINDER else character.name
            effect = f"−{opposed.penalty.amount} on {against}'s check against {whom}"
        else:
            effect = "no penalty"
        outcome = RollOutcome(
            title=f"{character.name} {verb} {against}'s check: {attribute} {value:+d} · "
            f"{reaction.difficulty}",
            summary=f"{TWO_DICE_BANDS[reaction.band]} ({reaction.total}): {effect}",
            detail=detail,
            outcome=reaction.band,
        )
        declared = SceneEvent.objects.filter(scene=scene, seq=detail["declared"]).first()
        return _record_roll(
            scene=scene,
            actor=actor,
            character=character,
            roll_kind="two_dice_reaction",
            label="Hinder" if opposition == two_dice.HINDER else "Resist",
            outcome=outcome,
            parent=declared,
        )


def _close_declaration(scene: Scene, seq: int, **changes: Any) -> SceneEvent | None:
    declared = SceneEvent.objects.select_for_update().filter(scene=scene, seq=seq).first()
    if declared is not None:
        declared.public.update(changes)
        declared.save(update_fields=["public"])
    return declared


def check_resolve(
    *,
    scene: Scene,
    actor: Any = None,
    seq: Any = None,
    now: datetime | None = None,
    rng: Rng | None = None,
) -> SceneEvent | None:
    """Roll the pending check with every penalty known now, once against each target.

    The GM may roll it at any time; the acting player once the reaction window has closed;
    ``actor=None`` is the window closing by itself (then it is a no-op, returning None, unless
    check ``seq`` is still pending and due).
    """
    if actor is not None:
        membership(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        scene = _lock(scene)
        state, tracker = _tracker_state(scene)
        raw = state.get("pending")
        if raw is None or (seq not in (None, "") and raw["seq"] != whole(seq, "Which check?")):
            if actor is None:
                return None
            raise ValidationError("That check is not waiting any more.")
        closed = (now or timezone.now()) >= datetime.fromisoformat(raw["closes_at"])
        is_gm = actor is not None and scene.campaign.gm_id == actor.pk
        if actor is None and not closed:
            return None
        if actor is not None and not is_gm:
            character = Character.objects.filter(pk=raw["character_id"]).first()
            if character is None or character.owner_id != actor.pk:
                raise PermissionDenied("Only the acting player or the GM rolls this check.")
            if not closed:
                raise ValidationError(
                    "The others may still react: the check rolls when the "
                    "reaction window closes (or when the GM rolls it)."
                )
        with _rules_say_no():
            pending = two_dice.PendingAction.from_dict(raw["action"])
            pending, result = pending.resolve(rng=base.resolve_rng(rng))
        names = _names_by_id(tracker)
        detail = {
            "check": _check_detail(result.check, names),
            "targets": [
                {
                    **t.to_dict(),
                    "penalties": _named(t.to_dict()["penalties"], names),
                    "name": names.get(t.target, t.target),
                    "band_label": TWO_DICE_BANDS[t.band],
                }
                for t in result.targets
            ],
            "declared": raw["seq"],
        }
        character = Character.objects.filter(pk=raw["character_id"]).first()
        name = names.get(pending.actor, pending.actor)
        if result.targets:
            summary = "; ".join(
                f"vs {t['name']}: {t['band_label']} ({t['total']})" for t in detail["targets"]
            )
            outcome_band = result.targets[0].band if len(result.targets) == 1 else result.check.band
        else:
            summary = f"{TWO_DICE_BANDS[result.check.band]} ({result.check.total})"
            outcome_band = result.check.band
        outcome = RollOutcome(
            title=f"{name}: {pending.attribute} {pending.attribute_value:+d} · "
            f"{pending.difficulty} (cost {pending.payment.cost} from {pending.payment.resource})",
            summary=summary,
            detail=detail,
            outcome=outcome_band,
        )
        declared = _close_declaration(scene, raw["seq"], status="rolled")
        roller = declared.actor if declared is not None and declared.actor else actor
        event = _record_roll(
            scene=scene,
            actor=roller,
            character=character,
            roll_kind="two_dice_action",
            label="Opposed check",
            outcome=outcome,
            parent=declared,
        )
        if declared is not None:
            declared.public["result_seq"] = event.seq
            declared.save(update_fields=["public"])
        state.update(pending=None, last={"seq": event.seq, "summary": f"{name}: {summary}"})
        _store(scene, turns_panel.NAME, state)
        return event


def resolve_due(*, scene_id: int, now: datetime | None = None) -> SceneEvent | None:
    """Roll the scene's pending check if its reaction window has closed: the heartbeat's safety
    net when the process that scheduled the roll died before the window closed."""
    scene = Scene.objects.select_related("campaign").filter(pk=scene_id).first()
    if scene is None or not scene.is_open:
        return None
    pending = ((scene.state or {}).get(turns_panel.NAME) or {}).get("pending")
    if not pending:
        return None
    with contextlib.suppress(ValidationError):  # rolled, dropped or closed meanwhile
        return check_resolve(scene=scene, actor=None, seq=pending["seq"], now=now)
    return None


def _resolve_when_due(scene_id: int, seq: int) -> None:
    scene = Scene.objects.select_related("campaign").get(pk=scene_id)
    with contextlib.suppress(ValidationError):  # rolled, dropped or closed meanwhile
        check_resolve(scene=scene, actor=None, seq=seq)


# --- roll_and_keep: directly and indirectly opposed, extended ------------------------------------

#: At most this many contests and extended actions stand on the panel at once.
MAX_CONTESTS = 8


def _rak_sheet(
    character: Character, attribute: Any, specialities: Any, ruleset: Any
) -> tuple[str, int, list[str]]:
    """The attribute's name and value on the character's sheet and the ticked specialities of
    that character (they must belong to the attribute; other characters' ticks are skipped)."""
    raw = str(attribute or "").strip()
    if not raw:
        raise ValidationError(f"Pick {character.name}'s attribute.")
    with _rules_say_no():
        attribute = lookup(raw[:60], ruleset["attributes"], "attribute")
    sheet = {str(k).casefold(): v for k, v in (character.attributes or {}).items()}
    value = _sheet_int(sheet.get(attribute.casefold()))
    chosen: list[str] = []
    own = {str(s.get("name", "")).casefold(): s for s in character.specialities or []}
    for item in _names(specialities):
        owner, _, name = item.partition(":")
        if not name:
            owner, name = str(character.pk), owner
        if owner != str(character.pk):
            continue  # another side's speciality, ticked in the same list
        row = own.get(name.casefold())
        if row is None:
            raise ValidationError(f"{character.name} has no speciality {name[:40]!r}.")
        if str(row.get("attribute", "")).casefold() != attribute.casefold():
            raise ValidationError(
                f"{row['name']} goes with {row.get('attribute', '?')}, not {attribute}."
            )
        if row["name"] not in chosen:
            chosen.append(row["name"])
    return attribute, value, chosen


def _rak_side(
    character: Character, attribute: Any, specialities: Any, ruleset: Any
) -> dict[str, Any]:
    """One rolling side's dice from the sheet: attribute + relevant specialities, K from mana."""
    attribute, value, chosen = _rak_sheet(character, attribute, specialities, ruleset)
    with _rules_say_no():
        pool = rak.dice_pool(
            attribute=attribute,
            attribute_value=value,
            mana=character.mana or {},
            specialities=len(chosen),
            ruleset=ruleset,
        )
    if pool.rolled == 0:
        raise ValidationError(f"{character.name} has no dice for {attribute} (it is 0).")
    return {
        "character_id": character.pk,
        "name": character.name,
        "attribute": attribute,
        "attribute_value": value,
        "specialities": chosen,
        "rolled": pool.rolled,
        "kept": pool.kept,
        "roll": None,
    }


def _rak_difficulty(raw: Any, ruleset: Any) -> tuple[str, int]:
    text = str(raw or "").strip()
    if not text:
        raise ValidationError("Pick a difficulty.")
    with _rules_say_no():
        number = rak.difficulty_value(int(text) if text.isdigit() else text[:60], ruleset=ruleset)
    names = [n for n, v in ruleset["difficulties"].items() if v == number]
    return (names[0] if names else str(number)), number


def _contests(scene: Scene) -> dict[str, Any]:
    state = contest_panel.state_of(scene)
    state.setdefault("next", 1)
    state.setdefault("next_secret", 1)
    state.setdefault("items", [])
    return state


def _add_contest(scene: Scene, item: dict[str, Any]) -> dict[str, Any]:
    state = _contests(scene)
    if len(state["items"]) >= MAX_CONTESTS:
        raise ValidationError(f"At most {MAX_CONTESTS} contests at once: clear a finished one.")
    # Secret contests count apart ("s1", "s2"): a gap in the players' numbers would tell them
    # that the GM set one up.
    counter = "next_secret" if item.get("secret") else "next"
    item["id"] = f"s{state[counter]}" if item.get("secret") else state[counter]
    state[counter] += 1
    state["items"].append(item)
    _store(scene, contest_panel.NAME, state)
    return item


def _describe(side: dict[str, Any]) -> str:
    what = side["attribute"]
    if side["specialities"]:
        what += " + " + ", ".join(side["specialities"])
    return f"{side['name']} ({what}: roll {side['rolled']}, keep {side['kept']})"


def contest_direct_start(
    *,
    scene: Scene,
    actor: Any,
    sides: list[tuple[Character, Any, Any]],
    difficulty: Any,
) -> SceneEvent:
    """Seed 001 "Directly opposed actions": "both characters roll their respective dice pools
    against a static difficulty determined by the GM"; each side rolls live."""
    _require_system(scene, "roll_and_keep", "Opposed actions")
    require_gm(scene.campaign, actor)
    require_open(scene)
    ruleset = scene.campaign.effective_ruleset()
    if len(sides) != 2 or sides[0][0].pk == sides[1][0].pk:
        raise ValidationError("A directly opposed action has two different characters.")
    built = [_rak_side(c, a, s, ruleset) for c, a, s in sides]
    name, number = _rak_difficulty(difficulty, ruleset)
    with transaction.atomic():
        scene = _lock(scene)
        item = _add_contest(
            scene,
            {
                "kind": "direct",
                "difficulty": number,
                "difficulty_name": name,
                "sides": built,
                "result": None,
            },
        )
        return record_event(
            scene=scene,
            kind="contest",
            actor=actor,
            public={
                "message": f"Directly opposed #{item['id']}: {_describe(built[0])} against "
                f"{_describe(built[1])}, both at {name} ({number}).",
                "refresh_panels": True,
            },
        )


def contest_indirect_start(
    *,
    scene: Scene,
    actor: Any,
    active: tuple[Character, Any, Any],
    passive: tuple[Character, Any, Any],
    secret: bool,
) -> SceneEvent:
    """Seed 001 "Indirectly opposed actions": the acting character rolls "with a difficulty
    equal to the passive character's relevant attribute and related specialities". With
    ``secret`` the GM keeps it from the players: the set-up and the roll are GM-only, so the
    passive player learns neither the roll nor their own character's difficulty."""
    _require_system(scene, "roll_and_keep", "Opposed actions")
    require_gm(scene.campaign, actor)
    require_open(scene)
    ruleset = scene.campaign.effective_ruleset()
    if active[0].pk == passive[0].pk:
        raise ValidationError("The passive character must be someone else.")
    side = _rak_side(*active, ruleset)
    passive_character = passive[0]
    attribute, value, specialities = _rak_sheet(*passive, ruleset)
    with _rules_say_no():
        difficulty = rak.indirect_difficulty(
            passive_attribute_value=value, passive_specialities=len(specialities)
        )
    passive_side = {
        "character_id": passive_character.pk,
        "name": passive_character.name,
        "attribute": attribute,
        "attribute_value": value,
        "specialities": specialities,
        "difficulty": difficulty,
    }
    with transaction.atomic():
        scene = _lock(scene)
        item = _add_contest(
            scene,
            {
                "kind": "indirect",
                "secret": bool(secret),
                "difficulty": difficulty,
                "sides": [side],
                "passive": passive_side,
                "result": None,
            },
        )
        what = passive_side["attribute"]
        if passive_side["specialities"]:
            what += " + " + ", ".join(passive_side["specialities"])
        message = (
            f"Indirectly opposed #{item['id']}: {_describe(side)} against "
            f"{passive_side['name']}'s {what}: difficulty {difficulty}."
        )
        return record_event(
            scene=scene,
            kind="contest",
            actor=actor,
            audience=Audience.GM_ONLY if secret else Audience.EVERYONE,
            public={"message": message, "secret": bool(secret), "refresh_panels": True},
        )


def extended_start(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    attribute: Any,
    specialities: Any,
    difficulty: Any,
    task: str,
    target: Any,
    minimum: Any = None,
) -> SceneEvent:
    """Seed 001 "Complex and Extended Actions": rounds of rolling accumulate successes toward the
    GM's total, optionally with a per-round minimum (RULES-NOTES)."""
    _require_system(scene, "roll_and_keep", "Extended actions")
    require_gm(scene.campaign, actor)
    require_open(scene)
    ruleset = scene.campaign.effective_ruleset()
    side = _rak_side(character, attribute, specialities, ruleset)
    name, number = _rak_difficulty(difficulty, ruleset)
    task = str(task or "").strip() or "Extended action"
    if len(task) > 80:
        raise ValidationError("Keep the task's name under 80 characters.")
    needed = whole(target, "Successes needed")
    per_round = None if minimum in (None, "", 0, "0") else whole(minimum, "Per-round minimum")
    if not 1 <= needed <= 99 or (per_round is not None and not 0 <= per_round <= 30):
        raise ValidationError("Ask for 1 to 99 successes, and at most 30 in each round.")
    with _rules_say_no():
        action = rak.ExtendedAction(target=needed, minimum=per_round)
    with transaction.atomic():
        scene = _lock(scene)
        item = _add_contest(
            scene,
            {
                "kind": "extended",
                "task": task,
                "difficulty": number,
                "difficulty_name": name,
                "sides": [side],
                "action": action.to_dict(),
            },
        )
        rounds = f", at least {per_round} each round" if per_round else ""
        return record_event(
            scene=scene,
            kind="contest",
            actor=actor,
            public={
                "message": f"Extended action #{item['id']} “{task}”: {_describe(side)} at "
                f"{name} ({number}) needs {needed} successes{rounds}.",
                "refresh_panels": True,
            },
        )


def _find_contest(state: dict[str, Any], contest_id: Any) -> dict[str, Any]:
    wanted = str(contest_id or "").strip().casefold()
    for item in state["items"]:
        if str(item["id"]) == wanted:
            return item
    raise ValidationError("There is no such contest here.")


def _rak_detail(result: rak.RollResult, side: dict[str, Any], name: str) -> dict[str, Any]:
    detail = result.to_dict()
    detail.update(
        attribute=side["attribute"],
        attribute_value=side["attribute_value"],
        speciality_names=side["specialities"],
        difficulty_name=name,
    )
    return detail


def _settle_direct(item: dict[str, Any], ruleset: Any) -> rak.DirectContest:
    """Both sides' dice as rolled, read again by the rules: net successes, winner, margin."""
    own, opponent = (
        rak.score_dice(
            faces=side["roll"]["faces"],
            kept=side["kept"],
            difficulty=item["difficulty"],
            ruleset=ruleset,
        )
        for side in item["sides"]
    )
    return rak.resolve_directly_opposed(own=own, opponent=opponent)


def contest_roll(
    *, scene: Scene, actor: Any, contest_id: Any, side: Any = 0, rng: Rng | None = None
) -> SceneEvent:
    """A side of a contest rolls (its player or the GM; a secret contest only the GM), or the
    next round of an extended action. The second roll of a directly opposed action settles it:
    net successes, the winner and the margin (a tie keeps the status quo)."""
    _require_system(scene, "roll_and_keep", "Opposed actions")
    membership(scene.campaign, actor)
    require_open(scene)
    ruleset = scene.campaign.effective_ruleset()
    is_gm = scene.campaign.gm_id == actor.pk
    with transaction.atomic():
        scene = _lock(scene)
        state = _contests(scene)
        item = _find_contest(state, contest_id)
        if item.get("secret") and not is_gm:
            raise ValidationError("There is no such contest here.")  # don't confirm it exists
        index = whole(side, "Which side?")
        if not 0 <= index < len(item["sides"]):
            raise ValidationError("There is no such side.")
        rolling = item["sides"][index]
        character = Character.objects.filter(
            pk=rolling["character_id"], campaign=scene.campaign
        ).first()
        if character is None:
            raise ValidationError("That character is no longer in this campaign.")
        _require_player(scene, actor, character)
        if item["kind"] != "extended" and rolling["roll"] is not None:
            raise ValidationError(f"{rolling['name']} has already rolled.")
        with _rules_say_no():
            if item["kind"] == "extended":
                action = rak.ExtendedAction.from_dict(item["action"])
                if action.finished:
                    raise ValidationError(f"This action has already {action.status.value}.")
            pool = {
                "attribute_value": rolling["attribute_value"],
                "specialities": len(rolling["specialities"]),
                "kept": rolling["kept"],
                "rng": base.resolve_rng(rng),
                "ruleset": ruleset,
            }
            if item["kind"] == "indirect":
                # The passive sheet's number as it is: over 10 no die can meet it.
                result = rak.roll_indirectly_opposed(
                    **pool,
                    passive_attribute_value=item["passive"]["attribute_value"],
                    passive_specialities=len(item["passive"]["specialities"]),
                )
            else:
                result = rak.roll(**pool, difficulty=item["difficulty"])
        difficulty_name = item.get("difficulty_name") or str(item["difficulty"])
        detail = _rak_detail(result, rolling, difficulty_name)
        rolling["roll"] = {
            "successes": result.successes,
            "botch": result.botch,
            "faces": [d.rolled for d in result.dice],
        }
        contest: dict[str, Any] = {"id": item["id"], "kind": item["kind"]}
        if item["kind"] == "direct":
            contest["side"] = rolling["name"]
            if all(s["roll"] is not None for s in item["sides"]):
                settled = _settle_direct(item, ruleset)
                first, second = item["sides"]
                winner = {rak.OWN: first["name"], rak.OPPONENT: second["name"]}.get(settled.winner)
                item["result"] = {"net": settled.margin, "winner": winner}
                contest.update(
                    settled=True,
                    line=f"{first['name']} {settled.own.successes} − {second['name']} "
                    f"{settled.opponent.successes}",
                    winner=winner,
                    margin=settled.margin,
                )
        elif item["kind"] == "indirect":
            item["result"] = {"successes": result.successes, "botch": result.botch}
            contest["passive"] = item["passive"]["name"]
        else:
            action = action.add_round(result)
            item["action"] = action.to_dict()
            contest.update(
                task=item["task"],
                accumulated=action.accumulated,
                target=action.target,
                round=len(action.rounds),
                status=action.status.value,
            )
        detail["contest"] = contest
        _store(scene, contest_panel.NAME, state)
        title = f"#{item['id']} {_describe(rolling)} vs {difficulty_name} ({item['difficulty']})"
        if item["kind"] == "indirect":
            title = (
                f"#{item['id']} {_describe(rolling)} vs {item['passive']['name']}: "
                f"difficulty {item['difficulty']}"
            )
        summary = f"{result.successes} success{'es' if result.successes != 1 else ''}"
        if result.botch:
            summary = "Botch!"
        elif result.successes:
            summary += f": {result.degree}"
        if contest.get("settled"):
            summary += (
                f" — {contest['winner']} wins by {contest['margin']}"
                if contest["winner"]
                else " — a tie: the status quo holds"
            )
        if item["kind"] == "extended":
            summary += f" — {contest['accumulated']} / {contest['target']}"
            if contest["status"] != "in_progress":
                summary += f", {contest['status']}"
        outcome = RollOutcome(
            title=title,
            summary=summary,
            detail=detail,
            outcome="botch" if result.botch else "success" if result.successes else "failure",
        )
        labels = {
            "direct": "Directly opposed",
            "indirect": "Indirectly opposed",
            "extended": f"Extended: {item.get('task', '')}",
        }
        return _record_roll(
            scene=scene,
            actor=actor,
            character=character,
            roll_kind="rak_contest",
            label=labels[item["kind"]],
            outcome=outcome,
            audience=Audience.GM_ONLY if item.get("secret") else Audience.EVERYONE,
        )


def contest_clear(*, scene: Scene, actor: Any, contest_id: Any) -> SceneEvent:
    """The GM takes a contest off the panel (finished or abandoned)."""
    require_gm(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        scene = _lock(scene)
        state = _contests(scene)
        item = _find_contest(state, contest_id)
        state["items"] = [i for i in state["items"] if i["id"] != item["id"]]
        _store(scene, contest_panel.NAME, state)
        return record_event(
            scene=scene,
            kind="contest",
            actor=actor,
            audience=Audience.GM_ONLY if item.get("secret") else Audience.EVERYONE,
            public={"message": f"#{item['id']} is cleared.", "refresh_panels": True},
        )


# --- percentile: tracked maneuvers, slumps and zones, the GM's perception rolls -----------------


def _maneuvers(scene: Scene) -> dict[str, Any]:
    state = percentile_state.state_of(scene)
    state.setdefault("streaks", [])
    state.setdefault("attempts", [])
    return state


def _tracking_event(scene: Scene, actor: Any, character: Character, lines: list[str]) -> SceneEvent:
    return record_event(
        scene=scene,
        kind="maneuver_tracking",
        actor=actor,
        character=character,
        public={"character": character.name, "lines": lines, "refresh_panels": True},
    )


def maneuver_track(
    *, scene: Scene, actor: Any, character: Character, data: dict[str, Any], rng: Rng | None = None
) -> SceneEvent:
    """A maneuver rolled with what the table tracks: the character's slump (-50) or zone (+50)
    at the skill and the earlier failures on this attempt (-25 each), then both updated.

    Seed 004: an Extraordinary Failure puts the character "in a slump ... until you get a full
    success"; an Extraordinary Success "in the zone ... until your next failure"; "Each failure
    you've had with this particular attempt gives you a cumulative -25 to subsequent attempts".
    A success ends the attempt, so the tracker forgets it. The roll's card is the maneuver's,
    so plot points may change it as any other; the tracker keeps the roll as first rolled and
    the GM corrects it from the panel if a change calls for it.
    """
    _require_system(scene, "percentile", "Tracked maneuvers")
    membership(scene.campaign, actor)
    require_open(scene)
    _require_player(scene, actor, character)
    if not str(data.get("skill") or "").strip():
        raise ValidationError("Pick a skill from the sheet: slumps and zones go by skill.")
    ruleset = scene.campaign.effective_ruleset()
    args = percentile_kinds.maneuver_args(data, character, ruleset)
    skill, column = args.pop("skill"), args.pop("column")
    args.pop("retry_failures")  # typed by hand on the roll panel; the tracker knows them here
    task = str(data.get("task") or "").strip() or skill
    if len(task) > 80:
        raise ValidationError("Keep the attempt's name under 80 characters.")
    with transaction.atomic():
        scene = _lock(scene)
        state = _maneuvers(scene)
        pid = str(character.pk)
        streak = percentile_state.streak_for(state, pid, skill)
        attempt = percentile_state.attempt_for(state, pid, task)
        with _rules_say_no():
            result = percentile.roll(
                **args,
                retry_failures=attempt.failures,
                condition=streak,
                rng=base.resolve_rng(rng),
                ruleset=ruleset,
            )
            streak_after, change = percentile.record_streak(streak, result, ruleset=ruleset)
            attempt_after = percentile.record_attempt(attempt, result, ruleset=ruleset)
        outcome = percentile_kinds.maneuver_outcome(result, skill=skill, column=column)
        roll = _record_roll(
            scene=scene,
            actor=actor,
            character=character,
            roll_kind="percentile",
            label=f"{ROLL_KINDS['percentile'].label}, tracked",
            outcome=outcome,
        )
        lines = []
        if change.changed:
            lines.append(percentile_state.streak_line(character.name, skill, change.after, ruleset))
        if result.succeeded:
            if attempt.failures:
                lines.append(f"“{attempt.task}” succeeds after {attempt.failures} failure(s).")
            attempt_after = percentile.reset_attempt(attempt)  # done: a new try starts afresh
        elif attempt_after.failures != attempt.failures:
            penalty = attempt_after.penalty(ruleset=ruleset)
            lines.append(
                f"“{attempt.task}”: {attempt_after.failures} failure(s), {penalty} on the next try."
            )
        percentile_state.put_streak(state, character.name, streak_after, roll.seq)
        percentile_state.put_attempt(state, character.name, skill, attempt_after)
        _store(scene, percentile_state.NAME, state)
        if lines:
            _tracking_event(scene, actor, character, lines)
        return roll


def perception_make(
    *, scene: Scene, actor: Any, character: Character, data: dict[str, Any], rng: Rng | None = None
) -> SceneEvent:
    """The GM's perception roll for a player's character (seed: "the GM will make a perception
    roll on his behalf"): GM-only from the start, committed to, revealable later. A slump or zone
    at that skill applies; the roll never changes it (that would tell the table the result)."""
    _require_system(scene, "percentile", "Perception rolls")
    require_gm(scene.campaign, actor)
    require_open(scene)
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    kind = ROLL_KINDS["percentile_perception"]
    skill = str(data.get("skill") or "").strip() or percentile_kinds.PERCEPTIVITY
    with transaction.atomic():
        scene = _lock(scene)
        streak = percentile_state.streak_for(_maneuvers(scene), str(character.pk), skill)
        with _rules_say_no():
            outcome = percentile_kinds.roll_perception(
                data=data,
                character=character,
                ruleset=scene.campaign.effective_ruleset(),
                rng=base.resolve_rng(rng),
                condition=streak,
            )
        return _record_roll(
            scene=scene,
            actor=actor,
            character=character,
            roll_kind=kind.name,
            label=kind.label,
            outcome=outcome,
            audience=Audience.GM_ONLY,
        )


def streak_set(
    *, scene: Scene, actor: Any, character: Character, skill: str, state: str
) -> SceneEvent:
    """The GM puts a character in a slump or the zone at a skill, or back to normal (a slump
    carried over from an earlier scene, or a plot point that changed the roll behind one)."""
    _require_system(scene, "percentile", "Slumps and zones")
    require_gm(scene.campaign, actor)
    require_open(scene)
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    skill = str(skill or "").strip()
    if not skill or len(skill) > 80:
        raise ValidationError("Name the skill (under 80 characters).")
    ruleset = scene.campaign.effective_ruleset()
    with _rules_say_no():
        wanted = lookup(state, percentile.STREAK_STATES, "streak state")
    with transaction.atomic():
        scene = _lock(scene)
        tracked = _maneuvers(scene)
        before = percentile_state.streak_for(tracked, str(character.pk), skill)
        if before.state == wanted:
            raise ValidationError(f"{character.name} is already {wanted} at {before.skill}.")
        new = percentile.SkillStreak(before.character, before.skill, wanted)
        percentile_state.put_streak(tracked, character.name, new, None)
        _store(scene, percentile_state.NAME, tracked)
        line = percentile_state.streak_line(character.name, new.skill, wanted, ruleset)
        return _tracking_event(scene, actor, character, [f"GM: {line}"])


def attempt_reset(*, scene: Scene, actor: Any, character: Character, task: str) -> SceneEvent:
    """The GM's reset: "You can start over with no penalty when you have new information ...
    or when you've trained in that skill since your last attempt"."""
    _require_system(scene, "percentile", "Repeated attempts")
    require_gm(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        scene = _lock(scene)
        tracked = _maneuvers(scene)
        attempt = percentile_state.attempt_for(tracked, str(character.pk), str(task or ""))
        if not attempt.failures:
            raise ValidationError("That attempt has no failures to forget.")
        percentile_state.put_attempt(tracked, character.name, "", percentile.reset_attempt(attempt))
        _store(scene, percentile_state.NAME, tracked)
        line = f"GM: “{attempt.task}” starts over with no penalty."
        return _tracking_event(scene, actor, character, [line])


# --- commands ---


def _character(scene: Scene, user: Any, raw: Any) -> Character:
    character = character_for_roll(scene=scene, actor=user, character_id=raw)
    if character is None:
        raise ValidationError("Pick a character.")
    return character


def _cmd_turns_start(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    lineup = []
    for character in turns_panel.roster(scene):
        if data.get(f"in:{character.pk}") in (None, "", False, "off"):
            continue
        default = turns_panel.DEFAULT_TEAMS.get(character.kind, "Others")
        lineup.append((character, _team_name(data.get(f"team:{character.pk}"), default)))
    turns_start(scene=scene, actor=user, lineup=lineup)


def _cmd_turns_end(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    turns_end(scene=scene, actor=user)


def _cmd_turns_act(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    turns_act(scene=scene, actor=user, character=_character(scene, user, data.get("character")))


def _cmd_turns_react(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    turns_react(scene=scene, actor=user, character=_character(scene, user, data.get("character")))


def _cmd_turns_join(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    character = _campaign_character(scene, data.get("character"))
    turns_join(scene=scene, actor=user, character=character, team=str(data.get("team") or ""))


def _cmd_turns_leave(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    character = _campaign_character(scene, data.get("character"))
    turns_leave(scene=scene, actor=user, character=character)


def _cmd_turns_move(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    step = {"up": -1, "down": 1}.get(str(data.get("direction")))
    if step is None:
        raise ValidationError("Move the team up or down.")
    turns_move_team(scene=scene, actor=user, team=str(data.get("team") or ""), step=step)


def _cmd_turns_stop(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    turns_stop(scene=scene, actor=user)


def _cmd_check_declare(scene: Scene, user: Any, data: dict[str, Any]) -> FollowUp:
    targets = [_campaign_character(scene, t) for t in _names(data.get("targets"))]
    event = check_declare(
        scene=scene,
        actor=user,
        character=_character(scene, user, data.get("character")),
        attribute=data.get("attribute"),
        difficulty=data.get("difficulty"),
        resource=data.get("resource"),
        targets=targets,
        penalty=data.get("penalty"),
    )
    # The window closes by itself; a little slack so the roll never comes a moment early.
    return FollowUp(
        delay=turns_panel.REACTION_SECONDS + 0.25,
        run=partial(_resolve_when_due, scene.pk, event.seq),
    )


def _cmd_check_react(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    check_react(
        scene=scene,
        actor=user,
        character=_character(scene, user, data.get("character")),
        opposition=str(data.get("opposition") or ""),
        attribute=data.get("attribute"),
        difficulty=data.get("difficulty"),
        resource=data.get("resource"),
    )


def _cmd_check_resolve(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    check_resolve(scene=scene, actor=user, seq=data.get("seq"))


def _side(scene: Scene, data: dict[str, Any], prefix: str) -> tuple[Character, Any, Any]:
    character = _campaign_character(scene, data.get(f"{prefix}character"), "Pick both characters.")
    return character, data.get(f"{prefix}attribute"), data.get(f"{prefix}specialities")


def _cmd_contest_direct(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    contest_direct_start(
        scene=scene,
        actor=user,
        sides=[_side(scene, data, "a_"), _side(scene, data, "b_")],
        difficulty=data.get("difficulty"),
    )


def _cmd_contest_indirect(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    contest_indirect_start(
        scene=scene,
        actor=user,
        active=_side(scene, data, "a_"),
        passive=_side(scene, data, "p_"),
        secret=data.get("secret") not in (None, "", False, "off"),
    )


def _cmd_contest_extended(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    character, attribute, specialities = _side(scene, data, "a_")
    extended_start(
        scene=scene,
        actor=user,
        character=character,
        attribute=attribute,
        specialities=specialities,
        difficulty=data.get("difficulty"),
        task=str(data.get("task") or ""),
        target=data.get("target"),
        minimum=data.get("minimum"),
    )


def _cmd_contest_roll(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    contest_roll(scene=scene, actor=user, contest_id=data.get("contest"), side=data.get("side", 0))


def _cmd_contest_clear(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    contest_clear(scene=scene, actor=user, contest_id=data.get("contest"))


def _cmd_maneuver_track(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    maneuver_track(
        scene=scene, actor=user, character=_character(scene, user, data.get("character")), data=data
    )


def _cmd_perception(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    character = _campaign_character(scene, data.get("character"))
    perception_make(scene=scene, actor=user, character=character, data=data)


def _cmd_streak_set(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    streak_set(
        scene=scene,
        actor=user,
        character=_campaign_character(scene, data.get("character")),
        skill=str(data.get("skill") or ""),
        state=str(data.get("state") or ""),
    )


def _cmd_attempt_reset(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    attempt_reset(
        scene=scene,
        actor=user,
        character=_campaign_character(scene, data.get("character")),
        task=str(data.get("task") or ""),
    )


COMMANDS = {
    "turns_start": _cmd_turns_start,
    "turns_end": _cmd_turns_end,
    "turns_act": _cmd_turns_act,
    "turns_react": _cmd_turns_react,
    "turns_join": _cmd_turns_join,
    "turns_leave": _cmd_turns_leave,
    "turns_move": _cmd_turns_move,
    "turns_stop": _cmd_turns_stop,
    "check_declare": _cmd_check_declare,
    "check_react": _cmd_check_react,
    "check_resolve": _cmd_check_resolve,
    "contest_direct": _cmd_contest_direct,
    "contest_indirect": _cmd_contest_indirect,
    "contest_extended": _cmd_contest_extended,
    "contest_roll": _cmd_contest_roll,
    "contest_clear": _cmd_contest_clear,
    "maneuver_track": _cmd_maneuver_track,
    "perception_roll": _cmd_perception,
    "streak_set": _cmd_streak_set,
    "attempt_reset": _cmd_attempt_reset,
}
