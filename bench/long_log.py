"""A long session's scene page: 5,000 events, the whole log against its last page.

Run with `make bench` (or `python -m bench.long_log`). On a fresh SQLite database a conductor
table plays 5,000 dice-box rolls (one in ten private to the GM); then the scene page is fetched
as a player, the way it is served now (the last ``LOG_PAGE`` entries the player may see, earlier
ones on demand) and the way it was before (every visible card rendered: ``visible_events`` and
``render_card`` for all, the rest of the page as now). Reported: the page's HTML size, the
median time of 5 fetches, and queries. Writes bench/out/long_log.md.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.roll_costs import setup_django

OUT = Path(__file__).parent / "out"
EVENTS = 5_000
FETCHES = 5


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        setup_django(Path(tmp) / "long_log.sqlite3")
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext
        from django.urls import reverse

        from tabletop.scenes import actions, render, views
        from tests.support.dice import Always
        from tests.support.tables import make_table

        table = make_table(system="conductor")
        started = time.monotonic()
        for n in range(EVENTS - 1):  # the scene's opening is the first event
            actions.roll(
                scene=table.scene,
                actor=table.alice,
                roll_kind="expression",
                mode="gm" if n % 10 == 0 else "public",
                data={"expression": "2d6"},
                rng=Always(3),
            )
        print(f"long_log: {EVENTS} events played in {time.monotonic() - started:.0f} s")
        client = Client()
        client.force_login(table.bob)
        url = reverse("scenes:detail", args=[table.scene.pk])

        def measure() -> tuple[int, float, int]:
            client.get(url)  # warm
            times = []
            for _ in range(FETCHES):
                with CaptureQueriesContext(connection) as queries:
                    began = time.perf_counter()
                    body = client.get(url).content
                    times.append(time.perf_counter() - began)
            return len(body), statistics.median(times), len(queries)

        now = measure()
        # Before: every visible card of the log on the page (the view as it was).
        real_page = views.visible_page

        def whole_log(*, scene, viewer, before_seq=None, limit=0):
            return render.visible_events(scene=scene, viewer=viewer), False

        views.visible_page = whole_log
        try:
            before = measure()
        finally:
            views.visible_page = real_page
    rows = [("before: every card", before), (f"now: the last {render.LOG_PAGE}", now)]
    lines = [
        f"# The scene page with {EVENTS:,} events (a player's view)",
        "",
        "| page | HTML | median of 5 fetches | queries |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {size / 1024:,.0f} KiB | {secs * 1000:,.0f} ms | {q} |"
            for name, (size, secs, q) in rows
        ),
        "",
        f"Ratio: HTML {before[0] / now[0]:.1f}× smaller, render {before[1] / now[1]:.1f}× faster.",
    ]
    OUT.mkdir(exist_ok=True)
    (OUT / "long_log.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def run_isolated() -> int:
    """``main`` in its own process (``make bench``), as roll_costs."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-m", "bench.long_log"], cwd=root).returncode


if __name__ == "__main__":
    sys.exit(main())
