"""The dice language on one shared set of expressions: ours against d20 and icepool.

Run with ``.venv/bin/python -m bench.expression_language [LABEL]`` (``make bench`` runs it too).
Each entry of ``SHARED`` is one expression in our notation, the same question in d20's (or
None where d20 has no such construct) and icepool's (or None). For each it measures:

- **parse**: text to tree, uncached (our caches cleared; a fresh d20 ``Roller`` cache);
- **roll**: text to a result with its breakdown, the tree cached (as the game rolls), both with
  a seeded ``random.Random``;
- **odds**: our exact distribution uncached against icepool's, and whether both agree.

An expression our code refuses is reported as refused (the "before" run on the old dialect).
The report goes to ``bench/out/expression_language-LABEL.md`` and ``.json``.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import d20
import icepool

from bench.rules_speed import median_ms
from rules import expression as ex

OUT = Path(__file__).parent / "out"


def _bool_die(die: Any) -> Any:
    return die.map(lambda outcome: int(bool(outcome)))


def _shared() -> list[tuple[str, str | None, Callable[[], Any] | None]]:
    d4, d6, d20_ = icepool.d4, icepool.d6, icepool.d20
    fate = icepool.Die([-1, 0, 1])
    return [
        # the old dialect: these parsed before issue 36 and must be no slower after it
        ("3d6+2", "3d6+2", lambda: 3 @ d6 + 2),
        ("1d20+5", "1d20+5", lambda: d20_ + 5),
        ("4d6kh3", "4d6kh3", lambda: d6.pool(4).highest(3).sum()),
        ("2d20kl1 - 1d4 + 3", "2d20kl1 - 1d4 + 3", lambda: d20_.pool(2).lowest(1).sum() - d4 + 3),
        ("6d6dl2", "6d6pl2", lambda: d6.pool(6).highest(4).sum()),
        ("20d6kh10", "20d6kh10", lambda: d6.pool(20).highest(10).sum()),
        ("d%", "1d100", lambda: icepool.d100),
        ("3d6*2 + 1", "3d6*2+1", lambda: (3 @ d6) * 2 + 1),
        ("1d6!", "1d6e6", None),
        ("4d6!kh3", "4d6e6kh3", None),
        ("10d6!>=5kh3", "10d6e>4kh3", None),
        ("3d6! + 1d4 + 5", "3d6e6 + 1d4 + 5", None),
        # issue 36's examples and the new constructs
        ("2d20kh", "2d20kh1", lambda: d20_.pool(2).highest(1).sum()),
        ("4d6d1", "4d6pl1", lambda: d6.pool(4).highest(3).sum()),
        ("8d6>3", None, lambda: 8 @ _bool_die(d6 >= 3)),
        ("4dF", None, lambda: 4 @ fate),
        ("1d20+5[Str]", "1d20+5 [Str]", lambda: d20_ + 5),
        ("(1d6+2)*2", "(1d6+2)*2", lambda: (d6 + 2) * 2),
        ("1d20rr1", "1d20rr1", lambda: d20_.reroll([1], depth="inf")),
        ("1d20ro1", "1d20ro1", lambda: d20_.reroll([1], depth=1)),
        ("2d10x", "2d10e10", None),
        ("{1d20,1d20}kh1", "(1d20,1d20)kh1", lambda: d20_.pool(2).highest(1).sum()),
        ("1d20 adv", "2d20kh1", lambda: d20_.pool(2).highest(1).sum()),
        ("4d6mi2", "4d6mi2", lambda: 4 @ d6.map(lambda x: max(x, 2))),
        ("1d6//2", "1d6//2", lambda: d6 // 2),
        ("(1d4+1)d6", None, lambda: (d4 + 1) @ d6),
        ("1d20+5 >= 15", "1d20+5 >= 15", lambda: _bool_die(d20_ + 5 >= 15)),
    ]


def _fastest_us(fn: Callable[[], Any], *, calls: int) -> float:
    """The fastest of 20 batches, in microseconds per call: neighbours only slow a batch."""
    batch = max(1, calls // 20)
    best = float("inf")
    for _ in range(max(1, calls // batch)):
        start = time.perf_counter_ns()
        for _ in range(batch):
            fn()
        best = min(best, (time.perf_counter_ns() - start) / batch / 1000)
    return best


def _as_dist(die: Any) -> dict[int, Fraction]:
    total = die.denominator()
    return {int(o): Fraction(die.quantity(o), total) for o in die.outcomes() if die.quantity(o)}


def _roll_with_breakdown(text: str, rng: random.Random) -> str:
    # The breakdown too: the old result built it eagerly (a field), the new one on first use.
    return str(ex.roll(text, rng=rng).breakdown)


def _uncached_parse(text: str) -> Any:
    ex.clear_caches()
    return ex.parse(text)


def _uncached_odds(text: str) -> Any:
    ex.clear_caches()
    return ex.distribution(text)


def measure(*, calls: int = 400, runs: int = 7) -> list[dict[str, Any]]:
    """One row per shared expression (times in µs for parse and roll, ms for odds)."""
    seeded = random.Random(2024)
    d20.expression.random = random.Random(2024)  # d20 rolls with its module's `random`
    roller = d20.Roller()
    rows = []
    for ours, theirs, build in _shared():
        row: dict[str, Any] = {"expression": ours, "d20": theirs, "icepool": build is not None}
        try:
            ex.roll(ours, rng=seeded)
        except ex.ExpressionError as error:
            row["refused"] = str(error)
        else:
            row["parse_us"] = _fastest_us(lambda t=ours: _uncached_parse(t), calls=calls // 4)
            ex.roll(ours, rng=seeded)  # the tree cached again
            row["roll_us"] = _fastest_us(
                lambda t=ours: _roll_with_breakdown(t, seeded), calls=calls
            )
            try:
                row["odds_ms"] = median_ms(lambda t=ours: _uncached_odds(t), runs=runs)
                ours_dist = ex.distribution(ours)
            except ex.OddsTooCostlyError as error:
                row["odds_refused"] = str(error)
                ours_dist = None
        if theirs is not None:

            def d20_parse(t: str = theirs) -> Any:
                roller._parse_cache.clear()
                return roller.parse(t)

            row["d20_parse_us"] = _fastest_us(d20_parse, calls=calls // 4)
            roller.roll(theirs)
            row["d20_roll_us"] = _fastest_us(lambda t=theirs: roller.roll(t).result, calls=calls)
        if build is not None:
            row["icepool_ms"] = median_ms(lambda b=build: _as_dist(b()), runs=max(3, runs // 2))
            if "odds_ms" in row and ours_dist is not None:
                row["same_odds"] = ours_dist == _as_dist(build())
        rows.append(row)
    return rows


def _cell(value: Any, fmt: str) -> str:
    return "—" if value is None else format(value, fmt)


def report(rows: list[dict[str, Any]], label: str) -> str:
    """The Markdown table of one run."""
    lines = [
        f"# The dice language, {label}",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.machine()}; d20 {importlib.metadata.version('d20')}, "
        f"icepool {icepool.__version__}; load average {os.getloadavg()[0]:.1f}.",
        "",
        "| expression | parse µs (d20) | roll µs (d20) | odds ms (icepool) | same odds |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        if "refused" in r:
            lines.append(f"| `{r['expression']}` | refused | refused | refused | — |")
            continue
        odds = "refused" if "odds_refused" in r else _cell(r.get("odds_ms"), ".3f")
        lines.append(
            f"| `{r['expression']}` "
            f"| {_cell(r.get('parse_us'), '.1f')} ({_cell(r.get('d20_parse_us'), '.1f')}) "
            f"| {_cell(r.get('roll_us'), '.1f')} ({_cell(r.get('d20_roll_us'), '.1f')}) "
            f"| {odds} ({_cell(r.get('icepool_ms'), '.3f')}) "
            f"| {({True: 'yes', False: '**no**'}).get(r.get('same_odds'), '—')} |"
        )
    return "\n".join(lines) + "\n"


def main(label: str = "run") -> int:
    """Measure, print and write bench/out/expression_language-LABEL.{md,json}."""
    rows = measure(calls=int(os.environ.get("BENCH_ROLLS", "400")))
    text = report(rows, label)
    OUT.mkdir(exist_ok=True)
    (OUT / f"expression_language-{label}.md").write_text(text)
    (OUT / f"expression_language-{label}.json").write_text(json.dumps(rows, indent=1))
    print(text)
    return 1 if any(r.get("same_odds") is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "run"))
