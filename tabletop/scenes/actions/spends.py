"""Live spends: bennies on conductor rolls, GM awards, plot points with their cancel window."""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from rules import percentile
from rules.core import Rng, RulesError, lookup
from tabletop.characters.models import Character
from tabletop.scenes.actions import base
from tabletop.scenes.actions.base import (
    FollowUp,
    character_for_roll,
    lock_roll,
    membership,
    require_gm,
    require_open,
    roll_data,
    whole,
)
from tabletop.scenes.events import record_event
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.rollkinds import RollOutcome
from tabletop.systems.conductor import rolls as conductor_kinds
from tabletop.systems.percentile import rolls as percentile_kinds

# --- live spends: bennies (conductor) ------------------------------------------------------------


def _require_latest_roll(event: SceneEvent) -> None:
    """Seed: spends come "after seeing the roll's result" / on "a roll just made": the
    character's newest roll in this scene, not an old one."""
    if not base.is_latest_roll(event):
        raise ValidationError(
            f"{event.character.name} has rolled since: spends go on the character's latest roll."
        )


def _pay(character: Character, field: str, amount: int, what: str) -> None:
    """Take ``amount`` from a currency in one conditional UPDATE: two simultaneous clicks can
    never overdraw it (the second finds too little and changes nothing)."""
    paid = Character.objects.filter(pk=character.pk, **{f"{field}__gte": amount}).update(
        **{field: F(field) - amount}
    )
    if not paid:
        have = Character.objects.values_list(field, flat=True).get(pk=character.pk)
        raise ValidationError(f"{character.name} has {have} {what} and this takes {amount}.")


def _amend(event: SceneEvent, outcome: RollOutcome, spend: dict[str, Any]) -> None:
    """Show the changed roll on its card; the committed secret keeps the roll as first rolled."""
    event.public["amended"] = {
        "title": outcome.title,
        "summary": outcome.summary,
        "outcome": outcome.outcome,
        "result": outcome.detail,
    }
    event.public.setdefault("spends", []).append(spend)
    event.save(update_fields=["public"])


def benny_spend(
    *, scene: Scene, actor: Any, seq: Any, die_index: Any = None, rng: Rng | None = None
) -> SceneEvent:
    """Spend one of the roller's character's bennies on their latest standard or attack roll.

    Seed 002: "After seeing the roll's result, the PLAYER may supplement its result using
    BENNIES" (+1 to a standard roll; +1 to one chosen attack die, which explodes on reaching 6).
    """
    membership(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        # Spends are played in the open: a benny or plot point on a hidden roll would tell the
        # table that it was close. The GM reveals the roll first.
        roll = lock_roll(scene, seq, "Bennies")
        data = roll_data(roll)
        if data.get("roll_kind") not in conductor_kinds.BENNY_KINDS:
            raise ValidationError("Bennies go on standard and attack rolls.")
        character = roll.character
        if character is None:
            raise ValidationError("Only a character's roll takes bennies.")
        if character.owner_id != actor.pk:
            raise PermissionDenied("Only the character's player spends their bennies.")
        _require_latest_roll(roll)
        if data.get("strike_back", {}).get("status") == "struck":
            raise ValidationError("The foe has already struck back: this attack is over.")
        try:
            outcome = conductor_kinds.spend_benny(
                data["roll_kind"], data["result"], die_index=die_index, rng=base.resolve_rng(rng)
            )
        except RulesError as exc:
            raise ValidationError(str(exc)) from None
        _pay(character, "bennies", 1, "bennies")
        die = None if die_index in (None, "") else int(die_index) + 1
        text = f"+1 on die {die}" if die else "+1"
        _amend(roll, outcome, {"by": actor.get_username(), "text": f"benny {text}"})
        strike = roll.public.get("strike_back")
        if strike and strike.get("status") == "pending" and outcome.outcome == "success":
            strike["status"] = "averted"
            roll.save(update_fields=["public"])
        return record_event(
            scene=scene,
            kind="benny",
            actor=actor,
            character=character,
            parent=roll,
            public={
                "who": actor.get_username(),
                "character": character.name,
                "seq": roll.seq,
                "die": die,
                "summary": outcome.summary,
                "refresh_panels": True,
            },
        )


# --- GM awards and adjustments ---------------------------------------------------------------

#: What the GM hands out or takes away from the scene's dashboard, per step.
ADJUSTABLE = {
    "bennies": ("benny", "bennies"),
    "plot_points": ("plot point", "plot points"),
    "hits": ("hit", "hits"),
    "lasting_hits": ("lasting hit", "lasting hits"),
}


def currency_adjust(
    *, scene: Scene, actor: Any, character: Character, field: str, amount: int
) -> SceneEvent:
    """The GM awards (or takes back) bennies or plot points, or marks hits, live.

    An award of plot points raises available and total alike (seed: spending "reduces the
    number available but not the total"; an award is new points).
    """
    require_gm(scene.campaign, actor)
    require_open(scene)
    if field not in ADJUSTABLE:
        raise ValidationError(f"The GM can't hand out {str(field)[:30]!r} here.")
    amount = whole(amount, "How many?")
    if amount == 0 or abs(amount) > 99:
        raise ValidationError("Give or take between 1 and 99 at a time.")
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    changes = {field: amount}
    if field == "plot_points" and amount > 0:
        changes["plot_points_total"] = amount
    from tabletop.characters.actions import character_adjust

    with transaction.atomic():
        character_adjust(character=character, actor=actor, relative=True, **changes)
        one, many = ADJUSTABLE[field]
        count = abs(amount)
        verb = "gave" if amount > 0 else "took back"
        if field in ("hits", "lasting_hits"):
            verb = "marked" if amount > 0 else "healed"
        noun = one if count == 1 else many
        return record_event(
            scene=scene,
            kind="award",
            actor=actor,
            character=character,
            public={
                "text": f"{verb} {count} {noun}",
                "character": character.name,
                "field": field,
                "amount": amount,
                "refresh_panels": True,
            },
        )


# --- live spends: plot points (percentile) ---------------------------------------------------

#: How a plot point spend moves: awaiting_gm -> open (cancel window) -> applied, or it ends
#: denied (nothing paid) or cancelled (both sides paid: "once spent, are lost").
SPEND_STATES = ("awaiting_gm", "open", "applied", "denied", "cancelled")
CHANGE_USES = ("change_roll", "change_roll_open_ended")


def _own_character(scene: Scene, actor: Any, character_id: Any) -> Character:
    character = character_for_roll(scene=scene, actor=actor, character_id=character_id)
    if character is None:
        raise ValidationError("Pick the character whose plot points you spend.")
    if character.owner_id != actor.pk:
        raise PermissionDenied("Plot points are spent by the character's own player.")
    return character


def _closes_at(scene: Scene) -> datetime:
    seconds = scene.campaign.effective_ruleset()["plot_point_cancel_seconds"]
    return timezone.now() + timedelta(seconds=seconds)


def plot_spend(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    use: str,
    seq: Any = None,
    new_value: Any = None,
    cost: Any = None,
    note: str = "",
) -> SceneEvent:
    """Spend plot points (seed 004): change a roll just made (1 point: 6-95; 2 points: 1-100,
    open-ended) or a narrative use. Uses the GM must agree to wait for ``plot_spend_decide``;
    the others are paid now and open a window in which another player may cancel them by
    spending the same amount (``plot_spend_cancel``); ``plot_spend_settle`` then applies them.
    """
    campaign = scene.campaign
    membership(campaign, actor)
    require_open(scene)
    if campaign.system != "percentile":
        raise ValidationError("Plot points belong to the percentile system.")
    if character.owner_id != actor.pk:
        raise PermissionDenied("Plot points are spent by the character's own player.")
    uses = percentile.plot_point_uses(campaign.effective_ruleset())
    try:
        name = lookup(use, uses, "plot point use")
    except RulesError as exc:
        raise ValidationError(str(exc)) from None
    spec = uses[name]
    note = (note or "").strip()
    if len(note) > 300:
        raise ValidationError("Keep the note under 300 characters.")
    points = spec["cost"]
    if spec["gm_sets_cost"] and cost not in (None, ""):
        points = whole(cost, "How many plot points?")
        if not spec["cost"] <= points <= 20:
            raise ValidationError(f"Offer between {spec['cost']} and 20 plot points.")
    public: dict[str, Any] = {
        "who": actor.get_username(),
        "character": character.name,
        "character_id": character.pk,
        "use": name,
        "use_text": spec["text"],
        "points": points,
        "note": note,
        "cost_set_by_gm": spec["gm_sets_cost"],
        "refresh_panels": True,
    }
    with transaction.atomic():
        roll = None
        if name in CHANGE_USES:
            roll = lock_roll(scene, seq, "Plot points")
            _require_changeable(roll)
            low, high = spec["values"]
            value = whole(new_value, "The new roll")
            if not low <= value <= high:
                raise ValidationError(
                    f"For {points} plot point{'s' if points > 1 else ''} the new roll must be "
                    f"from {low} to {high}."
                )
            public.update(seq=roll.seq, new_value=value, roller=roll.public.get("roller", ""))
        if spec["gm_approval"]:
            public["status"] = "awaiting_gm"
        else:
            _pay(character, "plot_points", points, "plot points")
            public.update(status="open", closes_at=_closes_at(scene).isoformat())
        event = record_event(
            scene=scene, kind="plot_spend", actor=actor, character=character, public=public
        )
        if roll is not None:
            roll.public["pending_change"] = event.seq
            roll.save(update_fields=["public"])
            event.public["refresh"] = [roll.seq]
            event.save(update_fields=["public"])
        return event


def _require_changeable(roll: SceneEvent) -> None:
    data = roll_data(roll)
    if data.get("roll_kind") not in percentile_kinds.CHANGEABLE_KINDS:
        raise ValidationError("Plot points change d100 maneuver rolls.")
    if roll.character_id is None:
        raise ValidationError("Only a character's roll can be changed with plot points.")
    _require_latest_roll(roll)
    if roll.public.get("pending_change"):
        raise ValidationError(
            "A change to this roll is already waiting; cancel it by spending the same amount."
        )


def _lock_spend(scene: Scene, seq: Any) -> SceneEvent:
    event = (
        # of=("self",): PostgreSQL can't lock the nullable side of the character join.
        SceneEvent.objects.select_for_update(of=("self",))
        .select_related("character", "scene__campaign")
        .filter(scene=scene, seq=whole(seq, "Which spend?"), kind="plot_spend")
        .first()
    )
    if event is None:
        raise ValidationError("There is no such plot point spend in this scene.")
    return event


def plot_spend_decide(
    *, scene: Scene, actor: Any, seq: Any, approve: bool, cost: Any = None
) -> SceneEvent:
    """The GM agrees to a narrative use (the points are paid now and the cancel window opens)
    or refuses it (nothing is paid). For uses whose cost the GM sets, ``cost`` sets it."""
    require_gm(scene.campaign, actor)
    require_open(scene)
    with transaction.atomic():
        spend = _lock_spend(scene, seq)
        if spend.public.get("status") != "awaiting_gm":
            raise ValidationError("That spend is not waiting for the GM.")
        points = spend.public["points"]
        if approve and cost not in (None, ""):
            uses = percentile.plot_point_uses(scene.campaign.effective_ruleset())
            spec = uses.get(spend.public["use"], {})
            if not spec.get("gm_sets_cost"):
                raise ValidationError("This use has a fixed cost.")
            points = whole(cost, "How many plot points?")
            if not spec["cost"] <= points <= 20:
                raise ValidationError(f"Set a cost between {spec['cost']} and 20.")
        if approve:
            _pay(spend.character, "plot_points", points, "plot points")
            spend.public.update(
                status="open", points=points, closes_at=_closes_at(scene).isoformat()
            )
        else:
            spend.public["status"] = "denied"
            _clear_pending_change(spend)
        spend.save(update_fields=["public"])
        return record_event(
            scene=scene,
            kind="plot_decision",
            actor=actor,
            parent=spend,
            public={
                "approved": bool(approve),
                "points": points,
                "who": spend.public["who"],
                "use_text": spend.public["use_text"],
                "spend_seq": spend.seq,
                "refresh_panels": True,
            },
        )


def plot_spend_cancel(
    *, scene: Scene, actor: Any, seq: Any, character: Character, now: datetime | None = None
) -> SceneEvent:
    """Seed: "cancel out someone else spending plot points by spending the same amount
    yourself". Both sides' points are gone; the cancelled use does not happen."""
    membership(scene.campaign, actor)
    require_open(scene)
    if character.owner_id != actor.pk:
        raise PermissionDenied("Plot points are spent by the character's own player.")
    with transaction.atomic():
        spend = _lock_spend(scene, seq)
        if spend.actor_id == actor.pk:
            raise ValidationError("You can't cancel your own spend.")
        if spend.public.get("status") == "awaiting_gm":
            raise ValidationError("Nothing is spent until the GM agrees: wait for the decision.")
        if spend.public.get("status") != "open":
            raise ValidationError("That spend can no longer be cancelled.")
        if _window_closed(spend, now):
            raise ValidationError("Too late: the window to cancel that spend has closed.")
        points = spend.public["points"]
        _pay(character, "plot_points", points, "plot points")
        spend.public.update(status="cancelled", cancelled_by=character.name)
        spend.save(update_fields=["public"])
        _clear_pending_change(spend)
        return record_event(
            scene=scene,
            kind="plot_cancel",
            actor=actor,
            character=character,
            parent=spend,
            public={
                "who": actor.get_username(),
                "character": character.name,
                "points": points,
                "spender": spend.public["who"],
                "use_text": spend.public["use_text"],
                "spend_seq": spend.seq,
                "refresh": [spend.public["seq"]] if spend.public.get("seq") else [],
                "refresh_panels": True,
            },
        )


def _window_closed(spend: SceneEvent, now: datetime | None) -> bool:
    closes_at = datetime.fromisoformat(spend.public["closes_at"])
    return (now or timezone.now()) >= closes_at


def _clear_pending_change(spend: SceneEvent) -> None:
    seq = spend.public.get("seq")
    if not seq:
        return
    roll = SceneEvent.objects.select_for_update().filter(scene_id=spend.scene_id, seq=seq).first()
    if roll is not None and roll.public.pop("pending_change", None) is not None:
        roll.save(update_fields=["public"])


def plot_spend_settle(
    *, scene: Scene, seq: Any, now: datetime | None = None, rng: Rng | None = None
) -> SceneEvent | None:
    """Apply an open spend whose cancel window has closed (idempotent: None when there is
    nothing to do). A changed roll gets its new value; with two points a chosen 96-100 or
    01-05 goes open-ended and the continuation is rolled now."""
    with transaction.atomic():
        spend = _lock_spend(scene, seq)
        if spend.public.get("status") != "open" or not _window_closed(spend, now):
            return None
        public: dict[str, Any] = {
            "who": spend.public["who"],
            "use_text": spend.public["use_text"],
            "points": spend.public["points"],
            "spend_seq": spend.seq,
            "refresh_panels": True,
        }
        if spend.public["use"] in CHANGE_USES:
            roll = SceneEvent.objects.select_for_update().get(scene=scene, seq=spend.public["seq"])
            data = roll_data(roll)
            try:
                outcome = percentile_kinds.change_roll(
                    data["result"],
                    new_value=spend.public["new_value"],
                    points=spend.public["points"],
                    ruleset=scene.campaign.effective_ruleset(),
                    rng=base.resolve_rng(rng),
                )
            except RulesError as exc:  # the campaign's costs changed since: refund nothing
                spend.public.update(status="denied", reason=str(exc))
                spend.save(update_fields=["public"])
                _clear_pending_change(spend)
                raise ValidationError(str(exc)) from None
            roll.public.pop("pending_change", None)
            _amend(
                roll,
                outcome,
                {
                    "by": spend.public["who"],
                    "text": f"{spend.public['points']} plot point"
                    f"{'s' if spend.public['points'] > 1 else ''}: roll set to "
                    f"{spend.public['new_value']}",
                },
            )
            public.update(summary=outcome.summary, refresh=[roll.seq])
        spend.public["status"] = "applied"
        spend.save(update_fields=["public"])
        return record_event(
            scene=scene, kind="plot_applied", actor=spend.actor, parent=spend, public=public
        )


def settle_due(*, scene_id: int, now: datetime | None = None) -> int:
    """Settle every spend of the scene whose window has closed (the heartbeat's safety net if
    the process that scheduled the settle died). Returns how many were applied."""
    scene = Scene.objects.select_related("campaign").filter(pk=scene_id).first()
    if scene is None or not scene.is_open:
        return 0
    applied = 0
    for seq in SceneEvent.objects.filter(
        scene=scene, kind="plot_spend", public__status="open"
    ).values_list("seq", flat=True):
        try:
            if plot_spend_settle(scene=scene, seq=seq, now=now) is not None:
                applied += 1
        except ValidationError:
            continue
    return applied


# --- commands ---


def _cmd_benny(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    benny_spend(scene=scene, actor=user, seq=data.get("seq"), die_index=data.get("die"))


def _cmd_award(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    require_gm(scene.campaign, user)
    character = character_for_roll(scene=scene, actor=user, character_id=data.get("character"))
    if character is None:
        raise ValidationError("Pick a character.")
    currency_adjust(
        scene=scene,
        actor=user,
        character=character,
        field=str(data.get("field", "")),
        amount=data.get("amount"),
    )


def _settle_later(scene: Scene, event: SceneEvent) -> FollowUp | None:
    if event.public.get("status") != "open":
        return None
    closes_at = datetime.fromisoformat(event.public["closes_at"])
    delay = max(0.0, (closes_at - timezone.now()).total_seconds())
    return FollowUp(delay=delay, run=partial(_settle_by_seq, scene.pk, event.seq))


def _settle_by_seq(scene_id: int, seq: int) -> None:
    scene = Scene.objects.select_related("campaign").get(pk=scene_id)
    with contextlib.suppress(ValidationError):  # it ended otherwise; its card says why
        plot_spend_settle(scene=scene, seq=seq)


def _cmd_plot_spend(scene: Scene, user: Any, data: dict[str, Any]) -> FollowUp | None:
    event = plot_spend(
        scene=scene,
        actor=user,
        character=_own_character(scene, user, data.get("character")),
        use=str(data.get("use", "")),
        seq=data.get("seq"),
        new_value=data.get("new_value"),
        cost=data.get("cost"),
        note=str(data.get("note", "")),
    )
    return _settle_later(scene, event)


def _cmd_plot_decide(scene: Scene, user: Any, data: dict[str, Any]) -> FollowUp | None:
    approve = data.get("decision") == "approve"
    if not approve and data.get("decision") != "deny":
        raise ValidationError("Approve or deny?")
    plot_spend_decide(
        scene=scene, actor=user, seq=data.get("seq"), approve=approve, cost=data.get("cost")
    )
    if not approve:
        return None
    spend = SceneEvent.objects.get(scene=scene, seq=whole(data.get("seq"), "Which spend?"))
    return _settle_later(scene, spend)


def _cmd_plot_cancel(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    plot_spend_cancel(
        scene=scene,
        actor=user,
        seq=data.get("seq"),
        character=_own_character(scene, user, data.get("character")),
    )


COMMANDS = {
    "benny": _cmd_benny,
    "award": _cmd_award,
    "plot_spend": _cmd_plot_spend,
    "plot_decide": _cmd_plot_decide,
    "plot_cancel": _cmd_plot_cancel,
}
