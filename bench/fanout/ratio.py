"""`make bench-ratio`: the app against the bare Channels stack, side by side, in one run.

Two cells, each played first against the bare relay (``bench/fanout/bare.py``) and then against
the app, on one daphne process each with the Redis pub/sub layer, on a fresh PostgreSQL
database (dropped at the end):

- **ceiling**: 8 sockets × 10 scenes, closed loop (one roll always in flight per scene, made by
  the scene's sockets in turn): rolls per second.
- **8×100**: 8 sockets × 100 scenes, open loop, one roll per scene per second (100 rolls/s):
  rolls done per second, latency to the last socket (p50, p99) and frames lost.

The app's rolls are a mix, in turn: a public dice-box roll, a character's check (two_dice, 2d6 +
Wits paid from Focus: its card, the sheet's payment and the party and dashboard panels), a roll
private to the GM and a blind one (the players outside them get a stub). The bare relay sends a
frame of the size of the app's public roll. Writes ``bench/out/ratio.json``; the last line is::

    fanout ratio: ceiling R× bare; 8x100 p50 P× p99 Q× bare; lost L

``BENCH_RATIO_SECONDS`` (default 10) is the open-loop cell's measured window.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sys
import time
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
from bench.fanout.servers import Daphne, machine_busy_seconds

N = 8
CEILING_SCENES, TARGET_SCENES = 10, 100
RATE = 1.0  # rolls per scene per second in the open loop: 100 rolls/s at 100 scenes
APPS = {"app": "bench.fanout.uncapped:application", "bare": "bench.fanout.bare:application"}


def cells(scenes: dict[str, list[int]], window: float) -> dict[str, list[dict[str, Any]]]:
    """Each cell's steps, played against a freshly started daphne per stack."""
    return {
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


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    window = float(os.environ.get("BENCH_RATIO_SECONDS", "10"))
    OUT.mkdir(exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d_%H%M%S")
    db_name = f"tabletop_ratio_{stamp}_{os.getpid()}"
    env = base_env(f"postgres://postgres@127.0.0.1:5432/{db_name}", prefix=f"ratio{os.getpid()}")
    started = time.monotonic()
    busy_before, load_before = machine_busy_seconds(), os.getloadavg()[0]
    create_database(db_name)
    try:
        spec = {
            "campaigns": TARGET_SCENES,
            "players": N - 1,
            "characters": True,
            "scene_groups": {"ceiling": CEILING_SCENES, "target": TARGET_SCENES},
        }
        setup = build_tables(spec, env)
        print(f"ratio: database {db_name} ready in {time.monotonic() - started:.0f} s", flush=True)
        plan = cells(setup["scene_groups"], window)
        results: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for cell, steps in plan.items():
            # The bare stack first, then the app, cell by cell: both meet the box as it is then.
            results[cell] = {stack: play(stack, steps, env, setup) for stack in ("bare", "app")}
    finally:
        drop_database(db_name)
    figures = ratios(results)
    seconds = time.monotonic() - started
    meta = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "cpu": cpu_model(),
        "seconds": round(seconds),
        "window_s": window,
        "load_average_before": round(load_before, 2),
        # Every process of the box, the run's own included, over the whole run.
        "machine_busy_cores": round((machine_busy_seconds() - busy_before) / seconds, 2),
        "frame_bytes": setup["frame_bytes"],
    }
    (OUT / "ratio.json").write_text(
        json.dumps({"meta": meta, "ratios": figures, "results": results}, indent=1)
    )
    print(
        f"ratio: {seconds:.0f} s; load average {load_before:.2f} before; app kept up with "
        f"{figures['kept_up']} of {TARGET_SCENES * RATE:.0f} rolls/s; errors {figures['errors']}"
    )
    print(
        f"fanout ratio: ceiling {figures['ceiling']:.2f}× bare; 8x100 p50 {figures['p50']:.2f}× "
        f"p99 {figures['p99']:.2f}× bare; lost {figures['lost']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
