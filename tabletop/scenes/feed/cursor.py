"""A live reader's cursor over a scene's sequence, as a state machine with no I/O.

A socket's page has every event up to some seq; the cursor is that seq (``last``), or None
until its hello is done. Inputs are what happens to the socket; each step returns the effects
to carry out, in order, each with the cursor as it stands once that effect is done (so an
effect that fails, say a read while the database is away, leaves the cursor where it was):

- ``Hello(last_seq)``: the page says the newest seq it has; the greeting waits for ``Greet``.
- ``Greet(newest)``: the scene's newest seq, read for a waiting hello: what the page missed is
  read, then the live frames that came meanwhile go out; or the page reloads when it is more
  than ``REPLAY_LIMIT`` behind.
- ``Live(seq, html)``: a frame from the channel layer (``html`` empty when this viewer may see
  nothing of it: the seq alone tells the cursor where the scene stands). A seq jump reads what
  the layer dropped first.
- ``Beat(newest)``: the scene's heartbeat; what was missing at the previous beat and has still
  not come is read (a frame only late in a busy moment is not read twice).
- ``LayerBack(newest)`` and ``CommandDone(newest)``: the channel layer answers again, or a
  command finished while it was down: read up to ``newest`` now.

Effects: ``Send(frames)``, ``Read(after, upto)`` (this viewer's frames for the seqs in
(after, upto], from the database: ``feed.replay``) and ``Reload()`` (the page reloads).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: A reader further behind than this reloads its page instead of replaying.
REPLAY_LIMIT = 500


# --- inputs --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    last_seq: int


@dataclass(frozen=True)
class Greet:
    newest: int


@dataclass(frozen=True)
class Live:
    seq: int
    html: str


@dataclass(frozen=True)
class Beat:
    newest: int


@dataclass(frozen=True)
class LayerBack:
    newest: int


@dataclass(frozen=True)
class CommandDone:
    newest: int


Input = Hello | Greet | Live | Beat | LayerBack | CommandDone


# --- effects -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    frames: tuple[str, ...]


@dataclass(frozen=True)
class Read:
    after: int
    upto: int


@dataclass(frozen=True)
class Reload:
    reason: str = "too far behind"


Effect = Send | Read | Reload


@dataclass(frozen=True)
class Cursor:
    """Where one reader stands: ``last`` delivered (None until greeted), a hello waiting for
    the scene's newest seq (``greeting``), the live frames that came before it was done
    (``pending``), the scene's newest seq at the previous beat (``expected``), and whether the
    page was told to reload (then nothing more goes out)."""

    last: int | None = None
    greeting: int | None = None
    pending: tuple[Live, ...] = ()
    expected: int | None = None
    reloaded: bool = False


#: One effect (None: only the cursor moves) and the cursor once it is done.
Step = tuple[Effect | None, Cursor]


def step(cursor: Cursor, event: Input) -> list[Step]:
    """What ``event`` makes this reader do, in order, each with the cursor after it."""
    if cursor.reloaded:
        return []
    if isinstance(event, Hello):
        return [(None, replace(cursor, greeting=event.last_seq))]
    if isinstance(event, Greet):
        return _greet(cursor, event.newest)
    if isinstance(event, Live):
        return _live(cursor, event)
    if isinstance(event, Beat):
        return _beat(cursor, event.newest)
    return _catch_up(cursor, event.newest)  # LayerBack, CommandDone


def _greet(cursor: Cursor, newest: int) -> list[Step]:
    if cursor.greeting is None:
        return []  # done already (a beat and a hello, or two hellos)
    if newest - cursor.greeting > REPLAY_LIMIT:
        return [(Reload(), replace(cursor, reloaded=True))]
    last = min(cursor.greeting, newest)
    greeted = replace(cursor, last=newest, greeting=None, pending=())
    steps: list[Step] = [(Read(last, newest) if last < newest else None, greeted)]
    for live in cursor.pending:  # the frames that waited, in the order they came
        steps += _live(steps[-1][1], live)
    return steps


def _live(cursor: Cursor, live: Live) -> list[Step]:
    if cursor.last is None:
        return [(None, replace(cursor, pending=(*cursor.pending, live)))]
    if live.seq <= cursor.last:
        return []  # delivered already by a read
    steps: list[Step] = []
    if live.seq > cursor.last + 1:  # a frame was lost on the layer: read it first
        steps.append((Read(cursor.last, live.seq - 1), replace(cursor, last=live.seq - 1)))
    steps.append((Send((live.html,)) if live.html else None, replace(cursor, last=live.seq)))
    return steps


def _beat(cursor: Cursor, newest: int) -> list[Step]:
    if cursor.last is None:
        return _greet(cursor, newest)  # a hello the database failed: finished now
    missing = cursor.expected
    expecting = replace(cursor, expected=newest)
    steps: list[Step] = [(None, expecting)]
    if missing is not None and cursor.last < missing:
        steps.append((Read(cursor.last, newest), replace(expecting, last=max(cursor.last, newest))))
    return steps


def _catch_up(cursor: Cursor, newest: int) -> list[Step]:
    if cursor.last is None or cursor.last >= newest:
        return []
    return [(Read(cursor.last, newest), replace(cursor, last=newest))]


def run(cursor: Cursor, events: list[Input]) -> tuple[Cursor, list[Effect]]:
    """The cursor after ``events`` and every effect on the way (for tests and tracing)."""
    effects: list[Effect] = []
    for event in events:
        for effect, after in step(cursor, event):
            cursor = after
            if effect is not None:
                effects.append(effect)
    return cursor, effects
