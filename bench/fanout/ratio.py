"""`make bench-ratio`: the app against the bare Channels stack, side by side, in one run.

Five cells, each played first against the bare relay (``bench/fanout/bare.py``) and then against
the app, on one daphne process each with the Redis pub/sub layer, on a fresh PostgreSQL
database (dropped at the end):

- **ceiling**: 8 sockets × 10 scenes, closed loop (one roll always in flight per scene, made by
  the scene's sockets in turn): rolls per second.
- **8×100**: 8 sockets × 100 scenes, open loop, one roll per scene per second (100 rolls/s):
  rolls done per second, latency to the last socket (p50, p99) and frames lost; and the time
  its connect step took to open the 800 sockets (eight handshakes at a time).
- **idle**: idle tables of 8 sockets whose clients behave like an idle page (``hello``, then a
  ping every 30 s with the round trip they measured, at the moments their pages' timers say:
  ``loadgen.py``'s idle step), beside the ceiling's 8×10: ``BENCH_IDLE_ROUNDS`` (3) times the
  ceiling without them, then 100 idle tables (the daphne process's CPU over
  ``BENCH_IDLE_SECONDS``, default 20) and the ceiling with them; then 200 idle tables (the CPU
  again). The bare relay answers the same pings with a
  pong (``bare.py`` says why), so its CPU is what the same idle sockets cost the stack alone.
- **storm**: a deploy under 125 tables of 8 sockets (1,000 sockets; ``loadgen.py``'s storm
  step). Each scene gets its rolls (the connect step's barrier and three more, each delivered
  everywhere); then the load generator sends the server SIGTERM and the daphne here, which
  supervises its process (``servers.Daphne(supervise=True)``), starts a new one on the same
  port. Every socket sees the close, and as soon as the port accepts again all 1,000 reconnect
  at once (no gate; an attempt that fails waits as the page does). Against the app each socket
  says hello two seqs behind its scene's newest (its page missed the last two frames in flight)
  and must get those two replayed; the bare relay keeps no history (it ignores hello), so there
  nothing is missed. Once a scene's sockets are all back, a barrier roll must reach all of them.
  Measured: the seconds from the new server's listening until every socket is open, has what
  it missed and has its barrier roll; sockets that failed or retried, frames lost.
- **history**: does a roll cost more in a scene, or a database, that holds a long history?
  The setup writes ``BENCH_HISTORY_EVENTS`` (5,000) rolls into each of 10 scenes through the
  app's own action (``setup.py``'s ``record_history``: its rows, ledger chain and indexes; the
  database then holds 50,000 such events). In one daphne process, 8×10 sockets on 10 fresh
  scenes and 8×10 on the 10 history scenes are connected, and the ceiling's closed loop is
  played on one group and then the other, ``BENCH_HISTORY_ROUNDS`` (3) times (fresh first):
  each window's rolls per second and the process's CPU per roll, and the median of the rounds'
  history/fresh ratios. Played against the bare stack too, as a control: it has no history,
  so its ratio is what the alternating windows differ by on their own.

The app's rolls are a mix, in turn: a public dice-box roll, a character's check (two_dice, 2d6 +
Wits paid from Focus: its card, the sheet's payment and the Party and GM tools), a roll
private to the GM and a blind one (the players outside them get a stub). The bare relay sends a
frame of the size of the app's public roll. Writes ``bench/out/ratio.json`` (every step's
result, each cell's figures); the last line is::

    fanout ratio: ceiling R× bare; 8x100 p50 P× p99 Q× bare; connect 800 C× bare; storm S×
    bare; lost L; idle CPU 100 tables A× bare, 200 tables B× bare; ceiling with 100 idle tables
    D% (their CPU E% of the ceiling's); history ceiling H% of fresh (N events per scene)

(one line, each cell's figures when it was played: C is the app's time to open the 8×100
cell's 800 sockets over the bare stack's, S the app's storm seconds over the bare stack's
(``n/a`` when either did not get every socket back), L the app's frames lost in the ceiling,
8×100 and storm cells, D the rounds' median change of the app's ceiling, negative when the idle
tables take from it, E the idle tables' CPU as a share of the app's CPU at its ceiling, and H
the median of the app's history/fresh ceiling ratios, 100% when a history costs nothing).
``BENCH_RATIO_SECONDS`` (default 10) is the open-loop cell's measured window;
``BENCH_RATIO_CELLS`` (say ``storm`` or ``ceiling,8x100``) plays only the cells it names, and
builds only their scenes.
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
STORM_SCENES = 125  # the storm's tables of N sockets: 1,000 sockets
# Rolls per storm scene before the restart besides the connect step's barrier roll (the mix's
# check), each delivered everywhere; the pages missed the last STORM_MISSED of them (the mix's
# blind roll and a public one) and must have them replayed.
STORM_BEFORE, STORM_MISSED = 3, 2
STORM_WITHIN = 120.0  # seconds after the SIGTERM until the storm gives up
HISTORY_SCENES = 10  # scenes with a history, and as many fresh ones: the ceiling's 8x10
HISTORY_EVENTS = 5000  # events in each history scene (BENCH_HISTORY_EVENTS)
HISTORY_ROUNDS = 3  # fresh and history ceiling windows in turn (BENCH_HISTORY_ROUNDS)
CELLS = ("ceiling", "8x100", "idle", "storm", "history")


def cells(
    scenes: dict[str, list[int]],
    window: float,
    idle_window: float = 20.0,
    rounds: int = IDLE_ROUNDS,
    ceiling_window: float = IDLE_CEILING_SECONDS,
    newest: dict[str, list[int]] | None = None,
    history_rounds: int = HISTORY_ROUNDS,
) -> dict[str, list[dict[str, Any]]]:
    """Each cell's steps, played against a freshly started daphne per stack: only the cells
    whose scenes were built (``BENCH_RATIO_CELLS`` builds the chosen cells' groups alone).
    ``newest``: each history scene's newest seq, by group (the setup's)."""
    plan: dict[str, list[dict[str, Any]]] = {}
    if "ceiling" in scenes:
        plan["ceiling"] = [
            {"do": "connect", "scenes": scenes["ceiling"], "per_scene": N, "label": "8x10"},
            {"do": "saturate", "label": "8x10", "duration": 5.0, "warmup": 1.5},
        ]
    if "target" in scenes:
        plan["8x100"] = [
            {"do": "connect", "scenes": scenes["target"], "per_scene": N, "label": "8x100",
             "give_up_s": 90.0},
            {"do": "run", "label": "8x100", "rate": RATE, "duration": window, "warmup": 2.0,
             "drain": 5.0},
        ]  # fmt: skip
    if "idle" in scenes:
        plan["idle"] = idle_steps(scenes, idle_window, rounds, ceiling_window)
    if "storm" in scenes:
        plan["storm"] = storm_steps(scenes["storm"])
    if "history" in scenes:
        seqs = (newest or {}).get("history", [])
        plan["history"] = history_steps(scenes, seqs, history_rounds)
    return plan


def storm_steps(scenes: list[int]) -> list[dict[str, Any]]:
    """The storm cell: its tables connected (the connect step's barrier is their first roll),
    then a deploy under them (``loadgen.py``'s storm step: more rolls, SIGTERM, a new process
    on the same port, every socket back at once)."""
    return [
        {"do": "connect", "scenes": scenes, "per_scene": N, "label": f"{N}x{len(scenes)}",
         "give_up_s": 120.0},
        {"do": "storm", "label": f"{N}x{len(scenes)}", "before": STORM_BEFORE,
         "missed": STORM_MISSED, "within": STORM_WITHIN},
    ]  # fmt: skip


def history_steps(
    scenes: dict[str, list[int]], newest: list[int], rounds: int
) -> list[dict[str, Any]]:
    """The history cell: the ceiling's 8x10 on fresh scenes and on scenes that already hold
    many events, both connected in one process, then their ceiling windows in turn, ``rounds``
    times (fresh first). Both groups' sockets stay open throughout; only one group rolls."""
    saturate = {"do": "saturate", "duration": 5.0, "warmup": 1.5}
    steps: list[dict[str, Any]] = [
        {"do": "connect", "scenes": scenes["history_fresh"], "per_scene": N, "group": "fresh",
         "label": f"fresh {N}x{len(scenes['history_fresh'])}"},
        {"do": "connect", "scenes": scenes["history"], "per_scene": N, "group": "history",
         "label": f"history {N}x{len(scenes['history'])}", "newest": newest},
    ]  # fmt: skip
    for r in range(1, rounds + 1):
        steps += [
            {**saturate, "group": "fresh", "label": f"fresh#{r}"},
            {**saturate, "group": "history", "label": f"history#{r}"},
        ]
    return steps


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
    # The storm restarts the server under its sockets: a new process on the same port.
    server = Daphne(APPS[stack], server_env, log, supervise=any(s["do"] == "storm" for s in steps))
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
    for result in results:
        if result["step"] == "storm":  # the exits the supervisor saw, and the new pids
            result["server_restarts"] = server.restarts
    return results


def brief(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return f"{r['step']} {r['label']}: skipped, {r['skipped']}"
    if r["step"] == "connect":
        return f"connect {r['label']}: {r['connections']} sockets in {r['seconds']} s"
    if r["step"] == "storm":
        return (
            f"storm {r['label']}: {r['sockets']} sockets saw the close in {r['closes_seen_s']} s,"
            f" the new server listened {r['listen_after_kill_s']} s after the SIGTERM; back "
            f"{'' if r['complete'] else 'NOT '}complete in {r['seconds']} s (all open in "
            f"{r['open_s']} s; socket ready p50 {r['ready_p50_s']} p99 {r['ready_p99_s']} s), "
            f"failed {r['failed']}, retried {r['retried']} ({r['failed_attempts']} attempts "
            f"failed), replayed {r['replayed_frames']} ({r['missed_delivered']} missed frames "
            f"back), lost {r['lost_frames']}, errors {r['errors']}, cpu {r['server_cpu']}, "
            f"machine {r['machine_cpu']}"
        )
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


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def ratios(cell_results: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    app_ceiling = measured(cell_results["ceiling"]["app"], "saturate")
    bare_ceiling = measured(cell_results["ceiling"]["bare"], "saturate")
    app_target = measured(cell_results["8x100"]["app"], "run")
    bare_target = measured(cell_results["8x100"]["bare"], "run")
    # The 8x100 cell's 800 sockets opened (the connect step: handshakes 8 at a time).
    app_connect = measured(cell_results["8x100"]["app"], "connect")
    bare_connect = measured(cell_results["8x100"]["bare"], "connect")
    return {
        "ceiling": ratio(app_ceiling["rolls_per_s"], bare_ceiling["rolls_per_s"]),
        "p50": ratio(app_target["p50_ms"], bare_target["p50_ms"]),
        "p99": ratio(app_target["p99_ms"], bare_target["p99_ms"]),
        "connect": ratio(app_connect["seconds"], bare_connect["seconds"]),
        "connect_s": {"app": app_connect["seconds"], "bare": bare_connect["seconds"]},
        "connect_sockets": app_connect["connections"],
        "lost": app_ceiling["lost_frames"] + app_target["lost_frames"],
        "errors": app_ceiling["errors"] + app_target["errors"],
        "kept_up": app_target["rolls_per_s"],
    }


def storm_ratios(storm: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The storm cell's figures: each stack's seconds from the new server's listening until
    every socket was back with what it missed and its scene's barrier roll, and the app's over
    the bare stack's (None when either did not get there: its sockets or frames missing)."""
    got = {stack: measured(storm[stack], "storm") for stack in ("app", "bare")}
    keys = ("seconds", "open_s", "listen_after_kill_s", "failed", "retried", "failed_attempts",
            "replayed_frames", "missed_delivered", "lost_frames", "errors", "complete")  # fmt: skip
    both = all(r["complete"] for r in got.values())
    return {
        **{stack: {k: r[k] for k in keys} for stack, r in got.items()},
        "sockets": got["app"]["sockets"],
        "ratio": ratio(got["app"]["seconds"], got["bare"]["seconds"]) if both else None,
        "lost": got["app"]["lost_frames"],
        "errors": got["app"]["errors"],
    }


def history_ratios(history: dict[str, list[dict[str, Any]]], events: int) -> dict[str, Any]:
    """The history cell's figures, per stack played: each ceiling window's rolls per second
    and the process's CPU per roll (ms), each round's history window over its fresh one, and
    the median of the rounds' ratios, in percent (100: a scene's history costs nothing)."""
    out: dict[str, Any] = {"events_per_scene": events, "windows": {}, "pcts": {},
                           "ceiling_pct": {}, "cpu_per_roll_pct": {}}  # fmt: skip
    for stack, results in history.items():
        windows = {
            r["label"]: {
                "rolls_per_s": r["rolls_per_s"],
                "cpu_ms_per_roll": (
                    round(1000 * sum(r["server_cpu"]) / r["rolls_per_s"], 2)
                    if r["rolls_per_s"]
                    else None
                ),
            }
            for r in results
            if r["step"] == "saturate" and "skipped" not in r
        }
        rounds = sorted(
            int(label.split("#")[1])
            for label in windows
            if label.startswith("history#") and f"fresh#{label.split('#')[1]}" in windows
        )
        if not rounds:
            raise RuntimeError(f"no history rounds measured ({stack}): {results}")
        pairs = [(windows[f"fresh#{r}"], windows[f"history#{r}"]) for r in rounds]
        pcts = [
            round(100 * h["rolls_per_s"] / f["rolls_per_s"], 1) if f["rolls_per_s"] else None
            for f, h in pairs
        ]
        cpu = [
            round(100 * h["cpu_ms_per_roll"] / f["cpu_ms_per_roll"], 1)
            if f["cpu_ms_per_roll"] and h["cpu_ms_per_roll"]
            else None
            for f, h in pairs
        ]
        out["windows"][stack] = windows
        out["pcts"][stack] = pcts
        known = [p for p in pcts if p is not None]
        out["ceiling_pct"][stack] = round(median(known), 1) if known else None
        known_cpu = [c for c in cpu if c is not None]
        out["cpu_per_roll_pct"][stack] = round(median(known_cpu), 1) if known_cpu else None
    return out


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
    history_events = int(os.environ.get("BENCH_HISTORY_EVENTS", str(HISTORY_EVENTS)))
    history_rounds = int(os.environ.get("BENCH_HISTORY_ROUNDS", str(HISTORY_ROUNDS)))
    chosen = [c for c in os.environ.get("BENCH_RATIO_CELLS", ",".join(CELLS)).split(",") if c]
    if unknown := set(chosen) - set(CELLS):
        raise SystemExit(f"BENCH_RATIO_CELLS: no cell {', '.join(sorted(unknown))} in {CELLS}")
    # Each socket is a file in the load generator and in daphne (which inherit this limit).
    needed = open_files_needed(chosen)
    if {"idle", "storm"} & set(chosen) and (limit := raise_open_files(needed)) < needed:
        raise SystemExit(f"these cells need {needed} open files; the hard limit is {limit}")
    OUT.mkdir(exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d_%H%M%S")
    db_name = f"tabletop_ratio_{stamp}_{os.getpid()}"
    env = base_env(f"postgres://postgres@127.0.0.1:5432/{db_name}", prefix=f"ratio{os.getpid()}")
    started = time.monotonic()
    busy_before, load_before = machine_busy_seconds(), os.getloadavg()[0]
    create_database(db_name)
    try:
        groups = scene_groups(chosen)
        spec: dict[str, Any] = {
            "campaigns": max(groups.values()),  # scene i of a group is campaign i's
            "players": N - 1,
            "characters": True,
            "scene_groups": groups,
        }
        if "history" in chosen:
            spec["histories"] = {"history": history_events}
        setup = build_tables(spec, env)
        print(f"ratio: database {db_name} ready in {time.monotonic() - started:.0f} s", flush=True)
        for name, history in setup["histories"].items():
            print(
                f"ratio: {history['events_per_scene']} events in each {name} scene written in "
                f"{history['seconds']} s by {history['writers']} processes",
                flush=True,
            )
        newest = {name: h["newest"] for name, h in setup["histories"].items()}
        plan = cells(
            setup["scene_groups"], window, idle_window, rounds, ceiling_window, newest,
            history_rounds,
        )  # fmt: skip
        results: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for cell, steps in plan.items():
            if cell not in chosen:
                continue
            # The bare stack first, then the app, cell by cell: both meet the box as it is then.
            results[cell] = {stack: play(stack, steps, env, setup) for stack in ("bare", "app")}
    finally:
        drop_database(db_name)
    figures = ratios(results) if {"ceiling", "8x100"} <= results.keys() else {}
    failed = []
    for cell, figure in (
        ("idle", lambda: idle_ratios(results["idle"])),
        ("storm", lambda: storm_ratios(results["storm"])),
        ("history", lambda: history_ratios(results["history"], history_events)),
    ):
        if cell in results:
            try:
                figures[cell] = figure()
            except RuntimeError as exc:  # the other cells' figures still stand; say which is not
                failed.append(f"{cell} cell not measured: {str(exc)[:300]}")
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
        "history_rounds": history_rounds,
        "histories": {
            name: {k: v for k, v in h.items() if k != "newest"}
            for name, h in setup["histories"].items()
        },
        "cells": chosen,
        "load_average_before": round(load_before, 2),
        # Every process of the box, the run's own included, over the whole run.
        "machine_busy_cores": round((machine_busy_seconds() - busy_before) / seconds, 2),
        "frame_bytes": setup["frame_bytes"],
    }
    (OUT / "ratio.json").write_text(
        json.dumps({"meta": meta, "ratios": figures, "results": results}, indent=1)
    )
    print(last_lines(figures, seconds, load_before, "; ".join(failed)))
    return 1 if failed else 0


def scene_groups(chosen: list[str]) -> dict[str, int]:
    """The scene groups the chosen cells play on (group name -> scenes), each cell's own: a
    cell's scenes number their rolls from seq 1 (the history's, from their history's end)."""
    groups: dict[str, int] = {}
    if "ceiling" in chosen:
        groups["ceiling"] = CEILING_SCENES
    if "8x100" in chosen:
        groups["target"] = TARGET_SCENES
    if "idle" in chosen:
        groups.update(idle_ceiling=CEILING_SCENES, idle=max(IDLE_TABLES))
    if "storm" in chosen:
        groups["storm"] = STORM_SCENES
    if "history" in chosen:
        groups.update(history_fresh=HISTORY_SCENES, history=HISTORY_SCENES)
    return groups


def open_files_needed(chosen: list[str]) -> int:
    """Open files the chosen cells need at most in one process: a socket each, 512 besides.
    The storm's old sockets may still be closing while the new ones open."""
    sockets = N * (CEILING_SCENES + TARGET_SCENES)
    if "idle" in chosen:
        sockets = max(sockets, N * (CEILING_SCENES + max(IDLE_TABLES)))
    if "storm" in chosen:
        sockets = max(sockets, 2 * N * STORM_SCENES)
    return sockets + 512


def last_lines(
    figures: dict[str, Any], seconds: float, load_before: float, failed: str = ""
) -> str:
    """The run's summary, its last line the figures (``fanout ratio: ...``)."""
    first = f"ratio: {seconds:.0f} s; load average {load_before:.2f} before"
    parts = []

    def times(x: float | None) -> str:  # None when the app got nothing there (a crushed box)
        return "n/a" if x is None else f"{x:.2f}×"

    if "ceiling" in figures:
        first += (
            f"; app kept up with {figures['kept_up']} of {TARGET_SCENES * RATE:.0f} rolls/s; "
            f"errors {figures['errors']}; {figures['connect_sockets']} sockets opened in "
            f"{figures['connect_s']['app']} s (app) and {figures['connect_s']['bare']} s (bare)"
        )
        parts.append(
            f"ceiling {times(figures['ceiling'])} bare; 8x100 p50 {times(figures['p50'])} p99 "
            f"{times(figures['p99'])} bare; connect {figures['connect_sockets']} "
            f"{times(figures['connect'])} bare"
        )
    if "storm" in figures:
        storm = figures["storm"]
        app, bare = storm["app"], storm["bare"]
        first += (
            f"; storm of {storm['sockets']} sockets back in {app['seconds']} s (app"
            f"{'' if app['complete'] else ', incomplete'}) and {bare['seconds']} s (bare"
            f"{'' if bare['complete'] else ', incomplete'}), all open in {app['open_s']}/"
            f"{bare['open_s']} s, failed {app['failed']}/{bare['failed']}, retried "
            f"{app['retried']}/{bare['retried']}, {app['missed_delivered']} missed frames "
            f"replayed; errors {storm['errors']}"
        )
        parts.append(f"storm {times(storm['ratio'])} bare")
    if "ceiling" in figures or "storm" in figures:
        lost = figures.get("lost", 0) + figures.get("storm", {}).get("lost", 0)
        parts.append(f"lost {lost}")
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
    if "history" in figures:
        history = figures["history"]
        for stack, windows in history["windows"].items():
            first += f"; history {stack} rolls/s (CPU ms per roll) " + ", ".join(
                f"{label} {w['rolls_per_s']} ({w['cpu_ms_per_roll']})"
                for label, w in windows.items()
            )
            first += (
                f", history/fresh each round {history['pcts'][stack]}%, CPU per roll "
                f"{history['cpu_per_roll_pct'][stack]}% of fresh"
            )
        pct = history["ceiling_pct"].get("app")
        parts.append(
            f"history ceiling {'n/a' if pct is None else f'{pct}%'} of fresh "
            f"({history['events_per_scene']} events per scene)"
        )
    if failed:
        parts.append(failed)
    return f"{first}\nfanout ratio: " + "; ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
