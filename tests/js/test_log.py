"""The log (static/js/scene/log.js): the seq cursor a hello carries, the "N new" count, the
"you missed N events" marker (which cards came live, which were replayed) and where a card this
page never had is given its place, decided on the cards' data-seq texts as the page reads them."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one, run

pytestmark = needs_node


def newest(seq: int, texts: list[str]) -> int:
    return one("log.js", "return m.newestSeq(c.seq, c.texts);", {"seq": seq, "texts": texts})


def test_the_cursor_moves_to_the_newest_card_in_any_order():
    assert newest(3, ["4", "12", "9"]) == 12


def test_the_cursor_never_goes_back():
    # Earlier entries loaded on demand, or a card changed in place, are older than the cursor:
    # a hello must still ask only for what came after the newest card this page has.
    assert newest(40, ["7", "8", "39"]) == 40
    assert newest(40, []) == 40


def test_seqs_are_compared_as_numbers_not_as_text():
    assert newest(9, ["10"]) == 10
    assert newest(0, ["2", "10", "9"]) == 10


def test_a_card_without_a_readable_seq_does_not_move_the_cursor():
    assert newest(5, ["", "abc", "6"]) == 6
    assert newest(5, ["", "abc"]) == 5


@pytest.mark.parametrize(
    ("texts", "seq", "count", "first"),
    [
        (["1", "2", "3"], 3, 0, -1),  # nothing newer: the boundary itself is not new
        (["1", "2", "3"], 2, 1, 2),
        (["1", "2", "3"], 0, 3, 0),
        (["5", "9", "7"], 6, 2, 1),  # the first newer one in the log's order, not the lowest
        ([], 0, 0, -1),
        (["x", "4"], 3, 1, 1),
    ],
)
def test_cards_after_a_seq(texts, seq, count, first):
    body = "return [m.countAfter(c.texts, c.seq), m.firstAfter(c.texts, c.seq)];"
    assert one("log.js", body, {"texts": texts, "seq": seq}) == [count, first]


def test_a_card_never_had_takes_its_place_in_seq_order():
    # makeRoomForCards inserts before the first card with a higher seq, else at the end.
    body = "return m.firstAfter(c.texts, c.seq);"
    log = ["3", "5", "8"]
    places = run("log.js", body, [{"texts": log, "seq": s} for s in (1, 4, 6, 9)])
    assert places == [0, 1, 2, -1]


@pytest.mark.parametrize(
    ("scroll_top", "client_height", "scroll_height", "at_bottom"),
    [
        (600, 400, 1000, True),
        (560, 400, 1000, True),  # 40 px short still counts: a card's margin, a rounding
        (559, 400, 1000, False),
        (0, 400, 400, True),  # a log shorter than its box
        (0, 400, 2000, False),
    ],
)
def test_the_reader_is_at_the_bottom_within_forty_pixels(
    scroll_top, client_height, scroll_height, at_bottom
):
    body = "return m.atBottom(c[0], c[1], c[2]);"
    assert one("log.js", body, [scroll_top, client_height, scroll_height]) is at_bottom


def test_new_cards_count_only_while_the_reader_is_away_from_the_bottom():
    body = "return m.unreadAfter(c.unread, c.added, c.stick);"
    cases = [
        {"unread": 0, "added": 2, "stick": False},
        {"unread": 3, "added": 1, "stick": False},
        {"unread": 3, "added": 0, "stick": False},
        {"unread": 0, "added": 2, "stick": True},
        {"unread": 4, "added": 2, "stick": True},
    ]
    assert run("log.js", body, cases) == [2, 4, 3, 0, 4]


def test_the_missed_marker_counts_events_in_words():
    words = run("log.js", "return m.missedWords(c);", [1, 2, 12])
    assert words == [
        "You missed 1 event while reconnecting",
        "You missed 2 events while reconnecting",
        "You missed 12 events while reconnecting",
    ]


def test_the_newest_cards_gist_is_one_line():
    text = "\n    Mira Vex rolls\n\t 2d6+1 :\n   9  \n"
    assert one("log.js", "return m.gistOf(c[0], c[1]);", ["17", text]) == (
        "#17 Mira Vex rolls 2d6+1 : 9"
    )


@pytest.mark.parametrize(
    ("cursor", "until", "now", "marks"),
    [
        (12, 3000, 1000, 12),  # a card inside the replay's window was missed while away
        (12, 3000, 3000, 12),  # the window's last moment still counts
        # After it, a replayed card is another catch-up's (a message lost on the layer), not
        # the reconnect's: no marker, whatever the replay was.
        (12, 3000, 3001, None),
        (None, 3000, 1000, None),  # no reconnect: nothing was missed
        (0, 3000, 10, 0),  # a page that had no card yet: every replayed card was missed
    ],
)
def test_only_cards_in_the_replay_window_count_as_missed(cursor, until, now, marks):
    body = "return m.replayCursor(c.cursor, c.until, c.now);"
    assert one("log.js", body, {"cursor": cursor, "until": until, "now": now}) == marks


def card(seq: str, *, live: bool = False, present: bool = False) -> dict:
    return {"seq": seq, "live": live, "present": present}


@pytest.mark.parametrize(
    ("cards", "came_live"),
    [
        ([card("13", live=True)], [13]),  # a live frame's new card
        ([card("13")], []),  # a replayed card (the server renders it unmarked)
        # A live reveal of a secret roll this page never had: the roll's card comes unmarked in
        # the live frame (changed in place), and came live with it.
        ([card("14", live=True), card("11")], [14, 11]),
        # A live frame that changes a card the page has: that card keeps how it first came
        # (missed when it was replayed, live when it came live).
        ([card("15", live=True), card("12", present=True)], [15]),
        ([card("12", present=True)], []),  # a replayed frame changing a card in place
        ([card("x", live=True)], []),  # a card without a readable seq
        ([], []),  # a frame with no card (the tools after a replay, a presence list)
    ],
)
def test_the_cards_a_frame_brings_live(cards, came_live):
    assert one("log.js", "return m.liveArrivals(c);", cards) == came_live


@pytest.mark.parametrize(
    ("texts", "cursor", "came_live", "missed"),
    [
        # Up to date at the reconnect, then a roll live within the window: nothing missed.
        (["10", "11"], 10, [11], [0, -1]),
        # Two cards replayed, then one live: the two, the marker above the first.
        (["9", "10", "11", "12", "13"], 10, [13], [2, 2]),
        # A replayed card after a live one still counts; the marker stays above the first.
        (["10", "11", "12"], 10, [11], [1, 2]),
        (["10", "11", "12"], 10, [], [2, 1]),
        # The page's own cards and earlier entries loaded on demand are not after the cursor.
        (["3", "4", "10"], 10, [], [0, -1]),
        # A place made for a live reveal of a card never had stands in seq order among them.
        (["10", "11", "12", "13"], 10, [11, 13], [1, 2]),
    ],
)
def test_missed_cards_are_after_the_cursor_and_did_not_come_live(texts, cursor, came_live, missed):
    body = "return m.missedAmong(c.texts, c.cursor, c.live);"
    assert one("log.js", body, {"texts": texts, "cursor": cursor, "live": came_live}) == missed
