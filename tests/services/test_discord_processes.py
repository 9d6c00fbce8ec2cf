"""The Discord mirror across two daphne processes on one PostgreSQL, each with its own sender
thread (issue 46): chat lines said just before both processes are killed (SIGKILL) are each
posted after they start again, in order, none twice unless its request was in flight at the
kill; and a public roll's card goes while a blind roll's dice never do."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.services.live import LiveTable, last_line
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.services

MIRROR = """
from tabletop.campaigns.models import Campaign
from tabletop.discord import actions, webhooks

campaign = Campaign.objects.get(name="Vault")
actions.mirror_set(
    campaign=campaign, actor=campaign.gm, webhook=webhooks.parse("{url}"),
    sends=["chat", "rolls", "reveals"],
)
print("mirror on")
"""

LINES = """
from django.contrib.auth import get_user_model
from tabletop.scenes import actions
from tabletop.scenes.models import Scene

alice = get_user_model().objects.get(username="alice")
scene = Scene.objects.select_related("campaign").get(pk={scene})
for n in range(3):
    actions.chat(scene=scene, actor=alice, text=f"line {n}", to=[])
"""

PENDING = """
from tabletop.outbox.models import Outgoing
print(Outgoing.objects.filter(channel="discord", sent_at=None, dropped_at=None).count())
"""

BLIND_TOTALS = """
import json
from tabletop.scenes.models import SceneEvent

print(json.dumps([e.secret["result"]["total"] for e in SceneEvent.objects.filter(
    kind="roll", audience="blind")]))
"""


def said(fake: FakeDiscord) -> list[tuple[str, float]]:
    """Each chat line Discord took, with when its request arrived."""
    return [
        (embed.get("description", ""), request.at)
        for request in fake.posts()
        for embed in request.body.get("embeds", ())
        if embed.get("description", "").startswith("line ")
    ]


async def _all_posted(server, fake: FakeDiscord, timeout: float) -> None:
    """Until the three lines arrived and nothing waits in the outbox (a post in flight at the
    kill is held by the dead process's claim for up to CLAIM_SECONDS, 30, then sent again)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len({text for text, _ in said(fake)}) == 3:
            pending = int(last_line(await asyncio.to_thread(server.shell, PENDING)))
            if pending == 0:
                await asyncio.sleep(2)  # a pass more of each sender: nothing else goes
                return
        await asyncio.sleep(0.5)
    raise AssertionError(f"not all posted: {said(fake)}")


async def _table(daphnes, fake: FakeDiscord, tables: list) -> tuple:
    a = daphnes.start(OUTBOX_SENDER="true", DISCORD_API_BASE=fake.base)
    b, table = await asyncio.gather(
        asyncio.to_thread(daphnes.another, a), asyncio.to_thread(LiveTable.create, a)
    )
    tables.append(table)
    _, _, url = fake.webhook()
    assert "mirror on" in await asyncio.to_thread(a.shell, MIRROR.replace("{url}", url))
    return a, b, table


async def test_lines_said_while_both_were_down_go_exactly_once_in_order(daphnes, tables):
    with FakeDiscord() as fake:
        a, b, table = await _table(daphnes, fake, tables)
        a.kill()
        b.kill()
        await asyncio.to_thread(a.shell, LINES.replace("{scene}", str(table.scene_id)))
        await asyncio.gather(asyncio.to_thread(a.restart), asyncio.to_thread(b.restart))
        await _all_posted(a, fake, 40)
        assert [text for text, _ in said(fake)] == ["line 0", "line 1", "line 2"]


async def test_lines_said_just_before_a_kill_in_flight_go_again_only_if_in_flight(daphnes, tables):
    with FakeDiscord() as fake:
        fake.delay = 2.0  # each request a long while in flight
        a, b, table = await _table(daphnes, fake, tables)
        alice = await table.join("alice", a)
        await alice.roll("1d1000+100000", mode="blind")
        await alice.roll("1d6")
        cids = [await alice.command(command="chat", text=f"line {n}") for n in range(3)]
        for cid in cids:
            await alice.answer(cid)
        deadline = time.monotonic() + 15
        while fake.arrivals == len(fake.requests) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert fake.arrivals > len(fake.requests), "no request in flight to kill"
        a.kill()
        b.kill()
        killed_at = time.time()
        await asyncio.gather(asyncio.to_thread(a.restart), asyncio.to_thread(b.restart))
        await _all_posted(a, fake, 75)

        lines = said(fake)
        texts = [text for text, _ in lines]
        firsts = sorted(set(texts), key=texts.index)
        assert firsts == ["line 0", "line 1", "line 2"]  # each, in order
        in_flight = {at for _, at in lines if at <= killed_at}
        for text in set(texts):
            arrivals = [at for t, at in lines if t == text]
            if len(arrivals) > 1:  # only a line whose request was in flight at the kill
                assert len(arrivals) == 2 and arrivals[0] in in_flight, (text, arrivals)
        sent = "\n".join(fake.bodies())
        blind = json.loads(last_line(await asyncio.to_thread(a.shell, BLIND_TOTALS)))
        assert blind and str(blind[0]) not in sent and "100000" not in sent
        assert "made a hidden roll" in sent and "1d6" in sent
