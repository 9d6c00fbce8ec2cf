"""A cancel window's countdown (static/js/scene/countdowns.js): the seconds left, the bar between
the window's start and end, its words, and when the window has closed, from the
data-opens-at / data-closes-at texts the server renders (datetime.isoformat())."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.node import needs_node, one

pytestmark = needs_node

OPENS = datetime(2025, 3, 1, 20, 0, 0, tzinfo=UTC)
WINDOW = timedelta(seconds=10)
CLOSES = OPENS + WINDOW
BODY = "return m.countdownAt(c.closes, c.opens, c.now);"


def at(now: datetime, closes: str | None = None, opens: str | None = None) -> dict:
    case = {
        "closes": CLOSES.isoformat() if closes is None else closes,
        "opens": OPENS.isoformat() if opens is None else opens,
        "now": now.timestamp() * 1000,
    }
    return one("countdowns.js", BODY, case)


def test_half_way_through_the_window():
    assert at(OPENS + timedelta(seconds=5)) == {
        "left": 5,
        "bar": {"max": 10, "value": 5, "text": "5 seconds left"},
        "closed": False,
    }


@pytest.mark.parametrize(
    ("elapsed_ms", "left"),
    [(0, 10), (1, 10), (999, 10), (1000, 9), (8999, 2), (9000, 1), (9001, 1), (9999, 1)],
)
def test_seconds_left_are_rounded_up(elapsed_ms, left):
    # "1" until the very end: the last second is not shown as 0 while the cancel still works.
    shown = at(OPENS + timedelta(milliseconds=elapsed_ms))
    assert shown["left"] == left and shown["closed"] is False
    assert shown["bar"]["text"] == f"{left} second{'' if left == 1 else 's'} left"
    assert shown["bar"]["value"] == pytest.approx((10_000 - elapsed_ms) / 1000)


@pytest.mark.parametrize("late", [timedelta(0), timedelta(milliseconds=1), timedelta(minutes=3)])
def test_at_and_after_the_end_it_is_closed_with_an_empty_bar(late):
    assert at(CLOSES + late) == {
        "left": 0,
        "bar": {"max": 10, "value": 0, "text": "0 seconds left"},
        "closed": True,
    }


def test_a_clock_behind_the_servers_shows_a_full_bar_not_an_overfull_one():
    shown = at(OPENS - timedelta(seconds=5))
    assert shown["left"] == 15
    assert shown["bar"]["max"] == 10 and shown["bar"]["value"] == 10


def test_without_a_start_the_bar_is_full_until_the_end():
    # A check's reaction window renders only data-closes-at: the bar spans what is left.
    shown = at(CLOSES - timedelta(milliseconds=2500), opens="")
    assert shown["left"] == 3
    assert shown["bar"]["max"] == shown["bar"]["value"] == 2.5


def test_without_a_start_and_closed_the_bar_is_empty_not_divided_by_zero():
    shown = at(CLOSES + timedelta(seconds=1), opens="")
    assert shown["closed"] is True
    assert shown["bar"]["value"] == 0 and shown["bar"]["max"] > 0


def test_a_start_after_the_end_is_read_as_no_start():
    shown = at(CLOSES - timedelta(seconds=4), opens=(CLOSES + timedelta(seconds=1)).isoformat())
    assert shown["bar"]["max"] == shown["bar"]["value"] == 4


def test_no_opens_attribute_at_all():
    case = {"closes": CLOSES.isoformat(), "opens": None, "now": OPENS.timestamp() * 1000 + 7000}
    shown = one("countdowns.js", BODY, case)
    assert shown["left"] == 3 and shown["bar"]["max"] == 3


def test_an_end_that_is_no_date_has_no_bar_and_never_closes():
    shown = at(OPENS, closes="a few")
    assert shown["bar"] is None and shown["closed"] is False


def test_the_servers_isoformat_with_microseconds_is_read():
    opens = datetime(2025, 3, 1, 20, 0, 0, 123456, tzinfo=UTC)
    closes = opens + timedelta(seconds=30)
    shown = at(opens + timedelta(seconds=10), closes=closes.isoformat(), opens=opens.isoformat())
    assert shown["left"] == 20
    assert shown["bar"]["max"] == 30 and shown["bar"]["value"] == pytest.approx(20, abs=0.002)
