"""Roll and keep (seed 001): roll N d10, keep the K highest, count the successes.

"player's roll an amount of ten-sided dice (d10s), and get to keep a certain number of them to
count towards the final result." N = attribute + relevant specialities; K comes from the
character's permanent mana (``keep_count``); each kept die equal to or over the difficulty is one
success (RULES-NOTES: "equal to or over" wins over "over").

Public functions and classes:

- ``DEFAULT_RULESET`` / ``validate_ruleset(data)``: colours, attributes, attribute-to-colour links,
  difficulty ladder and degree names (campaign data the GM may edit).
- ``keep_count(*, attribute, mana, specialities=0, links=None, ruleset=None) -> int``: K, not yet
  capped at N (it does not know N). ``cap_kept(*, rolled, kept)`` applies "K never exceeds N";
  ``dice_pool(...)`` gives both N and the capped K from the sheet pieces.
- ``difficulty_value(difficulty, *, ruleset=None)`` (ladder name or 1..10) and
  ``degree_name(successes, *, botch=False, ruleset=None)``.
- Exact odds: ``success_distribution``, ``botch_probability``, ``odds`` (everything the UI shows),
  ``indirect_odds``, ``direct_contest_distribution`` and ``direct_contest_odds``.
- Rolls: ``roll`` (unopposed), ``score_dice`` (reads dice already rolled, e.g. physical ones),
  ``roll_indirectly_opposed`` (difficulty from ``indirect_difficulty``),
  ``roll_directly_opposed`` / ``resolve_directly_opposed`` (net successes, winner, margin).
- ``ExtendedAction``: an immutable tracker of a complex or extended action
  (``add_round(result)`` returns a new tracker; ``to_dict`` / ``from_dict``).
- ``clear_caches()`` empties the odds caches (benchmarks measure uncached speed).

Results are frozen dataclasses (``RollResult``, ``RollOdds``, ``DirectContest``,
``ContestOdds``, ``DicePool``) with ``to_dict()``.

Modules (every name above is defined in one of them and re-exported here): ``ruleset`` (campaign
data, difficulties, degrees), ``pool`` (N and K), ``probabilities`` (every exact odds),
``rolls`` (unopposed, indirectly and directly opposed) and ``extended``.
"""

from rules.roll_and_keep.extended import (
    ExtendedAction,
    ExtendedRound,
    ExtendedStatus,
)
from rules.roll_and_keep.pool import (
    DicePool,
    cap_kept,
    dice_pool,
    keep_count,
)
from rules.roll_and_keep.probabilities import (
    ContestOdds,
    RollOdds,
    botch_probability,
    clear_caches,
    direct_contest_distribution,
    direct_contest_odds,
    indirect_odds,
    odds,
    success_distribution,
)
from rules.roll_and_keep.rolls import (  # noqa: F401 -- also re-exports names outside __all__
    OPPONENT,
    OWN,
    DirectContest,
    RollResult,
    resolve_directly_opposed,
    roll,
    roll_directly_opposed,
    roll_indirectly_opposed,
    score_dice,
)
from rules.roll_and_keep.ruleset import (
    BOTCH,
    DEFAULT_RULESET,
    FAILURE,
    SIDES,
    degree_name,
    difficulty_value,
    indirect_difficulty,
    validate_ruleset,
)

__all__ = [
    "BOTCH",
    "DEFAULT_RULESET",
    "FAILURE",
    "SIDES",
    "ContestOdds",
    "DicePool",
    "DirectContest",
    "ExtendedAction",
    "ExtendedRound",
    "ExtendedStatus",
    "RollOdds",
    "RollResult",
    "botch_probability",
    "cap_kept",
    "clear_caches",
    "degree_name",
    "dice_pool",
    "difficulty_value",
    "direct_contest_distribution",
    "direct_contest_odds",
    "indirect_difficulty",
    "indirect_odds",
    "keep_count",
    "odds",
    "resolve_directly_opposed",
    "roll",
    "roll_directly_opposed",
    "roll_indirectly_opposed",
    "score_dice",
    "success_distribution",
    "validate_ruleset",
]
