"""Benchmark cases for rules.expression: the odds the dice box shows before a roll.

Each of our callables clears the module's caches first, so it times the uncached work. Where
icepool can express the same question its answer is computed too and ``same_answer`` proves
they agree. Exploding dice: icepool caps explosions per die (``explode(depth=D)``) and folds
the rest into the top outcome, while we cap them per dice term and report the rest as a tail;
for a single die the two match exactly (our tail is icepool's top outcome).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool

from bench.expression_language import _shared
from bench.rules import Case
from rules import expression as ex


def _ours(text: str) -> Callable[[], dict[int, Fraction]]:
    def run() -> dict[int, Fraction]:
        ex.clear_caches()
        return ex.distribution(text)

    return run


def _ours_with_tail(text: str, depth: int) -> Callable[[], tuple[dict[int, Fraction], Fraction]]:
    def run() -> tuple[dict[int, Fraction], Fraction]:
        ex.clear_caches()
        return ex.distribution_with_tail(text, depth=depth)

    return run


def _summary(text: str) -> Callable[[], ex.ExpressionSummary]:
    def run() -> ex.ExpressionSummary:
        ex.clear_caches()
        return ex.summary(text)

    return run


def _as_dist(die: Any) -> dict[int, Fraction]:
    total = die.denominator()
    return {o: Fraction(die.quantity(o), total) for o in die.outcomes() if die.quantity(o)}


def _same_dist(ours: dict[int, Fraction], theirs: Any) -> bool:
    return ours == _as_dist(theirs)


def _same_exploding(ours: tuple[dict[int, Fraction], Fraction], theirs: Any) -> bool:
    dist, tail = ours
    expected = _as_dist(theirs)
    top = expected.pop(max(expected))
    return dist == expected and tail == top


def cases() -> list[Case]:
    d6, d10, d20 = icepool.d6, icepool.d10, icepool.d20
    pooled = [
        ("4d6kh3", lambda: d6.pool(4).highest(3).sum()),
        ("20d6kh10", lambda: d6.pool(20).highest(10).sum()),
        ("20d10kl5", lambda: d10.pool(20).lowest(5).sum()),
        ("20d20kh19", lambda: d20.pool(20).highest(19).sum()),
        ("2d20kl1", lambda: d20.pool(2).lowest(1).sum()),
        ("3d6kh2", lambda: d6.pool(3).highest(2).sum()),
        ("6d6dl2", lambda: d6.pool(6).highest(4).sum()),
        ("20d6", lambda: 20 @ d6),
        ("3d6+2", lambda: 3 @ d6 + 2),
        ("d%", lambda: icepool.d100),
        ("2d20kl1 - 1d4 + 3", lambda: d20.pool(2).lowest(1).sum() - icepool.d4 + 3),
    ]
    out = [
        Case(label=f"expression {text}", ours=_ours(text), icepool=build, same_answer=_same_dist)
        for text, build in pooled
    ]
    out += [
        Case(
            label=f"expression 1d{sides}! to depth {depth}",
            ours=_ours_with_tail(f"1d{sides}!", depth),
            icepool=lambda sides=sides, depth=depth: icepool.d(sides).explode(depth=depth),
            same_answer=_same_exploding,
        )
        for sides, depth in [(6, 10), (10, 20), (6, 100)]
    ]
    # Per-term explosion caps and keep/drop among explosion dice: icepool has no direct form.
    out += [
        Case(label=f"expression {text} (full depth)", ours=_ours(text))
        for text in [
            "3d6! + 1d4 + 5",
            "6d6!",
            "20d6!",
            "4d6!kh3",
            "10d6!>=5kh3",
            "2d10!",
        ]
    ]
    out.append(Case(label="expression summary 3d6! + 1d4 + 5", ours=_summary("3d6! + 1d4 + 5")))
    # Issue 36's notation: the shared expressions of bench/expression_language.py that are new,
    # each against icepool where icepool can say it.
    known = {text for text, _ in pooled} | {"3d6! + 1d4 + 5", "4d6!kh3", "10d6!>=5kh3", "1d6!"}
    for text, _, build in _shared():
        if text in known:
            continue
        out.append(
            Case(
                label=f"expression {text}",
                ours=_ours(text),
                icepool=build,
                same_answer=_same_dist if build is not None else None,
            )
        )
    return out
