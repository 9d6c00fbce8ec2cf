"""Dice expressions: exact odds of any expression, every one a ``Fraction``.

The old dialect's terms (``NdS``, ``!``/``!>=N``, keep/drop by rank, times a number) go through
the packed-polynomial fast path (``polys``), with its cost estimated before it starts; every
other construct through pool evaluation (``pools``), charged to a budget. Either way a question
too costly is refused with ``OddsTooCostlyError`` and never hangs; a rolled count
(``(1d4+1)d6``) is the mixture over the counts; a comparison is the chance of its side's
difference; a division or product of two rolled values the distribution of every pair.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.core import Result
from rules.expression import parser, pools, rolling
from rules.expression.parser import _coerce
from rules.expression.polys import (
    _STEP,
    _convolve,
    _Counts,
    _dice_counts,
    _digits,
    _mul_cost,
    _order,
    _order_cost,
    _scale,
    _slot_bits,
)
from rules.expression.rolling import _floor_div
from rules.expression.tree import (
    MAX_EXPLOSIONS,
    MAX_ODDS_OUTCOMES,
    MAX_ODDS_WORK,
    Abs,
    Compare,
    Constant,
    Dice,
    Divide,
    Expression,
    ExpressionError,
    Label,
    Multiply,
    OddsTooCostlyError,
    SetRoll,
    Sum,
    _is_whole,
    bounds,
    walk,
)

# --- the cost of a question, estimated before answering it ------------------------------------


def _term_cost(op: Dice | Constant, multiplier: int, depth: int) -> tuple[int, int, float]:
    """(possible totals, slot bits, estimated work) of one old-dialect term's odds."""
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
    return (span - 1) * max(multiplier, 1) + 1, bits, work


def _old_terms(expr: Expression) -> list[tuple[Dice | Constant, int]] | None:
    """The old dialect's terms (operand, sign times multiplier), or None for anything else."""
    if isinstance(expr.body, Compare):
        return None
    out = []
    for term in expr.terms:
        op, factor = term.operand, term.sign
        if isinstance(op, Multiply) and isinstance(op.right, Constant):
            op, factor = op.left, factor * op.right.value
        if isinstance(op, Constant) or (isinstance(op, Dice) and op.simple):
            out.append((op, factor))
        else:
            return None
    return out


def _too_wide(expr: Expression, span: int) -> OddsTooCostlyError:
    return OddsTooCostlyError(
        f"The odds of {expr} are too wide to work out exactly: up to {span:,} different "
        f"totals (the limit is {MAX_ODDS_OUTCOMES:,}). It can still be rolled."
    )


def _too_long(expr: Expression) -> OddsTooCostlyError:
    return OddsTooCostlyError(
        f"The odds of {expr} would take too long to work out exactly. It can still be rolled."
    )


def _check_cost(expr: Expression, depth: int) -> None:
    """Refuse before any work: the totals' span, and the old dialect's estimated work."""
    terms = _old_terms(expr)
    if terms is None:
        for node in _simple_dice(expr.body):
            _, _, work = _term_cost(node, 1, depth)
            if work > MAX_ODDS_WORK:
                raise _too_long(expr)
        low, high = bounds(expr.body)
        if high - low + 1 > MAX_ODDS_OUTCOMES:
            raise _too_wide(expr, high - low + 1)
        return
    span, bits, work = 1, 1, 0.0
    for op, factor in terms:
        term_span, term_bits, term_work = _term_cost(op, abs(factor), depth)
        # the convolution: one lopsided multiplication (CPython's is slower than Karatsuba's
        # count suggests on numbers this long), packing and unpacking every slot
        work += term_work + 8 * _mul_cost(span * bits, term_span * term_bits)
        work += (span + term_span) * 3 * _STEP
        span += term_span - 1
        bits += term_bits
    work += span * (40 * _STEP + _digits(bits))  # one Fraction per total
    if span > MAX_ODDS_OUTCOMES:
        raise _too_wide(expr, span)
    if work > MAX_ODDS_WORK:
        raise _too_long(expr)


def _simple_dice(node: Any) -> list[Dice]:
    return [n for n in walk(node) if isinstance(n, Dice) and n.simple]


# --- every node's odds ----------------------------------------------------------------------------


def _from_poly(poly: dict[int, int], denom: int) -> _Counts:
    values = [v for v, c in poly.items() if c]
    if not values:
        return _Counts(0, (0,), denom)
    low, high = min(values), max(values)
    if high - low + 1 > MAX_ODDS_OUTCOMES:
        raise OddsTooCostlyError(
            f"The odds are too wide to work out exactly: {high - low + 1:,} different totals "
            f"(the limit is {MAX_ODDS_OUTCOMES:,}). It can still be rolled."
        )
    counts = [0] * (high - low + 1)
    for v, c in poly.items():
        counts[v - low] += c
    return _Counts(low, tuple(counts), denom)


def _to_poly(c: _Counts) -> dict[int, int]:
    return {c.low + i: w for i, w in enumerate(c.counts) if w}


def _pairs(a: _Counts, b: _Counts, op, budget: pools.Budget) -> _Counts:
    """Every pair of values of two independent parts, combined by ``op``."""
    pa, pb = _to_poly(a), _to_poly(b)
    budget.charge(len(pa) * len(pb))
    out: dict[int, int] = defaultdict(int)
    for u, c in pa.items():
        for v, d in pb.items():
            out[op(u, v)] += c * d
    return _from_poly(out, a.denom * b.denom)


def _counts(node: Any, depth: int, budget: pools.Budget, memo: dict) -> _Counts:
    """Integer weights of every value of ``node``, over a denominator (rolls that pass the
    explosion depth are missing from the weights: the tail)."""
    key = id(node)  # by identity: hashing a frozen tree walks all of it
    if key in memo:
        return memo[key]
    cls = type(node)
    if cls is Constant:
        out = _Counts(node.value, (1,), 1)
    elif cls is Dice:
        out = _dice(node, depth, budget, memo)
    elif cls is Sum:
        out = None
        for term in node.terms:
            part = _scale(_counts(term.operand, depth, budget, memo), term.sign)
            out = part if out is None else _convolve(out, part)
    elif cls is Multiply and isinstance(node.right, Constant):
        out = _scale(_counts(node.left, depth, budget, memo), node.right.value)
    elif cls is Multiply and isinstance(node.left, Constant):
        out = _scale(_counts(node.right, depth, budget, memo), node.left.value)
    elif cls is Multiply or cls is Divide:
        left = _counts(node.left, depth, budget, memo)
        right = _counts(node.right, depth, budget, memo)
        if cls is Multiply:
            out = _pairs(left, right, lambda u, v: u * v, budget)
        else:
            if right.low <= 0 < right.low + len(right.counts) and right.counts[-right.low]:
                raise ExpressionError(
                    f"{node} could divide by zero, so it has no odds (a roll that does is refused)."
                )
            rounding = node.rounding
            out = _pairs(left, right, lambda u, v: _floor_div(u, v, rounding), budget)
    elif cls is Abs:
        inner = _counts(node.operand, depth, budget, memo)
        out = _pairs(inner, _Counts(0, (1,), 1), lambda u, _: abs(u), budget)
    elif cls is Label:
        out = _counts(node.operand, depth, budget, memo)
    elif cls is SetRoll:
        out = _set(node, depth, budget, memo)
    else:
        assert cls is Compare
        left = _counts(node.left, depth, budget, memo)
        right = _counts(node.right, depth, budget, memo)
        diff = _convolve(left, _scale(right, -1))
        yes = sum(c for i, c in enumerate(diff.counts) if node.test(diff.low + i, 0))
        out = _Counts(0, (sum(diff.counts) - yes, yes), diff.denom)
    memo[key] = out
    return out


def _dice(node: Dice, depth: int, budget: pools.Budget, memo: dict) -> _Counts:
    if _is_whole(node.count):
        if node.simple:
            return _dice_counts(node, depth)
        return _from_poly(*pools.dice_poly(node, node.count, depth, budget))
    # A rolled number of dice: the mixture over every count it can show.
    count = _counts(node.count, depth, budget, memo)
    parts = []
    for i, weight in enumerate(count.counts):
        if weight:
            n = count.low + i
            poly, denom = pools.dice_poly(node, n, depth, budget) if n else ({0: 1}, 1)
            parts.append((weight, poly, denom))
    common = math.lcm(*(denom for _, _, denom in parts))
    mixed: dict[int, int] = {}
    for weight, poly, denom in parts:
        pools.padd(mixed, poly, weight * (common // denom))
    return _from_poly(mixed, count.denom * common)


def _set(node: SetRoll, depth: int, budget: pools.Budget, memo: dict) -> _Counts:
    groups: dict[Any, list] = {}
    for item in node.items:  # identical items are one group of identical "dice"
        if item in groups:
            groups[item][0] += 1
        else:
            groups[item] = [1, _counts(item, depth, budget, memo)]
    counting = node.counting
    poly = pools.evaluate_pool(
        [(m, _to_poly(c)) for m, c in groups.values()],
        node.keep,
        (lambda v: counting.score(v)) if counting else (lambda v: v),
        budget,
    )
    return _from_poly(poly, math.prod(c.denom**m for m, c in groups.values()))


#: Questions refused, remembered: a preview asks again at every keystroke, and a refusal by the
#: budget should cost its time once.
_REFUSED: dict[tuple[Expression, int], str] = {}


@lru_cache(maxsize=256)
def _odds(expr: Expression, depth: int) -> _Counts:
    refused = _REFUSED.get((expr, depth))
    if refused is not None:
        raise OddsTooCostlyError(refused)
    try:
        _check_cost(expr, depth)
        return _counts(expr.body, depth, pools.Budget(expr), {})
    except OddsTooCostlyError as error:
        if len(_REFUSED) > 1024:
            _REFUSED.clear()
        _REFUSED[(expr, depth)] = str(error)
        raise


def _check_depth(depth: Any) -> int:
    if not _is_whole(depth) or not 0 <= depth <= MAX_EXPLOSIONS:
        raise ExpressionError(f"The depth must be a whole number from 0 to {MAX_EXPLOSIONS}.")
    return depth


def distribution_with_tail(
    text_or_expr: str | Expression, *, depth: int = MAX_EXPLOSIONS
) -> tuple[dict[int, Fraction], Fraction]:
    """Exact odds of each total reached when every roll of dice explodes at most ``depth`` times
    (a compounding die: each die at most ``depth`` times),
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
    """Forget every cached odds computation and parsed tree (the benchmarks time uncached
    work)."""
    parser._parse.cache_clear()
    rolling._tree_for_text.cache_clear()
    _REFUSED.clear()
    _fractions.cache_clear()
    _odds.cache_clear()
    _dice_counts.cache_clear()
    _order.cache_clear()
