"""Dice expressions: exact odds of any dice and any set, by pool evaluation (icepool's idea).

A die is a mapping face → integer weight over a denominator; a pool is groups of identical dice.
Keeping the k highest of a pool never enumerates rolls: for each threshold t (the k-th highest
value) a small dynamic programme over the groups counts the ways j < k dice land above t (their
scores as a polynomial), at least k - j land on t, and the rest below. Summing kept dice and
counting successes are the same evaluation with a different score per die.

Every polynomial operation is charged to a ``Budget``; past it the question is refused with
``OddsTooCostlyError`` (the roll still works), so no question hangs.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable

from rules.expression.polys import _mul_cost
from rules.expression.tree import (
    MAX_ODDS_WORK,
    Dice,
    Keep,
    OddsTooCostlyError,
    Select,
    matches,
)

Poly = dict[int, int]  # value (or score) -> weight

#: Coefficient operations one odds question may spend outside the packed fast path: well under a
#: second on this machine (bench/README.md, "Expression language").
MAX_POOL_WORK = 600_000


#: And a safety net: whatever the count says, a question still unanswered after this long is
#: refused (big weights make some operations dearer than counted).
MAX_POOL_SECONDS = 0.4


class Budget:
    """Counts coefficient operations; refuses past ``MAX_POOL_WORK`` or ``MAX_POOL_SECONDS``."""

    def __init__(self, question: object) -> None:
        self.question = question  # spelled out only in a refusal
        self.spent = 0
        self.deadline = time.perf_counter() + MAX_POOL_SECONDS

    def charge(self, ops: int) -> None:
        self.spent += ops
        if self.spent > MAX_POOL_WORK or time.perf_counter() > self.deadline:
            raise OddsTooCostlyError(
                f"The odds of {self.question} would take too long to work out exactly. It can "
                "still be rolled."
            )


def _packed(poly: Poly, low: int, width: int) -> int:
    """Kronecker substitution: slot ``v - low`` of ``width`` bytes holds the weight of v."""
    raw = bytearray(width * (max(poly) - low + 1))
    for v, c in poly.items():
        raw[(v - low) * width : (v - low + 1) * width] = c.to_bytes(width, "little")
    return int.from_bytes(raw, "little")


def pmul(a: Poly, b: Poly, budget: Budget) -> Poly:
    """The distribution of the sum of two independent parts (weights multiply)."""
    if not a or not b:
        return {}
    if len(a) < len(b):
        a, b = b, a
    if len(b) == 1:
        ((shift, w),) = b.items()
        budget.charge(len(a))
        return {v + shift: c * w for v, c in a.items()}
    if len(a) * len(b) > 400:
        # one big-integer multiplication (packed as polys.py does): every slot holds at most
        # sum(a) * sum(b), so the slots never spill into each other
        width = ((sum(a.values()) * sum(b.values())).bit_length() + 8) // 8
        low_a, low_b = min(a), min(b)
        slots_a, slots_b = max(a) - low_a + 1, max(b) - low_b + 1
        # CPython's multiplication of numbers this long, in the pool's units: polys' estimate
        # is in digit operations (MAX_ODDS_WORK of them to half a second), and CPython is about
        # 8 times slower than Karatsuba's count on numbers of megabits (measured, as polys')
        digits = 8 * _mul_cost(slots_a * width * 8, slots_b * width * 8)
        budget.charge(slots_a + slots_b + int(digits * MAX_POOL_WORK / MAX_ODDS_WORK))
        product = _packed(a, low_a, width) * _packed(b, low_b, width)
        raw = product.to_bytes(max(1, -(-product.bit_length() // 8)), "little")
        out = {}
        for i in range(0, len(raw), width):
            c = int.from_bytes(raw[i : i + width], "little")
            if c:
                out[low_a + low_b + i // width] = c
        return out
    # big weights (long explosions: denominators of hundreds of digits) cost more per product
    size = max(next(iter(a.values())).bit_length(), next(iter(b.values())).bit_length())
    budget.charge(len(a) * len(b) * (1 + size // 256))
    out: dict[int, int] = defaultdict(int)
    for v, c in b.items():
        for u, d in a.items():
            out[u + v] += c * d
    return out


def ppow(a: Poly, n: int, budget: Budget) -> Poly:
    """``a`` convolved with itself ``n`` times (n >= 0), by squaring."""
    result: Poly = {0: 1}
    base = a
    while n:
        if n & 1:
            result = pmul(result, base, budget)
        n >>= 1
        if n:
            base = pmul(base, base, budget)
    return result


def padd(acc: Poly, a: Poly, coef: int = 1, shift: int = 0, budget: Budget | None = None) -> None:
    """``acc += coef * a * X**shift`` in place."""
    if budget is not None:
        budget.charge(len(a))
    for v, c in a.items():
        acc[v + shift] = acc.get(v + shift, 0) + coef * c


def scored(weights: Poly, score: Callable[[int], int]) -> Poly:
    out: Poly = defaultdict(int)
    for v, w in weights.items():
        out[score(v)] += w
    return out


def evaluate_pool(
    groups: list[tuple[int, Poly]],
    keep: Keep | Select | None,
    score: Callable[[int], int],
    budget: Budget,
) -> Poly:
    """Weights of the total score of the kept dice of a pool.

    ``groups``: (how many dice, face value → weight) per kind of die; the result's weights are
    over the product of every die's denominator (each die's weights sum to at most its own).
    ``keep``: a rank rule (``Keep``), a face rule (``Select``) or None (every die counts);
    ``score``: what a kept die adds (its value, or +1/-1/0 for a success pool).
    """
    groups = [(m, w) for m, w in groups if m]
    n = sum(m for m, _ in groups)
    if isinstance(keep, Select):  # a face rule: a dropped die scores 0
        select, counted = keep, score

        def score(v: int) -> int:
            return counted(v) if matches(select.conditions, v) == select.keep else 0

        keep = None
    if keep is None:
        out: Poly = {0: 1}
        for m, weights in groups:
            out = pmul(out, ppow(scored(weights, score), m, budget), budget)
        return out
    k, highest = keep.kept_of(n)
    if k == n:
        return evaluate_pool(groups, None, score, budget)
    if k == 0:
        return {0: math.prod(sum(w.values()) ** m for m, w in groups)}
    if not highest:  # the k lowest are the k highest of the values turned over
        groups = [(m, {-v: c for v, c in w.items()}) for m, w in groups]
        flipped = score

        def score(v: int) -> int:
            return flipped(-v)

    out = {}
    for t in sorted({v for _, w in groups for v in w}):
        states: dict[tuple[int, int], Poly] = {(0, 0): {0: 1}}
        for m, weights in groups:
            states = _with_group(states, m, weights, t, k, score, budget)
        for (j, e), poly in states.items():
            if j + e >= k:
                padd(out, poly, 1, (k - j) * score(t))
    return {v: c for v, c in out.items() if c}


def _with_group(
    states: dict[tuple[int, int], Poly],
    m: int,
    weights: Poly,
    t: int,
    k: int,
    score: Callable[[int], int],
    budget: Budget,
) -> dict[tuple[int, int], Poly]:
    """``states`` (by dice above the threshold ``t`` and dice at it, capped at ``k``) after
    ``m`` more dice of ``weights``: the score of those above, the count of those at it."""
    budget.charge(2 * len(weights))
    above = scored({v: c for v, c in weights.items() if v > t}, score)
    at = weights.get(t, 0)
    below = sum(c for v, c in weights.items() if v < t)
    powers = [{0: 1}]
    for _ in range(min(m, k - 1)):
        powers.append(pmul(powers[-1], above, budget))
    nxt: dict[tuple[int, int], Poly] = {}
    for (j, e), poly in states.items():
        for a in range(min(m, k - 1 - j) + 1):
            coefs = _landing(m - a, k - e, e, k, at, below)
            if not any(coefs.values()):
                continue
            grown = pmul(poly, powers[a], budget)
            for ne, coef in coefs.items():
                if coef:
                    key = (j + a, min(ne, k))
                    padd(nxt.setdefault(key, {}), grown, math.comb(m, a) * coef, 0, budget)
    return nxt


def _landing(rest: int, need: int, e: int, k: int, at: int, below: int) -> dict[int, int]:
    """Weights of how many of ``rest`` dice land on the threshold (the others below it), by
    the count at it so far (``e`` before them); ``need`` more reach the cap ``k``."""
    coefs = {}
    partial = 0
    for b in range(min(rest, need - 1) + 1 if need > 0 else 0):
        coef = math.comb(rest, b) * at**b * below ** (rest - b)
        coefs[e + b] = coef
        partial += coef
    capped = (at + below) ** rest - partial
    if capped:
        coefs[k] = coefs.get(k, 0) + capped
    return coefs


def dice_weights(node: Dice) -> tuple[Poly, int]:
    """The faces one die lands on after its rerolls, as weights over a denominator."""
    faces = node.faces
    reroll = node.reroll
    if reroll is None:
        return dict.fromkeys(faces, 1), len(faces)
    hit = {f for f in faces if matches(reroll.conditions, f)}
    if reroll.kind == "until":  # lands evenly on the faces that miss
        return {f: 1 for f in faces if f not in hit}, len(faces) - len(hit)
    s = len(faces)  # once: a hit is rolled again, whatever comes
    return {f: (0 if f in hit else s) + len(hit) for f in faces}, s * s


def dice_poly(node: Dice, n: int, depth: int, budget: Budget) -> tuple[Poly, int]:
    """Weights of the value of ``n`` dice of ``node`` (explosions at most ``depth``, per roll or
    per compounding die) and their denominator; the weights sum to less than it exactly by the
    chance of passing the depth."""
    faces, d = dice_weights(node)
    clamp = node.clamp
    counting = node.counting

    def value(f: int) -> int:
        return clamp.apply(f) if clamp else f

    def score(v: int) -> int:
        return counting.score(v) if counting else v

    def as_values(w: Poly, minus: int = 0) -> Poly:
        out: Poly = defaultdict(int)
        for f, c in w.items():
            out[value(f) - minus] += c
        return out

    explode = node.explode
    if explode is None:
        return evaluate_pool([(n, as_values(faces))], node.keep, score, budget), d**n
    cond, kind = explode.conditions, explode.kind
    hit = {f: c for f, c in faces.items() if matches(cond, f)}
    miss = {f: c for f, c in faces.items() if not matches(cond, f)}
    stop, go, every = as_values(miss), as_values(hit), as_values(faces)
    out: Poly = {}
    if kind == "add":
        for e in range(depth + 1):
            pool = evaluate_pool([(n, stop), (e, go)], node.keep, score, budget)
            padd(out, pool, math.comb(e + n - 1, n - 1) * d ** (depth - e), budget=budget)
        return out, d ** (n + depth)
    if kind == "penetrate":
        stop1, go1 = as_values(miss, 1), as_values(hit, 1)
        for e in range(depth + 1):
            for j in range(min(n, e) + 1):
                ways = 1 if e == 0 else math.comb(n, j) * math.comb(e - 1, j - 1) if j else 0
                if ways:
                    groups = [(n - j, stop), (j, go), (j, stop1), (e - j, go1)]
                    pool = evaluate_pool(groups, node.keep, score, budget)
                    padd(out, pool, ways * d ** (depth - e))
        return out, d ** (n + depth)
    if kind == "compound":  # one die's chain: c faces that hit, then one that misses
        one: Poly = {}
        chain: Poly = {0: 1}
        for c in range(depth + 1):
            padd(one, pmul(chain, stop, budget), d ** (depth - c), budget=budget)
            chain = pmul(chain, go, budget)
        return evaluate_pool([(n, one)], node.keep, score, budget), d ** ((depth + 1) * n)
    if kind == "once":  # each written die that hits adds one die that does not explode
        for j in range(n + 1):
            pool = evaluate_pool([(n - j, stop), (j, go), (j, every)], node.keep, score, budget)
            padd(out, pool, math.comb(n, j) * d ** (n - j))
        return out, d ** (2 * n)
    # "one" (d20's ra): one more die when any written die hits
    padd(out, evaluate_pool([(n, every), (1, every)], node.keep, score, budget))
    padd(out, evaluate_pool([(n, stop), (1, every)], node.keep, score, budget), -1)
    padd(out, evaluate_pool([(n, stop)], node.keep, score, budget), d)
    return {v: c for v, c in out.items() if c}, d ** (n + 1)
