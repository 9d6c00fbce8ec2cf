"""Small statistics helpers for the rules tests (no SciPy needed)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from fractions import Fraction


def _regularized_upper_gamma(s: float, x: float) -> float:
    """Q(s, x) = Γ(s, x) / Γ(s), by series for small x and continued fraction otherwise."""
    if x <= 0:
        return 1.0
    if x < s + 1:
        term = total = 1.0 / s
        n = s
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1.0 - total * math.exp(-x + s * math.log(x) - math.lgamma(s))
    # Lentz's continued fraction
    tiny = 1e-300
    b = x + 1 - s
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - s)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + s * math.log(x) - math.lgamma(s)) * h


def chi_square_p_value(
    samples: Iterable[Hashable], expected: Mapping[Hashable, Fraction], *, min_expected: float = 5
) -> float:
    """p-value of Pearson's chi-square test of ``samples`` against exact probabilities.

    Outcomes whose expected count is under ``min_expected`` are pooled into one cell so the
    test stays valid. Raises AssertionError if a sample falls outside ``expected``.
    """
    counts = Counter(samples)
    n = sum(counts.values())
    unknown = set(counts) - set(expected)
    assert not unknown, f"outcomes never expected: {sorted(map(repr, unknown))[:5]}"
    cells: list[tuple[float, int]] = []
    pooled_exp, pooled_obs = 0.0, 0
    for outcome, p in expected.items():
        e = float(p) * n
        if e < min_expected:
            pooled_exp += e
            pooled_obs += counts.get(outcome, 0)
        else:
            cells.append((e, counts.get(outcome, 0)))
    if pooled_exp > 0:
        cells.append((pooled_exp, pooled_obs))
    dof = len(cells) - 1
    assert dof >= 1, "need at least two cells for a chi-square test"
    stat = sum((o - e) ** 2 / e for e, o in cells)
    return _regularized_upper_gamma(dof / 2, stat / 2)
