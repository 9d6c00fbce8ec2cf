"""The renders of one roll's broadcast, in CPU time: what lever 2 of issue 37 (cards that cost
little) is about, measured apart from the socket and the database.

Run with `python -m bench.card_renders`. A fresh SQLite table (``roll_costs.make_table``: a
GM, two players, a campaign, an open scene) gets one dice-box roll, ``2d6+7`` in public, as
the fan-out bench rolls it. Then the broadcast's renders are made again and again, as
``deliver.broadcast_event`` makes them: one ``Renders`` per broadcast and a frame for each
viewer class (the GM, the actor, every other player). The figure is the thread's CPU time per
broadcast (not wall time: a busy box slows it less), best of ``ROUNDS`` rounds of ``CALLS``.
Run it from each tree to compare them (bench/README.md, "Lever 2, measured").
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 7
CALLS = 2000


def main() -> int:
    from bench.roll_costs import make_table, setup_django

    with tempfile.TemporaryDirectory(prefix="card_renders_") as tmp:
        setup_django(Path(tmp) / "db.sqlite3")
        from django.db import connection
        from django.test.utils import teardown_test_environment

        teardown_test_environment()  # no template_rendered signal: a live server sends none
        from tabletop.scenes import actions
        from tabletop.scenes.audiences import Viewer
        from tabletop.scenes.models import SceneEvent
        from tabletop.scenes.render import Renders, render_frame

        table = make_table("two_dice")
        fields = {"roll_kind": "expression", "expression": "2d6+7", "mode": "public"}
        fields["character"] = ""  # the dice box's own roll, not a character's
        actions.run_command(command="roll", scene_id=table.scene.pk, user=table.alice, data=fields)
        event = (
            SceneEvent.objects.select_related("scene__campaign")
            .filter(scene=table.scene, kind="roll")
            .get()
        )
        viewers = [
            Viewer(table.scene.campaign.gm_id, True),
            Viewer(table.alice.pk, False),
            Viewer(None, False),
        ]

        def broadcast() -> int:
            renders = Renders(event.scene)
            return sum(len(render_frame(event, v, live=True, renders=renders)) for v in viewers)

        frame_bytes = broadcast()
        for _ in range(CALLS // 10):  # templates loaded, caches filled
            broadcast()
        rounds = []
        for _ in range(ROUNDS):
            started = time.thread_time()
            for _ in range(CALLS):
                broadcast()
            rounds.append((time.thread_time() - started) / CALLS * 1000)
        connection.close()
    print(
        f"card renders: {min(rounds):.3f} ms CPU per broadcast (best of {ROUNDS} rounds of "
        f"{CALLS}; rounds {', '.join(f'{r:.3f}' for r in rounds)}); its three frames "
        f"{frame_bytes} bytes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
