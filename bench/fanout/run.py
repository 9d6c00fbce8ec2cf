"""Fan-out benchmark: roll-to-last-client latency and throughput of live scenes against daphne.

``python -m bench.fanout.run`` (part of ``make bench``; ``BENCH_QUICK=1`` for a short smoke run).
It creates a uniquely named PostgreSQL database, fills it with tables, players, sessions and open
scenes (``bench/fanout/setup.py``), and for each channel-layer configuration starts daphne (one or
two processes) with the app and then with a bare relay consumer (``bench/fanout/bare.py``), and
drives both with the same plan from a separate load-generator process (``loadgen.py``). The
database is dropped at the end. Reports: bench/out/fanout.md, fanout.json and fanout.png
(fanout-quick.* for a smoke run, fanout-<configs>.* for chosen configurations).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import psycopg

from bench.fanout import report
from bench.fanout.servers import ROOT, Daphne

OUT = ROOT / "bench" / "out"
PG_ADMIN = os.environ.get("BENCH_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
CAMPAIGNS, PLAYERS = 100, 15  # 100 tables, each a GM and 15 players: up to 16 sockets per scene


@dataclass(frozen=True)
class Config:
    key: str
    label: str
    layer: str  # memory | core | pubsub
    processes: int
    extra_env: tuple[tuple[str, str], ...] = ()
    what_if: bool = False  # only the target cell and the ceiling, app only

    def env(self) -> dict[str, str]:
        env = dict(self.extra_env)
        if self.layer != "memory":
            env.update(REDIS_URL=REDIS, CHANNEL_LAYER=self.layer)
        return env


CONFIGS = [
    Config("memory-1", "in-memory layer, 1 daphne", "memory", 1),
    Config("core-1", "Redis core layer, 1 daphne", "core", 1),
    Config("pubsub-1", "Redis pub/sub layer, 1 daphne", "pubsub", 1),
    Config("core-2", "Redis core layer, 2 daphne", "core", 2),
    Config("pubsub-2", "Redis pub/sub layer, 2 daphne", "pubsub", 2),
]


@dataclass(frozen=True)
class Shape:
    clients: tuple[int, ...]  # N: sockets per scene (a GM and N-1 players)
    scenes: tuple[int, ...]  # M: scenes rolling at once
    rate: float  # rolls per scene per second (open loop)
    duration: float  # measured seconds per cell, after the warm-up
    warmup: float
    target: tuple[int, int]  # (N, M) of the targets
    # (N, M) of the closed-loop ceiling: the target's N on scenes the app's one process can hold
    ceiling: tuple[int, int]
    configs: tuple[str, ...]


# 90 cells (45 per stack) must fit in `make bench`'s ten minutes next to the app's slow socket
# opening: 0.5 s warm-up and 1.5 s measured per cell (150 rolls at 100 scenes, 1-2 at one).
FULL = Shape(
    (2, 8, 16),
    (1, 10, 100),
    1.0,
    1.5,
    0.5,
    (8, 100),
    (8, 10),
    tuple(c.key for c in CONFIGS if not c.what_if),
)
QUICK = Shape((2, 8), (1, 10), 1.0, 1.5, 0.5, (8, 10), (8, 10), ("memory-1", "core-2"))
SATURATE_RATE_PER_SOCKET = 4.5  # under the app's 5 commands/s per socket


def base_env(database_url: str, prefix: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "CHANNEL_LAYER", "DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="bench.settings",
        BENCH_LAYER_PREFIX=prefix,
        # As deployed (docker-compose.yml): DEBUG off; CONN_MAX_AGE as the environment says.
        DEBUG="false",
        SECRET_KEY="bench-" + "x" * 50,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
    )
    return env


def create_database(name: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def postgres_version() -> str:
    with psycopg.connect(PG_ADMIN) as conn:
        return str(conn.execute("SHOW server_version").fetchone()[0])


def scene_groups(shape: Shape) -> dict[str, int]:
    groups = {"warm": 1}
    for key in shape.configs:
        for m in shape.scenes:
            groups[f"{key}-m{m}"] = m
    return groups


def lives(
    shape: Shape, config: Config, stack: str, scenes: dict[str, list[int]]
) -> list[list[dict]]:
    """The plan as server lifetimes: each list of steps runs against freshly started daphnes.

    Each scene count opens its sockets in steps (N = 2, then 8, then 16 on the same scenes), so
    the largest cell costs 1,600 handshakes, not 2,600; the small counts share a server. The
    idle-memory figure is the RSS growth of the first step of the largest count (a fresh server,
    warmed by one roll). When the target cell already fell behind, the larger cell at the same
    roll rate is skipped: it could only fall further behind.
    """
    # The connect step's barrier is a roll: imports, templates and the database are warm after.
    warm = [
        {"do": "connect", "scenes": scenes["warm"], "per_scene": 2, "settle": 0.1},
        {"do": "disconnect", "settle": 0.1},
    ]
    target_n, target_m = shape.target
    target = f"{target_n}x{target_m}"
    out: list[list[dict]] = []
    ceiling_n, ceiling_m = shape.ceiling
    for m in shape.scenes:
        if config.what_if and m not in (target_m, ceiling_m):
            continue
        steps: list[dict] = []
        for n in shape.clients:
            if config.what_if and n not in (target_n, ceiling_n):
                continue
            label = f"{n}x{m}"
            run = {
                "do": "run",
                "label": label,
                "rate": shape.rate,
                "duration": shape.duration,
                "warmup": shape.warmup,
            }
            connect = {
                "do": "connect",
                "label": label,
                "scenes": scenes[f"{config.key}-m{m}"],
                "per_scene": n,
                "rss": True,
            }
            if config.what_if:
                connect["give_up_s"] = 60.0  # the point is to see past the sockets' opening
            if m == target_m and n > target_n:
                connect["skip_if_overloaded"] = run["skip_if_overloaded"] = target
            steps += [connect, run]
            if (n, m) == shape.ceiling:
                ceiling = {
                    "do": "saturate",
                    "label": label,
                    "duration": shape.duration,
                    "warmup": shape.warmup,
                }
                if stack == "app":  # the bare consumer has no rate limit to respect
                    ceiling["max_rate_per_socket"] = SATURATE_RATE_PER_SOCKET
                steps.append(ceiling)
        if out and m * max(shape.clients) <= 200:
            out[-1] += [{"do": "disconnect", "settle": 0.1}, *steps]  # few sockets: share a server
        elif out:
            out.append(warm + steps)  # RSS figures want a warm process
        else:
            out.append(steps)  # the first connect step's barrier roll warms it
    return out


def play(
    stack: str, config: Config, shape: Shape, env: dict[str, str], setup: dict[str, Any]
) -> list[dict[str, Any]]:
    app = "tabletop.asgi:application" if stack == "app" else "bench.fanout.bare:application"
    server_env = {**env, **config.env()}
    log = OUT / f"daphne-{stack}-{config.key}.log"
    log.unlink(missing_ok=True)
    results: list[dict[str, Any]] = []
    started = time.monotonic()
    for life_no, steps in enumerate(lives(shape, config, stack, setup["scene_groups"])):
        servers = [Daphne(app, server_env, log) for _ in range(config.processes)]
        try:
            for server in servers:
                server.start()
            plan = {
                "stack": stack,
                "ports": [s.port for s in servers],
                "pids": [s.pid for s in servers],
                "campaigns": setup["campaigns"],
                "database_url": env["DATABASE_URL"] if stack == "app" else "",
                "frame_sample": setup["frame_sample"],
                "steps": steps,
            }
            for result in load_generator(plan, env):
                result.update(stack=stack, config=config.key, life=life_no)
                results.append(result)
                print(f"  {stack:4} {config.key:12} {summary(result)}", flush=True)
        finally:
            for server in servers:
                server.stop()
    print(f"  {stack} {config.key}: {time.monotonic() - started:.0f} s", flush=True)
    return results


def build_tables(spec: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    """Fill the bench database as ``spec`` says (``bench/fanout/setup.py``, a process of its
    own with the bench's settings): what it made, for the load generator's plans."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.fanout.setup"],
        cwd=ROOT,
        env=env,
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def load_generator(plan: dict[str, Any], env: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Play ``plan`` with the load generator (a process of its own): each step's result as it
    comes. Raises when the generator fails; it never outlives the caller's loop."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(plan, f)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.fanout.loadgen", f.name],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            yield json.loads(line)
        if proc.wait() != 0:
            raise RuntimeError(f"the load generator failed ({plan['stack']})")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.unlink(f.name)


def summary(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return f"{r['step']} {r['label']}: skipped, {r['skipped']}"
    if r["step"] == "connect":
        return (
            f"connect {r['connections']} sockets in {r['seconds']} s (+{r['barrier_s']} s until "
            f"all served, {r['refused_attempts']} refused), rss {r.get('rss_after_kib')}"
        )
    if r["step"] == "disconnect":
        return f"disconnect {r['closed']} in {r['seconds']} s"
    return (
        f"{r['step']} {r['label']}: p50 {r['p50_ms']} p99 {r['p99_ms']} max {r['max_ms']} ms, "
        f"{r['rolls_per_s']} rolls/s, {r['deliveries_per_s']} deliveries/s, lost {r['lost_frames']}"
        f", cpu {r['server_cpu']} loadgen {r['loadgen_cpu']}"
    )


def main(quick: bool = False) -> int:
    # A SIGTERM (timeout, CI) still stops the servers and drops the database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    shape = QUICK if quick else FULL
    keys = os.environ.get("BENCH_CONFIGS", "")  # e.g. "memory-1,core-2" to run only those
    configs = [c for c in CONFIGS if c.key in (keys.split(",") if keys else shape.configs)]
    shape = Shape(**{**shape.__dict__, "configs": tuple(c.key for c in configs)})
    OUT.mkdir(exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d_%H%M%S")
    db_name = f"tabletop_bench_{stamp}_{os.getpid()}"
    database_url = f"postgres://postgres@127.0.0.1:5432/{db_name}"
    env = base_env(database_url, prefix=f"bench{os.getpid()}")
    started = time.monotonic()
    create_database(db_name)
    try:
        spec = {"campaigns": CAMPAIGNS, "players": PLAYERS, "scene_groups": scene_groups(shape)}
        setup = build_tables(spec, env)
        print(f"fan-out: database {db_name} ready in {time.monotonic() - started:.0f} s")
        results: list[dict[str, Any]] = []
        for config in configs:
            for stack in ("app",) if config.what_if else ("app", "bare"):
                results += play(stack, config, shape, env, setup)
    finally:
        drop_database(db_name)
    meta = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "quick": quick,
        "cores": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "versions": {
            p: version(p) for p in ("Django", "channels", "channels-redis", "daphne", "websockets")
        },
        "postgres": postgres_version(),
        "database": f"PostgreSQL (a fresh database, {db_name}, dropped afterwards)",
        "conn_max_age": env.get("CONN_MAX_AGE", "60 (the settings default)"),
        "frame_bytes": setup["frame_bytes"],
        "shape": shape.__dict__,
        "configs": {c.key: c.label for c in configs},
        "seconds": round(time.monotonic() - started),
    }
    # A smoke run or a run of chosen configurations (BENCH_CONFIGS) keeps the full run's report.
    name = "fanout" + ("-quick" if quick else "") + ("-" + keys.replace(",", "+") if keys else "")
    (OUT / f"{name}.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    text = report.markdown(meta, results)
    report.chart(meta, results, OUT / f"{name}.png")
    (OUT / f"{name}.md").write_text(text)
    print(text)
    return 0


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main(quick=os.environ.get("BENCH_QUICK", "") not in ("", "0")))
