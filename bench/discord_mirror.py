"""A roll's latency with the campaign's Discord mirror on, pointed at a slow Discord, against
the mirror off and on with a quick Discord, side by side (`python -m bench.discord_mirror`;
bench/README.md, "Discord mirror"): a scene never waits on Discord.

One daphne process (DEBUG off, SQLite, its sender thread on) and a fake Discord on loopback
(tests/support/fake_discord.py) that answers every request after ``BENCH_DISCORD_DELAY``
seconds (2) in the slow rounds and at once in the quick ones. The GM's socket makes
``BENCH_ROLLS`` (100) public rolls a round, one at a time every ``BENCH_GAP`` seconds (0.05),
timing each from the command sent to its answer; rounds go off, slow, quick, quick, slow, off,
``BENCH_ROUNDS`` (2) times. Slow against quick is what Discord's slowness costs a roll; on
against off is what the mirror's own work costs (every roll read by its durable reader in the
sender thread of the same process, and posted, batched, while the next rolls are made). The
Markdown report goes to bench/out/discord_mirror.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).parent / "out"

MIRROR_ON = """
from tabletop.campaigns.models import Campaign
from tabletop.discord import actions, webhooks

campaign = Campaign.objects.get(name="Vault")
actions.mirror_set(campaign=campaign, actor=campaign.gm, webhook=webhooks.parse("{url}"),
                   sends=["chat", "rolls", "spends", "reveals", "scenes"])
"""
MIRROR_OFF = """
from tabletop.campaigns.models import Campaign
from tabletop.discord import actions

campaign = Campaign.objects.get(name="Vault")
actions.mirror_off(campaign=campaign, actor=campaign.gm)
"""


#: The mirror off; on, every Discord answer slow; on, Discord answering at once.
PHASES = {
    "off": "mirror off",
    "slow": "mirror on, Discord slow",
    "fast": "mirror on, Discord quick",
}


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _round(client, rolls: int, gap: float) -> list[float]:
    took = []
    for _ in range(rolls):
        started = time.monotonic()
        cid = await client.command(
            command="roll", roll_kind="expression", expression="1d20+5", mode="public"
        )
        # The client notes when each answer arrived (time.monotonic()); waited for finely.
        while cid not in client.answered_at:
            if time.monotonic() - started > 30:
                raise RuntimeError(f"no answer to {cid}")
            await asyncio.sleep(0.0005)
        took.append((client.answered_at[cid] - started) * 1000)
        await asyncio.sleep(gap)
    return took


async def _play(server, fake, rounds: int, rolls: int, gap: float) -> dict[str, list[float]]:
    from tests.services.live import LiveTable

    table = LiveTable.create(server)
    _, _, url = fake.webhook()
    client = await table.join("gm")
    await _round(client, 20, gap)  # warm up: templates, connections, caches
    times: dict[str, list[float]] = {phase: [] for phase in PHASES}
    slow = fake.delay
    try:
        for _ in range(rounds):
            for phase in ("off", "slow", "fast", "fast", "slow", "off"):
                fake.delay = slow if phase == "slow" else 0.0
                code = MIRROR_OFF if phase == "off" else MIRROR_ON.replace("{url}", url)
                await asyncio.to_thread(server.shell, code)
                times[phase] += await _round(client, rolls, gap)
    finally:
        await table.close()
    return times


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.servers import start_daphne
    from tests.support.fake_discord import FakeDiscord

    rolls = int(os.environ.get("BENCH_ROLLS", "100"))
    rounds = int(os.environ.get("BENCH_ROUNDS", "2"))
    gap = float(os.environ.get("BENCH_GAP", "0.05"))
    delay = float(os.environ.get("BENCH_DISCORD_DELAY", "2"))
    with tempfile.TemporaryDirectory() as directory, FakeDiscord() as fake:
        fake.delay = delay
        env = {
            "DEBUG": "false",
            "LOCAL_HTTP": "true",
            "SECRET_KEY": "bench-" + "k" * 60,
            "OUTBOX_SENDER": "true",
            "DISCORD_API_BASE": fake.base,
            "LOG_LEVEL": "WARNING",
        }
        # DEBUG off serves the hashed static files, as `make run` does: collected first.
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=Path(__file__).resolve().parents[1],
            env={**os.environ, **env},
            check=True,
        )
        server = start_daphne(Path(directory), env)
        load = os.getloadavg()[0]
        try:
            times = asyncio.run(_play(server, fake, rounds, rolls, gap))
        finally:
            server.stop()
        posts = len(fake.posts())
        embeds = sum(len(p.body.get("embeds", ())) for p in fake.posts())
    rows = []
    for phase, label in PHASES.items():
        values = times[phase]
        rows.append(
            f"| {label} | {len(values)} | {statistics.median(values):.1f} | "
            f"{_quantile(values, 0.9):.1f} | {_quantile(values, 0.99):.1f} |"
        )
    ratio = statistics.median(times["slow"]) / statistics.median(times["off"])
    slow_fast = statistics.median(times["slow"]) / statistics.median(times["fast"])
    report = "\n".join(
        [
            "# A roll's latency: the Discord mirror off, on with a slow Discord, on with a quick",
            "",
            f"{time.strftime('%Y-%m-%d %H:%M')}, Python {platform.python_version()}, "
            f"{os.cpu_count()} cores, load average {load:.1f} before; every Discord answer "
            f"after {delay:g} s when slow; rounds off, slow, quick, quick, slow, off x {rounds}, "
            f"{rolls} rolls each, "
            f"one every {gap * 1000:.0f} ms; command sent to its answer, ms.",
            "",
            "| | rolls | p50 | p90 | p99 |",
            "|---|---|---|---|---|",
            *rows,
            "",
            f"p50 slow / off: {ratio:.2f}; slow / quick: {slow_fast:.2f}. Discord took {posts} "
            f"posts holding {embeds} embeds while the rolls were made (batched up to 10 a "
            "post; what still waited when a round turned the mirror off was dropped, as "
            "turning it off does).",
            "",
        ]
    )
    OUT.mkdir(exist_ok=True)
    (OUT / "discord_mirror.md").write_text(report)
    (OUT / "discord_mirror.json").write_text(json.dumps(times))
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
