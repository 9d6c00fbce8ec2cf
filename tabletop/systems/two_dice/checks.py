"""two_dice checks on the turn tracker (seed 003): a character declares a check, others may
hinder or resist it in the reaction window, then it rolls with every penalty stacked.

Each move is a ``@scene_action`` (the kit authorises, guards the system, locks the scene); the
window closing by itself (``check_resolve`` with no actor, from ``resolve_due``) locks the scene
on its own. State: the ``turns`` view's entry (its ``pending`` check), through the kit."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from rules import two_dice
from rules.core import Rng
from rules.turns import TurnTracker
from tabletop.systems import api
from tabletop.systems.api import (
    Character,
    Command,
    CommandContext,
    Members,
    Parsed,
    Raw,
    Rolling,
    RollOutcome,
    Scene,
    SceneEvent,
    close_pending,
    ordered_bands,
    procedure_state,
    record_event,
    record_roll,
    require_open,
    require_player,
    require_started,
    scene_action,
    scene_locked,
    sheet_int,
    store_state,
    stored_odds,
    turns_state,
    whole,
)
from tabletop.systems.two_dice.models import TwoDiceSheet
from tabletop.systems.two_dice.procedure_views import pending_of, window_open
from tabletop.systems.two_dice.resources import pay_from_sheet
from tabletop.systems.two_dice.rolls import BAND_LABELS as TWO_DICE_BANDS
from tabletop.systems.two_dice.rolls import OTHER_PENALTY

# --- two_dice: a check others may hinder or resist ----------------------------------------------

#: The system these moves belong to (the kit refuses them in a campaign of another).
SLUG = "two_dice"
#: The moves as that refusal names them.
WHAT = "Hinder and resist"


def _two_dice_sheet(
    character: Character, *, attribute: Any, resource: Any, ruleset: Any
) -> tuple[str, int, str, int]:
    attribute, resource = two_dice.check_pairing(
        attribute=str(attribute or "")[:60], resource=str(resource or "")[:60], ruleset=ruleset
    )
    value = sheet_int((character.attributes or {}).get(attribute))
    points = (character.resources or {}).get(resource)
    available = sheet_int(points.get("current") if isinstance(points, dict) else 0)
    return attribute, value, resource, max(available, 0)


def _extra_penalty(penalty: Any) -> int:
    """The GM's or player's extra penalty on a check (seed 003's "other" penalties)."""
    extra = 0 if penalty in (None, "") else whole(penalty, "Extra penalty")
    if not 0 <= extra <= two_dice.MAX_NUMBER:
        raise ValidationError(f"The extra penalty must be between 0 and {two_dice.MAX_NUMBER}.")
    return extra


def _declaring(
    state: dict[str, Any], tracker: TurnTracker, character: Character, targets: list[Character]
) -> tuple[str, list[str], TurnTracker]:
    """(the character's participant id, its targets', the tracker with its action taken), once
    the round has started, no other check waits and every target is on the tracker."""
    require_started(tracker)
    if state.get("pending"):
        raise ValidationError("Another check is waiting for reactions: it rolls first.")
    pid = api.turn_participant_id(character)
    target_ids = [api.turn_participant_id(t) for t in targets]
    for target in target_ids:
        tracker.participant(target)
    if pid in target_ids:
        raise ValidationError(f"{character.name} cannot target their own check.")
    tracker, _ = tracker.take_action(pid)
    return pid, target_ids, tracker


def _declared(
    actor: Any,
    character: Character,
    declared: two_dice.PendingAction,
    extra: int,
    targets: list[Character],
    closes: datetime,
) -> dict[str, Any]:
    """The declared check's card: what it rolls, what it costs, whom it targets, and when the
    reaction window closes."""
    return {
        "who": actor.get_username(),
        "character": character.name,
        "attribute": declared.attribute,
        "attribute_value": declared.attribute_value,
        "difficulty": declared.difficulty,
        "resource": declared.payment.resource,
        "cost": declared.payment.cost,
        "unpaid": declared.payment.unpaid,
        "penalty": extra,
        "targets": [t.name for t in targets],
        "closes_at": closes.isoformat(),
        "status": "pending",
    }


@scene_action(system=SLUG, what=WHAT)
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
    context: CommandContext,
) -> SceneEvent:
    """The character's action this turn is a check that others may oppose before it rolls.

    Seed 003 "Opposing": a character "uses a reaction to prevent another character from doing
    something". The check is declared now (its cost and dice fixed), the table has the
    campaign's ``reaction_seconds`` (its setting) to hinder or resist it, then it rolls with
    every penalty stacked."""
    require_player(scene, actor, character)
    ruleset = scene.campaign.effective_ruleset()
    attribute, value, resource, available = _two_dice_sheet(
        character, attribute=attribute, resource=resource, ruleset=ruleset
    )
    extra = _extra_penalty(penalty)
    targets = list(targets)
    state, tracker = turns_state(scene)
    pid, target_ids, tracker = _declaring(state, tracker, character, targets)
    declared = two_dice.declare_action(
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
    closes = (now or timezone.now()) + timedelta(seconds=ruleset["reaction_seconds"])
    event = record_event(
        scene=scene,
        kind="check_declared",
        actor=actor,
        character=character,
        public=_declared(actor, character, declared, extra, targets, closes),
        context=context,
    )
    state.update(
        tracker=tracker.to_dict(),
        pending={
            "seq": event.seq,
            "character_id": character.pk,
            "closes_at": closes.isoformat(),
            "involved": [pid, *target_ids],  # they may not leave the tracker meanwhile
            "action": declared.to_dict(),
        },
    )
    store_state(scene, api.TURNS_VIEW, state)
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


def _reacting(pending: Any, character: Character, opposition: str) -> str:
    """The character's participant id, once it may hinder (or, as a target, resist) the check
    that waits (seed 003: a reaction, once a round, never against one's own check)."""
    if pending is None:
        raise ValidationError("There is no check waiting for reactions.")
    pid = api.turn_participant_id(character)
    if pid == pending.actor:
        raise ValidationError(f"{character.name} cannot {opposition} their own check.")
    if any(o.reactor == pid for o in pending.oppositions):
        raise ValidationError(f"{character.name} has already reacted to this check.")
    if opposition == two_dice.RESIST and pid not in pending.targets:
        raise ValidationError(
            f"{character.name} is not a target of this check: only targets resist "
            "(a resist protects only the resister). Hinder it instead."
        )
    return pid


def _reaction_outcome(
    character: Character,
    opposition: str,
    reaction: two_dice.CheckResult,
    opposed: Any,
    names: dict[str, str],
    against: str,
    declared_seq: int,
) -> RollOutcome:
    """The reaction's card: who hinders or resists whose check (``against``, declared at
    ``declared_seq``), its band, and the penalty it lays on that check."""
    verb = "hinders" if opposition == two_dice.HINDER else "resists"
    detail = {
        "check": _check_detail(reaction, names),
        "opposition": opposition,
        "against": against,
        "penalty": opposed.penalty.to_dict() if opposed.penalty else None,
        "declared": declared_seq,
    }
    if opposed.penalty:
        whom = "every target" if opposition == two_dice.HINDER else character.name
        effect = f"−{opposed.penalty.amount} on {against}'s check against {whom}"
    else:
        effect = "no penalty"
    return RollOutcome(
        title=f"{character.name} {verb} {against}'s check: {reaction.attribute} "
        f"{reaction.attribute_value:+d} · {reaction.difficulty}",
        summary=f"{TWO_DICE_BANDS[reaction.band]} ({reaction.total}): {effect}",
        detail=detail,
        outcome=reaction.band,
    )


def _reaction_check(
    sheet: tuple[str, int, str, int], difficulty: Any, rng: Rng, ruleset: Any
) -> two_dice.CheckResult:
    """The reactor's own check (seed 003: the reactor "makes their own check"), from the
    attribute and resource read off the sheet (``_two_dice_sheet``)."""
    attribute, value, resource, available = sheet
    return two_dice.check(
        attribute=attribute,
        attribute_value=value,
        difficulty=str(difficulty or "")[:60],
        resource=resource,
        resource_available=available,
        rng=rng,
        ruleset=ruleset,
    )


def _reaction_odds(reaction: two_dice.CheckResult, ruleset: Any) -> dict[str, Any]:
    """A reaction is a plain check (its unpaid cost its only penalty): its exact bands, for the
    dice statistics. (The opposed action's aren't stored: hinders add penalty dice.)"""
    chances = two_dice.check_distribution(
        attribute=reaction.attribute_value,
        difficulty=reaction.difficulty,
        penalty=reaction.payment.unpaid,
        ruleset=ruleset,
    )
    return stored_odds({"bands": ordered_bands(chances, two_dice.BANDS)})


@scene_action(system=SLUG, what=WHAT)
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
    context: CommandContext,
) -> SceneEvent:
    """Hinder or resist the pending check with the character's reaction for this round.

    Seed: the reactor makes their own check; "If the hindering character succeeds, roll a die
    and apply the result as a penalty ... against all targets"; a successful resist's die counts
    "against only the resisting character". Penalties stack. The reaction is spent either way.
    """
    require_player(scene, actor, character)
    if opposition not in (two_dice.HINDER, two_dice.RESIST):
        raise ValidationError("Hinder or resist?")
    ruleset = scene.campaign.effective_ruleset()
    sheet = _two_dice_sheet(character, attribute=attribute, resource=resource, ruleset=ruleset)
    state, tracker = turns_state(scene)
    pending = pending_of(state)
    pid = _reacting(pending, character, opposition)
    rng = api.game_dice(rng)
    tracker, _ = tracker.use_reaction(pid)
    reaction = _reaction_check(sheet, difficulty, rng, ruleset)
    oppose = pending.add_hinder if opposition == two_dice.HINDER else pending.add_resist
    pending, opposed = oppose(pid, reaction, rng=rng)
    state["tracker"] = tracker.to_dict()
    state["pending"] = {**state["pending"], "action": pending.to_dict()}
    store_state(scene, api.TURNS_VIEW, state)
    names = _names_by_id(tracker)
    declared_seq = state["pending"]["seq"]
    against = names.get(pending.actor, pending.actor)
    outcome = _reaction_outcome(
        character, opposition, reaction, opposed, names, against, declared_seq
    )
    declared = SceneEvent.objects.filter(scene=scene, seq=declared_seq).first()
    event = record_roll(
        scene=scene,
        actor=actor,
        character=character,
        roll_kind="two_dice_reaction",
        label="Hinder" if opposition == two_dice.HINDER else "Resist",
        outcome=outcome,
        parent=declared,
        odds=_reaction_odds(reaction, ruleset),
        context=context,
    )
    _pay(event, character, reaction.payment)  # a reaction is an action: it costs too
    return event


def _pay(event: SceneEvent, character: Character | None, payment: two_dice.Payment) -> None:
    """The check's cost leaves the sheet now that it rolled; its card says how much."""
    if character is None:
        return
    pay_from_sheet(character, payment.resource, payment.paid, event=event)


def check_resolve(
    *,
    scene: Scene,
    actor: Any = None,
    seq: Any = None,
    now: datetime | None = None,
    rng: Rng | None = None,
    context: CommandContext | None = None,
) -> SceneEvent | None:
    """Roll the pending check with every penalty known now, once against each target.

    The GM may roll it at any time; the acting player once the reaction window has closed;
    ``actor=None`` is the window closing by itself (then it is a no-op, returning None, unless
    check ``seq`` is still pending and due).
    """
    if actor is not None:
        return _rolled_by(scene=scene, actor=actor, seq=seq, now=now, rng=rng, context=context)
    # No one acts, so no one is authorised: the kit can't wrap this; it locks the scene itself.
    require_open(scene)
    with scene_locked(scene) as scene:
        state, tracker = turns_state(scene)
        raw = _waiting(state, seq)
        if raw is None or window_open(raw, now):
            return None  # rolled, dropped or not due yet: nothing to do
        return _roll(scene, None, state, tracker, rng, context=context)


def _waiting(state: dict[str, Any], seq: Any) -> dict[str, Any] | None:
    """The pending check, if it is check ``seq`` (any, when no ``seq`` is named)."""
    raw = state.get("pending")
    if raw is None or (seq not in (None, "") and raw["seq"] != whole(seq, "Which check?")):
        return None
    return raw


@scene_action(system=SLUG, what=WHAT)
def _rolled_by(
    *,
    scene: Scene,
    actor: Any,
    seq: Any,
    now: datetime | None,
    rng: Rng | None,
    context: CommandContext,
) -> SceneEvent:
    """The GM rolls the pending check at any time; its acting player once the window closed."""
    state, tracker = turns_state(scene)
    raw = _waiting(state, seq)
    if raw is None:
        raise ValidationError("That check is not waiting any more.")
    if scene.campaign.gm_id != actor.pk:
        character = TwoDiceSheet.objects.filter(pk=raw["character_id"]).first()
        if character is None or character.owner_id != actor.pk:
            raise PermissionDenied("Only the acting player or the GM rolls this check.")
        if window_open(raw, now):
            raise ValidationError(
                "The others may still react: the check rolls when the "
                "reaction window closes (or when the GM rolls it)."
            )
    return _roll(scene, actor, state, tracker, rng, context=context)


def _summary(result: Any, detail: dict[str, Any]) -> tuple[str, Any]:
    """A rolled check's summary and band: against each target (one target's band), or alone."""
    if result.targets:
        summary = "; ".join(
            f"vs {t['name']}: {t['band_label']} ({t['total']})" for t in detail["targets"]
        )
        return summary, result.targets[0].band if len(result.targets) == 1 else result.check.band
    return f"{TWO_DICE_BANDS[result.check.band]} ({result.check.total})", result.check.band


def _roll(
    scene: Scene,
    actor: Any,
    state: dict[str, Any],
    tracker: TurnTracker,
    rng: Rng | None,
    *,
    context: CommandContext | None = None,
) -> SceneEvent:
    """Roll the pending check (on the locked scene) and clear it from the tracker's state."""
    raw = state["pending"]
    pending = two_dice.PendingAction.from_dict(raw["action"])
    pending, result = pending.resolve(rng=api.game_dice(rng))
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
    character = TwoDiceSheet.objects.filter(pk=raw["character_id"]).first()
    name = names.get(pending.actor, pending.actor)
    summary, outcome_band = _summary(result, detail)
    outcome = RollOutcome(
        title=f"{name}: {pending.attribute} {pending.attribute_value:+d} · "
        f"{pending.difficulty} (cost {pending.payment.cost} from {pending.payment.resource})",
        summary=summary,
        detail=detail,
        outcome=outcome_band,
    )
    declared = close_pending(scene, raw["seq"], status="rolled")
    # The window closing by itself rolls it as the player who declared it.
    roller = declared.actor if declared is not None and declared.actor else actor
    event = record_roll(
        scene=scene,
        actor=roller,
        character=character,
        roll_kind="two_dice_action",
        label="Opposed check",
        outcome=outcome,
        parent=declared,
        context=context,
    )
    if declared is not None:
        declared.public["result_seq"] = event.seq
        declared.save(update_fields=["public"])
    _pay(event, character, pending.payment)
    state.update(pending=None, last={"seq": event.seq, "summary": f"{name}: {summary}"})
    store_state(scene, api.TURNS_VIEW, state)
    return event


def resolve_due(
    *, scene: Scene, now: datetime | None = None, context: CommandContext | None = None
) -> int:
    """Roll the scene's pending check if its reaction window has closed (the follow-up when the
    window closes, and the heartbeat's safety net); how many events that recorded."""
    pending = (procedure_state(scene, api.TURNS_VIEW) or {}).get("pending")
    if not pending or window_open(pending, now):
        return 0
    with contextlib.suppress(ValidationError):  # rolled, dropped or closed meanwhile
        resolved = check_resolve(
            scene=scene, actor=None, seq=pending["seq"], now=now, context=context
        )
        return int(resolved is not None)
    return 0


# --- commands ---


def _window(declared: SceneEvent) -> datetime | None:
    """The reaction window the declaration opened: the check rolls by itself when it closes."""
    closes_at = declared.public.get("closes_at")
    return datetime.fromisoformat(closes_at) if closes_at else None


COMMANDS = (
    Command(
        "check_declare",
        check_declare,
        window=_window,
        character=Rolling(required="Pick a character."),
        attribute=Raw("attribute"),
        difficulty=Raw("difficulty"),
        resource=Raw("resource"),
        targets=Members("targets"),
        penalty=Raw("penalty"),
    ),
    Command(
        "check_react",
        check_react,
        character=Rolling(required="Pick a character."),
        opposition=Parsed(lambda scene, user, data: str(data.get("opposition") or "")),
        attribute=Raw("attribute"),
        difficulty=Raw("difficulty"),
        resource=Raw("resource"),
    ),
    Command("check_resolve", check_resolve, seq=Raw("seq")),
)
