"""Dice expressions: the packed-polynomial engine of the exact odds (the old dialect's fast path,
and the building blocks of the rest).

A "poly" is a big int holding sum(count[v] * X**v) with X = 2**bits: slot v (``bits`` wide)
counts the equally likely roll sequences whose total is v (Kronecker substitution), so sums of
dice are a single ``pow`` and convolutions a single multiplication. See "How the odds are
computed" in the package docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from rules.expression.tree import Dice

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
