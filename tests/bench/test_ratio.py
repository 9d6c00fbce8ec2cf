"""make bench-ratio's arithmetic and its mixed load plan (bench/fanout/ratio.py, loadgen.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from bench.fanout import loadgen, ratio


def _cell(step: str, **figures) -> dict:
    return {"step": step, "lost_frames": 0, "errors": 0, **figures}


def test_the_ratios_compare_the_app_with_the_bare_stack_of_the_same_run():
    results = {
        "ceiling": {
            "app": [_cell("connect"), _cell("saturate", rolls_per_s=140.0, lost_frames=1)],
            "bare": [_cell("connect"), _cell("saturate", rolls_per_s=200.0)],
        },
        "8x100": {
            "app": [_cell("run", rolls_per_s=99.0, p50_ms=9.0, p99_ms=30.0, lost_frames=2)],
            "bare": [_cell("run", rolls_per_s=100.0, p50_ms=3.0, p99_ms=12.0)],
        },
    }
    got = ratio.ratios(results)
    assert got["ceiling"] == 0.70 and got["p50"] == 3.00 and got["p99"] == 2.50
    assert got["lost"] == 3 and got["kept_up"] == 99.0


def test_a_cell_that_was_not_measured_is_an_error_not_a_figure():
    results = {"ceiling": {"app": [{"step": "saturate", "skipped": "x"}], "bare": []}}
    with pytest.raises(RuntimeError):
        ratio.ratios(results)


def test_without_the_idle_cell_no_idle_scenes_are_needed():
    """BENCH_RATIO_CELLS=ceiling,8x100 builds no idle scenes: the plan has no idle cell (it
    used to look up their scenes anyway and stop with a KeyError)."""
    plan = ratio.cells({"ceiling": [1, 2], "target": [3, 4]}, 10.0)
    assert set(plan) == {"ceiling", "8x100"}
    assert plan["ceiling"][0]["scenes"] == [1, 2] and plan["8x100"][0]["scenes"] == [3, 4]


def test_the_idle_cell_plays_its_ceiling_pairs_round_by_round_with_the_idle_tables_reopened():
    scenes = {
        "ceiling": [],
        "target": [],
        "idle_ceiling": list(range(10)),
        "idle": list(range(100, 300)),
    }
    steps = ratio.cells(scenes, 10.0, 20.0, rounds=3, ceiling_window=8.0)["idle"]
    plays = [(s["do"], s.get("label")) for s in steps]
    assert plays[0] == ("connect", "8x10")
    assert plays[1:10] == [
        ("saturate", "8x10#1"), ("idle", "idle100#1"), ("saturate", "8x10+idle100#1"),
        ("idle_close", "idle100#1"),
        ("saturate", "8x10#2"), ("idle", "idle100#2"), ("saturate", "8x10+idle100#2"),
        ("idle_close", "idle100#2"),
        ("saturate", "8x10#3"),
    ]  # fmt: skip
    # The last round's idle tables stay and grow to 200 for the second CPU window.
    assert plays[-3:] == [
        ("idle", "idle100#3"),
        ("saturate", "8x10+idle100#3"),
        ("idle", "idle200"),
    ]
    assert [len(s["scenes"]) for s in steps if s["do"] == "idle"] == [100, 100, 100, 200]
    assert all(s["duration"] == 8.0 for s in steps if s["do"] == "saturate")
    closed = {"step": "idle_close", "label": "idle100#1", "closed": 800, "seconds": 1.2}
    assert "800 sockets" in ratio.brief(closed)  # each step's result has its progress line


def _idle_stack(pairs: list[tuple[float, float]], cpus: list[float], cpu200: float) -> list:
    played = [_cell("connect", label="8x10")]
    for r, ((without, with_), cpu) in enumerate(zip(pairs, cpus, strict=True), start=1):
        played += [
            _cell("saturate", label=f"8x10#{r}", rolls_per_s=without, server_cpu=[0.8 + r / 10]),
            _cell("idle", label=f"idle100#{r}", server_cpu=[cpu]),
            _cell("saturate", label=f"8x10+idle100#{r}", rolls_per_s=with_),
        ]
    return [*played, _cell("idle", label="idle200", server_cpu=[cpu200])]


def test_the_idle_ceiling_change_is_the_median_of_its_rounds_pairs():
    idle = {
        # Rounds of -20%, +10% and -4%: the median pair is -4%, not the first pair's -20%.
        "app": _idle_stack([(200.0, 160.0), (150.0, 165.0), (200.0, 192.0)], [0.2, 0.1, 0.3], 0.5),
        "bare": _idle_stack([(400.0, 300.0), (400.0, 380.0), (400.0, 400.0)], [0.1, 0.1, 0.1], 0.2),
    }
    got = ratio.idle_ratios(idle)
    assert got["ceiling_change_pcts"]["app"] == [-20.0, 10.0, -4.0]
    assert got["ceiling_change_pct"] == {"app": -4.0, "bare": -5.0}
    assert got["cores"]["app"] == {"100": 0.2, "200": 0.5}  # 100 tables: the rounds' median
    assert got["cpu_ratio"] == {"100": 2.0, "200": 2.5}
    line = ratio.last_lines({"idle": got}, 300.0, 0.5).splitlines()[-1]
    # The idle tables' CPU against the ceiling's (the rounds' median: 1.0 of a core).
    assert got["share_of_ceiling_cpu_pct"] == {"app": 20.0, "bare": 10.0}
    assert line.endswith(
        "idle CPU 100 tables 2.0× bare, 200 tables 2.5× bare; ceiling with 100 idle tables "
        "-4.0% (their CPU 20.0% of the ceiling's)"
    )


def test_the_mix_rolls_each_kind_in_turn_and_a_character_check_for_the_roller():
    table = {"characters": [None, 11, 12], "sessions": [], "users": []}
    gen = loadgen.LoadGen(
        {"stack": "app", "ports": [], "pids": [], "campaigns": [table], "mix": True,
         "frame_sample": "<p>Dice: 2d6 + 1</p>"}
    )  # fmt: skip
    scene = loadgen.Scene(1, 0, table)
    gm, player = (loadgen.Client(index=i, scene=scene, ws=None) for i in (0, 2))
    frames = [json.loads(gen.roll_text(scene, tag, player)) for tag in range(4, 8)]
    assert [f["mode"] for f in frames] == ["public", "public", "gm", "blind"]
    assert frames[0]["roll_kind"] == "expression" and frames[1]["roll_kind"] == "two_dice"
    assert frames[1]["character"] == 12  # the roller's own character
    assert json.loads(gen.roll_text(scene, 5, gm))["character"] == 11  # the GM: a player's
    # A stub has no dice: the mix names a frame's roll by its seq.
    assert gen.tag_pattern.search('<article id="event-42" class="event">').group(1) == "42"


async def test_closing_the_idle_tables_closes_every_socket_and_stops_its_pings():
    table = {"characters": [None], "sessions": [], "users": []}
    gen = loadgen.LoadGen(
        {"stack": "app", "ports": [], "pids": [], "campaigns": [table], "frame_sample": ""}
    )

    class Socket:
        closed = False

        async def close(self) -> None:
            self.closed = True

    scenes = [loadgen.Scene(n, n, table) for n in (1, 2)]
    pinging = []
    for scene in scenes:
        for index in range(3):
            client = loadgen.Client(index=index, scene=scene, ws=Socket())
            client.pinger = asyncio.ensure_future(asyncio.sleep(60))
            pinging.append(client)
            scene.clients.append(client)
    gen.idle_scenes = scenes
    result = await gen.step_idle_close({"label": "idle100#1", "settle": 0})
    await asyncio.sleep(0)
    assert result["closed"] == 6 and all(s.clients == [] for s in scenes)
    assert all(c.ws.closed and c.pinger.cancelled() for c in pinging)
