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
            "app": [
                _cell("connect", seconds=4.2, connections=800),
                _cell("run", rolls_per_s=99.0, p50_ms=9.0, p99_ms=30.0, lost_frames=2),
            ],
            "bare": [
                _cell("connect", seconds=1.4, connections=800),
                _cell("run", rolls_per_s=100.0, p50_ms=3.0, p99_ms=12.0),
            ],
        },
    }
    got = ratio.ratios(results)
    assert got["ceiling"] == 0.70 and got["p50"] == 3.00 and got["p99"] == 2.50
    assert got["lost"] == 3 and got["kept_up"] == 99.0
    # The 8x100 cell's 800 sockets: the app's opening time over the bare stack's.
    assert got["connect"] == 3.00 and got["connect_sockets"] == 800
    line = ratio.last_lines(got, 60.0, 0.5).splitlines()[-1]
    assert line == (
        "fanout ratio: ceiling 0.70× bare; 8x100 p50 3.00× p99 2.50× bare; connect 800 3.00× "
        "bare; lost 3"
    )


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


def _storm(seconds: float, lost: int = 0, complete: bool = True, **more) -> dict:
    return _cell(
        "storm", seconds=seconds, lost_frames=lost, complete=complete, sockets=1000,
        open_s=1.0, listen_after_kill_s=1.1, failed=0, retried=0, failed_attempts=0,
        replayed_frames=2000, missed_delivered=2000, **more,
    )  # fmt: skip


def test_the_storm_figure_is_the_apps_time_back_over_the_bare_stacks_and_its_losses_count():
    storm = {
        "app": [_cell("connect"), _storm(12.0, lost=5)],
        "bare": [_cell("connect"), _storm(1.5)],
    }
    got = ratio.storm_ratios(storm)
    assert got["ratio"] == 8.0 and got["lost"] == 5
    assert got["app"]["missed_delivered"] == 2000
    # Its lost frames add to the other cells' in the last line.
    figures = {**ratio.ratios(_ceiling_and_target(lost=1)), "storm": got}
    line = ratio.last_lines(figures, 60.0, 0.5).splitlines()[-1]
    assert "; storm 8.00× bare; lost 6" in line
    # Alone, the storm's line is its figure and its losses.
    assert ratio.last_lines({"storm": got}, 60.0, 0.5).splitlines()[-1] == (
        "fanout ratio: storm 8.00× bare; lost 5"
    )


def test_a_storm_that_did_not_get_every_socket_back_has_no_ratio():
    """Its seconds are then only how long it waited: no figure to compare."""
    storm = {"app": [_storm(120.0, complete=False)], "bare": [_storm(1.5)]}
    got = ratio.storm_ratios(storm)
    assert got["ratio"] is None
    assert "storm n/a bare" in ratio.last_lines({"storm": got}, 60.0, 0.5)
    with pytest.raises(RuntimeError):  # a storm skipped (its sockets never opened)
        ratio.storm_ratios({"app": [{"step": "storm", "skipped": "x"}], "bare": []})


def _ceiling_and_target(lost: int = 0) -> dict:
    return {
        "ceiling": {
            "app": [_cell("saturate", rolls_per_s=100.0, lost_frames=lost)],
            "bare": [_cell("saturate", rolls_per_s=200.0)],
        },
        "8x100": {
            stack: [
                _cell("connect", seconds=1.0, connections=800),
                _cell("run", rolls_per_s=100.0, p50_ms=3.0, p99_ms=9.0),
            ]
            for stack in ("app", "bare")
        },
    }


def test_the_storm_plays_after_its_tables_are_connected_and_misses_rolls_it_made():
    plan = ratio.cells({"storm": list(range(1, 126))}, 10.0)
    assert set(plan) == {"storm"}  # only the chosen cells' scenes were built
    connect, storm = plan["storm"]
    assert connect["do"] == "connect" and storm["do"] == "storm"
    assert len(connect["scenes"]) * connect["per_scene"] == 1000
    # The pages miss the last rolls before the restart: they must have been made then.
    assert storm["missed"] == 2 and storm["before"] >= storm["missed"]


def test_only_the_chosen_cells_build_their_scenes_and_the_storm_grows_the_tables():
    assert ratio.scene_groups(["storm"]) == {"storm": 125}
    assert ratio.scene_groups(["history"]) == {"history_fresh": 10, "history": 10}
    every = ratio.scene_groups(list(ratio.CELLS))
    assert {"ceiling", "target", "idle_ceiling", "idle", "storm", "history"} <= set(every)
    # The storm's sockets (old ones closing as new ones open) count in the open files.
    assert ratio.open_files_needed(["storm"]) >= 2000


def test_the_history_cell_alternates_fresh_and_history_windows_in_one_process():
    scenes = {"history_fresh": list(range(1, 11)), "history": list(range(11, 21))}
    newest = {"history": [5000] * 10}
    steps = ratio.cells(scenes, 10.0, newest=newest, history_rounds=3)["history"]
    fresh, history, *windows = steps
    assert (fresh["group"], history["group"]) == ("fresh", "history")
    assert fresh["scenes"] == list(range(1, 11)) and history["newest"] == [5000] * 10
    assert "newest" not in fresh
    assert [(w["do"], w["group"], w["label"]) for w in windows] == [
        ("saturate", "fresh", "fresh#1"), ("saturate", "history", "history#1"),
        ("saturate", "fresh", "fresh#2"), ("saturate", "history", "history#2"),
        ("saturate", "fresh", "fresh#3"), ("saturate", "history", "history#3"),
    ]  # fmt: skip


def _window(label: str, rolls: float, cpu: float) -> dict:
    return _cell("saturate", label=label, rolls_per_s=rolls, server_cpu=[cpu])


def test_the_history_figure_is_the_median_of_its_rounds_with_the_cpu_per_roll():
    history = {
        "app": [
            _cell("connect"),
            _cell("connect"),
            # Rounds of 50%, 90% and 120%: the median is 90%, not the first round's 50%.
            _window("fresh#1", 200.0, 0.8), _window("history#1", 100.0, 0.8),
            _window("fresh#2", 200.0, 0.8), _window("history#2", 180.0, 0.9),
            _window("fresh#3", 100.0, 0.5), _window("history#3", 120.0, 0.6),
        ],
    }  # fmt: skip
    got = ratio.history_ratios(history, 5000)
    assert got["pcts"]["app"] == [50.0, 90.0, 120.0] and got["ceiling_pct"]["app"] == 90.0
    # CPU per roll: 4 ms fresh, 8 ms with history in round 1 (200%), then 5/4 and 5/5 ms.
    assert got["windows"]["app"]["fresh#1"]["cpu_ms_per_roll"] == 4.0
    assert got["windows"]["app"]["history#1"]["cpu_ms_per_roll"] == 8.0
    assert got["cpu_per_roll_pct"]["app"] == 125.0
    line = ratio.last_lines({"history": got}, 60.0, 0.5).splitlines()[-1]
    assert line == "fanout ratio: history ceiling 90.0% of fresh (5000 events per scene)"
    with pytest.raises(RuntimeError):  # no round with both windows measured
        ratio.history_ratios({"app": [_window("fresh#1", 1.0, 0.1)]}, 5000)


def test_a_history_scene_numbers_its_rolls_after_its_newest_seq():
    """The mixed plan names a frame's roll by its seq: a history scene's first roll is the seq
    after its history's end, a fresh scene's is 1."""
    tables = [{"characters": [None], "sessions": [], "users": []}] * 2
    gen = loadgen.LoadGen(
        {"stack": "app", "ports": [], "pids": [], "campaigns": tables, "frame_sample": ""}
    )
    gen.connect_scenes({"scenes": [1, 2], "group": "fresh"})
    gen.connect_scenes({"scenes": [3, 4], "group": "history", "newest": [5000, 4999]})
    assert [s.next_tag for s in gen.groups["fresh"]] == [1, 1]
    assert [s.next_tag for s in gen.groups["history"]] == [5001, 5000]
    assert gen.scenes is gen.groups["history"]


def test_a_socket_that_could_not_reconnect_waits_as_the_page_does():
    """static/js/scene/socket.js: a ceiling doubling from 0.5 s to 4 s, the wait in its upper
    half."""
    assert loadgen.reconnect_delay(0, 0.0) == 0.25 and loadgen.reconnect_delay(0, 1.0) == 0.5
    assert loadgen.reconnect_delay(2, 0.5) == 1.5
    assert loadgen.reconnect_delay(9, 0.0) == 2.0 and loadgen.reconnect_delay(9, 1.0) == 4.0


def test_each_new_step_has_its_progress_line():
    storm = _storm(12.0, lost=5, label="8x125", closes_seen_s=0.1, ready_p50_s=8.0,
                   ready_p99_s=11.0, errors=0, server_cpu=[0.7], machine_cpu=1.2)  # fmt: skip
    assert "1000 sockets" in ratio.brief(storm) and "lost 5" in ratio.brief(storm)
    assert "NOT complete" in ratio.brief({**storm, "complete": False})
