"""Single rolls: our dice box (rules.expression.roll) against avrae's d20 on the same expressions.

Run with `make bench` (or `python -m bench.rolls_speed`). The expressions are the dice-box odds
questions of bench/rules/expression.py, written in each library's syntax (our ``4d6!kh3`` is d20's
``4d6e6kh3``: an exploding die adds another die, and keep chooses among all of them). Both sides
roll from text to a result with its breakdown, with the same kind of generator (a seeded
``random.Random``); ours is also timed with ``secrets.SystemRandom``, what the game uses. As a
check that both answer the same question, d20's mean over the timed rolls must lie within five
standard errors of our exact mean. The Markdown report goes to bench/out/rolls_speed.md.
"""

from __future__ import annotations

import importlib.metadata
import math
import os
import platform
import random
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import d20

from rules import expression as ex

OUT = Path(__file__).parent / "out"

# (ours, d20's): the dice box's odds questions, one roll each.
QUESTIONS = [
    ("4d6kh3", "4d6kh3"),
    ("20d6kh10", "20d6kh10"),
    ("20d10kl5", "20d10kl5"),
    ("20d20kh19", "20d20kh19"),
    ("2d20kl1", "2d20kl1"),
    ("3d6kh2", "3d6kh2"),
    ("6d6dl2", "6d6pl2"),
    ("20d6", "20d6"),
    ("3d6+2", "3d6+2"),
    ("d%", "1d100"),
    ("2d20kl1 - 1d4 + 3", "2d20kl1 - 1d4 + 3"),
    ("1d6!", "1d6e6"),
    ("1d10!", "1d10e10"),
    ("3d6! + 1d4 + 5", "3d6e6 + 1d4 + 5"),
    ("6d6!", "6d6e6"),
    ("20d6!", "20d6e6"),
    ("4d6!kh3", "4d6e6kh3"),
    ("10d6!>=5kh3", "10d6e>4kh3"),
    ("2d10!", "2d10e10"),
]


def per_call_us(fn: Callable[[], int], *, calls: int) -> tuple[float, list[int]]:
    """The fastest batch's time per call, in microseconds, and every total rolled.

    The minimum, not the median: on a shared machine the slower batches measure the neighbours.
    """
    totals: list[int] = []
    batch = max(1, calls // 20)
    times = []
    for _ in range(calls // batch):
        start = time.perf_counter_ns()
        for _ in range(batch):
            totals.append(fn())
        times.append((time.perf_counter_ns() - start) / batch / 1000)
    return min(times), totals


def run(calls: int) -> str:
    seeded = random.Random(2024)
    system = secrets.SystemRandom()
    d20.expression.random = random.Random(2024)  # d20 rolls with the module's `random`
    rows = []
    for ours_text, theirs_text in QUESTIONS:
        ex.roll(ours_text, rng=seeded)  # warm the parse caches of both
        d20.roll(theirs_text)
        ours_us, _ = per_call_us(lambda t=ours_text: ex.roll(t, rng=seeded).total, calls=calls)
        system_us, _ = per_call_us(lambda t=ours_text: ex.roll(t, rng=system).total, calls=calls)
        theirs_us, totals = per_call_us(lambda t=theirs_text: d20.roll(t).total, calls=calls)
        summary = ex.summary(ours_text)
        variance = sum((x - summary.mean) ** 2 * p for x, p in summary.distribution.items())
        error = abs(statistics.fmean(totals) - float(summary.mean))
        agrees = error <= 5 * math.sqrt(float(variance) / len(totals))
        rows.append((ours_text, theirs_text, ours_us, system_us, theirs_us, agrees))

    lines = [
        "# Single rolls: our dice box against d20",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.machine()}; d20 {importlib.metadata.version('d20')}. "
        f"Time per roll: the fastest of 20 batches of {max(1, calls // 20)} rolls.",
        "",
        "| ours | d20 | ours, seeded (µs) | ours, SystemRandom (µs) | d20 (µs) "
        "| d20 ÷ ours (same generator) | same mean |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for ours_text, theirs_text, ours_us, system_us, theirs_us, agrees in rows:
        lines.append(
            f"| `{ours_text}` | `{theirs_text}` | {ours_us:.1f} | {system_us:.1f} "
            f"| {theirs_us:.1f} | {theirs_us / ours_us:.2f}× | {'yes' if agrees else '**no**'} |"
        )
    ratios = [t / o for _, _, o, _, t, _ in rows]
    slowest = max(rows, key=lambda r: r[3])
    lines += [
        "",
        f"- Median d20 ÷ ours: {statistics.median(ratios):.2f}× (> 1: we roll faster); "
        f"range {min(ratios):.2f}×–{max(ratios):.2f}×.",
        f"- Slowest roll of ours with SystemRandom: `{slowest[0]}`, {slowest[3]:.1f} µs.",
        f"- Means that disagree with d20: {', '.join(r[0] for r in rows if not r[5]) or 'none'}.",
    ]
    return "\n".join(lines) + "\n"


def main(calls: int | None = None) -> int:
    """Write bench/out/rolls_speed.md (rolls_speed-quick.md for a smoke run with few calls)."""
    report = run(calls or int(os.environ.get("BENCH_ROLLS", "1000")))
    OUT.mkdir(exist_ok=True)
    (OUT / ("rolls_speed-quick.md" if calls and calls < 1000 else "rolls_speed.md")).write_text(
        report
    )
    print(report)
    return 1 if "disagree with d20: none" not in report else 0


if __name__ == "__main__":
    sys.exit(main())
