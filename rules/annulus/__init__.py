"""Annulus operation challenges (seed 000): a chain of d12s where every neighbour differs by 1.

The seed: "the GM rolls six of 12-sided dice and places them in a line"; "the goal ... is to make
it so every die in the challenge is exactly one number different from every die it neighbors".
Gaps in the seed are filled as RULES-NOTES.md ("annulus") says; its defaults live in
``DEFAULT_RULESET`` so the GM can change them per campaign.

Positions: a ``Challenge`` numbers its dice 0..length-1 over the WHOLE chain, hidden dice included
(the GM's numbering, stable across reveals). Players see only the visible dice, in order, with no
placeholder; ``Challenge.position_of(visible_index)`` turns the index of a die a player clicked
into the chain position the move functions take. Results have a ``player_view()`` that never
names a chain position (which would leak where the hidden dice are).

Public functions
- ``is_solved(values)``: every adjacent pair differs by exactly 1 (0 or 1 die: solved).
- ``min_adjustments(values, jammed=())``: fewest +-1 adjustments that solve a chain, or None.
- ``jams_allow_solution(length, jammed_values)``: the RULES-NOTES pairwise failure test.
- ``check_probability(*, dice, needed, sides=6, target=4)``: P(at least ``needed`` successes).
- ``successes_distribution(*, dice, sides=6, target=4)``: exact distribution of successes.
- ``op_check_probability(*, difficulty, perk_dice=0, ruleset=None)``: the adjustment op check.
- ``challenge_check_probability(*, difficulty, perk_dice=0, ruleset=None)``: a 3-die check.
- ``toolkit_check_probability(*, ability, difficulty, perk_dice=0, ruleset=None)``.
- ``hidden_count_distribution(*, length=None, ruleset=None)``: how many dice start hidden.
- ``validate_ruleset(data)`` / ``DEFAULT_RULESET``; ``difficulty_needed``; ``training_dice``;
  ``toolkit_abilities``.
- Toolkit odds, from the visible chain only: ``toolkit_effect(values, jammed, *, effect, index,
  value=None)`` and ``best_set_value(values, jammed, *, index)`` -> ``ToolkitEffect`` (fewest
  adjustments before and their exact chances after); ``reveal_effect(challenge, *, position)``
  reads a hidden die and is for the GM's page only.
- Roll functions (dice from the keyword-only ``rng``): ``roll_check`` (any pool),
  ``op_check`` (the adjustment's four-die check), ``challenge_check`` (three dice),
  ``toolkit_check``, ``setup_challenge``.
- Moves (each returns ``(new Challenge, result)``): ``adjust`` / ``apply_adjustment`` (with an
  already rolled op check), ``reveal``, ``use_toolkit`` / ``apply_toolkit``.

Results: ``CheckResult``, ``AdjustResult``, ``RevealResult``, ``ToolkitResult`` (frozen, every die
kept, ``to_dict()``); the challenge itself is the immutable ``Challenge`` with
``to_dict()`` / ``from_dict()``, ``player_view()`` and ``gm_view()``.

Modules (every name above is defined in one of them and re-exported here):
``chain`` (the chain and the solver), ``ruleset`` (campaign data, difficulties, training perks,
toolkit abilities), ``checks`` (check pools and their odds), ``challenge`` (the ``Challenge``
value and its set-up), ``moves`` (adjust, reveal, toolkit: the moves and their check rolls),
``spend_odds`` (what a toolkit ability buys).
"""

from rules.annulus.chain import (  # noqa: F401 -- also re-exports names outside __all__
    FACES,
    MAX_LENGTH,
    MIN_LENGTH,
    is_solved,
    jams_allow_solution,
    min_adjustments,
)
from rules.annulus.challenge import (
    Challenge,
    ChallengeStatus,
    hidden_count_distribution,
    setup_challenge,
)
from rules.annulus.checks import (  # noqa: F401 -- also re-exports names outside __all__
    CheckResult,
    _clear_caches,  # bench/ and tests/ time uncached odds
    challenge_check_probability,
    check_probability,
    op_check_probability,
    roll_check,
    successes_distribution,
    toolkit_check_probability,
)
from rules.annulus.moves import (
    AdjustResult,
    RevealResult,
    ToolkitResult,
    adjust,
    apply_adjustment,
    apply_toolkit,
    challenge_check,
    op_check,
    reveal,
    toolkit_check,
    use_toolkit,
)
from rules.annulus.ruleset import (  # noqa: F401 -- also re-exports names outside __all__
    DEFAULT_RULESET,
    EFFECTS,
    ToolkitAbility,
    difficulty_needed,
    toolkit_abilities,
    training_dice,
    validate_ruleset,
)
from rules.annulus.spend_odds import (
    ToolkitEffect,
    best_set_value,
    reveal_effect,
    toolkit_effect,
)

__all__ = [
    "DEFAULT_RULESET",
    "EFFECTS",
    "FACES",
    "MAX_LENGTH",
    "AdjustResult",
    "Challenge",
    "ChallengeStatus",
    "CheckResult",
    "RevealResult",
    "ToolkitAbility",
    "ToolkitResult",
    "ToolkitEffect",
    "best_set_value",
    "reveal_effect",
    "toolkit_effect",
    "adjust",
    "apply_adjustment",
    "apply_toolkit",
    "challenge_check",
    "challenge_check_probability",
    "check_probability",
    "difficulty_needed",
    "hidden_count_distribution",
    "is_solved",
    "jams_allow_solution",
    "min_adjustments",
    "op_check",
    "op_check_probability",
    "reveal",
    "roll_check",
    "setup_challenge",
    "successes_distribution",
    "toolkit_abilities",
    "toolkit_check",
    "toolkit_check_probability",
    "training_dice",
    "use_toolkit",
]
