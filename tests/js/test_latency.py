"""A page's own round trip (static/js/scene/latency.js): the ping it sends, the round trip a
pong gives, and the word the presence list shows for it, which must be the server's word for
everyone else's (tabletop/scenes/selectors.py, Present.speed)."""

from __future__ import annotations

import pytest

from tabletop.scenes.selectors import Present
from tests.support.node import needs_node, one, run

pytestmark = needs_node


def test_the_first_ping_has_no_round_trip_to_report():
    assert one("latency.js", "return m.pingFrame(c, null);", 1234.5) == {
        "command": "ping",
        "t": 1234.5,
    }


@pytest.mark.parametrize("rtt", [0, 1, 87, 60_000])
def test_later_pings_report_the_last_round_trip_zero_included(rtt):
    frame = one("latency.js", "return m.pingFrame(c[0], c[1]);", [99.25, rtt])
    assert frame == {"command": "ping", "t": 99.25, "rtt": rtt}


@pytest.mark.parametrize(
    ("sent_at", "now", "rtt"),
    [
        (1000, 1087, 87),
        (1000.2, 1012.7, 13),  # half a millisecond rounds up
        (1000.3, 1012.7, 12),
        (0, 42.4, 42),  # performance.now() starts at 0: a ping at load is still ours
        (1000, 1000, 0),
        (1000, 990, 0),  # never below zero
    ],
)
def test_a_pong_gives_the_round_trip_in_whole_milliseconds(sent_at, now, rtt):
    assert one("latency.js", "return m.roundTrip(c[0], c[1]);", [sent_at, now]) == rtt


@pytest.mark.parametrize("sent_at", ["1000", None, [], {}, True])
def test_a_pong_without_a_number_measures_nothing(sent_at):
    assert one("latency.js", "return m.roundTrip(c, 2000);", sent_at) is None


def test_the_pages_word_for_its_own_round_trip_is_the_servers_word():
    trips = [0, 1, 99, 149, 150, 151, 399, 400, 401, 1000, 60_000]
    words = run("latency.js", "return m.speedOf(c);", trips)
    assert words == [Present(pk=1, name="gm", rtt_ms=ms).speed for ms in trips]
    assert set(words) == {"good", "fair", "slow"}
