"""Dice expressions: rolling one, every die kept (what was rolled).

An exploding die adds another die to the roll (seed 002: "adding another d6 to the roll");
keep/drop then chooses among all dice of the term.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from rules import core
from rules.core import Die, Result, Rng
from rules.expression.parser import PARSE_CACHE_SIZE, parse
from rules.expression.tree import (
    MAX_EXPLOSIONS,
    Constant,
    Dice,
    Expression,
    ExpressionError,
    ExpressionTooLargeError,
)

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
    sides = dice.sides
    if dice.explode_at is None and dice.keep is None:
        # The usual roll ("3d6"): every die kept, none exploding.
        return tuple(
            _frozen(Die, {**_PLAIN_DIE, "sides": sides, "rolled": v, "value": v})
            for v in [rng.randint(1, sides) for _ in range(dice.count)]
        )
    values = [core.roll_die(sides, rng) for _ in range(dice.count)]
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
        _frozen(
            Die,
            {
                "sides": sides,
                "rolled": v,
                "value": v,
                "kept": kept[j],
                "exploded": exploded[j],
                "bonus": 0,
                "source": sources[j],
            },
        )
        for j, v in enumerate(values)
    )


_PLAIN_DIE = {"kept": True, "exploded": False, "bonus": 0, "source": None}


def _frozen(cls: type, fields: dict) -> object:
    """A frozen result dataclass built without its ``__init__``, which pays one guarded setattr
    per field: most of a small roll's time. Only for the classes here and ``Die``, none of which
    checks anything in ``__init__``; the object is as frozen as one built the usual way."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


class _Step(NamedTuple):
    operand: Dice | Constant
    text: str  # canonical, e.g. "4d6kh3"
    sign: int
    multiplier: int


class _Plan(NamedTuple):
    """What rolling an expression needs besides dice: its canonical text and each term's."""

    text: str
    steps: tuple[_Step, ...]


def _plan(expr: Expression) -> _Plan:
    steps = tuple(_Step(t.operand, str(t.operand), t.sign, t.multiplier) for t in expr.terms)
    return _Plan(str(expr), steps)


@functools.lru_cache(maxsize=PARSE_CACHE_SIZE)
def _plan_for_text(text: str) -> _Plan:
    # A table rolls the same few texts all night: parse and spell them out once.
    return _plan(parse(text))


def roll(text_or_expr: str | Expression, *, rng: Rng | None = None) -> ExpressionResult:
    """Roll a dice expression; every die is kept in the result.

    Exploding dice add "another d6 to the roll" (seed 002) as separate dice; keep/drop picks among
    all of a term's dice ("roll three dice, and use the higher two", seed 003, is ``3d6kh2``).
    Raises ``ExpressionTooLargeError`` if a dice term would explode more than ``MAX_EXPLOSIONS``
    times (the roll is stopped; nothing counts).
    """
    if isinstance(text_or_expr, Expression):
        plan = _plan(text_or_expr)
    elif isinstance(text_or_expr, str):
        plan = _plan_for_text(text_or_expr)
    else:
        raise ExpressionError(f"A dice expression is text like '3d6+2', not {text_or_expr!r}.")
    rng = core.resolve_rng(rng)
    results = []
    for op, text, sign, multiplier in plan.steps:
        if isinstance(op, Dice):
            dice = _roll_dice(op, rng)
            base = sum(d.value for d in dice if d.kept)
        else:
            dice, base = (), op.value
        results.append(
            _frozen(
                TermResult,
                {
                    "text": text,
                    "sign": sign,
                    "multiplier": multiplier,
                    "dice": dice,
                    "subtotal": sign * multiplier * base,
                },
            )
        )
    total = sum(t.subtotal for t in results)
    parts = []
    for i, t in enumerate(results):
        if i == 0:
            parts.append(("-" if t.sign < 0 else "") + t.breakdown())
        else:
            parts.append(f"{'-' if t.sign < 0 else '+'} {t.breakdown()}")
    return _frozen(
        ExpressionResult,
        {
            "expression": plan.text,
            "terms": tuple(results),
            "total": total,
            "breakdown": f"{' '.join(parts)} = {total}",
        },
    )
