"""One log line when a service stops answering and one when it answers again, with how many
calls failed meanwhile, instead of a traceback per frame (a 10 s Redis outage wrote 70 to 440
per process); and a library that logs a traceback every second of it says so once a minute."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tabletop.scenes import outage
from tabletop.scenes.outage import OncePerMinute, Outage


def test_an_outage_is_two_log_lines_whatever_fails_in_it(caplog):
    caplog.set_level(logging.INFO, logger="tabletop.scenes.outage")
    service = Outage("The channel layer (Redis)", "events come from the database")
    recovered = []
    service.on_recovery.append(lambda: recovered.append(True))
    for _ in range(300):
        service.failed(ConnectionError("Connection refused"))
    assert service.down
    assert not service.worth_trying()  # skipped at once (the next probe is a second away)
    service.skipped()
    service.answered()
    service.answered()  # up already: nothing to say
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert "not answering (ConnectionError: Connection refused)" in lines[0]
    assert "answers again after" in lines[1] and "301 calls failed or skipped" in lines[1]
    assert recovered == [True]
    assert not service.down and service.worth_trying()


async def test_a_probe_notices_the_return_when_nothing_else_calls(monkeypatch):
    monkeypatch.setattr(outage, "PROBE_EVERY_SECONDS", 0.05)
    service = Outage("Redis", "events come from the database")
    answers = iter([False, False, True])
    asked = []

    async def probe() -> bool:
        asked.append(1)
        return next(answers)

    service.probe = probe
    service.failed("stalled")
    for _ in range(100):
        if not service.down:
            break
        await asyncio.sleep(0.02)
    assert not service.down
    assert len(asked) == 3


@pytest.mark.parametrize("times", [1, 50])
def test_a_repeated_library_traceback_is_let_through_once_a_minute(times):
    quieter = OncePerMinute()
    records = [
        logging.LogRecord(
            "channels_redis.pubsub", logging.ERROR, "pubsub.py", 320, "Unexpected", (), None
        )
        for _ in range(times)
    ]
    shown = [quieter.filter(r) for r in records]
    assert shown == [True] + [False] * (times - 1)
    other = logging.LogRecord(
        "channels_redis.pubsub", logging.ERROR, "pubsub.py", 99, "Else", (), None
    )
    assert quieter.filter(other)  # another message is not held back


def test_an_outage_left_by_a_closed_loop_is_probed_again_on_the_next(monkeypatch):
    monkeypatch.setattr(outage, "PROBE_EVERY_SECONDS", 0.01)
    service = Outage("Redis", "events come from the database")

    async def probe() -> bool:
        return True

    async def fail_then_close() -> None:
        service.failed("gone")  # its probe is a task of this loop, which closes now

    service.probe = probe
    asyncio.run(fail_then_close())
    assert service.down

    async def later() -> None:
        service.keep_probing()  # as a skipped send does
        for _ in range(100):
            if not service.down:
                return
            await asyncio.sleep(0.01)

    asyncio.run(later())
    assert not service.down


async def test_after_an_outage_a_scene_s_sockets_catch_up_on_one_read(monkeypatch):
    from tabletop.scenes import beats, command_threads

    reads = []

    async def newest(func, /, **kwargs):
        reads.append(kwargs["scene_id"])
        return 9

    class Seat:
        def __init__(self, joins: bool) -> None:
            self.joins, self.caught_up = joins, None

        async def join_groups(self) -> bool:
            return self.joins

        async def catch_up_now(self, newest=None) -> None:
            self.caught_up = newest

    monkeypatch.setattr(command_threads, "run", newest)
    beat = type("Beat", (), {})()
    beat.scene_id, beat.sockets = 5, {Seat(True), Seat(True), Seat(False)}
    await beats._rejoin(beat)
    assert reads == [5]  # once for the scene, not once per socket
    assert sorted(str(s.caught_up) for s in beat.sockets) == ["9", "9", "None"]
