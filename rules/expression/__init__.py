"""Free-form dice expressions: the dice box on the live scene page.

Anyone at the table types ``3d6+2``, ``4d10k2``, ``2d6!``, ``d20 - 1``, ``4d6kh3``, ``2d20kl1``
or ``3d6! + 1d4 + 5``; every browser sees the same roll, and the exact odds can be shown before
rolling. Like avrae/d20, what was written (the parse tree: ``Expression``) is kept apart from
what was rolled (the result: ``ExpressionResult``, which keeps every die), and hard caps refuse
hostile input with a clear ``ExpressionError``. The parser is our own small recursive-descent
one; d20 is only a development dependency (the tests compare against it).

Public functions:

- ``parse(text) -> Expression``: the frozen parse tree; ``str()`` gives its canonical form, and
  ``parse(str(tree)) == tree``.
- ``roll(text_or_expr, *, rng=None) -> ExpressionResult``: every die (kept/dropped, exploded, which
  die's explosion added it), each term's subtotal, the total and a breakdown such as
  ``3d6 (4, 2, 6) + 2 = 14``.
- ``distribution(text_or_expr) -> dict[int, Fraction]``: exact odds of the total ``roll`` gives.
- ``distribution_with_tail(text_or_expr, *, depth=MAX_EXPLOSIONS) -> (dict, Fraction)``: the odds
  of every total reached with at most ``depth`` explosions in each dice term, and the exact
  probability of everything else (the "tail"); both together sum to exactly 1.
- ``summary(text_or_expr) -> ExpressionSummary``: minimum, maximum, exact mean and the odds.
- ``clear_caches()``: forget cached odds (benchmarks measure uncached work).

Grammar (case-insensitive; whitespace may stand between any two tokens)::

    expression := term (("+" | "-") term)*
    term       := ("+" | "-")* factor ("*" factor)*     at most one dice factor per term
    factor     := NUMBER | [NUMBER] "d" (NUMBER | "%") [explode] [keep]
    explode    := "!" [">=" NUMBER | NUMBER]             "!" alone: explode on the highest face
    keep       := ("k" | "kh" | "kl" | "dl" | "dh") NUMBER

``d%`` is a d100. ``k``/``kh`` keeps the highest, ``kl`` the lowest, ``dl``/``dh`` drop the lowest
or highest. Parentheses are not supported (a term is a single dice roll or number, optionally
multiplied by numbers).

How the dice behave (the readings the seeds use):

- An exploding die adds **another die to the roll** (seed 002, attack rolls: "adding another d6 to
  the roll"); the new die may explode in turn and is kept as its own ``Die`` whose ``source`` is
  the index of the die that exploded. Keep/drop then chooses among *all* dice of the term,
  explosion dice included (so ``4d6!kh3`` is avrae/d20's ``4d6e6kh3``). The explosion must be
  written before keep/drop.
- Keep/drop: seed 003's "roll three dice, and use the higher two" is ``3d6kh2``; seed 001's
  roll-and-keep is ``Nd10kK``. A keep count may not exceed the dice written; a drop count must
  leave at least one of them.

Caps (constants of ``rules.expression.tree``; every one gives a clear error, never a hang):

- ``MAX_LENGTH`` characters of text; ``MAX_DICE`` dice written in all (``core.MAX_POOL``);
  ``MAX_TERMS`` terms; sides 2..``MAX_SIDES``; numbers up to ``MAX_CONSTANT``; a term's
  multiplier up to ``MAX_MULTIPLIER``; a ``!>=N`` threshold must leave at least one face that does
  not explode (``d1!`` or ``d6!>=1`` would never stop) and at least one that does.
- Explosions: each dice term may explode at most ``MAX_EXPLOSIONS`` times in one roll. A roll that
  would need one more explosion is **stopped** with ``ExpressionTooLargeError`` and nothing counts
  (rather than silently capping, which would change the odds). ``distribution_with_tail``'s tail at
  the default depth is exactly the chance of that; ``distribution`` gives the odds of the totals
  of the rolls that complete, so it matches ``roll`` exactly.
- Odds: refused with ``OddsTooCostlyError`` when the totals could span more than
  ``MAX_ODDS_OUTCOMES`` values or the estimated work passes ``MAX_ODDS_WORK`` (e.g. ``100d1000``,
  ``d1000!``); rolling such an expression still works.

How the odds are computed: each term's distribution is an integer polynomial packed into one big
Python integer (Kronecker substitution: one slot of ``W`` bits per total), so sums of dice are a
single ``pow`` and convolutions a single multiplication. Keep-highest/lowest uses the order
statistic: sum over the face ``f`` of the K-th highest die and the number ``i`` of dice above it,
never enumerating rolls. An exploding term with ``N`` dice and ``e`` explosions is ``N`` dice that
did not explode (faces below the threshold) and ``e`` that did (faces at or above it), all
independent given ``e``, which has the negative-binomial weight ``C(e+N-1, N-1)``; because the
exploded faces are exactly the high ones, keep/drop splits cleanly between the two groups.

Modules (every name above is defined in one of them and re-exported here): ``tree`` (caps,
errors, the parse tree), ``parser``, ``rolling`` and ``odds``.
"""

from rules.expression.odds import (
    ExpressionSummary,
    clear_caches,
    distribution,
    distribution_with_tail,
    summary,
)
from rules.expression.parser import (
    parse,
)
from rules.expression.results import (
    Breakdown,
    ExprDie,
    ExpressionResult,
    TermResult,
)
from rules.expression.rolling import (
    roll,
)
from rules.expression.tree import (
    KEEP_KINDS,
    MAX_CONSTANT,
    MAX_DICE,
    MAX_EXPLOSIONS,
    MAX_LENGTH,
    MAX_MULTIPLIER,
    MAX_NESTING,
    MAX_ODDS_OUTCOMES,
    MAX_ODDS_WORK,
    MAX_SET_ITEMS,
    MAX_SIDES,
    MAX_TERMS,
    MIN_SIDES,
    Abs,
    Clamp,
    Compare,
    Condition,
    Constant,
    Count,
    Dice,
    Divide,
    Explode,
    Expression,
    ExpressionError,
    ExpressionTooLargeError,
    Keep,
    Label,
    Multiply,
    OddsTooCostlyError,
    Reroll,
    Select,
    SetRoll,
    Sum,
    Term,
)

__all__ = [
    "KEEP_KINDS",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_EXPLOSIONS",
    "MAX_LENGTH",
    "MAX_MULTIPLIER",
    "MAX_NESTING",
    "MAX_ODDS_OUTCOMES",
    "MAX_ODDS_WORK",
    "MAX_SET_ITEMS",
    "MAX_SIDES",
    "MAX_TERMS",
    "MIN_SIDES",
    "Abs",
    "Breakdown",
    "Clamp",
    "Compare",
    "Condition",
    "Constant",
    "Count",
    "Dice",
    "Divide",
    "Explode",
    "ExprDie",
    "Expression",
    "ExpressionError",
    "ExpressionResult",
    "ExpressionSummary",
    "ExpressionTooLargeError",
    "Keep",
    "Label",
    "Multiply",
    "OddsTooCostlyError",
    "Reroll",
    "Select",
    "SetRoll",
    "Sum",
    "Term",
    "TermResult",
    "clear_caches",
    "distribution",
    "distribution_with_tail",
    "parse",
    "roll",
    "summary",
]
