"""Percentile maneuvers (seed 004, Chapter 14 "Actions"): open-ended d100 read on Chart 14.1.

"To resolve an action, roll open-ended percentile dice, and add the SV for the relevant skill.
In most cases, the GM will apply relevant modifiers ... He will then consult the appropriate
column of Chart 14.1 to read a result."

Public functions (the roll functions' names are this package's choice):

Chart and odds
- ``chart(total) -> ChartRow`` (``.band``, ``.mm``, ``.sm``): Chart 14.1.
- ``band_distribution(*, modifier) -> dict[str, Fraction]``: exact bands of open-ended d100 + bonus.
- ``success_or_better(*, modifier) -> Fraction``: P(Success, Critical or Extraordinary Success).
- ``maneuver_odds(*, skill_value, modifiers=(), retry_failures=0, condition=None, ruleset=None)``
  ``-> ManeuverOdds``: what the roll screen shows before rolling.
- ``change_roll_distribution(*, new_value, modifier) -> dict[str, Fraction]``: bands after a
  plot point sets the die to ``new_value`` (1-5 and 96-100 go open-ended).

Rolls (each takes ``rng`` keyword-only; production uses ``secrets.SystemRandom``)
- ``roll_open_ended(*, rng=None) -> OpenEndedRoll``: the d100 chain, every die kept.
- ``roll(*, skill_value, modifiers=(), retry_failures=0, condition=None, rng=None, ruleset=None)``
  ``-> ManeuverResult``: a static or moving maneuver.
- ``perception_roll(...)``: a maneuver the GM makes for the player (``secret=True``: the web
  layer shows it to the GM only).
- ``potency_roll(*, potency, resistance, ...)``: poison, disease or magic "making a maneuver to
  affect you"; success favours the attack.
- ``breakage_roll(*, potency, resistance, ...)`` with ``breakage_potency(...)``: success = breaks.
- ``pure_chance_roll(*, chance, rng=None)``: the GM's percent chance used as the SV.
- ``roll_running(*, quickness, total_penalty, pace, mv, ...) -> RunningResult`` and
  ``running_movement(*, roll, quickness, total_penalty, pace, mv) -> float``;
  ``running_odds(*, quickness, total_penalty, pace)`` gives the bands before rolling.

Modifier table (``rules/data/percentile_modifiers.json``)
- ``modifier(*, condition, column, total_penalty=0, count=1, ruleset=None) -> int``
- ``table_modifiers(conditions, *, column, total_penalty=0, ruleset=None) -> tuple[Modifier, ...]``
- ``modifier_table(ruleset=None) -> dict``: the whole table for the UI, campaign overrides applied.

Retries, slumps and zones (immutable value objects with ``to_dict``/``from_dict``)
- ``retry_penalty(*, failures, ruleset=None) -> int``; ``RetryAttempt`` with
  ``record_attempt(attempt, result)`` and ``reset_attempt(attempt)``.
- ``SkillStreak`` (normal / slump / zone per character and skill) with
  ``record_streak(streak, result) -> (SkillStreak, StreakChange)``.

Plot points
- ``PlotPoints`` (available, total, development points); ``spend_plot_points``,
  ``cancel_plot_point_spend``, ``buy_plot_points``, ``award_plot_points``,
  ``gain_development_points``, ``plot_point_uses``; ``change_roll(result, *, new_value, points)``.
- ``plot_point_change_effects(result, *, ruleset=None) -> tuple[PlotPointChange, ...]``: what
  each change would buy on a roll just made (the band of every value, exact odds of rolling on).

Campaign data: ``DEFAULT_RULESET`` and ``validate_ruleset(data)``; ``clear_caches()`` empties
the odds caches (benchmarks measure uncached speed).

Modules (every name above is defined in one of them and re-exported here): ``bands``
(Chart 14.1), ``table`` (the modifier table as data), ``ruleset`` (campaign data), ``modifiers``
(labelled modifiers, table lookups), ``open_ended`` (the d100 chain and the exact band odds),
``maneuvers`` (the roll functions, their odds, retries, slumps and zones), ``running``,
``plot_points`` and ``spend_odds`` (what a plot point change buys).
"""

from rules.percentile.bands import (
    BAND_LABELS,
    BAND_TEXT,
    BANDS,
    CRITICAL_SUCCESS,
    EXTRAORDINARY_FAILURE,
    EXTRAORDINARY_SUCCESS,
    FAILURE,
    FUMBLE,
    MAX_BONUS,
    NEAR_SUCCESS,
    PARTIAL_SUCCESS,
    SUCCESS,
    SUCCESS_OR_BETTER,
    UNRELATED_SUCCESS,
    ChartRow,
    chart,
)
from rules.percentile.maneuvers import (
    KINDS,
    STREAK_STATES,
    ManeuverOdds,
    ManeuverResult,
    RetryAttempt,
    SkillStreak,
    StreakChange,
    breakage_potency,
    breakage_roll,
    maneuver_odds,
    perception_roll,
    potency_roll,
    pure_chance_roll,
    record_attempt,
    record_streak,
    reset_attempt,
    retry_penalty,
    roll,
)
from rules.percentile.modifiers import (
    Modifier,
    modifier,
    modifier_table,
    table_modifiers,
)
from rules.percentile.open_ended import (
    OpenEndedRoll,
    PercentileDie,
    band_distribution,
    change_roll_distribution,
    clear_caches,
    roll_open_ended,
    success_or_better,
)
from rules.percentile.plot_points import (
    PlotPoints,
    PlotPointSpend,
    award_plot_points,
    buy_plot_points,
    cancel_plot_point_spend,
    change_roll,
    gain_development_points,
    plot_point_uses,
    spend_plot_points,
)
from rules.percentile.ruleset import (
    DEFAULT_RULESET,
    validate_ruleset,
)
from rules.percentile.running import (
    PACE_FACTOR,
    RUNNING_BASE,
    RunningResult,
    roll_running,
    running_movement,
    running_odds,
)
from rules.percentile.spend_odds import (
    BandRange,
    PlotPointChange,
    plot_point_change_effects,
)
from rules.percentile.table import (
    COLUMNS,
)

__all__ = [
    "BANDS",
    "BAND_LABELS",
    "BAND_TEXT",
    "COLUMNS",
    "CRITICAL_SUCCESS",
    "DEFAULT_RULESET",
    "EXTRAORDINARY_FAILURE",
    "EXTRAORDINARY_SUCCESS",
    "FAILURE",
    "FUMBLE",
    "KINDS",
    "MAX_BONUS",
    "NEAR_SUCCESS",
    "PACE_FACTOR",
    "PARTIAL_SUCCESS",
    "RUNNING_BASE",
    "STREAK_STATES",
    "SUCCESS",
    "SUCCESS_OR_BETTER",
    "UNRELATED_SUCCESS",
    "ChartRow",
    "ManeuverOdds",
    "ManeuverResult",
    "Modifier",
    "OpenEndedRoll",
    "PercentileDie",
    "PlotPointSpend",
    "PlotPoints",
    "PlotPointChange",
    "BandRange",
    "RetryAttempt",
    "RunningResult",
    "SkillStreak",
    "StreakChange",
    "award_plot_points",
    "band_distribution",
    "breakage_potency",
    "breakage_roll",
    "buy_plot_points",
    "cancel_plot_point_spend",
    "change_roll",
    "change_roll_distribution",
    "chart",
    "clear_caches",
    "gain_development_points",
    "maneuver_odds",
    "modifier",
    "modifier_table",
    "perception_roll",
    "plot_point_uses",
    "plot_point_change_effects",
    "potency_roll",
    "pure_chance_roll",
    "record_attempt",
    "record_streak",
    "reset_attempt",
    "retry_penalty",
    "roll",
    "roll_open_ended",
    "roll_running",
    "running_movement",
    "running_odds",
    "spend_plot_points",
    "success_or_better",
    "table_modifiers",
    "validate_ruleset",
]
