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

Caps (module constants; every one gives a clear error, never a hang):

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
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from rules import core
from rules.core import Die, Result, Rng, RulesError

__all__ = [
    "KEEP_KINDS",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_EXPLOSIONS",
    "MAX_LENGTH",
    "MAX_MULTIPLIER",
    "MAX_ODDS_OUTCOMES",
    "MAX_ODDS_WORK",
    "MAX_SIDES",
    "MAX_TERMS",
    "MIN_SIDES",
    "Constant",
    "Dice",
    "Expression",
    "ExpressionError",
    "ExpressionResult",
    "ExpressionSummary",
    "ExpressionTooLargeError",
    "Keep",
    "OddsTooCostlyError",
    "Term",
    "TermResult",
    "clear_caches",
    "distribution",
    "distribution_with_tail",
    "parse",
    "roll",
    "summary",
]

MAX_LENGTH = 200
MAX_DICE = core.MAX_POOL
MAX_TERMS = 100
MIN_SIDES = 2
MAX_SIDES = core.MAX_SIDES
MAX_CONSTANT = 1_000_000
MAX_MULTIPLIER = 1000
MAX_EXPLOSIONS = core.MAX_EXPLOSIONS
#: Odds are refused when the totals could span more values than this...
MAX_ODDS_OUTCOMES = 20_000
#: ...or when the estimated work (in operations on big-integer digits, see ``_check_cost``)
#: passes this: about half a second; realistic questions estimate under 1% of it.
MAX_ODDS_WORK = 2 * 10**8

#: Keep/drop kinds: keep highest, keep lowest, drop highest, drop lowest.
KEEP_KINDS = ("kh", "kl", "dh", "dl")
_KEEP_WORDS = {"kh": "keep", "kl": "keep", "dh": "drop", "dl": "drop"}


# --- errors ---------------------------------------------------------------------------------


class ExpressionError(RulesError):
    """A dice expression that cannot be read or rolled; the message says what and where."""


class ExpressionTooLargeError(ExpressionError, core.PoolTooLargeError):
    """An expression past a hard cap: too long, too many dice, too many explosions."""


class OddsTooCostlyError(ExpressionError):
    """Exact odds that would take too long to compute (rolling still works)."""


# --- parse tree -----------------------------------------------------------------------------


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Keep(Result):
    """Keep or drop some dice of a roll: ``kind`` is one of ``KEEP_KINDS``."""

    kind: str
    count: int

    def __post_init__(self) -> None:
        if self.kind not in KEEP_KINDS:
            raise ExpressionError(f"Unknown keep rule {self.kind!r}; use one of kh, kl, dh, dl.")
        if not _is_whole(self.count) or self.count < 1:
            raise ExpressionError(f"{_KEEP_WORDS[self.kind].capitalize()} at least 1 die.")

    def __str__(self) -> str:
        return f"{self.kind}{self.count}"


def _dice_problem(
    count: Any, sides: Any, explode_at: Any, keep: Keep | None
) -> tuple[str, str] | None:
    """The first thing wrong with a dice term, as (which part, message), or None."""
    if not _is_whole(count) or count < 1:
        return "count", f"Roll at least 1 die (got {count!r})."
    if count > MAX_DICE:
        return "too many", f"{count} dice is too many; the most one expression rolls is {MAX_DICE}."
    if not _is_whole(sides) or sides < MIN_SIDES:
        return "sides", f"A die needs at least {MIN_SIDES} sides (got d{sides})."
    if sides > MAX_SIDES:
        return "sides", f"d{sides} is too big; the biggest die is a d{MAX_SIDES}."
    if explode_at is not None:
        if not _is_whole(explode_at) or explode_at <= 1:
            return "explode", (
                f"Exploding on {explode_at} or more would explode on every face of a d{sides} "
                "and never stop; explode on 2 or more at the lowest."
            )
        if explode_at > sides:
            return "explode", (
                f"A d{sides} never rolls {explode_at} or more, so it could never explode."
            )
    if keep is not None:
        if not isinstance(keep, Keep):
            return "keep", f"Not a keep rule: {keep!r}."
        if keep.kind in ("kh", "kl") and keep.count > count:
            return "keep", f"Can't keep {keep.count} dice out of {count}."
        if keep.kind in ("dh", "dl") and keep.count >= count:
            return "keep", (f"Can't drop {keep.count} dice out of {count}: at least one must stay.")
    return None


@dataclass(frozen=True)
class Dice(Result):
    """``count`` dice with ``sides`` faces; optionally exploding on ``explode_at`` or more, and
    a keep/drop rule applied to every die rolled (explosion dice included)."""

    count: int
    sides: int
    explode_at: int | None = None
    keep: Keep | None = None

    def __post_init__(self) -> None:
        problem = _dice_problem(self.count, self.sides, self.explode_at, self.keep)
        if problem:
            error = ExpressionTooLargeError if problem[0] == "too many" else ExpressionError
            raise error(problem[1])

    def __str__(self) -> str:
        text = f"{self.count}d{self.sides}"
        if self.explode_at == self.sides:
            text += "!"
        elif self.explode_at is not None:
            text += f"!>={self.explode_at}"
        if self.keep is not None:
            text += str(self.keep)
        return text


@dataclass(frozen=True)
class Constant(Result):
    """A whole number written in the expression."""

    value: int

    def __post_init__(self) -> None:
        if not _is_whole(self.value) or not 0 <= self.value <= MAX_CONSTANT:
            raise ExpressionError(f"Numbers must be whole, from 0 to {MAX_CONSTANT:,}.")

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Term(Result):
    """One added (``sign`` +1) or subtracted (-1) part: dice or a number, times ``multiplier``."""

    sign: int
    operand: Dice | Constant
    multiplier: int = 1

    def __post_init__(self) -> None:
        if self.sign not in (1, -1) or isinstance(self.sign, bool):
            raise ExpressionError("A term's sign must be +1 or -1.")
        if not isinstance(self.operand, Dice | Constant):
            raise ExpressionError(f"A term is dice or a number, not {self.operand!r}.")
        if not _is_whole(self.multiplier) or not 0 <= self.multiplier <= MAX_MULTIPLIER:
            raise ExpressionError(f"Multiply by a whole number from 0 to {MAX_MULTIPLIER}.")

    def __str__(self) -> str:
        if self.multiplier == 1:
            return str(self.operand)
        return f"{self.operand}*{self.multiplier}"


@dataclass(frozen=True)
class Expression(Result):
    """The parse tree of a dice expression; ``str()`` is its canonical form."""

    terms: tuple[Term, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "terms", tuple(self.terms))
        if not self.terms or not all(isinstance(t, Term) for t in self.terms):
            raise ExpressionError("An expression needs at least one term.")
        if len(self.terms) > MAX_TERMS:
            raise ExpressionTooLargeError(
                f"That expression has {len(self.terms)} terms; the most is {MAX_TERMS}."
            )
        if self.dice_count > MAX_DICE:
            raise ExpressionTooLargeError(_too_many_dice(self.dice_count))

    @property
    def dice_count(self) -> int:
        """Dice written in the expression (explosions not counted)."""
        return sum(t.operand.count for t in self.terms if isinstance(t.operand, Dice))

    @property
    def explodes(self) -> bool:
        return any(isinstance(t.operand, Dice) and t.operand.explode_at for t in self.terms)

    def __str__(self) -> str:
        parts = []
        for i, term in enumerate(self.terms):
            if i == 0:
                parts.append(f"-{term}" if term.sign < 0 else str(term))
            else:
                parts.append(f"{'-' if term.sign < 0 else '+'} {term}")
        return " ".join(parts)


def _too_many_dice(count: int) -> str:
    return f"That is {count} dice in all; the most one expression rolls is {MAX_DICE}."


# --- lexer and parser -----------------------------------------------------------------------


class _Token(NamedTuple):
    kind: str  # num d % kh kl dh dl ! >= + - * end
    text: str
    pos: int  # 1-based position in the text


_SINGLE = {"%": "%", "!": "!", "+": "+", "-": "-", "*": "*"}
_DIGITS = "0123456789"  # not str.isdigit(): that accepts other scripts' digits


def _lex(text: str) -> Iterator[_Token]:
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        low = ch.lower()
        j = i + 1  # the next character that is not whitespace: "k h 3" is "kh3"
        while j < n and text[j].isspace():
            j += 1
        nxt = text[j].lower() if j < n else ""
        if ch.isspace():
            i += 1
        elif ch in _DIGITS:
            j = i
            while j < n and text[j] in _DIGITS:
                j += 1
            yield _Token("num", text[i:j], i + 1)
            i = j
        elif low in ("d", "k"):
            if nxt in ("h", "l"):  # "d" before h/l can only be a drop: dice need a number
                yield _Token(low + nxt, text[i : j + 1], i + 1)
                i = j + 1
            else:
                yield _Token("d" if low == "d" else "kh", ch, i + 1)
                i += 1
        elif ch == ">" and nxt == "=":
            yield _Token(">=", text[i : j + 1], i + 1)
            i = j + 1
        elif ch in _SINGLE:
            yield _Token(_SINGLE[ch], ch, i + 1)
            i += 1
        else:
            raise ExpressionError(
                f"Unexpected {ch!r} at position {i + 1} in {text!r}; dice expressions use "
                "digits, d, %, k, h, l, !, >=, +, - and *."
            )
    yield _Token("end", "", n + 1)


def _syntax_error(text: str, token: _Token, expected: str) -> ExpressionError:
    what = "end" if token.kind == "end" else repr(token.text)
    return ExpressionError(
        f"Unexpected {what} at position {token.pos} in {text!r}; expected {expected}."
    )


def _placed(text: str, token: _Token, message: str) -> ExpressionError:
    return ExpressionError(f"{message} (position {token.pos} in {text!r})")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = list(_lex(text))
        self.at = 0
        self.dice_total = 0

    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect_number(self, expected: str) -> tuple[int, _Token]:
        token = self.peek()
        if token.kind != "num":
            raise _syntax_error(self.text, token, expected)
        self.take()
        return int(token.text), token  # at most MAX_LENGTH digits: int() is safe

    def expression(self) -> Expression:
        terms = [self.term(1)]
        while self.peek().kind in ("+", "-"):
            terms.append(self.term(1))
            if len(terms) > MAX_TERMS:
                raise ExpressionTooLargeError(
                    f"That expression has more than {MAX_TERMS} terms "
                    f"(position {self.peek().pos} in {self.text!r})"
                )
        token = self.peek()
        if token.kind != "end":
            expected = "+, -, * or the end"
            if token.kind == "!":
                expected += " (write the explosion before keep/drop, like 4d6!kh3)"
            raise _syntax_error(self.text, token, expected)
        return Expression(tuple(terms))

    def term(self, sign: int) -> Term:
        while self.peek().kind in ("+", "-"):
            if self.take().kind == "-":
                sign = -sign
        factors = [self.factor()]
        while self.peek().kind == "*":
            self.take()
            factors.append(self.factor())
        dice = [(node, tok) for node, tok in factors if isinstance(node, Dice)]
        if len(dice) > 1:
            raise _placed(self.text, dice[1][1], "Dice can only be multiplied by a number")
        operand = dice[0][0] if dice else factors[0][0]
        multiplier = math.prod(node.value for node, _ in factors if node is not operand)
        if multiplier > MAX_MULTIPLIER:
            raise _placed(
                self.text, factors[-1][1], f"Multiply by at most {MAX_MULTIPLIER} in one term"
            )
        return Term(sign, operand, multiplier)

    def factor(self) -> tuple[Dice | Constant, _Token]:
        token = self.peek()
        if token.kind == "num":
            value, _ = self.expect_number("a number")
            if self.peek().kind == "d":
                return self.dice(value, token), token
            if value > MAX_CONSTANT:
                raise _placed(self.text, token, f"{value} is too big; numbers go up to 1,000,000")
            return Constant(value), token
        if token.kind == "d":
            return self.dice(1, token), token
        raise _syntax_error(self.text, token, "a number or dice like 3d6")

    def dice(self, count: int, start: _Token) -> Dice:
        self.take()  # the "d"
        places = {"count": start, "too many": start, "sides": self.peek()}
        if self.peek().kind == "%":
            self.take()
            sides = 100
        else:
            sides, _ = self.expect_number("the number of sides after 'd', like d6 or d%")
        explode_at = None
        if self.peek().kind == "!":
            places["explode"] = self.take()
            if self.peek().kind == ">=":
                self.take()
                explode_at, places["explode"] = self.expect_number("a number after '>='")
            elif self.peek().kind == "num":
                explode_at, places["explode"] = self.expect_number("a number")
            else:
                explode_at = sides
        keep = None
        if self.peek().kind in KEEP_KINDS:
            places["keep"] = kind = self.take()
            word = _KEEP_WORDS[kind.kind]
            amount, _ = self.expect_number(f"how many dice to {word} after {kind.text!r}")
            if amount < 1:
                raise _placed(self.text, kind, f"{word.capitalize()} at least 1 die")
            keep = Keep(kind.kind, amount)
        problem = _dice_problem(count, sides, explode_at, keep)
        if problem:
            error = _placed(self.text, places[problem[0]], problem[1].rstrip("."))
            if problem[0] == "too many":
                raise ExpressionTooLargeError(str(error))
            raise error
        self.dice_total += count
        if self.dice_total > MAX_DICE:
            error = _placed(self.text, start, _too_many_dice(self.dice_total).rstrip("."))
            raise ExpressionTooLargeError(str(error))
        return Dice(count, sides, explode_at, keep)


def parse(text: str) -> Expression:
    """Read a dice expression (grammar in the module docstring) into its frozen parse tree.

    Errors name the position (1-based): ``Unexpected 'x' at position 4 in '3d6x'; ...``.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"A dice expression is text like '3d6+2', not {text!r}.")
    if len(text) > MAX_LENGTH:
        raise ExpressionTooLargeError(
            f"That expression is {len(text)} characters long; the most is {MAX_LENGTH}."
        )
    if not text.strip():
        raise ExpressionError("Type a dice expression, like 3d6+2 or 4d6kh3.")
    return _Parser(text).expression()


def _coerce(text_or_expr: str | Expression) -> Expression:
    if isinstance(text_or_expr, Expression):
        return text_or_expr
    return parse(text_or_expr)


# --- rolling --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TermResult(Result):
    """One term as rolled: its dice (kept and dropped, explosion dice included, in rolling
    order) and its signed subtotal (kept dice times the multiplier)."""

    text: str  # canonical operand, e.g. "4d6kh3" or "2"
    sign: int
    multiplier: int
    dice: tuple[Die, ...]
    subtotal: int

    def breakdown(self) -> str:
        if not self.dice:
            text = self.text
        else:
            shown = []
            for d in self.dice:
                face = f"{d.value}!" if d.exploded else str(d.value)
                shown.append(face if d.kept else f"~~{face}~~")
            text = f"{self.text} ({', '.join(shown)})"
        return text if self.multiplier == 1 else f"{text} * {self.multiplier}"


@dataclass(frozen=True)
class ExpressionResult(Result):
    """A rolled expression: every term with every die, the total and a readable breakdown.

    In the breakdown an exploded die is marked ``6!`` and a dropped die ``~~1~~`` (avrae/d20's
    convention)."""

    expression: str
    terms: tuple[TermResult, ...]
    total: int
    breakdown: str

    @property
    def dice(self) -> tuple[Die, ...]:
        return tuple(d for t in self.terms for d in t.dice)


def _roll_dice(dice: Dice, rng: Rng) -> tuple[Die, ...]:
    values = [core.roll_die(dice.sides, rng) for _ in range(dice.count)]
    sources: list[int | None] = [None] * dice.count
    exploded = [False] * dice.count
    i = 0
    # A queue: each die that explodes appends one more, which is looked at in its turn.
    while dice.explode_at is not None and i < len(values):
        if values[i] >= dice.explode_at:
            if len(values) - dice.count >= MAX_EXPLOSIONS:
                raise ExpressionTooLargeError(
                    f"The dice of {dice} exploded more than {MAX_EXPLOSIONS} times; the roll "
                    "was stopped and does not count."
                )
            exploded[i] = True
            values.append(core.roll_die(dice.sides, rng))
            sources.append(i)
            exploded.append(False)
        i += 1
    kept = [True] * len(values)
    if dice.keep is not None:
        order = sorted(range(len(values)), key=lambda j: (values[j], j))  # lowest first
        kind, k = dice.keep.kind, dice.keep.count
        dropped = {
            "kh": order[: len(values) - k],
            "kl": order[k:],
            "dl": order[:k],
            "dh": order[len(values) - k :],
        }[kind]
        for j in dropped:
            kept[j] = False
    return tuple(
        Die(
            sides=dice.sides,
            rolled=v,
            value=v,
            kept=kept[j],
            exploded=exploded[j],
            source=sources[j],
        )
        for j, v in enumerate(values)
    )


def roll(text_or_expr: str | Expression, *, rng: Rng | None = None) -> ExpressionResult:
    """Roll a dice expression; every die is kept in the result.

    Exploding dice add "another d6 to the roll" (seed 002) as separate dice; keep/drop picks among
    all of a term's dice ("roll three dice, and use the higher two", seed 003, is ``3d6kh2``).
    Raises ``ExpressionTooLargeError`` if a dice term would explode more than ``MAX_EXPLOSIONS``
    times (the roll is stopped; nothing counts).
    """
    expr = _coerce(text_or_expr)
    rng = core.resolve_rng(rng)
    results = []
    for term in expr.terms:
        op = term.operand
        if isinstance(op, Dice):
            dice = _roll_dice(op, rng)
            base = sum(d.value for d in dice if d.kept)
        else:
            dice, base = (), op.value
        results.append(
            TermResult(
                text=str(op),
                sign=term.sign,
                multiplier=term.multiplier,
                dice=dice,
                subtotal=term.sign * term.multiplier * base,
            )
        )
    total = sum(t.subtotal for t in results)
    parts = []
    for i, t in enumerate(results):
        if i == 0:
            parts.append(("-" if t.sign < 0 else "") + t.breakdown())
        else:
            parts.append(f"{'-' if t.sign < 0 else '+'} {t.breakdown()}")
    return ExpressionResult(
        expression=str(expr),
        terms=tuple(results),
        total=total,
        breakdown=f"{' '.join(parts)} = {total}",
    )


# --- exact odds: integer polynomials packed into big integers ------------------------------------
#
# A "poly" is a big int holding sum(count[v] * X**v) with X = 2**bits: slot v (``bits`` wide)
# counts the equally likely roll sequences whose total is v. ``bits`` is chosen above the
# denominator, which bounds every count, so slots never spill into each other.


@dataclass(frozen=True)
class _Counts:
    """Integer weights ``counts[i]`` of the total ``low + i``, out of ``denom``; their sum may be
    below ``denom`` when explosions past the depth were left out (the tail)."""

    low: int
    counts: tuple[int, ...]
    denom: int


def _slot_bits(denom: int) -> int:
    return (denom.bit_length() + 8) // 8 * 8  # whole bytes, strictly above the denominator


def _uniform(lo: int, hi: int, bits: int) -> int:
    """One die with faces lo..hi: X**lo + ... + X**hi."""
    if hi < lo:
        return 0
    ones = ((1 << (bits * (hi - lo + 1))) - 1) // ((1 << bits) - 1)
    return ones << (bits * lo)


@lru_cache(maxsize=1024)
def _order(n: int, k: int, lo: int, hi: int, highest: bool, bits: int) -> int:
    """Sum of the k highest (or lowest) of n dice with faces lo..hi, counts out of m**n.

    Order statistics, never enumerating rolls: say the k-th highest die shows f and i < k dice
    are above it. There are C(n, i) ways to choose those; their values are i dice on f+1..m; and
    among the other n-i dice at least k-i show f and the rest are below f, which is G(n-i, k-i)
    ways. So the face f contributes X**(k*f) * sum_i C(n, i) G(n-i, k-i) R**i with
    R = X + ... + X**(m-f), summed by Horner's scheme. The lowest k mirror the highest k.
    """
    m = hi - lo + 1
    if k == 0:
        return m**n
    if not highest:  # v -> m + 1 - v turns the k lowest into the k highest
        low, counts = _unpack(_order(n, k, 1, m, True, bits), bits)
        mirrored = _pack(counts[::-1], bits // 8)
        return mirrored << (bits * (k * (m + 1) - (low + len(counts) - 1) + k * (lo - 1)))
    acc = 0
    for f in range(1, m + 1):
        others = f - 1  # faces below f
        # G(R, need) = sum_{c>=need} C(R, c) * others**(R-c), for i = k-1 down to 0 by
        # G(R+1, need+1) = (1 + others) G(R, need) - C(R, need) others**(R-need+1).
        tail = others ** (n - k + 1)
        g = (1 + others) ** (n - k + 1) - tail
        coefficients = [0] * k
        coefficients[k - 1] = math.comb(n, k - 1) * g
        for i in range(k - 1, 0, -1):
            g = (1 + others) * g - math.comb(n - i, k - i) * tail
            coefficients[i - 1] = math.comb(n, i - 1) * g
        if f == m:  # no face above the top one: only i = 0
            poly = coefficients[0]
        else:
            poly = coefficients[k - 1]
            for c in reversed(coefficients[:-1]):
                poly = _times_die(poly, 1, m - f, bits) + c
        acc += poly << (bits * k * f)
    return acc << (bits * k * (lo - 1))


def _unpack(poly: int, bits: int) -> tuple[int, tuple[int, ...]]:
    """(lowest total, counts from there to the highest) of a packed poly."""
    width = bits // 8
    slots = max(1, -(-poly.bit_length() // bits))
    raw = poly.to_bytes(slots * width, "little")
    counts = [int.from_bytes(raw[i : i + width], "little") for i in range(0, len(raw), width)]
    low = next((i for i, c in enumerate(counts) if c), 0)
    return low, tuple(counts[low:])


def _pack(counts: tuple[int, ...], width: int) -> int:
    return int.from_bytes(b"".join(c.to_bytes(width, "little") for c in counts), "little")


def _times_die(poly: int, lo: int, hi: int, bits: int) -> int:
    """``poly`` times one die with faces lo..hi, by O(log faces) shifts and additions (a plain
    multiplication would cost as much as the long operand times the short one)."""
    result, run, size, offset = 0, poly, 1, 0  # run = poly * (1 + X + ... + X**(size-1))
    faces = hi - lo + 1
    while faces:
        if faces & 1:
            result += run << (bits * offset)
            offset += size
        faces >>= 1
        if faces:
            run += run << (bits * size)
            size *= 2
    return result << (bits * lo)


def _exploding_poly(dice: Dice, depth: int, bits: int) -> int:
    """Counts out of sides**(count + depth) of every total reached with at most ``depth``
    explosions. Given e explosions: the ``count`` dice that stopped show 1..t-1, the e that
    exploded show t..s, all independent; the ways to spread e explosions over the dice are
    C(e + count - 1, count - 1) and each sequence of count+e dice weighs s**-(count+e).
    The exploded faces are the highest, so keep/drop splits between the two groups."""
    n, s, t = dice.count, dice.sides, dice.explode_at
    assert t is not None
    h = s - t + 1  # exploding faces

    def ways(e: int) -> int:  # over the common denominator s**(n + depth)
        return math.comb(e + n - 1, n - 1) * s ** (depth - e)

    def exploded_sums(top: int, stopped_part: int) -> int:
        # sum over e <= top of ways(e) * (totals of e exploded dice) * stopped_part
        if h == 1 and n * (t - 1) <= 64:
            # e exploded dice total e*s: lay the weights out directly and multiply once (faster
            # than Horner's scheme below while the stopped dice's polynomial is short)
            width = bits // 8
            zeros = bytes(width * (s - 1))
            laid = b"".join(ways(e).to_bytes(width, "little") + zeros for e in range(top + 1))
            return int.from_bytes(laid, "little") * stopped_part
        # Horner's scheme; the stopped dice ride along so that no long-by-long multiplication
        acc = 0
        for e in range(top, -1, -1):
            acc = _times_die(acc, t, s, bits) + ways(e) * stopped_part
        return acc

    def stopped(k: int, highest: bool) -> int:  # the k highest/lowest of the n stopped dice
        return _order(n, k, 1, t - 1, highest, bits)

    kind, k = (dice.keep.kind, dice.keep.count) if dice.keep else (None, 0)
    if kind is None:
        return exploded_sums(depth, _uniform(1, t - 1, bits) ** n)
    if kind == "dl":  # fewer than n dropped: all of them stopped dice
        return exploded_sums(depth, stopped(n - k, True))
    if kind == "kl":  # k <= n: the k lowest are all stopped dice
        return sum(ways(e) * h**e for e in range(depth + 1)) * stopped(k, False)
    acc, hi_sum = 0, 1  # hi_sum: every total of e exploded dice
    if kind == "kh":
        for e in range(min(k, depth + 1)):  # all e exploded dice kept, and k-e stopped ones
            acc += ways(e) * hi_sum * stopped(k - e, True)
            hi_sum = _times_die(hi_sum, t, s, bits)
        high = sum(ways(e) * _order(e, k, t, s, True, bits) for e in range(k, depth + 1))
        return acc + high * (t - 1) ** n  # the k highest exploded dice; stopped ones any
    # dh: with e <= k the e exploded dice and k-e stopped ones are dropped
    for e in range(min(k, depth) + 1):
        acc += ways(e) * h**e * stopped(n - (k - e), False)
    low = sum(ways(e) * _order(e, e - k, t, s, False, bits) for e in range(k + 1, depth + 1))
    return acc + low * _uniform(1, t - 1, bits) ** n


@lru_cache(maxsize=256)
def _dice_counts(dice: Dice, depth: int) -> _Counts:
    n, s = dice.count, dice.sides
    if dice.explode_at is not None:
        denom = s ** (n + depth)
        bits = _slot_bits(denom)
        poly = _exploding_poly(dice, depth, bits)
    else:
        denom = s**n
        bits = _slot_bits(denom)
        keep = dice.keep
        if keep is None:
            poly = _uniform(1, s, bits) ** n
        else:
            kept = keep.count if keep.kind in ("kh", "kl") else n - keep.count
            poly = _order(n, kept, 1, s, keep.kind in ("kh", "dl"), bits)
    low, counts = _unpack(poly, bits)
    return _Counts(low, counts, denom)


def _scale(c: _Counts, factor: int) -> _Counts:
    """Multiply every total by ``factor`` (the term's sign times its multiplier)."""
    if factor == 1:
        return c
    if factor == 0:
        return _Counts(0, (sum(c.counts),), c.denom)
    counts = c.counts if factor > 0 else c.counts[::-1]
    high = c.low + len(c.counts) - 1
    step = abs(factor)
    spread = [0] * ((len(counts) - 1) * step + 1)
    spread[::step] = counts
    return _Counts(c.low * factor if factor > 0 else high * factor, tuple(spread), c.denom)


def _convolve(a: _Counts, b: _Counts) -> _Counts:
    """The sum of two independent terms: one big-integer multiplication."""
    if len(a.counts) < len(b.counts):
        a, b = b, a
    if len(b.counts) == 1:
        w = b.counts[0]
        return _Counts(a.low + b.low, tuple(c * w for c in a.counts), a.denom * b.denom)
    bits = max(a.counts).bit_length() + max(b.counts).bit_length() + len(b.counts).bit_length()
    width = bits // 8 + 1
    product = _pack(a.counts, width) * _pack(b.counts, width)
    length = len(a.counts) + len(b.counts) - 1
    raw = product.to_bytes(length * width, "little")
    counts = tuple(int.from_bytes(raw[i : i + width], "little") for i in range(0, len(raw), width))
    return _Counts(a.low + b.low, counts, a.denom * b.denom)


# --- the cost of a question, estimated before answering it ------------------------------------
#
# Units: operations on 30-bit digits of CPython's big integers (Karatsuba multiplication above
# ~70 digits). The estimate is deliberately rough but monotone; MAX_ODDS_WORK was calibrated on
# the odds themselves (bench/rules/expression.py) so that accepted questions stay well under a
# second and realistic ones (pools up to 20 dice) take about a millisecond.


_STEP = 50  # one Python-level step, in digit operations


def _digits(bits: float) -> float:
    return max(bits / 30, 1.0)


def _mul_cost(a_bits: float, b_bits: float) -> float:
    a, b = sorted((_digits(a_bits), _digits(b_bits)), reverse=True)
    return a * b if b < 70 else a / b * b**1.585


def _order_cost(n: int, k: int, m: int, bits: int) -> float:
    """Work of ``_order``: per face, a Horner sum of k terms whose i-th step shifts and adds an
    i*m-slot polynomial about log2(m) times."""
    if k == 0:
        return 1.0
    steps = m * k * (m.bit_length() + 2)
    horner = steps * k * m / 4 * _digits(bits)
    return _STEP * steps + horner + m * _digits(k * m * bits)


def _term_cost(term: Term, depth: int) -> tuple[int, int, float]:
    """(possible totals, slot bits, estimated work) of one term's odds."""
    op = term.operand
    if isinstance(op, Constant):
        return 1, 1, 1.0
    n, s = op.count, op.sides
    kind, k = (op.keep.kind, op.keep.count) if op.keep else (None, 0)
    if op.explode_at is None:
        bits = _slot_bits(s**n)
        kept = n if kind is None else (k if kind in ("kh", "kl") else n - k)
        span = kept * (s - 1) + 1
        if kind is None:
            work = 2 * _mul_cost(span * bits, span * bits)
        else:
            work = _order_cost(n, kept, s, bits)
    else:
        t = op.explode_at
        h = s - t + 1
        bits = _slot_bits(s ** (n + depth))
        span = (n + depth) * s if kind not in ("kh", "kl") else k * s
        steps = (depth + 1) * (h.bit_length() + 2) * (_STEP + _digits(span * bits))
        if kind == "kh":
            stopped = sum(_order_cost(n, k - e, t - 1, bits) for e in range(min(k, depth + 1)))
            extra = sum(_order_cost(e, k, h, bits) for e in range(k, depth + 1))
        elif kind == "dh":
            stopped = sum(_order_cost(n, n - k + e, t - 1, bits) for e in range(min(k, depth) + 1))
            extra = sum(_order_cost(e, e - k, h, bits) for e in range(k + 1, depth + 1))
        else:
            kept = {None: 0, "dl": n - k, "kl": k}[kind]
            stopped = (
                _order_cost(n, kept, t - 1, bits)
                if kept
                else 2 * _mul_cost(n * t * bits, n * t * bits)
            )
            extra = 0.0
        work = steps + stopped + extra
    return (span - 1) * max(term.multiplier, 1) + 1, bits, work


def _check_cost(expr: Expression, depth: int) -> None:
    span, bits, work = 1, 1, 0.0
    for term in expr.terms:
        term_span, term_bits, term_work = _term_cost(term, depth)
        # the convolution: one lopsided multiplication (CPython's is slower than Karatsuba's
        # count suggests on numbers this long), packing and unpacking every slot
        work += term_work + 8 * _mul_cost(span * bits, term_span * term_bits)
        work += (span + term_span) * 3 * _STEP
        span += term_span - 1
        bits += term_bits
    work += span * (40 * _STEP + _digits(bits))  # one Fraction per total
    if span > MAX_ODDS_OUTCOMES:
        raise OddsTooCostlyError(
            f"The odds of {expr} are too wide to work out exactly: up to {span:,} different "
            f"totals (the limit is {MAX_ODDS_OUTCOMES:,}). It can still be rolled."
        )
    if work > MAX_ODDS_WORK:
        raise OddsTooCostlyError(
            f"The odds of {expr} would take too long to work out exactly. It can still be rolled."
        )


@lru_cache(maxsize=256)
def _odds(expr: Expression, depth: int) -> _Counts:
    _check_cost(expr, depth)
    acc = _Counts(0, (1,), 1)
    for term in expr.terms:
        op = term.operand
        part = _Counts(op.value, (1,), 1) if isinstance(op, Constant) else _dice_counts(op, depth)
        acc = _convolve(acc, _scale(part, term.sign * term.multiplier))
    return acc


def _check_depth(depth: Any) -> int:
    if not _is_whole(depth) or not 0 <= depth <= MAX_EXPLOSIONS:
        raise ExpressionError(f"The depth must be a whole number from 0 to {MAX_EXPLOSIONS}.")
    return depth


def distribution_with_tail(
    text_or_expr: str | Expression, *, depth: int = MAX_EXPLOSIONS
) -> tuple[dict[int, Fraction], Fraction]:
    """Exact odds of each total reached when every dice term explodes at most ``depth`` times,
    and the exact probability of all other rolls (the tail), so that they sum to exactly 1.

    At the default depth the tail is exactly the chance that ``roll`` is stopped at the
    explosion cap. Without ``!`` the tail is 0. Exact ``Fraction``s (DESIGN: "probabilities are
    exact fractions.Fraction"), by convolution and order statistics, never by enumeration.
    """
    expr = _coerce(text_or_expr)
    depth = _check_depth(depth)
    counts = _odds(expr, depth)
    tail = Fraction(counts.denom - sum(counts.counts), counts.denom)
    return dict(_fractions(expr, depth, conditional=False)), tail


def distribution(text_or_expr: str | Expression) -> dict[int, Fraction]:
    """Exact odds of every total ``roll`` can give (those of the rolls that complete: with
    exploding dice, rolls stopped at ``MAX_EXPLOSIONS`` give no total). Sums to exactly 1."""
    return dict(_fractions(_coerce(text_or_expr), MAX_EXPLOSIONS, conditional=True))


@lru_cache(maxsize=256)
def _fractions(
    expr: Expression, depth: int, *, conditional: bool
) -> tuple[tuple[int, Fraction], ...]:
    """The odds as (total, Fraction) pairs: out of every roll, or (``conditional``) out of the
    rolls that stay within the depth. Cached: making the Fractions is a good part of the work."""
    counts = _odds(expr, depth)
    whole = sum(counts.counts) if conditional else counts.denom
    return tuple((counts.low + i, Fraction(c, whole)) for i, c in enumerate(counts.counts) if c)


@dataclass(frozen=True)
class ExpressionSummary(Result):
    """What the dice box shows before rolling: the range, the exact mean, the odds, and the
    chance that exploding dice hit the cap and the roll is stopped (0 without ``!``)."""

    expression: str
    minimum: int
    maximum: int
    mean: Fraction
    distribution: dict[int, Fraction] = field(hash=False)
    stopped: Fraction


def summary(text_or_expr: str | Expression) -> ExpressionSummary:
    """Minimum, maximum, exact mean and exact odds of an expression's total, for the dice box.

    With exploding dice the maximum is the highest total a roll that completes can reach."""
    expr = _coerce(text_or_expr)
    counts = _odds(expr, MAX_EXPLOSIONS)
    whole = sum(counts.counts)
    weighted = sum((counts.low + i) * c for i, c in enumerate(counts.counts))
    last = max(i for i, c in enumerate(counts.counts) if c)
    return ExpressionSummary(
        expression=str(expr),
        minimum=counts.low,
        maximum=counts.low + last,
        mean=Fraction(weighted, whole),
        distribution=distribution(expr),
        stopped=Fraction(counts.denom - whole, counts.denom),
    )


def clear_caches() -> None:
    """Forget every cached odds computation (the benchmarks time uncached work)."""
    _fractions.cache_clear()
    _odds.cache_clear()
    _dice_counts.cache_clear()
    _order.cache_clear()
