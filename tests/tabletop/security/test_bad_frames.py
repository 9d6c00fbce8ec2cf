"""Frame size caps end to end: daphne's sits just above the app's, on every launch of daphne.

The consumer refuses a frame over ``MAX_FRAME_BYTES`` with an error frame and keeps the socket.
daphne's own cap (``--websocket-max-message-size``, 1 MiB by default) drops the connection with
no error frame, so it is set just above the app's (``DAPHNE_MAX_MESSAGE_BYTES``): what a client
sees for a frame between the two is the app's clear refusal, and daphne never buffers a megabyte
for a frame the app would refuse anyway. Depth, type and size of frames through the ASGI
stack are fuzzed in test_bad_input.py; here a real daphne serves them.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tabletop.scenes.consumers import DAPHNE_MAX_MESSAGE_BYTES, MAX_DEPTH, MAX_FRAME_BYTES
from tests.servers import Server, start_daphne
from tests.services.live import ERROR_FRAME, EVENT_FRAME, LiveTable, last_line

ROOT = Path(__file__).resolve().parents[3]
FLAG = "--websocket-max-message-size"
#: Every file that starts daphne (one command line each); the image's own CMD too, for a bare
#: ``docker run`` (docker-compose.yml's ``web`` replaces it).
LAUNCHES = [
    "Makefile",
    "docker-compose.yml",
    "deploy/Dockerfile",
    "tests/servers.py",
    "bench/fanout/servers.py",
]
ROLL = {"command": "roll", "roll_kind": "expression", "expression": "1d6", "mode": "public"}


def test_the_caps_are_in_order():
    assert MAX_DEPTH >= 8  # the commands' own forms nest a few levels at most
    assert MAX_FRAME_BYTES < DAPHNE_MAX_MESSAGE_BYTES < 1024 * 1024  # under daphne's default


@pytest.mark.parametrize("path", LAUNCHES)
def test_every_daphne_launch_caps_messages_at_the_one_number(path):
    text = (ROOT / path).read_text()
    values = [int(v) for v in re.findall(rf"{FLAG}[\"',\s]+(\d+)", text)]
    assert values == [DAPHNE_MAX_MESSAGE_BYTES], (
        f"{path}: every daphne launch needs {FLAG} {DAPHNE_MAX_MESSAGE_BYTES} "
        "(consumers.DAPHNE_MAX_MESSAGE_BYTES)"
    )


def test_the_makefile_run_target_serves_with_the_cap():
    makefile = (ROOT / "Makefile").read_text()
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    (daphne,) = [line for line in run.splitlines() if "daphne" in line]
    assert f"{FLAG} {DAPHNE_MAX_MESSAGE_BYTES} " in daphne


PRESENT = """
from tabletop.scenes.models import Presence
print(Presence.objects.filter(scene_id={scene}).count())
"""


async def frames_until(socket, pattern: re.Pattern[str]) -> str:
    """The first frame matching ``pattern`` (presence updates and the like are skipped)."""
    async with asyncio.timeout(10):
        while True:
            frame = await socket.recv()
            if pattern.search(frame):
                return frame


@pytest.fixture
def server(tmp_path):
    server = start_daphne(tmp_path)  # SQLite in tmp_path, in-memory layer: no services needed
    yield server
    server.stop()


async def test_over_real_daphne_the_app_refuses_what_daphne_lets_through(server: Server):
    table = await asyncio.to_thread(LiveTable.create, server)
    async with connect(
        f"{server.ws_url}/ws/scenes/{table.scene_id}/",
        origin=server.url,
        additional_headers={"Cookie": f"sessionid={table.cookies['alice']}"},
        ping_interval=None,
    ) as socket:
        await socket.send(json.dumps({"command": "hello", "last_seq": 0}))
        await frames_until(socket, EVENT_FRAME)  # the scene's first event, replayed

        # Between the app's cap and daphne's: the app's refusal, and the socket stays.
        for size in (MAX_FRAME_BYTES + 1, DAPHNE_MAX_MESSAGE_BYTES):
            await socket.send("x" * size)
            refused = await frames_until(socket, ERROR_FRAME)
            assert f"frames must be text under {MAX_FRAME_BYTES} B" in refused
        # The review's frame over the wire: 2 KB of JSON nested 1,000 deep.
        await socket.send("[" * 1000 + "]" * 1000)
        assert "nested too deeply" in await frames_until(socket, ERROR_FRAME)
        await socket.send(json.dumps(ROLL))
        await frames_until(socket, EVENT_FRAME)  # still served

        # Over daphne's cap: daphne drops the connection (autobahn's failByDrop: no close frame,
        # so the client sees 1006) as soon as the frame's header says how long it is.
        await socket.send("x" * (DAPHNE_MAX_MESSAGE_BYTES + 1))
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(10):
                while True:
                    await socket.recv()
        assert closed.value.rcvd is None or closed.value.rcvd.code == 1009

    # daphne told the app the socket closed: disconnect ran, nobody is left at the table.
    for _ in range(20):
        count = await asyncio.to_thread(server.shell, PRESENT.format(scene=table.scene_id))
        if int(last_line(count)) == 0:
            break
        await asyncio.sleep(0.2)
    assert int(last_line(count)) == 0, server.log()[-2000:]
