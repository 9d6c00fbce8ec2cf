"""The fan-out report: Markdown tables (bench/out/fanout.md) and a chart of latency against load."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

TARGET_P99_MS = 50.0
TARGET_P50_MS = 10.0
TARGET_RATIO = 0.5
TARGET_KIB = 128.0

Result = dict[str, Any]


def _runs(results: list[Result], stack: str, config: str, step: str = "run") -> dict[str, Result]:
    return {
        r["label"]: r
        for r in results
        if r["stack"] == stack and r["config"] == config and r["step"] == step
        if r.get("label") != "warm"
    }


def _connect(results: list[Result], stack: str, config: str, label: str) -> Result | None:
    """The connect step that opened the sockets of cell ``label`` (the step before its run)."""
    for before, r in zip(results, results[1:], strict=False):
        this = (r["stack"], r["config"], r["step"], r.get("label"))
        if this == (stack, config, "run", label) and before["step"] == "connect":
            return before
    return None


def _f(value: Any, digits: int = 1) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _ratio(ours: float | None, bare: float | None, digits: int = 2) -> str:
    if not ours or not bare:
        return "—"
    return f"{ours / bare:.{digits}f}×"


def _cpu(r: Result) -> str:
    return "+".join(f"{c:.2f}" for c in r.get("server_cpu", [])) or "—"


def _mark(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "**missed**")


def memory_per_connection(results: list[Result], stack: str, config: str, label: str) -> Any:
    """RSS growth per socket opened by the connect step of cell ``label`` (100 or more only:
    below that, page-sized RSS steps swamp the figure)."""
    step = _connect(results, stack, config, label)
    if step is None or step.get("opened", 0) < 100:
        return None
    return step.get("kib_per_connection")


def markdown(meta: dict[str, Any], results: list[Result]) -> str:
    shape = meta["shape"]
    target = f"{shape['target'][0]}x{shape['target'][1]}"
    configs: dict[str, str] = meta["configs"]
    out = [
        "# Fan-out benchmark: roll to last client",
        "",
        f"Run {meta['date']}{' (QUICK smoke run)' if meta['quick'] else ''}, "
        f"{meta['seconds']} s. Machine: {meta['cores']} cores ({meta['cpu']}), "
        f"Python {meta['python']}; "
        + ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
        + ".",
        f"Database: {meta['database']}, PostgreSQL {meta['postgres']}. Settings as deployed "
        f"(DEBUG off, CONN_MAX_AGE={meta['conn_max_age']}), channel-layer keys under a per-run "
        "prefix. The load generator is a separate process on the same machine.",
        "",
        f"Load: N sockets per scene (the GM and N−1 players), M scenes; one player per scene "
        f"rolls `2d6+k` {shape['rate']:g}×/s at fixed times (open loop); each roll's latency is "
        f"from its send until the last socket of its scene has the frame ({meta['frame_bytes']} B "
        f"for players). Per cell {shape['warmup']:g} s warm-up, then {shape['duration']:g} s "
        "measured. The bare stack is a Channels consumer that re-broadcasts each message to its "
        "group (no auth, database or rendering), driven identically with frames of the same size.",
        "",
        f"Machine load: during the measured windows the whole machine was busy "
        f"{_machine(results)} cores on median (servers, load generator, PostgreSQL, Redis and "
        "anything else running on this shared box).",
        "",
    ]
    memory_label = f"{min(shape['clients'])}x{max(shape['scenes'])}"
    ceiling = f"{shape['ceiling'][0]}x{shape['ceiling'][1]}"
    out += _targets(results, configs, target, memory_label, ceiling)
    out += _ceiling(results, configs)
    out += _matrix(results, configs)
    out += _connects(results, configs)
    out += [
        "Columns: *rolls/s* and *deliveries/s* are completions inside the window; *gaps* are "
        "frames a socket never got although a later roll reached it; *late* are rolls still not "
        "at every socket when the drain ended (the server was behind); *replayed* are frames a "
        "socket got from the server's catch-up instead of live; *closed* are sockets the server "
        "closed (their frames are lost from then on); *CPU* is each daphne process's "
        "cores in use; *behind* marks cells where the server could not keep up with the offered "
        "rate, so their latency grows with the window rather than with the load.",
        "",
    ]
    return "\n".join(out) + "\n"


def _machine(results: list[Result]) -> str:
    busy = [r["machine_cpu"] for r in results if "machine_cpu" in r]
    return f"{statistics.median(busy):.2f}" if busy else "—"


def _targets(
    results: list[Result], configs: dict[str, str], target: str, memory_label: str, ceiling: str
) -> list[str]:
    out = [
        f"## Targets at {target} (clients × scenes), one daphne process",
        "",
        "| configuration | p99 ≤ 50 ms | p50 ≤ 10 ms | no lost frames | throughput ≥ 50% of "
        f"bare (ceiling at {ceiling}) | idle memory ≤ 128 KiB/socket ({memory_label} sockets "
        "on a fresh server) |",
        "|---|---|---|---|---|---|",
    ]
    for key, label in configs.items():
        run = _runs(results, "app", key).get(target)
        if run is None or key.endswith("-2"):
            continue
        ours = _runs(results, "app", key, "saturate").get(ceiling, {})
        bare = _runs(results, "bare", key.removesuffix("-cma"), "saturate").get(ceiling, {})
        ratio = None
        if ours.get("deliveries_per_s") and bare.get("deliveries_per_s"):
            ratio = ours["deliveries_per_s"] / bare["deliveries_per_s"]
        kib = memory_per_connection(results, "app", key, memory_label)
        if "skipped" in run:
            latency = f"**missed**: not measurable, {run['skipped']} | ″ | ″"
        else:
            behind = " (behind)" if run.get("overloaded") else ""
            lost = run["gap_frames"] + run["undelivered_rolls"]
            latency = (
                f"{_f(run['p99_ms'])} ms{behind} {_mark(_le(run['p99_ms'], TARGET_P99_MS))} "
                f"| {_f(run['p50_ms'])} ms {_mark(_le(run['p50_ms'], TARGET_P50_MS))} "
                f"| {run['gap_frames']} gaps, {run['undelivered_rolls']} late {_mark(lost == 0)}"
            )
        out.append(
            f"| {label} | {latency} "
            f"| {_f(None if ratio is None else 100 * ratio)}% {_mark(_ge(ratio, TARGET_RATIO))} "
            f"| {_f(kib)} KiB {_mark(_le(kib, TARGET_KIB))} |"
        )
    return [*out, ""]


def _le(value: float | None, limit: float) -> bool | None:
    return None if value is None else value <= limit


def _ge(value: float | None, limit: float) -> bool | None:
    return None if value is None else value >= limit


def _ceiling(results: list[Result], configs: dict[str, str]) -> list[str]:
    out = [
        "## Throughput ceiling (closed loop: one roll always in flight per scene)",
        "",
        "| configuration | ours rolls/s | ours deliveries/s | ours p50 / p99 ms | ours CPU "
        "| bare rolls/s | bare deliveries/s | bare p50 / p99 ms | bare CPU | ours ÷ bare |",
        "|---|---:|---:|---|---|---:|---:|---|---|---:|",
    ]
    for key, label in configs.items():
        for name, ours in _runs(results, "app", key, "saturate").items():
            bare = _runs(results, "bare", key.removesuffix("-cma"), "saturate").get(name, {})
            if "skipped" in ours:
                out.append(f"| {label} ({name}) | not measured: {ours['skipped']} |" + " |" * 8)
                continue
            out.append(
                f"| {label} ({name}) | {_f(ours['rolls_per_s'])} | {_f(ours['deliveries_per_s'])} "
                f"| {_f(ours['p50_ms'])} / {_f(ours['p99_ms'])} | {_cpu(ours)} "
                f"| {_f(bare.get('rolls_per_s'))} | {_f(bare.get('deliveries_per_s'))} "
                f"| {_f(bare.get('p50_ms'))} / {_f(bare.get('p99_ms'))} "
                f"| {_cpu(bare) if bare else '—'} "
                f"| {_ratio(ours['deliveries_per_s'], bare.get('deliveries_per_s'))} |"
            )
    return [*out, ""]


def _matrix(results: list[Result], configs: dict[str, str]) -> list[str]:
    out = ["## Matrix: open loop, latency until the last socket of the scene has the roll", ""]
    for key, label in configs.items():
        ours_runs = _runs(results, "app", key)
        bare_runs = _runs(results, "bare", key)
        if not ours_runs:
            continue
        out += [
            f"### {label}",
            "",
            "| N×M | offered rolls/s | p50 | p95 | p99 | max (ms) | rolls/s | deliveries/s "
            "| gaps | late | replayed | closed | CPU | idle KiB/socket | bare p50 / p99 (ms) "
            "| bare deliveries/s | p99 ours ÷ bare |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|",
        ]
        for name, r in ours_runs.items():
            bare = bare_runs.get(name, {})
            if "skipped" in r:
                out.append(f"| {name} | — | not run: {r['skipped']} |" + " |" * 14)
                continue
            behind = " (behind)" if r.get("overloaded") else ""
            out.append(
                f"| {name}{behind} | {_f(r['offered_rolls_per_s'], 0)} | {_f(r['p50_ms'])} "
                f"| {_f(r['p95_ms'])} | {_f(r['p99_ms'])} | {_f(r['max_ms'])} "
                f"| {_f(r['rolls_per_s'])} | {_f(r['deliveries_per_s'])} | {r['gap_frames']} "
                f"| {r['undelivered_rolls']} | {r['replayed_frames']} "
                f"| {r.get('closed_sockets', 0)} | {_cpu(r)} "
                f"| {_f(memory_per_connection(results, 'app', key, name))} "
                f"| {_f(bare.get('p50_ms'))} / {_f(bare.get('p99_ms'))} "
                f"| {_f(bare.get('deliveries_per_s'))} "
                f"| {_ratio(r['p99_ms'], bare.get('p99_ms'), 1)} |"
            )
        out.append("")
    return out


def _connects(results: list[Result], configs: dict[str, str]) -> list[str]:
    out = [
        "## Opening the sockets (8 handshakes in flight; the load generator gives up after 3 "
        "refused handshakes, or when its pace says all of them would need over 30 s)",
        "",
        "| configuration | stack | sockets opened | seconds | opened/s | then until every "
        "socket is served (s) | refused handshakes |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for key, label in configs.items():
        for stack in ("app", "bare"):
            steps = [
                r
                for r in results
                if (r["stack"], r["config"], r["step"]) == (stack, key, "connect")
                and r.get("opened", 0) + r.get("failed", 0) >= 100
            ]
            for r in steps:
                gave_up = f" (gave up: {r['failed']} not opened)" if r["failed"] else ""
                out.append(
                    f"| {label} | {stack} | {r['opened']}{gave_up} | {r['seconds']} "
                    f"| {_f(r.get('sockets_per_s'))} | {r['barrier_s']} | {r['refused_attempts']} |"
                )
    return [*out, ""]


def chart(meta: dict[str, Any], results: list[Result], path: Path) -> bool:
    """p50 and p99 against offered deliveries/s, per configuration, ours and bare."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (field, title, target) in zip(
        axes,
        [("p50_ms", "p50", TARGET_P50_MS), ("p99_ms", "p99", TARGET_P99_MS)],
        strict=True,
    ):
        for i, (key, label) in enumerate(meta["configs"].items()):
            for stack, style in (("app", "-"), ("bare", ":")):
                points = []
                for name, r in _runs(results, stack, key).items():
                    if r.get(field) is None:
                        continue
                    n, m = (int(x) for x in name.split("x"))
                    points.append((n * m * meta["shape"]["rate"], r[field], r.get("overloaded")))
                if not points:
                    continue
                points.sort()
                xs, ys = [p[0] for p in points], [p[1] for p in points]
                name = f"{label} ({'ours' if stack == 'app' else 'bare'})"
                colour = colours[i % len(colours)]
                ax.plot(xs, ys, style, marker="o", color=colour, label=name, markersize=4)
                behind = [(x, y) for x, y, o in points if o]
                if behind:
                    ax.scatter(*zip(*behind, strict=True), marker="x", s=70, color=colour)
        ax.axhline(target, color="grey", linewidth=0.8, linestyle="--")
        ax.text(
            0.01,
            target * 1.08,
            f"target {target:g} ms",
            color="grey",
            fontsize=8,
            transform=ax.get_yaxis_transform(),
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("offered load: deliveries/s (N sockets × M scenes × rolls/s)")
        ax.set_title(f"roll to last socket, {title}")
        ax.grid(True, which="both", linewidth=0.3)
    axes[0].set_ylabel("latency (ms)")
    axes[1].legend(fontsize=7, loc="upper left")
    fig.suptitle(
        f"Fan-out, {meta['cores']} cores, Python {meta['python']} "
        f"(× = server fell behind the offered rate)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> None:
    """Rewrite fanout.md and fanout.png from a saved fanout.json (no new measurement)."""
    import json
    import sys

    path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1] / "out/fanout.json")
    data = json.loads(path.read_text())
    path.with_suffix(".md").write_text(markdown(data["meta"], data["results"]))
    chart(data["meta"], data["results"], path.with_suffix(".png"))


if __name__ == "__main__":
    main()
