"""A socket's cursor (``feed.cursor``): every input in every state, as a table; then, for any
interleaving of live frames, frames the layer loses, beats, layer outages, reconnects and
reveals, what a page gets is exactly what its viewer may see, in seq order, each event once,
or a reload when it is further behind than the replay limit."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.scenes.feed import cursor as machine
from tabletop.scenes.feed.cursor import (
    REPLAY_LIMIT,
    Beat,
    CommandDone,
    Cursor,
    Greet,
    Hello,
    LayerBack,
    Live,
    Read,
    Reload,
    Send,
    run,
    step,
)

# --- every input in every state ------------------------------------------------------------------

NEW = Cursor()  # the socket is open; no hello yet
WAITING = Cursor(greeting=3, pending=(Live(6, "six"),))  # a hello waits for the newest seq
LIVE = Cursor(last=5)  # greeted: live, no beat yet
BEHIND = Cursor(last=5, expected=7)  # the previous beat saw 7 in the database
RELOADED = Cursor(last=5, reloaded=True)  # the page was told to reload
STATES = {"new": NEW, "waiting": WAITING, "live": LIVE, "behind": BEHIND, "reloaded": RELOADED}
INPUTS = {
    "hello": Hello(3),
    "greet": Greet(5),
    "greet far": Greet(3 + REPLAY_LIMIT + 1),
    "live next": Live(6, "six"),
    "live seen": Live(5, "five"),
    "live gap": Live(8, "eight"),
    "live unseen": Live(6, ""),
    "beat": Beat(9),
    "layer back": LayerBack(9),
    "command done": CommandDone(9),
}

#: (state, input) -> (the effects, the cursor after them)
TABLE = {
    ("new", "hello"): ([], Cursor(greeting=3)),
    ("new", "greet"): ([], NEW),  # no hello waits: nothing
    ("new", "greet far"): ([], NEW),
    ("new", "live next"): ([], Cursor(pending=(Live(6, "six"),))),  # held for the hello
    ("new", "live seen"): ([], Cursor(pending=(Live(5, "five"),))),
    ("new", "live gap"): ([], Cursor(pending=(Live(8, "eight"),))),
    ("new", "live unseen"): ([], Cursor(pending=(Live(6, ""),))),
    ("new", "beat"): ([], NEW),
    ("new", "layer back"): ([], NEW),
    ("new", "command done"): ([], NEW),
    ("waiting", "hello"): ([], Cursor(greeting=3, pending=WAITING.pending)),
    # What the page missed, then the frame that waited (6 is past the newest read: it came).
    ("waiting", "greet"): ([Read(3, 5), Send(("six",))], Cursor(last=6)),
    ("waiting", "greet far"): ([Reload()], replace(WAITING, reloaded=True)),
    ("waiting", "live next"): (
        [],
        Cursor(greeting=3, pending=(Live(6, "six"), Live(6, "six"))),
    ),
    ("waiting", "live seen"): ([], Cursor(greeting=3, pending=(Live(6, "six"), Live(5, "five")))),
    ("waiting", "live gap"): ([], Cursor(greeting=3, pending=(Live(6, "six"), Live(8, "eight")))),
    ("waiting", "live unseen"): ([], Cursor(greeting=3, pending=(Live(6, "six"), Live(6, "")))),
    # A hello the database failed, finished by the beat: up to 9, the waiting 6 already in it.
    ("waiting", "beat"): ([Read(3, 9)], Cursor(last=9)),
    ("waiting", "layer back"): ([], WAITING),  # the hello finishes it
    ("waiting", "command done"): ([], WAITING),
    ("live", "hello"): ([], Cursor(last=5, greeting=3)),
    ("live", "greet"): ([], LIVE),
    ("live", "greet far"): ([], LIVE),
    ("live", "live next"): ([Send(("six",))], Cursor(last=6)),
    ("live", "live seen"): ([], LIVE),  # delivered already by a read
    ("live", "live gap"): ([Read(5, 7), Send(("eight",))], Cursor(last=8)),  # 6, 7 were lost
    ("live", "live unseen"): ([], Cursor(last=6)),  # nothing to show: the seq moves on
    ("live", "beat"): ([], Cursor(last=5, expected=9)),  # 6 to 9 may still be on their way
    ("live", "layer back"): ([Read(5, 9)], Cursor(last=9)),
    ("live", "command done"): ([Read(5, 9)], Cursor(last=9)),
    ("behind", "hello"): ([], Cursor(last=5, expected=7, greeting=3)),
    ("behind", "greet"): ([], BEHIND),
    ("behind", "greet far"): ([], BEHIND),
    ("behind", "live next"): ([Send(("six",))], Cursor(last=6, expected=7)),
    ("behind", "live seen"): ([], BEHIND),
    ("behind", "live gap"): ([Read(5, 7), Send(("eight",))], Cursor(last=8, expected=7)),
    ("behind", "live unseen"): ([], Cursor(last=6, expected=7)),
    # 6 and 7 were in the database a beat ago and never came: lost, read now (up to 9).
    ("behind", "beat"): ([Read(5, 9)], Cursor(last=9, expected=9)),
    ("behind", "layer back"): ([Read(5, 9)], Cursor(last=9, expected=7)),
    ("behind", "command done"): ([Read(5, 9)], Cursor(last=9, expected=7)),
    **{("reloaded", name): ([], RELOADED) for name in INPUTS},  # nothing more goes out
}


def test_the_table_covers_every_input_in_every_state():
    assert set(TABLE) == {(s, i) for s in STATES for i in INPUTS}


@pytest.mark.parametrize(("state", "given"), sorted(TABLE))
def test_each_input_in_each_state(state, given):
    effects, after = TABLE[state, given]
    assert run(STATES[state], [INPUTS[given]]) == (after, effects)


def test_a_hello_already_current_reads_nothing():
    assert run(Cursor(greeting=9), [Greet(9)]) == (Cursor(last=9), [])
    # A page that says it has more than the database (a restore): it is given from the newest.
    assert run(Cursor(greeting=12), [Greet(9)]) == (Cursor(last=9), [])


def test_a_step_that_fails_leaves_the_cursor_where_it_stood():
    """Each effect comes with the cursor after it: a shell that stops at a failed read has
    moved the cursor only past what it carried out."""
    steps = step(LIVE, Live(8, "eight"))
    assert [cursor.last for _, cursor in steps] == [7, 8]
    (_, expecting), (read, after) = step(BEHIND, Beat(9))
    assert expecting == Cursor(last=5, expected=9) and read == Read(5, 9) and after.last == 9


# --- any interleaving ----------------------------------------------------------------------------


@dataclass
class Event:
    seq: int
    frame: str | None  # what the viewer gets of it (None: nothing, not even a stub)


@dataclass
class Table:
    """One scene's log, the channel layer toward one socket, and the page it feeds."""

    limit: int
    log: list[Event] = field(default_factory=list)
    layer_up: bool = True
    in_flight: list[Live] = field(default_factory=list)
    page: list[str] = field(default_factory=list)  # the frames the page shows, in order
    page_seq: int = 0  # the newest seq the page has (what its hello says)
    cursor: Cursor = field(default_factory=Cursor)
    hidden: list[int] = field(default_factory=list)  # stubs this viewer may see revealed

    @property
    def newest(self) -> int:
        return len(self.log)

    def record(self, seen: str) -> None:
        seq = self.newest + 1
        if seen == "public":
            frame: str | None = f"{seq}"
        elif seen == "stub":  # a blind roll: the viewer gets a stub, the full card later
            frame = f"{seq}:stub"
            self.hidden.append(seq)
        elif seen == "reveal" and self.hidden:
            frame = f"{seq}:full-of-{self.hidden.pop(0)}"
        else:
            frame = None  # the GM's secret, a whisper to someone else
        self.log.append(Event(seq, frame))
        if self.layer_up:
            self.in_flight.append(Live(seq, frame or ""))

    def read(self, after: int, upto: int) -> list[str]:
        return [e.frame for e in self.log[after:upto] if e.frame is not None]

    def feed(self, event: machine.Input) -> None:
        for effect, after in step(self.cursor, event):
            if isinstance(effect, Send):
                self.show(effect.frames)
            elif isinstance(effect, Read):
                self.show(self.read(effect.after, effect.upto))
            elif isinstance(effect, Reload):
                self.reload()
                return
            self.cursor = after

    def show(self, frames) -> None:
        """The page shows the frames; its newest seq is the newest it was shown (it never
        learns the seq of what its viewer may not see)."""
        self.page.extend(frames)
        self.page_seq = max([self.page_seq, *(int(f.split(":")[0]) for f in frames)])

    def reload(self) -> None:
        """The page loads again: the scene as it is now, then a new socket says hello."""
        assert self.newest - self.page_seq > self.limit  # only when too far behind
        self.page = self.read(0, self.newest)
        self.page_seq = self.newest
        self.reconnect()
        self.feed(Hello(self.page_seq))
        self.feed(Greet(self.newest))

    def reconnect(self) -> None:
        self.cursor, self.in_flight = Cursor(), []


OPS = st.sampled_from(
    [
        "public",
        "stub",
        "reveal",
        "unseen",
        "deliver",
        "lose",
        "beat",
        "layer down",
        "layer back",
        "command done",
        "reconnect",
        "hello",
    ]
)


def _play(table: Table, op: str) -> None:
    if op in ("public", "stub", "reveal", "unseen"):
        table.record(op)
    elif op == "deliver" and table.in_flight:
        table.feed(table.in_flight.pop(0))
    elif op == "lose" and table.in_flight:
        table.in_flight.pop(0)
    elif op == "beat":
        table.feed(Beat(table.newest))
    elif op == "layer down":
        table.layer_up = False
        table.in_flight.clear()
    elif op == "layer back" and not table.layer_up:
        table.layer_up = True
        table.feed(LayerBack(table.newest))
    elif op == "command done" and not table.layer_up:
        table.feed(CommandDone(table.newest))
    elif op == "reconnect":
        table.reconnect()  # the page keeps what it has; its hello comes later
    elif op == "hello" and table.cursor.last is None and table.cursor.greeting is None:
        table.feed(Hello(table.page_seq))
        table.feed(Greet(table.newest))


@settings(max_examples=300, deadline=None)
@given(ops=st.lists(OPS, max_size=60), limit=st.integers(min_value=2, max_value=12))
def test_a_page_gets_exactly_what_its_viewer_may_see_in_order_once(ops, limit):
    with mock.patch.object(machine, "REPLAY_LIMIT", limit):
        table = Table(limit)
        table.feed(Hello(0))
        table.feed(Greet(0))
        for op in ops:
            _play(table, op)
        # Then the table settles: the layer back, what is on its way arrives, two beats pass.
        if not table.layer_up:
            _play(table, "layer back")
        if table.cursor.last is None:
            _play(table, "hello")
        while table.in_flight:
            table.feed(table.in_flight.pop(0))
        table.feed(Beat(table.newest))
        table.feed(Beat(table.newest))
    assert table.page == table.read(0, table.newest)
    assert len(set(table.page)) == len(table.page)  # each once
    for frame in table.page:  # a revealed card comes after its stub
        if ":full-of-" in frame:
            stub = f"{frame.split(':full-of-')[1]}:stub"
            assert table.page.index(stub) < table.page.index(frame)
