"""Free-form dice expressions: the dice box, ``/r``, and the dice reference page (``/dice/``).

The notation is the superset of what Roll20, Foundry VTT and Avrae/d20 document (issue 36):
``3d6+2``, ``4d6kh3``, ``2d20kh``, ``4d6d1``, ``3d6!``, ``2d10x``, ``1d6!!``, ``2d6!p``,
``1d20rr1``, ``1d20ro<2``, ``4d6mi2``, ``8d6>3``, ``6d10cs>7df1``, ``4dF``, ``(1d4+1)d6``,
``{1d20, 1d20}kh1``, ``(1d6+2)*2``, ``ceil(1d6/2)``, ``abs(1d6-1d6)``, ``1d8+3 [slashing]``,
``1d20+5 # attack``, ``1d20+5 adv`` and ``1d20+5 >= 15``; ``REFERENCE`` (``reference.py``)
lists every construct with its spellings, meaning and examples, and the page is drawn from it.
Every construct has exact odds. Like avrae/d20, what was written (the parse tree:
``Expression``, one node class per construct, ``tree.py``) is kept apart from what was rolled
(the result tree: ``ExpressionResult``, every die kept, ``results.py``), and hard caps refuse
hostile input with a clear ``ExpressionError`` naming the 1-based position (and, for a word close
to a known spelling, "did you mean").

Public functions:

- ``parse(text) -> Expression``: the frozen parse tree; ``str()`` gives its canonical form
  (every comparison written ``>=``/``<=``/``=``, so what a spelling meant is on the card), and
  ``parse(str(tree)) == tree``.
- ``roll(text_or_expr, *, rng=None) -> ExpressionResult``: ``.total``, ``.expression`` (the
  canonical text), ``.breakdown`` (a string, also callable: ``result.breakdown()``, like
  ``1d20 (14) + 5 = 19``), ``.root`` (the result tree), ``.comment``, ``.dice``, ``.terms`` and
  ``to_dict()`` (``expression``, ``total``, ``root``, ``comment``, ``breakdown``; for a
  comparison also ``success``, ``left``, ``op`` and ``target``).
- ``distribution(text_or_expr) -> dict[int, Fraction]``: exact odds of the total ``roll`` gives.
- ``distribution_with_tail(text_or_expr, *, depth=MAX_EXPLOSIONS) -> (dict, Fraction)``: the odds
  of every total reached with at most ``depth`` explosions in each roll of dice (each
  compounding die), and the exact probability of everything else (the "tail"); together 1.
- ``summary(text_or_expr) -> ExpressionSummary``: minimum, maximum, exact mean and the odds.
- ``clear_caches()``: forget cached trees, plans and odds (benchmarks measure uncached work).

What a total is: the sum (keep/drop applied); for a success pool (``8d6>3``, ``cs``) the count of
successes less the failures that subtract (``f``, ``df``); for a comparison (``1d20+5 >= 15``)
1 for success and 0 for failure, the distribution being over {0, 1}. Totals are whole numbers:
``/`` rounds down, ``ceil(a/b)``/``round(a/b)`` round that division up or to the nearest.

How the dice behave (the readings the seeds use, and the choices where references disagree, all
in ``spellings.py`` and on the reference page):

- A die lives through rerolls, explosions, min/max, keep/drop and counting, in that order, and
  its modifiers are written in that order (``4d6r1!kh3``); a reroll "until" of every face, or an
  explosion on every face, is refused (``1d6r<6``: Roll20 reads ``<6`` as 6 or less).
- An exploding die adds **another die to the roll** (seed 002, attack rolls: "adding another d6
  to the roll"); the new die may explode in turn and keeps the index of the die that exploded
  (``source``); keep/drop chooses among *all* dice, explosion dice included (``4d6!kh3`` is
  d20's ``4d6e6kh3``). Each die an explosion adds is rolled the same way (its rerolls too).
- Keep/drop: seed 003's "roll three dice, and use the higher two" is ``3d6kh2``; seed 001's
  roll-and-keep is ``Nd10kK``.

Caps (constants of ``tree``; every one a clear error, never a hang): ``MAX_LENGTH`` characters,
``MAX_DICE`` dice written in all (a rolled count at its most), ``MAX_TERMS`` terms in a sum,
``MAX_NESTING`` levels of brackets, ``MAX_SET_ITEMS`` items in a set, sides 2..``MAX_SIDES``,
numbers up to ``MAX_CONSTANT``, a literal multiplier up to ``MAX_MULTIPLIER``, any value within
``MAX_TOTAL``. Each roll of dice explodes at most ``MAX_EXPLOSIONS`` times (each compounding die
compounds at most that often): a roll that would need more is **stopped** with
``ExpressionTooLargeError`` and nothing counts; ``distribution`` gives the odds of the rolls
that complete, so it matches ``roll`` exactly. Odds too costly are refused with
``OddsTooCostlyError`` (the roll still works): too wide (``MAX_ODDS_OUTCOMES`` totals), or past
the old dialect's estimated work (``MAX_ODDS_WORK``) or the pool evaluation's budget
(``pools.MAX_POOL_WORK``, with a time net); a refusal is remembered.

How the odds are computed: the old dialect's terms by integer polynomials packed into big
integers (``polys``: Kronecker substitution, order statistics for keep/drop, the
negative-binomial count of explosions); every other construct by pool evaluation (``pools``, as
icepool does): a die is weights over its faces after rerolls, a pool groups of identical dice,
keep-highest a small dynamic programme per threshold value, never enumerating rolls; explosions
a sum over their count; a rolled number of dice the mixture over its counts; a set its items as
dice; a comparison the chance of its sides' difference.

The grammar as data, and why a hand parser: one table of spellings (``spellings.MODIFIERS``,
as Foundry's ``Die.MODIFIERS``) feeds a table-driven recursive-descent parser (``parser``), which
has no branch per spelling. Lark, the parser generator d20 uses, was measured on the same
language generated from the same table (``bench/expression_lark.py``, bench/README.md
"Expression language"): its LALR parse to a bare parse tree took a median 1.7× our whole parse
to a checked tree; its errors at the end of the text name the column of the token before, say
"No terminal defined for 'a'" where ours say what was expected and "did you mean 'advantage'?";
it cannot keep the old dialect's spaces inside a spelling (``4d6 d l 1``); and it would make a
development dependency a runtime one. Its grammar is 27 lines against our parser and table's
~800, but a transformer to our nodes and the checks with positions would come on top. So the
parser stays ours.

Modules (every name above is defined in one of them and re-exported here): ``tree`` (caps,
errors, the parse tree), ``spellings``, ``parser``, ``results``, ``rolling``, ``polys``,
``pools``, ``odds`` and ``reference``.
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
from rules.expression.reference import (
    REFERENCE,
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
    "REFERENCE",
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
