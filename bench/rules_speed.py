"""Rules speed: our exact odds against icepool on the same questions, uncached.

Run with `make bench` (or `python -m bench.rules_speed`). For each case of bench/rules/<slug>.py it
checks that both answers agree, times each side (median of several runs; our caches are cleared by
each case's callable), and prints our time, icepool's, and the ratio icepool / ours (> 1: we are
faster). The Markdown report goes to bench/out/rules_speed.md.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench.rules as cases_pkg
from bench.rules import Case

OUT = Path(__file__).parent / "out"
UI_BUDGET_MS = 5.0


def median_ms(fn: Callable[[], Any], *, runs: int, budget_s: float = 2.0) -> float:
    times = []
    deadline = time.perf_counter() + budget_s
    for _ in range(runs):
        start = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - start) / 1e6)
        if time.perf_counter() > deadline:
            break
    return statistics.median(times)


def all_cases() -> list[tuple[str, Case]]:
    found = []
    for info in pkgutil.iter_modules(cases_pkg.__path__):
        module = importlib.import_module(f"bench.rules.{info.name}")
        found.extend((info.name, case) for case in module.cases())
    return found


def run(runs: int = 7) -> str:
    rows = []
    worst_ours = 0.0
    disagreements = []
    for system, case in all_cases():
        ours = median_ms(case.ours, runs=runs)
        worst_ours = max(worst_ours, ours)
        theirs = ratio = None
        if case.icepool is not None:
            if case.same_answer is not None and not case.same_answer(case.ours(), case.icepool()):
                disagreements.append(f"{system}: {case.label}")
            theirs = median_ms(case.icepool, runs=max(3, runs // 2))
            ratio = theirs / ours if ours > 0 else float("inf")
        rows.append((system, case.label, ours, theirs, ratio))

    lines = [
        "# Rules speed: exact odds, uncached",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.machine()}; icepool {importlib.import_module('icepool').__version__}.",
        "",
        "| system | question | ours (ms) | icepool (ms) | icepool / ours |",
        "|---|---|---:|---:|---:|",
    ]
    for system, label, ours, theirs, ratio in rows:
        t = f"{theirs:.3f}" if theirs is not None else "—"
        r = f"{ratio:.1f}×" if ratio is not None else "—"
        lines.append(f"| {system} | {label} | {ours:.3f} | {t} | {r} |")
    compared = [r for *_, r in rows if r is not None]
    slower = [f"{s}: {label}" for s, label, _, _, r in rows if r is not None and r < 1]
    lines += [
        "",
        f"- Cases: {len(rows)}; compared with icepool: {len(compared)}; "
        f"median ratio {statistics.median(compared):.1f}× ; slowest ours {worst_ours:.2f} ms "
        f"(UI budget {UI_BUDGET_MS} ms: {'met' if worst_ours < UI_BUDGET_MS else 'MISSED'}).",
        f"- Cases where icepool is faster: {', '.join(slower) if slower else 'none'}.",
        f"- Answers that disagree with icepool: {', '.join(disagreements) or 'none'}.",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    report = run(runs=int(os.environ.get("BENCH_RUNS", "7")))
    OUT.mkdir(exist_ok=True)
    (OUT / "rules_speed.md").write_text(report)
    print(report)
    return 1 if "disagree with icepool: none" not in report else 0


if __name__ == "__main__":
    sys.exit(main())
