"""The table's socket (static/js/scene/socket.js): how soon it reconnects, the header's word
after a close, when the table counts as away, and the guard that keeps the extension's retry
timer from opening a second socket beside the one "Retry now" opened."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one, run

pytestmark = needs_node

DELAY = "return m.reconnectDelay(c.retry, c.random);"
ALMOST_ONE = 0.999999


def delays(random: float, retries: list[int]) -> list[float]:
    return run("socket.js", DELAY, [{"retry": n, "random": random} for n in retries])


def test_the_first_retry_comes_within_half_a_second():
    (soonest,) = delays(0, [0])
    (latest,) = delays(ALMOST_ONE, [0])
    assert 250 <= soonest <= latest < 500


def test_the_wait_doubles_then_stays_under_four_seconds():
    retries = list(range(9))
    soonest = delays(0, retries)
    latest = delays(ALMOST_ONE, retries)
    # Each wait is a point of its ceiling's upper half: no page comes back at once.
    assert soonest[:5] == [250, 500, 1000, 2000, 2000]
    assert all(low == 2000 for low in soonest[4:])
    assert all(low < high < 2 * low for low, high in zip(soonest, latest, strict=True))
    assert max(latest) < 4000


def test_a_long_outage_still_retries_within_four_seconds():
    # 2 ** 1100 is Infinity in JavaScript: the cap must still hold, not turn into NaN.
    assert delays(0, [1100]) == [2000]
    (latest,) = delays(ALMOST_ONE, [1100])
    assert 2000 < latest < 4000


def test_the_jitter_spreads_pages_over_the_upper_half():
    assert delays(0.5, [0, 3]) == [375, 3000]


@pytest.mark.parametrize(
    ("state", "detail", "word"),
    [
        ("open", {"event": {"code": 1006}}, "reconnecting…"),
        ("open", {"event": {"code": 1011}}, "reconnecting…"),
        ("open", {"event": {"code": 1012}}, "reconnecting…"),
        ("open", {"event": {"code": 1013}}, "reconnecting…"),
        # A close the extension does not retry: the page says so rather than "reconnecting…".
        ("open", {"event": {"code": 1000}}, "disconnected"),
        ("open", {"event": {"code": 4003}}, "disconnected"),
        ("error", {"event": {"code": 1001}}, "disconnected"),
        # No close event to read: taken as abnormal, which the extension retries.
        ("open", None, "reconnecting…"),
        ("open", {}, "reconnecting…"),
        # "session ended: log in again" stays: the socket closing after it is no news.
        ("ended", {"event": {"code": 1006}}, None),
        ("ended", {"event": {"code": 1000}}, None),
    ],
)
def test_the_headers_word_after_a_close(state, detail, word):
    body = "return m.closeWord(c.state, c.detail === null ? undefined : c.detail);"
    assert one("socket.js", body, {"state": state, "detail": detail}) == word


def test_retry_now_shows_only_while_the_socket_is_down():
    states = ["closed", "error", "open", "ended", "connecting"]
    shown = run("socket.js", "return m.retryNowShown(c);", states)
    assert dict(zip(states, shown, strict=True)) == {
        "closed": True,
        "error": True,
        "open": False,
        "ended": False,
        "connecting": False,
    }


LIFE = """
const life = m.connectionLife();
return c.map(function (step) {
  if (step === "offline?") { return life.offline(); }
  const said = life[step]();
  return said === undefined ? null : said;
});
"""


def test_the_table_is_away_from_a_close_to_the_next_open_and_that_open_is_a_reconnect():
    steps = ["offline?", "opened", "offline?", "closed", "offline?", "opened", "offline?"]
    assert one("socket.js", LIFE, steps) == [False, False, False, None, True, True, False]


def test_every_open_after_the_first_is_a_reconnect():
    steps = ["opened", "closed", "opened", "closed", "closed", "opened"]
    assert one("socket.js", LIFE, steps) == [False, None, True, None, None, True]


def test_a_first_connect_that_failed_is_away_but_its_first_open_replays_nothing():
    # Connecting at load is not "away"; a socket that could not open at all is, and its first
    # open is not a reconnect: the page was rendered with every card up to then.
    steps = ["offline?", "closed", "offline?", "opened", "offline?"]
    assert one("socket.js", LIFE, steps) == [False, None, True, False, False]


GUARD = """
const calls = [];
const wrapper = {
  socket: c === null ? null : { readyState: c },
  init: function () { calls.push(this === wrapper); }
};
const connect = m.guardRetries(wrapper);
wrapper.init();  // the extension's retry timer fires
const byTimer = calls.length;
connect.call(wrapper);  // "Retry now" connects with the wrapper's own connect
return { byTimer: byTimer, byRetryNow: calls.length - byTimer, onTheWrapper: calls.every(Boolean) };
"""


@pytest.mark.parametrize(
    ("ready_state", "timer_connects"),
    [(0, False), (1, False), (2, True), (3, True), (None, True)],
    ids=["connecting", "open", "closing", "closed", "no-socket-yet"],
)
def test_the_retry_timer_connects_only_when_no_socket_is_connecting_or_open(
    ready_state, timer_connects
):
    # "Retry now" opened a socket: the timer the extension set on the close must not close it
    # or open a second one (every frame twice).
    called = one("socket.js", GUARD, ready_state)
    assert called == {
        "byTimer": int(timer_connects),
        "byRetryNow": 1,
        "onTheWrapper": True,
    }


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("removed", "Session ended (you were removed from this campaign): "),
        ("signed out everywhere", "Session ended (signed out everywhere): "),
        ("your session expired", "Session ended (your session expired): "),
        ("", "Session ended: "),
    ],
)
def test_an_ended_session_says_why_before_its_login_link(reason, words):
    assert run("socket.js", "return m.endedWords(c.reason);", [{"reason": reason}]) == [words]


@pytest.mark.parametrize(
    ("detail", "ends"),
    [
        ({"event": {"code": 4401}}, True),  # the server ended the session (consumers.py)
        ({"event": {"code": 1006}}, False),
        ({"event": {"code": 4403}}, False),
        ({}, False),
        (None, False),
    ],
)
def test_a_4401_close_ends_the_session_even_without_its_frame(detail, ends):
    body = "return m.endsSession(c.detail === null ? undefined : c.detail);"
    assert one("socket.js", body, {"detail": detail}) == ends


AT_ONCE = "return m.reconnectAtOnce(c.detail, c.random);"


def test_a_stopping_server_s_close_reconnects_at_once():
    # 1012 (service restart): another process serves, so the page does not wait out the
    # extension's backoff; the waits spread the pages of the stopped process over 250 ms.
    waits = run(
        "socket.js",
        AT_ONCE,
        [{"detail": {"event": {"code": 1012}}, "random": r} for r in (0, 0.5, ALMOST_ONE)],
    )
    assert waits[0] == 0
    assert waits[1] == 125
    assert 0 < waits[2] < 250


@pytest.mark.parametrize("code", [1006, 1011, 1013, 1000, 4401])
def test_other_closes_keep_the_extension_s_backoff(code):
    assert one("socket.js", AT_ONCE, {"detail": {"event": {"code": code}}, "random": 0}) is None


def test_a_close_without_its_event_keeps_the_backoff():
    assert one("socket.js", AT_ONCE, {"detail": {}, "random": 0}) is None
