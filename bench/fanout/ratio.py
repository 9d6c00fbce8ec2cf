"""`make bench-ratio`: the app against the bare Channels stack, side by side, in one run.

Two cells, each played first against the bare relay (``bench/fanout/bare.py``) and then against
the app, on one daphne process each with the Redis pub/sub layer, on a fresh PostgreSQL
database (dropped at the end):

- **ceiling**: 8 sockets × 10 scenes, closed loop (one roll always in flight per scene, made by
  the scene's sockets in turn): rolls per second.
- **8×100**: 8 sockets × 100 scenes, open loop, one roll per scene per second (100 rolls/s):
  rolls done per second, latency to the last socket (p50, p99) and frames lost.
- **idle**: idle tables of 8 sockets whose clients behave like an idle page (``hello``, then a
  ping every 30 s with the round trip they measured, at the moments their pages' timers say:
  ``loadgen.py``'s idle step), beside the ceiling's 8×10: ``BENCH_IDLE_ROUNDS`` (3) times the
  ceiling without them, then 100 idle tables (the daphne process's CPU over
  ``BENCH_IDLE_SECONDS``, default 20) and the ceiling with them; then 200 idle tables (the CPU
  again). The bare relay answers the same pings with a
  pong (``bare.py`` says why), so its CPU is what the same idle sockets cost the stack alone.

The app's rolls are a mix, in turn: a public dice-box roll, a character's check (two_dice, 2d6 +
Wits paid from Focus: its card, the sheet's payment and the Party and GM tools), a roll
private to the GM and a blind one (the players outside them get a stub). The bare relay sends a
frame of the size of the app's public roll. Writes ``bench/out/ratio.json``; the last line is::

    fanout ratio: ceiling R× bare; 8x100 p50 P× p99 Q× bare; lost L; idle CPU 100 tables A×
    bare, 200 tables B× bare; ceiling with 100 idle tables C% (their CPU S% of the ceiling's)

(one line; C is the rounds' median change of the app's ceiling, negative when the idle tables
take from it, and S the idle tables' CPU as a share of the app's CPU at its ceiling).
``BENCH_RATIO_SECONDS`` (default 10) is the open-loop cell's measured window;
``BENCH_RATIO_CELLS`` (say ``idle``) plays only the cells it names.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sys
import time
from statistics import median
from typing import Any

from bench.fanout.run import (
    OUT,
    REDIS,
    base_env,
    build_tables,
    cpu_model,
    create_database,
    drop_database,
    load_generator,
)
from bench.fanout.servers import Daphne, machine_busy_seconds, raise_open_files

N = 8
CEILING_SCENES, TARGET_SCENES = 10, 100
RATE = 1.0  # rolls per scene per second in the open loop: 100 rolls/s at 100 scenes
APPS = {"app": "bench.fanout.uncapped:application", "bare": "bench.fanout.bare:application"}
IDLE_TABLES = (100, 200)  # idle tables of N sockets each: 800, then 1,600 sockets
IDLE_ROUNDS = 3  # ceiling pairs without and with the idle tables (BENCH_IDLE_ROUNDS)
IDLE_CEILING_SECONDS = 8.0  # each of those ceiling windows (BENCH_IDLE_CEILING_SECONDS)
CELLS = ("ceiling", "8x100", "idle")


def cells(
    scenes: dict[str, list[int]],
    window: float,
    idle_window: float = 20.0,
    rounds: int = IDLE_ROUNDS,
    ceiling_window: float = IDLE_CEILING_SECONDS,
) -> dict[str, list[dict[str, Any]]]:
    """Each cell's steps, played against a freshly started daphne per stack. The idle cell's
    only when its scenes were built (``BENCH_RATIO_CELLS`` without ``idle`` builds none)."""
    plan = {
        "ceiling": [
            {"do": "connect", "scenes": scenes["ceiling"], "per_scene": N, "label": "8x10"},
            {"do": "saturate", "label": "8x10", "duration": 5.0, "warmup": 1.5},
        ],
        "8x100": [
            {"do": "connect", "scenes": scenes["target"], "per_scene": N, "label": "8x100",
             "give_up_s": 90.0},
            {"do": "run", "label": "8x100", "rate": RATE, "duration": window, "warmup": 2.0,
             "drain": 5.0},
        ],
    }  # fmt: skip
    if "idle" in scenes:
        plan["idle"] = idle_steps(scenes, idle_window, rounds, ceiling_window)
    return plan


def idle_steps(
    scenes: dict[str, list[int]], idle_window: float, rounds: int, ceiling_window: float
) -> list[dict[str, Any]]:
    """The idle cell: ``rounds`` times the ceiling without idle tables and then with 100 of
    them (opened afresh each round, their CPU measured, closed again), then 200 idle tables
    and their CPU. One 8 s ceiling window differs from the next by up to 40% on this box with
    nothing changed (bench/README.md), so the ceiling's change is the median of the rounds'
    pairs, each pair a minute apart at most in one process's life."""
    few, many = IDLE_TABLES
    saturate = {"do": "saturate", "duration": ceiling_window, "warmup": 1.5}

    def idle(tables: int, label: str) -> dict[str, Any]:
        return {"do": "idle", "scenes": scenes["idle"][:tables], "per_scene": N, "label": label,
                "window": idle_window, "give_up_s": 120.0}  # fmt: skip

    steps: list[dict[str, Any]] = [
        {"do": "connect", "scenes": scenes["idle_ceiling"], "per_scene": N, "label": "8x10"},
    ]
    for r in range(1, rounds + 1):
        steps += [
            {**saturate, "label": f"8x10#{r}"},
            idle(few, f"idle{few}#{r}"),
            {**saturate, "label": f"8x10+idle{few}#{r}"},
        ]
        if r < rounds:
            steps.append({"do": "idle_close", "label": f"idle{few}#{r}", "settle": 3.0})
    return [*steps, idle(many, f"idle{many}")]


def play(stack: str, steps: list[dict[str, Any]], env: dict[str, str], setup: dict[str, Any]):
    server_env = {**env, "REDIS_URL": REDIS, "CHANNEL_LAYER": "pubsub"}
    log = OUT / f"daphne-ratio-{stack}.log"
    server = Daphne(APPS[stack], server_env, log)
    results = []
    try:
        server.start()
        plan = {
            "stack": stack,
            "ports": [server.port],
            "pids": [server.pid],
            "campaigns": setup["campaigns"],
            "database_url": env["DATABASE_URL"] if stack == "app" else "",
            "frame_sample": setup["frame_sample"],
            "mix": stack == "app",
            "steps": steps,
        }
        for result in load_generator(plan, env):
            results.append(result)
            print(f"  {stack:4} {brief(result)}", flush=True)
    finally:
        server.stop()
    return results


def brief(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return f"{r['step']} {r['label']}: skipped, {r['skipped']}"
    if r["step"] == "connect":
        return f"connect {r['connections']} sockets in {r['seconds']} s"
    if r["step"] == "idle_close":
        return (
            f"idle tables closed {r['label']}: {r['closed']} sockets in {r['seconds']} s, "
            f"the server idle again after {r.get('idle_after_s')} s"
        )
    if r["step"] == "idle":
        if r["collapsed"]:
            return f"idle {r['label']}: {r['connections']} of {r['wanted']} sockets opened"
        return (
            f"idle {r['label']}: {r['tables']} tables, {r['connections']} sockets (opened in "
            f"{r['seconds']} s), cpu {r['server_cpu']}, {r['pings_per_s']} pings/s, "
            f"{r['frames_per_s']} frames/s to them ({r['latency_frames_per_s']} latency, "
            f"{r.get('presence_frames_per_s')} presence lists), "
            f"pong p50 {r['pong_p50_ms']} p99 {r['pong_p99_ms']} ms, loadgen "
            f"{r['loadgen_cpu']}, machine {r['machine_cpu']}"
        )
    kinds = ""
    if "by_kind" in r:
        kinds = " | " + ", ".join(
            f"{k} p50 {v['p50_ms']} p99 {v['p99_ms']}" for k, v in r["by_kind"].items()
        )
    return (
        f"{r['step']} {r['label']}: {r['rolls_per_s']} rolls/s, p50 {r['p50_ms']} p99 "
        f"{r['p99_ms']} ms, lost {r['lost_frames']}, errors {r['errors']}, cpu {r['server_cpu']}"
        f", machine {r['machine_cpu']}{kinds}"
    )


def measured(results: list[dict[str, Any]], step: str) -> dict[str, Any]:
    found = [r for r in results if r["step"] == step and "skipped" not in r]
    if not found:
        raise RuntimeError(f"no {step} figures: {results}")
    return found[-1]


def ratios(cell_results: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    app_ceiling = measured(cell_results["ceiling"]["app"], "saturate")
    bare_ceiling = measured(cell_results["ceiling"]["bare"], "saturate")
    app_target = measured(cell_results["8x100"]["app"], "run")
    bare_target = measured(cell_results["8x100"]["bare"], "run")

    def ratio(a: float | None, b: float | None) -> float | None:
        return round(a / b, 2) if a is not None and b else None

    return {
        "ceiling": ratio(app_ceiling["rolls_per_s"], bare_ceiling["rolls_per_s"]),
        "p50": ratio(app_target["p50_ms"], bare_target["p50_ms"]),
        "p99": ratio(app_target["p99_ms"], bare_target["p99_ms"]),
        "lost": app_ceiling["lost_frames"] + app_target["lost_frames"],
        "errors": app_ceiling["errors"] + app_target["errors"],
        "kept_up": app_target["rolls_per_s"],
    }


def labelled(results: list[dict[str, Any]], step: str, label: str) -> dict[str, Any]:
    found = [r for r in results if r["step"] == step and r.get("label") == label]
    if not found or "skipped" in found[-1] or found[-1].get("collapsed"):
        raise RuntimeError(f"no {step} {label} figures: {found or results}")
    return found[-1]


def idle_ratios(idle: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The idle cell's figures: each stack's CPU (cores) per idle-table count (100 tables: the
    median of the rounds), the app's over the bare stack's, and what 100 idle tables took from
    each one's ceiling: each round's pair, and the median of the pairs' changes."""
    few, many = IDLE_TABLES

    def rounds(stack: str) -> list[int]:
        return [
            int(r["label"].rsplit("#", 1)[1])
            for r in idle[stack]
            if r["step"] == "saturate" and r.get("label", "").startswith("8x10#")
        ]

    def cpu(stack: str, label: str) -> float:
        return sum(labelled(idle[stack], "idle", label)["server_cpu"])

    cores = {
        stack: {
            str(few): round(median([cpu(stack, f"idle{few}#{r}") for r in rounds(stack)]), 4),
            str(many): round(cpu(stack, f"idle{many}"), 4),
        }
        for stack in ("app", "bare")
    }
    pairs = {
        stack: [
            {
                "without": labelled(idle[stack], "saturate", f"8x10#{r}")["rolls_per_s"],
                "with": labelled(idle[stack], "saturate", f"8x10+idle{few}#{r}")["rolls_per_s"],
            }
            for r in rounds(stack)
        ]
        for stack in ("app", "bare")
    }

    def change(pair: dict[str, float]) -> float | None:
        return 100 * (pair["with"] / pair["without"] - 1) if pair["without"] else None

    changes = {stack: [c for c in map(change, ps) if c is not None] for stack, ps in pairs.items()}
    # The process's CPU at its ceiling (without idle tables), the median of the rounds: what
    # share of it the idle tables take when nothing else runs. A 20 s CPU window varies by a
    # few percent here where one 8 s ceiling window varies by 20%.
    busy = {
        stack: median(
            sum(labelled(idle[stack], "saturate", f"8x10#{r}")["server_cpu"]) for r in rounds(stack)
        )
        for stack in ("app", "bare")
    }
    return {
        "cores": cores,
        "cpu_ratio": {
            t: round(cores["app"][t] / cores["bare"][t], 1) if cores["bare"][t] else None
            for t in cores["app"]
        },
        "ceiling_pairs": pairs,
        "busy_cores": {stack: round(c, 3) for stack, c in busy.items()},
        "share_of_ceiling_cpu_pct": {
            stack: round(100 * cores[stack][str(few)] / busy[stack], 1) if busy[stack] else None
            for stack in ("app", "bare")
        },
        "ceiling_change_pcts": {s: [round(c, 1) for c in cs] for s, cs in changes.items()},
        # The median change of the ceiling with the idle tables present, in percent
        # (negative: taken).
        "ceiling_change_pct": {
            stack: round(median(cs), 1) if cs else None for stack, cs in changes.items()
        },
    }


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    window = float(os.environ.get("BENCH_RATIO_SECONDS", "10"))
    idle_window = float(os.environ.get("BENCH_IDLE_SECONDS", "20"))
    rounds = int(os.environ.get("BENCH_IDLE_ROUNDS", str(IDLE_ROUNDS)))
    ceiling_window = float(os.environ.get("BENCH_IDLE_CEILING_SECONDS", str(IDLE_CEILING_SECONDS)))
    chosen = [c for c in os.environ.get("BENCH_RATIO_CELLS", ",".join(CELLS)).split(",") if c]
    if unknown := set(chosen) - set(CELLS):
        raise SystemExit(f"BENCH_RATIO_CELLS: no cell {', '.join(sorted(unknown))} in {CELLS}")
    # Each socket is a file in the load generator and in daphne (which inherit this limit).
    needed = N * max(IDLE_TABLES) + N * (CEILING_SCENES + TARGET_SCENES) + 512
    if "idle" in chosen and (limit := raise_open_files(needed)) < needed:
        raise SystemExit(f"the idle cell needs {needed} open files; the hard limit is {limit}")
    OUT.mkdir(exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d_%H%M%S")
    db_name = f"tabletop_ratio_{stamp}_{os.getpid()}"
    env = base_env(f"postgres://postgres@127.0.0.1:5432/{db_name}", prefix=f"ratio{os.getpid()}")
    started = time.monotonic()
    busy_before, load_before = machine_busy_seconds(), os.getloadavg()[0]
    create_database(db_name)
    try:
        groups = {"ceiling": CEILING_SCENES, "target": TARGET_SCENES}
        if "idle" in chosen:  # its own scenes: a ceiling's new scene numbers from seq 1
            groups.update(idle_ceiling=CEILING_SCENES, idle=max(IDLE_TABLES))
        spec = {
            "campaigns": max(groups.values()),  # scene i of a group is campaign i's
            "players": N - 1,
            "characters": True,
            "scene_groups": groups,
        }
        setup = build_tables(spec, env)
        print(f"ratio: database {db_name} ready in {time.monotonic() - started:.0f} s", flush=True)
        plan = cells(setup["scene_groups"], window, idle_window, rounds, ceiling_window)
        results: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for cell, steps in plan.items():
            if cell not in chosen:
                continue
            # The bare stack first, then the app, cell by cell: both meet the box as it is then.
            results[cell] = {stack: play(stack, steps, env, setup) for stack in ("bare", "app")}
    finally:
        drop_database(db_name)
    figures = ratios(results) if {"ceiling", "8x100"} <= results.keys() else {}
    failed = ""
    if "idle" in results:
        try:
            figures["idle"] = idle_ratios(results["idle"])
        except RuntimeError as exc:  # the other cells' figures still stand; say which is missing
            failed = f"idle cell not measured: {str(exc)[:300]}"
    seconds = time.monotonic() - started
    meta = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "cpu": cpu_model(),
        "seconds": round(seconds),
        "window_s": window,
        "idle_window_s": idle_window,
        "idle_rounds": rounds,
        "idle_ceiling_window_s": ceiling_window,
        "cells": chosen,
        "load_average_before": round(load_before, 2),
        # Every process of the box, the run's own included, over the whole run.
        "machine_busy_cores": round((machine_busy_seconds() - busy_before) / seconds, 2),
        "frame_bytes": setup["frame_bytes"],
    }
    (OUT / "ratio.json").write_text(
        json.dumps({"meta": meta, "ratios": figures, "results": results}, indent=1)
    )
    print(last_lines(figures, seconds, load_before, failed))
    return 1 if failed else 0


def last_lines(
    figures: dict[str, Any], seconds: float, load_before: float, failed: str = ""
) -> str:
    """The run's summary, its last line the figures (``fanout ratio: ...``)."""
    first = f"ratio: {seconds:.0f} s; load average {load_before:.2f} before"
    parts = []
    if "ceiling" in figures:
        first += (
            f"; app kept up with {figures['kept_up']} of {TARGET_SCENES * RATE:.0f} rolls/s; "
            f"errors {figures['errors']}"
        )
        # A figure is None when the app delivered nothing in the window (a crushed box).
        r, p50, p99 = (
            "n/a" if x is None else f"{x:.2f}×"
            for x in (figures["ceiling"], figures["p50"], figures["p99"])
        )
        parts.append(f"ceiling {r} bare; 8x100 p50 {p50} p99 {p99} bare; lost {figures['lost']}")
    if "idle" in figures:
        idle, (few, many) = figures["idle"], map(str, IDLE_TABLES)
        first += "; idle cores app/bare " + ", ".join(
            f"{t} tables {idle['cores']['app'][t]}/{idle['cores']['bare'][t]}" for t in (few, many)
        )
        first += (
            f"; ceiling with {few} idle tables, each round app "
            + ", ".join(f"{c:+}%" for c in idle["ceiling_change_pcts"]["app"])
            + ", bare "
            + ", ".join(f"{c:+}%" for c in idle["ceiling_change_pcts"]["bare"])
            + f" (median bare {idle['ceiling_change_pct']['bare']:+}%)"
        )
        parts.append(
            f"idle CPU {few} tables {idle['cpu_ratio'][few]}× bare, {many} tables "
            f"{idle['cpu_ratio'][many]}× bare; ceiling with {few} idle tables "
            f"{idle['ceiling_change_pct']['app']:+}% (their CPU "
            f"{idle['share_of_ceiling_cpu_pct']['app']}% of the ceiling's)"
        )
    if failed:
        parts.append(failed)
    return f"{first}\nfanout ratio: " + "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
