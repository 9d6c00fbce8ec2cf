"""make bench-ratio's arithmetic and its mixed load plan (bench/fanout/ratio.py, loadgen.py)."""

from __future__ import annotations

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
