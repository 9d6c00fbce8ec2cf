"""Plot points (seed 004): change a roll just made (1 point: 6-95; 2 points: 1-100, open-ended)
or a narrative use the GM approves; another player may cancel a spend by spending as much
within the campaign's cancel window; once the window closes the spend is applied.

The players' and the GM's moves go through the action kit (``tabletop.scenes.kit``:
authorisation, the percentile guard, the transaction, the rules' refusals). They take no scene
lock of their own: the roll or spend they change is locked row by row and ``pay`` is one
conditional UPDATE. Settling a spend is the heartbeat's work, with no actor to authorise."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from rules import percentile
from rules.core import Rng, RulesError, lookup
from tabletop.systems import api
from tabletop.systems.api import (
    Audience,
    Character,
    Choice,
    Command,
    CommandContext,
    Parsed,
    Raw,
    Scene,
    SceneEvent,
    Text,
    amend,
    character_for_roll,
    lock_roll,
    pay,
    percent,
    record_event,
    require_latest_roll,
    roll_data,
    row_number,
    scene_action,
    whole,
    with_sheet,
)
from tabletop.systems.percentile import rolls as percentile_kinds
from tabletop.systems.percentile.models import PercentileSheet

# --- live spends: plot points (percentile) ---------------------------------------------------

#: How a plot point spend moves: awaiting_gm -> open (cancel window) -> applied, or it ends
#: denied (nothing paid) or cancelled (both sides paid: "once spent, are lost").
SPEND_STATES = ("awaiting_gm", "open", "applied", "denied", "cancelled")
CHANGE_USES = ("change_roll", "change_roll_open_ended")
SYSTEM = "percentile"


def _require_spender(actor: Any, character: Character) -> None:
    """Seed: a player spends their own character's plot points (the GM has none to spend)."""
    if character.owner_id != actor.pk:
        raise PermissionDenied("Plot points are spent by the character's own player.")


def _own_character(scene: Scene, actor: Any, character_id: Any) -> Character:
    character = character_for_roll(scene=scene, actor=actor, character_id=character_id)
    if character is None:
        raise ValidationError("Pick the character whose plot points you spend.")
    _require_spender(actor, character)
    return character


def _cancel_window(scene: Scene) -> dict[str, str]:
    """The cancel window, opening now: its ends, for the settling and the card's countdown."""
    opens = timezone.now()
    seconds = scene.campaign.effective_ruleset()["plot_point_cancel_seconds"]
    return {
        "opens_at": opens.isoformat(),
        "closes_at": (opens + timedelta(seconds=seconds)).isoformat(),
    }


def _points_offered(spec: dict[str, Any], cost: Any) -> int:
    """What the spend costs: the use's price, or the player's offer (the price at least, 20 at
    most) for a use whose cost the GM sets."""
    points = spec["cost"]
    if spec["gm_sets_cost"] and cost not in (None, ""):
        points = whole(cost, "How many plot points?")
        if not spec["cost"] <= points <= 20:
            raise ValidationError(f"Offer between {spec['cost']} and 20 plot points.")
    return points


def _roll_to_change(
    scene: Scene, seq: Any, new_value: Any, spec: dict[str, Any], points: int
) -> tuple[SceneEvent, int]:
    """The roll a change spends on (locked; a d100 maneuver) and the new roll asked for, within
    what the points buy (6-95 for one, 1-100 for two)."""
    roll = lock_roll(scene, seq, "Plot points")
    _require_changeable(roll)
    low, high = spec["values"]
    value = whole(new_value, "The new roll")
    if not low <= value <= high:
        raise ValidationError(
            f"For {points} plot point{'s' if points > 1 else ''} the new roll must be "
            f"from {low} to {high}."
        )
    return roll, value


@scene_action(system=SYSTEM, what="Plot points", locks=False)
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
    context: CommandContext,
) -> SceneEvent:
    """Spend plot points (seed 004): change a roll just made (1 point: 6-95; 2 points: 1-100,
    open-ended) or a narrative use. Uses the GM must agree to wait for ``plot_decide``;
    the others are paid now and open a window in which another player may cancel them by
    spending the same amount (``plot_cancel``); ``plot_spend_settle`` then applies them.
    """
    _require_spender(actor, character)
    uses = percentile.plot_point_uses(scene.campaign.effective_ruleset())
    name = lookup(use, uses, "plot point use")
    spec = uses[name]
    note = (note or "").strip()
    if len(note) > 300:
        raise ValidationError("Keep the note under 300 characters.")
    points = _points_offered(spec, cost)
    public: dict[str, Any] = {
        "who": actor.get_username(),
        "character": character.name,
        "character_id": character.pk,
        "use": name,
        "use_text": spec["text"],
        "points": points,
        "note": note,
        "cost_set_by_gm": spec["gm_sets_cost"],
    }
    roll = None
    if name in CHANGE_USES:
        roll, value = _roll_to_change(scene, seq, new_value, spec, points)
        public.update(seq=roll.seq, new_value=value, roller=roll.public.get("roller", ""))
    if spec["gm_approval"]:
        public["status"] = "awaiting_gm"
    else:
        pay(character, "plot_points", points, "plot points")
        public.update(status="open", **_cancel_window(scene))
    event = record_event(
        scene=scene,
        kind="plot_spend",
        actor=actor,
        character=character,
        public=public,
        context=context,
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
    require_latest_roll(roll)
    if roll.public.get("pending_change"):
        raise ValidationError(
            "A change to this roll is already waiting; cancel it by spending the same amount."
        )


def _lock_spend(scene: Scene, seq: Any) -> SceneEvent:
    event = (
        # of=("self",): PostgreSQL can't lock the nullable side of the character join.
        SceneEvent.objects.select_for_update(of=("self",))
        .select_related("character__percentile_sheet", "scene__campaign")
        .filter(scene=scene, seq=row_number(seq, "Which spend?"), kind="plot_spend")
        .first()
    )
    if event is None:
        raise ValidationError("There is no such plot point spend in this scene.")
    return with_sheet(event)  # its character's sheet, read with it (none if deleted)


@scene_action(gm=True, system=SYSTEM, what="Plot points", locks=False)
def plot_decide(
    *, scene: Scene, actor: Any, seq: Any, approve: bool, cost: Any = None, context: CommandContext
) -> SceneEvent:
    """The GM agrees to a narrative use (the points are paid now and the cancel window opens)
    or refuses it (nothing is paid). For uses whose cost the GM sets, ``cost`` sets it."""
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
        pay(spend.character, "plot_points", points, "plot points")
        spend.public.update(status="open", points=points, **_cancel_window(scene))
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
        },
        context=context,
    )


@scene_action(system=SYSTEM, what="Plot points", locks=False)
def plot_cancel(
    *,
    scene: Scene,
    actor: Any,
    seq: Any,
    character: Character,
    now: datetime | None = None,
    context: CommandContext,
) -> SceneEvent:
    """Seed: "cancel out someone else spending plot points by spending the same amount
    yourself". Both sides' points are gone; the cancelled use does not happen."""
    _require_spender(actor, character)
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
    pay(character, "plot_points", points, "plot points")
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
        },
        context=context,
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
    *,
    scene: Scene,
    seq: Any,
    now: datetime | None = None,
    rng: Rng | None = None,
    context: CommandContext | None = None,
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
        }
        if spend.public["use"] in CHANGE_USES:
            refused = _change_roll(scene, spend, public, rng, context)
            if refused is not None:
                return refused
        spend.public["status"] = "applied"
        spend.save(update_fields=["public"])
        return record_event(
            scene=scene,
            kind="plot_applied",
            actor=spend.actor,
            parent=spend,
            public=public,
            context=context,
        )


def _change_roll(
    scene: Scene,
    spend: SceneEvent,
    public: dict[str, Any],
    rng: Rng | None,
    context: CommandContext | None,
) -> SceneEvent | None:
    """A spend that changes its roll: the roll amended (``public`` gets its summary), or the
    refusal recorded when the campaign's costs changed since (returned)."""
    roll = SceneEvent.objects.select_for_update().get(scene=scene, seq=spend.public["seq"])
    data = roll_data(roll)
    try:
        outcome = percentile_kinds.change_roll(
            data["result"],
            new_value=spend.public["new_value"],
            points=spend.public["points"],
            ruleset=scene.campaign.effective_ruleset(),
            rng=api.game_dice(rng),
        )
    except RulesError as exc:  # the campaign's costs changed since: refund nothing
        # Recorded, not raised: a raise would roll the denial back and every beat
        # would try the same spend again.
        spend.public.update(status="denied", reason=str(exc))
        spend.save(update_fields=["public"])
        _clear_pending_change(spend)
        return record_event(
            scene=scene,
            kind="plot_applied",
            actor=spend.actor,
            parent=spend,
            public={**public, "refused": str(exc), "refresh": [roll.seq]},
            context=context,
        )
    roll.public.pop("pending_change", None)
    amend(
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
    return None


def settle_due(
    *, scene: Scene, now: datetime | None = None, context: CommandContext | None = None
) -> int:
    """Settle every spend of the scene whose window has closed (the follow-up when a window
    closes, and the heartbeat's safety net). Returns how many were applied."""
    applied = 0
    for seq in SceneEvent.objects.filter(
        scene=scene, kind="plot_spend", public__status="open"
    ).values_list("seq", flat=True):
        try:
            if plot_spend_settle(scene=scene, seq=seq, now=now, context=context) is not None:
                applied += 1
        except ValidationError:
            continue
    return applied


# --- commands ---


def _window(event: SceneEvent) -> datetime | None:
    """The cancel window a spend (or the GM's approval of one) opened."""
    spend = event if event.kind == "plot_spend" else event.parent
    if spend is None or spend.public.get("status") != "open":
        return None
    return datetime.fromisoformat(spend.public["closes_at"])


def _spender(scene: Scene, user: Any, data: Any) -> Character:
    return _own_character(scene, user, data.get("character"))


COMMANDS = (
    Command(
        "plot_spend",
        plot_spend,
        window=_window,
        character=Parsed(_spender),
        use=Text("use"),
        seq=Raw("seq"),
        new_value=Raw("new_value"),
        cost=Raw("cost"),
        note=Text("note"),
    ),
    Command(
        "plot_decide",
        plot_decide,
        window=_window,
        seq=Raw("seq"),
        approve=Choice("decision", {"approve": True, "deny": False}, "Approve or deny?"),
        cost=Raw("cost"),
    ),
    Command("plot_cancel", plot_cancel, seq=Raw("seq"), character=Parsed(_spender)),
)


def card_controls(event: SceneEvent, data: dict[str, Any]) -> dict[str, Any]:
    """The percentile part of a card seen in full: on a roll the table sees, the offer to change
    it with plot points; on a spend, cancel (while its window is open) and the GM's decision."""
    if event.kind == "plot_spend":
        status = data.get("status")
        return {"cancel": status == "open", "decide": status == "awaiting_gm"}
    if event.kind != "roll":
        return {}
    controls: dict[str, Any] = {"template": "systems/percentile/card_spends.html"}
    in_open = event.audience == Audience.EVERYONE or event.revealed_at is not None
    changeable = data.get("roll_kind") in percentile_kinds.CHANGEABLE_KINDS
    if in_open and event.character_id is not None and changeable:
        controls["change_roll"] = not data.get("pending_change")
        if controls["change_roll"]:
            controls["change_effects"] = change_effects(
                data.get("result", {}), event.scene.campaign.effective_ruleset()
            )
    return controls


def _band(band: str) -> str:
    return percentile.BAND_LABELS[band]


def _values(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def _rolling_on(value: int, bands: dict[str, Any], how: str) -> str:
    shares = ", ".join(f"{_band(band)} {percent(p)}" for band, p in bands.items())
    return f"{value} rolls on and {how}: {shares}"


def change_effects(detail: dict[str, Any], ruleset: Any) -> list[dict[str, Any]]:
    """What each plot point change buys on this roll, exactly (rules
    ``plot_point_change_effects``): the band every new value lands on, and for a value that
    rolls on the chance of each band. A change may go on anyone's roll, so the detail lists
    every band, worst first; the headline says the best it can do."""
    result = percentile.ManeuverResult.from_dict(detail)
    now = f"{_band(result.band)} ({result.total})"
    effects = []
    for change in percentile.plot_point_change_effects(result, ruleset=ruleset):
        points = f"{change.points} plot point{'s' if change.points != 1 else ''}"
        top = change.ranges[-1]
        if change.first_success is not None:
            best = f"Success or better with {_values(change.first_success, top.last)}"
        else:
            best = f"at best {_band(top.band)} with {_values(top.first, top.last)}"
        headline = f"{points}: {now} → {best}"
        if change.rolls_on_value is not None:
            on = _rolling_on(change.rolls_on_value, change.rolls_on, "adds")
            headline += f"; {on} (Success or better {percent(change.rolls_on_success)})"
        lands = ", ".join(f"{_values(r.first, r.last)} {_band(r.band)}" for r in change.ranges)
        if change.rolls_down_value is not None:
            lands += "; " + _rolling_on(change.rolls_down_value, change.rolls_down, "subtracts")
        effects.append(
            {
                "use": change.use,
                "points": change.points,
                "headline": headline,
                "detail": f"New roll {change.low} to {change.high}: {lands}",
                "label": f"{headline}. {lands}".replace(" → ", " to ").replace("–", " to "),
            }
        )
    return effects


def dashboard(scene: Any) -> tuple[str, dict[str, Any]]:
    """What waits for the GM: narrative uses to approve or deny, spends in their window."""
    spends = SceneEvent.objects.filter(scene=scene, kind="plot_spend").order_by("seq")
    return "systems/percentile/dashboard.html", {
        "awaiting": list(spends.filter(public__status="awaiting_gm")),
        "open_spends": list(spends.filter(public__status="open")),
    }


def scene_extras(scene: Any, viewer: Any, ruleset: dict[str, Any]) -> dict[str, Any]:
    """The scene page's plot point box: the narrative uses a player may offer (changes to a
    roll are offered on the roll's card) and the characters they spend as."""
    if viewer.is_gm:
        return {}
    uses = [
        (name, spec)
        for name, spec in percentile.plot_point_uses(ruleset).items()
        if name not in CHANGE_USES
    ]
    spenders = PercentileSheet.objects.filter(campaign=scene.campaign).filter(
        owner_id=viewer.user_id, role=Character.Role.PC
    )
    return {
        "side_template": "systems/percentile/scene_side.html",
        "plot_uses": uses,
        "spenders": list(spenders),
        "cancel_seconds": ruleset.get("plot_point_cancel_seconds"),
    }
