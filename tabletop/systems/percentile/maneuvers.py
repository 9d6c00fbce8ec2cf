"""percentile tracked maneuvers (seed 004): repeated attempts (-25 per failure), slumps and
zones, the GM's secret perception rolls. State: the ``maneuvers`` view's ``Scene.state``
entry, read and written through the action kit (``tabletop.scenes.kit``), which also authorises
each move, keeps it to percentile campaigns and runs it under the scene row's lock."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from rules import percentile
from rules.core import Rng, lookup
from tabletop.systems import api
from tabletop.systems.api import (
    ROLL_KINDS,
    Character,
    Command,
    CommandContext,
    Frame,
    Member,
    Parsed,
    Rolling,
    Scene,
    SceneEvent,
    ordered_bands,
    record_event,
    record_roll,
    require_player,
    scene_action,
    store_state,
    stored_odds,
)
from tabletop.systems.percentile import procedure_views as percentile_state
from tabletop.systems.percentile import rolls as percentile_kinds

SYSTEM = "percentile"

# --- percentile: tracked maneuvers, slumps and zones, the GM's perception rolls -----------------


def _tracking_event(
    scene: Scene,
    actor: Any,
    character: Character,
    lines: list[str],
    *,
    context: CommandContext | None = None,
) -> SceneEvent:
    return record_event(
        scene=scene,
        kind="maneuver_tracking",
        actor=actor,
        character=character,
        public={"character": character.name, "lines": lines},
        context=context,
    )


def _in_campaign(scene: Scene, character: Character) -> None:
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")


def _maneuver_asked(
    data: dict[str, Any], character: Character, ruleset: Any
) -> tuple[dict[str, Any], str, str, str]:
    """The maneuver the player asked for, as the rules' arguments, with its skill (slumps and
    zones go by skill), its column and the attempt's name (retries go by attempt)."""
    args = percentile_kinds.maneuver_args(data, character, ruleset)
    skill, column = args.pop("skill"), args.pop("column")
    args.pop("retry_failures")  # typed by hand on the roll form; the tracker knows them here
    task = str(data.get("task") or "").strip() or skill
    if len(task) > 80:
        raise ValidationError("Keep the attempt's name under 80 characters.")
    return args, skill, column, task


def _tracked_odds(chances: percentile.ManeuverOdds) -> dict[str, Any]:
    """The odds it had, with the tracked retries and slump or zone: its card's headline and the
    dice statistics' bands, as for a roll from the roll form."""
    return stored_odds(
        {
            "chance": chances.success_or_better,
            "goal": "to succeed",
            "bands": ordered_bands(chances.bands, percentile.BANDS),
        }
    )


def _tracking_lines(
    character: Character,
    skill: str,
    change: percentile.StreakChange,
    attempt: percentile.RetryAttempt,
    failed: percentile.RetryAttempt,
    result: percentile.ManeuverResult,
    ruleset: Any,
) -> list[str]:
    """What the tracker tells the table: a slump or zone begun or ended, an attempt that
    succeeds after failures, or one more failure (``failed``) and the next try's penalty."""
    lines = []
    if change.changed:
        lines.append(percentile_state.streak_line(character.name, skill, change.after, ruleset))
    if result.succeeded:
        if attempt.failures:
            lines.append(f"“{attempt.task}” succeeds after {attempt.failures} failure(s).")
    elif failed.failures != attempt.failures:
        penalty = failed.penalty(ruleset=ruleset)
        lines.append(f"“{attempt.task}”: {failed.failures} failure(s), {penalty} on the next try.")
    return lines


@scene_action(system=SYSTEM, what="Tracked maneuvers")
def maneuver_track(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    data: dict[str, Any],
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """A maneuver rolled with what the table tracks: the character's slump (-50) or zone (+50)
    at the skill and the earlier failures on this attempt (-25 each), then both updated.

    Seed 004: an Extraordinary Failure puts the character "in a slump ... until you get a full
    success"; an Extraordinary Success "in the zone ... until your next failure"; "Each failure
    you've had with this particular attempt gives you a cumulative -25 to subsequent attempts".
    A success ends the attempt, so the tracker forgets it. The roll's card is the maneuver's,
    so plot points may change it as any other; the tracker keeps the roll as first rolled and
    the GM corrects it from the view if a change calls for it.
    """
    require_player(scene, actor, character)
    if not str(data.get("skill") or "").strip():
        raise ValidationError("Pick a skill from the sheet: slumps and zones go by skill.")
    ruleset = scene.campaign.effective_ruleset()
    args, skill, column, task = _maneuver_asked(data, character, ruleset)
    state = percentile_state.state_of(scene)
    pid = str(character.pk)
    streak = percentile_state.streak_for(state, pid, skill)
    attempt = percentile_state.attempt_for(state, pid, task)
    tracked = {**args, "retry_failures": attempt.failures, "condition": streak, "ruleset": ruleset}
    odds = _tracked_odds(percentile.maneuver_odds(**tracked))
    result = percentile.roll(**tracked, rng=api.game_dice(rng))
    streak_after, change = percentile.record_streak(streak, result, ruleset=ruleset)
    failed = percentile.record_attempt(attempt, result, ruleset=ruleset)
    roll = record_roll(
        scene=scene,
        actor=actor,
        character=character,
        roll_kind="percentile",
        label=f"{ROLL_KINDS['percentile'].label}, tracked",
        outcome=percentile_kinds.maneuver_outcome(result, skill=skill, column=column),
        odds=odds,
        context=context,
    )
    lines = _tracking_lines(character, skill, change, attempt, failed, result, ruleset)
    # A success ends the attempt: a new try starts afresh.
    attempt_after = percentile.reset_attempt(attempt) if result.succeeded else failed
    percentile_state.put_streak(state, character.name, streak_after, roll.seq)
    percentile_state.put_attempt(state, character.name, skill, attempt_after)
    store_state(scene, percentile_state.NAME, state)
    if lines:
        _tracking_event(scene, actor, character, lines, context=context)
    return roll


@scene_action(gm=True, system=SYSTEM, what="Perception rolls")
def perception_roll(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    data: dict[str, Any],
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """The GM's perception roll for a player's character (seed: "the GM will make a perception
    roll on his behalf"): GM-only from the start, committed to, revealable later. A slump or zone
    at that skill applies; the roll never changes it (that would tell the table the result)."""
    _in_campaign(scene, character)
    kind = ROLL_KINDS["percentile_perception"]
    skill = str(data.get("skill") or "").strip() or percentile_kinds.PERCEPTIVITY
    streak = percentile_state.streak_for(percentile_state.state_of(scene), str(character.pk), skill)
    ruleset = scene.campaign.effective_ruleset()
    # Its odds (with the slump or zone) are as secret as its dice: record_roll keeps them so.
    odds = stored_odds(
        percentile_kinds.odds_perception(
            data=data, character=character, ruleset=ruleset, condition=streak
        )
    )
    outcome = percentile_kinds.roll_perception(
        data=data, character=character, ruleset=ruleset, rng=api.game_dice(rng), condition=streak
    )
    return record_roll(
        scene=scene,
        actor=actor,
        character=character,
        roll_kind=kind.name,
        label=kind.label,
        outcome=outcome,
        mode="secret",
        odds=odds,
        context=context,
    )


@scene_action(gm=True, system=SYSTEM, what="Slumps and zones")
def streak_set(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    skill: str,
    state: str,
    context: CommandContext,
) -> SceneEvent:
    """The GM puts a character in a slump or the zone at a skill, or back to normal (a slump
    carried over from an earlier scene, or a plot point that changed the roll behind one)."""
    _in_campaign(scene, character)
    skill = str(skill or "").strip()
    if not skill or len(skill) > 80:
        raise ValidationError("Name the skill (under 80 characters).")
    ruleset = scene.campaign.effective_ruleset()
    wanted = lookup(state, percentile.STREAK_STATES, "streak state")
    tracked = percentile_state.state_of(scene)
    before = percentile_state.streak_for(tracked, str(character.pk), skill)
    if before.state == wanted:
        raise ValidationError(f"{character.name} is already {wanted} at {before.skill}.")
    new = percentile.SkillStreak(before.character, before.skill, wanted)
    percentile_state.put_streak(tracked, character.name, new, None)
    store_state(scene, percentile_state.NAME, tracked)
    line = percentile_state.streak_line(character.name, new.skill, wanted, ruleset)
    return _tracking_event(scene, actor, character, [f"GM: {line}"], context=context)


@scene_action(gm=True, system=SYSTEM, what="Repeated attempts")
def attempt_reset(
    *, scene: Scene, actor: Any, character: Character, task: str, context: CommandContext
) -> SceneEvent:
    """The GM's reset: "You can start over with no penalty when you have new information ...
    or when you've trained in that skill since your last attempt"."""
    tracked = percentile_state.state_of(scene)
    attempt = percentile_state.attempt_for(tracked, str(character.pk), str(task or ""))
    if not attempt.failures:
        raise ValidationError("That attempt has no failures to forget.")
    percentile_state.put_attempt(tracked, character.name, "", percentile.reset_attempt(attempt))
    store_state(scene, percentile_state.NAME, tracked)
    line = f"GM: “{attempt.task}” starts over with no penalty."
    return _tracking_event(scene, actor, character, [line], context=context)


# --- commands ---

COMMANDS = (
    Command(
        "maneuver_track",
        maneuver_track,
        character=Rolling(required="Pick a character."),
        data=Frame(),
    ),
    Command(
        "perception_roll", perception_roll, gm=True, character=Member("character"), data=Frame()
    ),
    Command(
        "streak_set",
        streak_set,
        gm=True,
        character=Member("character"),
        skill=Parsed(lambda scene, user, data: str(data.get("skill") or "")),
        state=Parsed(lambda scene, user, data: str(data.get("state") or "")),
    ),
    Command(
        "attempt_reset",
        attempt_reset,
        gm=True,
        character=Member("character"),
        task=Parsed(lambda scene, user, data: str(data.get("task") or "")),
    ),
)
