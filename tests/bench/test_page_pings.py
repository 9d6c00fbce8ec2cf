"""The idle cell's sockets ping as the page does (bench/fanout/loadgen.py, scene/latency.js)."""

from __future__ import annotations

import re
from pathlib import Path

from bench.fanout import loadgen

LATENCY_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "scene" / "latency.js"


def test_the_load_generator_pings_at_the_page_s_period():
    page = re.search(r"export const PING_EVERY_MS = (\d+);", LATENCY_JS.read_text())
    assert page is not None, "latency.js names its period PING_EVERY_MS"
    assert int(page.group(1)) == loadgen.PING_EVERY * 1000
