"""Dice expressions: the caps, the errors and the frozen parse tree (what was written)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules import core
from rules.core import Result, RulesError

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
#: ...or when the estimated work (in operations on big-integer digits, see ``odds._check_cost``)
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
