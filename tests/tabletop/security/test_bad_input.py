"""Hostile or broken socket input: the server answers with an error frame, stores nothing half-done
and keeps serving everyone (fuzzed with Hypothesis through the real ASGI stack).

"Nothing half-done": a refused command leaves the scene's events and seq exactly as they were;
an accepted one adds whole events only (as many new events as the seq moved, no gap).

"Keeps serving": after any bad frame (too deep, too big, of the wrong type) the same socket still
answers, and the presence list is right: the user is at the table while the socket is open and
gone once it closes (a socket that died without ``disconnect`` stayed there for good).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass

import pytest
from asgiref.sync import sync_to_async
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tabletop.scenes import actions, beats, consumers, selectors
from tabletop.scenes.consumers import SceneConsumer
from tabletop.scenes.models import Presence
from tabletop.scenes.rollkinds import ROLL_KINDS
from tests.tabletop.scenes.conftest import Socket, connect
from tests.tabletop.security.conftest import logged_in, open_socket, stored_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

ERROR = 'id="scene-errors"'
EVENT = 'id="scene-log"'
SEQ = re.compile(r'data-seq="(\d+)"')

# A test's examples share its sockets (one table per test): modest counts keep the suite fast.
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

#: Field names the commands and roll forms read, so the fuzz reaches the parsers behind them.
FIELDS = [
    "amount", "attribute", "attribute_value", "character", "check", "column", "cost", "decision",
    "dice", "die", "difficulty", "expression", "field", "foe", "foe_name", "keep", "last_seq",
    "mode", "new_value", "note", "penalty", "perk_dice", "resource", "resource_available",
    "retry_failures", "roll_kind", "seq", "skill", "skill_name", "specialities", "strike_back",
    "type_1", "type_2", "use",
]  # fmt: skip

#: Number spellings past every range: overflowing floats, 5000 digits (over Python's int-parsing
#: cap), 64-bit overflows, and the non-JSON constants Python's json module would otherwise accept.
HUGE_NUMBERS = [
    "1e400", "-1e400", "1E999999999", "9" * 5000, "-" + "9" * 5000, str(2**63), str(-(2**63) - 1),
    "1" + "0" * 300, "NaN", "Infinity", "-Infinity", "1e-400", "0.5",
]  # fmt: skip

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**62, max_value=2**80)
    | st.floats()  # NaN and infinities too: json.dumps spells them NaN / Infinity
    | st.text(max_size=30)
    | st.sampled_from(["", " ", "1", "-1", "0", "1d6", "1d1000000", "99999999999999999999"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


def not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


#: Server errors the consumer caught and logged: it stays up, but the test must still fail.
SERVER_ERRORS = Collect()


@pytest.fixture(autouse=True)
def _collect_server_errors():
    logger = logging.getLogger(consumers.__name__)
    SERVER_ERRORS.records.clear()
    logger.addHandler(SERVER_ERRORS)
    yield
    logger.removeHandler(SERVER_ERRORS)


def assert_no_server_error() -> None:
    assert not SERVER_ERRORS.records, [r.getMessage() for r in SERVER_ERRORS.records][:3]


@pytest.fixture
def no_rate_limit(monkeypatch):
    # The fuzz sends faster than a person; the rate limit has its own test below.
    monkeypatch.setattr(consumers, "RATE_BURST", 1e9)
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1e9)


@dataclass
class Seats:
    gm: Socket
    alice: Socket
    bob: Socket

    def all(self) -> tuple[Socket, ...]:
        return self.gm, self.alice, self.bob


@pytest.fixture
async def seats(table, no_rate_limit):
    seats = Seats(
        *[await connect(user, table.scene) for user in (table.gm, table.alice, table.bob)]
    )
    for sock in seats.all():
        await sock.drain()
        sock.frames.clear()
    yield seats
    for sock in seats.all():
        await sock.close()


async def answer(sock, *, after_seq: int = -1) -> str:
    """The frame that answers a command: an error, or the card of an event newer than
    ``after_seq`` (presence updates and cards of earlier events are skipped)."""
    while True:
        frame = await sock.communicator.receive_from(timeout=5)
        if ERROR in frame:
            return frame
        if EVENT in frame and any(int(s) > after_seq for s in SEQ.findall(frame)):
            return frame


async def send_frame(sock, *, text: str | None = None, data: bytes | None = None) -> None:
    # send_input, not send_to: send_to refuses an empty frame, which a client can still send.
    key, value = ("bytes", data) if data is not None else ("text", text)
    await sock.communicator.send_input({"type": "websocket.receive", key: value})


async def assert_refused(sock, scene, text: str | None = None, *, data: bytes | None = None):
    before = await stored_async(scene)
    await send_frame(sock, text=text, data=data)
    frame = await answer(sock)
    assert_no_server_error()
    assert ERROR in frame, frame[:300]
    assert await stored_async(scene) == before
    return frame


async def assert_whole_or_nothing(sock, scene, text: str) -> None:
    """Either an error and nothing stored, or whole events with the seq moved as many."""
    before = await stored_async(scene)
    await send_frame(sock, text=text)
    frame = await answer(sock, after_seq=before[1])
    assert_no_server_error()
    after = await stored_async(scene)
    if ERROR in frame:
        event("refused")  # see how far the fuzz gets: --hypothesis-show-statistics
        assert after == before, frame[:300]
    else:
        event("accepted")
        added = after[0] - before[0]
        assert added >= 1 and after[1] - before[1] == added


ROLL_1D6 = {"command": "roll", "roll_kind": "expression", "expression": "1d6"}
WHOLE_ROLL = json.dumps(ROLL_1D6)
NOT_JSON = "not valid JSON"  # also the answer to NaN/Infinity, which json.dumps writes for floats


def with_field(content: dict, field: str, value_text: str) -> str:
    """``content`` as JSON text with ``field`` set (last key wins) to the raw ``value_text``."""
    return json.dumps(content)[:-1] + f", {json.dumps(field)}: {value_text}}}"


TOO_DEEP = "nested too deeply"
NOT_TEXT = "must be text"
TOO_BIG = f"under {consumers.MAX_FRAME_BYTES} B"


def nested(depth: int, kinds: str, core: str, *, closed: bool = True) -> str:
    """``core`` inside ``depth`` levels of arrays and objects (``kinds`` cycled: "[" or "{")."""
    opens = ["[" if kinds[i % len(kinds)] == "[" else '{"":' for i in range(depth)]
    closes = ["]" if o == "[" else "}" for o in reversed(opens)] if closed else []
    return "".join(opens) + core + "".join(closes)


#: Bracket-heavy string contents: brackets inside strings are no nesting, escaped quotes no end.
BRACKETY_TEXT = st.text(alphabet='[]{}"\\ x', max_size=40)
#: JSON nested past MAX_DEPTH (2,500 levels stay under the size cap), closed or not, bare or as a
#: command's field: json would recurse once per level (1,000 levels raised RecursionError).
DEEP = st.builds(
    lambda depth, kinds, core, closed, as_field: (
        with_field(ROLL_1D6, "expression", nested(depth, kinds, core, closed=closed))
        if as_field
        else nested(depth, kinds, core, closed=closed)
    ),
    st.integers(consumers.MAX_DEPTH + 1, 2500) | st.sampled_from([consumers.MAX_DEPTH + 1, 1000]),
    st.text(alphabet="[{", min_size=1, max_size=4),
    st.sampled_from(["1", "null", "[]", "{}"]) | BRACKETY_TEXT.map(json.dumps),
    st.booleans(),
    st.booleans(),
)
#: Text over the app's cap but under daphne's (so it reaches the app): any mix of 1- to 4-byte
#: characters, bare or opening like a command or a deep frame.
OVERSIZE = st.builds(
    lambda size, head, fill: head + fill * -(-(size - len(head.encode())) // len(fill.encode())),
    st.integers(consumers.MAX_FRAME_BYTES + 1, consumers.DAPHNE_MAX_MESSAGE_BYTES - 4),
    st.sampled_from(["", '{"command": "roll", "note": "', "[" * 1000]),
    st.sampled_from(["x", "[", "é", "€", "\U0001f3b2"]),
)
#: Not text: binary frames (valid JSON commands too), empty ones, lone surrogates (which no
#: browser sends and daphne would not pass, but the consumer must not trip on).
NOT_TEXT_FRAMES = st.one_of(
    st.binary(max_size=200).map(lambda b: (None, b)),
    st.just((None, WHOLE_ROLL.encode())),
    st.just((None, b"")),
    st.sampled_from(["\ud800", '{"command": "roll", "note": "\udfff"}']).map(lambda t: (t, None)),
)

#: (text, bytes, what the error says): frames the server cannot read as a command at all.
UNREADABLE = st.one_of(
    st.text(max_size=300).filter(not_json).map(lambda t: (t, None, NOT_JSON)),
    st.integers(1, len(WHOLE_ROLL) - 1).map(lambda n: (WHOLE_ROLL[:n], None, NOT_JSON)),
    NOT_TEXT_FRAMES.map(lambda frame: (*frame, NOT_TEXT)),
    DEEP.map(lambda t: (t, None, TOO_DEEP)),
    OVERSIZE.map(lambda t: (t, None, TOO_BIG)),
)

#: (JSON text, acceptable error texts): readable JSON that is no command the server knows.
NOT_A_COMMAND = st.one_of(
    JSON.filter(lambda v: not isinstance(v, dict)).map(
        lambda v: (json.dumps(v), ("expected a JSON object", NOT_JSON))
    ),
    st.builds(
        lambda command, extra: (
            json.dumps({**extra, "command": command}),
            ("Unknown command", NOT_JSON),
        ),
        JSON.filter(lambda c: c != "hello" and not (isinstance(c, str) and c in actions.COMMANDS)),
        st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), JSON, max_size=4),
    ),
    JSON.filter(lambda v: isinstance(v, bool) or not isinstance(v, int) or v < 0).map(
        lambda v: (json.dumps({"command": "hello", "last_seq": v}), ("last_seq", NOT_JSON))
    ),
)

#: A valid roll of each kind the test table (a conductor campaign) offers, to mutate one field of.
ROLLS = {
    "expression": {"expression": "1d6"},
    "conductor_standard": {"skill": 3, "difficulty": 8},
    "conductor_attack": {"skill": 3, "difficulty": 4},
}
#: A value of any JSON type, or a number past every range written as text (json.dumps could
#: not even write most of those).
BAD_VALUE = JSON.map(json.dumps) | st.sampled_from(HUGE_NUMBERS)


#: Known commands with a field of a wrong type or size: valid rolls with one field mutated
#: (so the fuzz reaches the roll parsers), and every command with arbitrary fields.
MUTATED_ROLL = st.builds(
    lambda kind, mode, field, value: with_field(
        {"command": "roll", "roll_kind": kind, "mode": mode, **ROLLS[kind]}, field, value
    ),
    st.sampled_from(sorted(ROLLS)),
    st.sampled_from(["public", "gm", "blind", "self"]),
    st.sampled_from(sorted({f for roll in ROLLS.values() for f in roll})) | st.sampled_from(FIELDS),
    BAD_VALUE,
)
ANY_COMMAND = st.builds(
    lambda command, roll_kind, mode, fields, field, value: with_field(
        {"roll_kind": roll_kind, "mode": mode, **fields, "command": command}, field, value
    ),
    st.sampled_from(sorted(actions.COMMANDS)),
    st.sampled_from(sorted(ROLL_KINDS)) | st.text(max_size=12),
    st.sampled_from(sorted(actions.ROLL_MODES)) | JSON,
    st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=5),
    st.sampled_from(FIELDS),
    BAD_VALUE,
)
#: Three in four are mutated rolls, so most examples get past the command to a parser.
KNOWN_COMMAND_BAD_FIELDS = st.one_of(MUTATED_ROLL, MUTATED_ROLL, MUTATED_ROLL, ANY_COMMAND)


@FUZZ
@given(frame=UNREADABLE)
async def test_unreadable_frames_get_an_error_frame(table, seats, frame):
    text, data, says = frame
    alice = seats.alice
    assert says in await assert_refused(alice, table.scene, text, data=data)


@FUZZ
@given(case=NOT_A_COMMAND)
async def test_json_that_is_no_known_command_gets_an_error_frame(table, seats, case):
    text, says = case
    alice = seats.alice
    answer_frame = await assert_refused(alice, table.scene, text)
    assert any(s in answer_frame for s in says), answer_frame


@settings(FUZZ, max_examples=80)
@given(text=KNOWN_COMMAND_BAD_FIELDS, sender=st.sampled_from(["gm", "alice"]))
async def test_known_commands_with_bad_fields_are_whole_or_nothing(table, seats, text, sender):
    assert set(ROLLS) <= set(ROLL_KINDS), "a roll kind was renamed: update ROLLS"
    sock = getattr(seats, sender)
    await assert_whole_or_nothing(sock, table.scene, text)


async def test_ids_and_seqs_past_any_rows_are_refused_as_missing(table, seats):
    # A whole number wider than a database integer names no row: refused as not there (SQLite
    # refused the whole query, a server error; Hypothesis found it with a foe of 2**64).
    alice = seats.alice
    for field, said in (("foe", "That foe is not in this campaign"), ("character", "campaign")):
        for number in (2**63, 2**64, -(2**70)):
            roll = {**ROLL_1D6, "roll_kind": "conductor_attack"}
            frame = await assert_refused(alice, table.scene, with_field(roll, field, str(number)))
            assert said in frame, frame[:300]
    for command in ("reveal", "spend"):
        await assert_refused(alice, table.scene, f'{{"command": "{command}", "seq": {2**64}}}')


async def test_non_finite_numbers_are_refused_as_json(table, seats):
    # Not JSON (RFC 8259), so no parser behind the consumer ever meets an infinite float.
    alice = seats.alice
    for number in ["NaN", "Infinity", "-Infinity", "1e400", "-1E999"]:
        text = f'{{"command": "reveal", "seq": {number}}}'
        assert NOT_JSON in await assert_refused(alice, table.scene, text)


async def test_oversize_frames_are_refused_and_the_cap_is_exact(table, seats):
    alice = seats.alice
    cap = consumers.MAX_FRAME_BYTES

    head = '{"command": "no-such-command", "pad": "'

    def padded(size: int) -> str:
        text = head + "x" * (size - len(head) - 2) + '"}'
        assert len(text.encode()) == size
        return text

    at_cap = await assert_refused(alice, table.scene, padded(cap))
    assert "Unknown command" in at_cap  # read and parsed: the size was allowed
    over = await assert_refused(alice, table.scene, padded(cap + 1))
    assert f"under {cap} B" in over
    # The cap counts bytes, not characters: 2-byte characters reach it at half the length.
    wide = head + "é" * (cap // 2) + '"}'
    assert len(wide) < cap < len(wide.encode())
    assert f"under {cap} B" in await assert_refused(alice, table.scene, wide)
    assert f"under {cap} B" in await assert_refused(alice, table.scene, "[" * (1024 * 1024))


@pytest.mark.parametrize(
    "garbage",
    [
        json.dumps({"command": "no-such-command"}),
        "{not json",  # refused before parsing: must still cost a token
        "x" * (consumers.MAX_FRAME_BYTES + 1),  # refused unread: likewise
    ],
    ids=["unknown-command", "not-json", "oversize"],
)
async def test_a_flood_is_cut_off_with_a_clear_error_and_others_play_on(table, garbage):
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    for sock in (alice, bob):
        await sock.drain()
        sock.frames.clear()
    before = await stored_async(table.scene)
    flood = 60
    started = time.monotonic()
    for _ in range(flood):
        await send_frame(alice, text=garbage)
    answers = [await answer(alice) for _ in range(flood)]
    elapsed = time.monotonic() - started
    slowed = [a for a in answers if "Slow down" in a]
    served = flood - len(slowed)
    assert all(ERROR in a for a in answers)  # one clear answer per message, none dropped
    assert slowed, "the flood was never limited"
    # The burst, plus what refilled while the flood was being answered.
    assert served <= consumers.RATE_BURST + elapsed * consumers.RATE_PER_SECOND + 1
    assert await stored_async(table.scene) == before

    # Bob is served at once, and alice sees his roll: the flood hurt only the flooder.
    await bob.send(command="roll", roll_kind="expression", expression="1d6", mode="public")
    assert EVENT in await answer(bob)
    assert EVENT in await answer(alice)
    await alice.close()
    await bob.close()


async def test_after_every_kind_of_bad_input_the_socket_and_the_table_still_work(table, seats):
    alice, bob = seats.alice, seats.bob
    bad = [
        "{not json",
        "[1, 2, 3]",
        '"roll"',
        json.dumps({"command": "launch_missiles"}),
        json.dumps({"command": ["roll"]}),
        json.dumps({"command": "roll", "roll_kind": "expression", "expression": ["1d6"]}),
        json.dumps({"command": "roll", "roll_kind": "expression", "expression": "1d6", "mode": 7}),
        json.dumps({"command": "reveal", "seq": {"$gt": 0}}),
        '{"command": "reveal", "seq": Infinity}',
        '{"command": "reveal", "seq": ' + "9" * 5000 + "}",
        json.dumps({"command": "hello", "last_seq": -1}),
        "x" * (consumers.MAX_FRAME_BYTES + 1),
        "x" * (consumers.DAPHNE_MAX_MESSAGE_BYTES - 1),  # daphne lets it through: the app refuses
        "[" * 1000 + "]" * 1000,
        with_field(ROLL_1D6, "expression", nested(1000, "{", "1")),
    ]
    for text in bad:
        await assert_refused(alice, table.scene, text)
    await alice.send(command="roll", roll_kind="expression", expression="1d6", mode="public")
    assert EVENT in await answer(alice)  # alice's own socket still serves her
    assert EVENT in await answer(bob)  # and the table still sees it
    await bob.send(command="roll", roll_kind="expression", expression="1d6", mode="public")
    assert EVENT in await answer(bob)
    assert EVENT in await answer(alice)


# --- depth, size and type: the socket still answers, the presence list stays right ------------


@pytest.fixture
def alice_client(table):
    return logged_in(table.alice)


async def open_fresh(client, scene) -> Socket:
    """A new socket for ``client`` (no hello, no draining: quick enough for one per example)."""
    accepted, communicator = await open_socket(scene, client=client)
    assert accepted
    for _ in range(100):  # the consumer counts it present just after accepting it
        if await Presence.objects.filter(scene=scene).aexists():
            break
        await asyncio.sleep(0.02)
    return Socket(communicator)


@sync_to_async
def at_the_table(scene) -> list[str]:
    """Who the presence list shows on ``scene``."""
    return [user.name for user in selectors.online_users(scene_id=scene.pk)]


@sync_to_async
def presence_rows(scene, user) -> int:
    return Presence.objects.filter(scene=scene, user=user).count()


async def assert_still_answers(sock) -> None:
    """A valid hello on the same socket gets the scene replayed (its first event, at least)."""
    await sock.send(command="hello", last_seq=0)
    assert EVENT in await answer(sock)
    assert_no_server_error()


async def assert_gone_after_close(sock, table) -> None:
    await sock.close()
    assert "alice" not in await at_the_table(table.scene)
    assert await presence_rows(table.scene, table.alice) == 0
    assert beats.local_sockets(table.scene.pk) == 0  # the beat no longer refreshes it


#: (text, bytes, the acceptable error texts): every kind of frame the server must refuse.
BAD_FRAME = UNREADABLE.map(lambda c: (c[0], c[1], (c[2],))) | NOT_A_COMMAND.map(
    lambda c: (c[0], None, c[1])
)


@settings(FUZZ, max_examples=80)
@given(case=BAD_FRAME)
async def test_after_any_bad_frame_the_socket_answers_and_presence_is_right(
    table, alice_client, case
):
    text, data, says = case
    alice = await open_fresh(alice_client, table.scene)
    assert "alice" in await at_the_table(table.scene)
    refused = await assert_refused(alice, table.scene, text, data=data)
    assert any(s in refused for s in says), refused[:300]
    await assert_still_answers(alice)
    assert "alice" in await at_the_table(table.scene)
    await assert_gone_after_close(alice, table)


async def test_json_nested_1000_deep_gets_an_error_frame_and_leaves_presence_clean(
    table, alice_client
):
    # The review's case. This test FAILS on the consumer before the depth check: json.loads
    # raised RecursionError out of receive(), the application died (close 1011) so the error
    # escaped to this test, disconnect() never ran, and the scene's beat kept refreshing the dead
    # socket's presence: alice stayed at the table for as long as the process ran.
    text = "[" * 1000 + "]" * 1000
    assert len(text.encode()) == 2000
    alice = await open_fresh(alice_client, table.scene)
    refused = await assert_refused(alice, table.scene, text)
    assert "Message refused: nested too deeply" in refused
    await assert_still_answers(alice)
    assert "alice" in await at_the_table(table.scene)
    await assert_gone_after_close(alice, table)


@settings(FUZZ, max_examples=30)
@given(depth=st.integers(0, consumers.MAX_DEPTH - 1), kinds=st.text(alphabet="[{", min_size=1))
async def test_frames_nested_up_to_the_limit_are_read(table, seats, depth, kinds):
    # Depth counts brackets outside strings only: strings full of brackets don't count.
    decoy = json.dumps("[{" * 200 + '\\"]' * 20)
    inner = nested(depth, kinds, decoy)  # with the command's own object: depth + 1 <= limit
    text = with_field({"command": "no-such-command"}, "pad", inner)
    assert "Unknown command" in await assert_refused(seats.alice, table.scene, text)


def json_depth(value) -> int:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return 1 + max(map(json_depth, value), default=0)
    return 0


@settings(max_examples=150, deadline=None)
@given(
    core=st.none() | st.integers() | BRACKETY_TEXT | st.just([]) | st.just({}),
    levels=st.lists(st.tuples(st.integers(0, 5), BRACKETY_TEXT), max_size=2 * consumers.MAX_DEPTH),
    ascii_only=st.booleans(),
)
def test_the_depth_scan_agrees_with_the_json_it_scans(core, levels, ascii_only):
    # The scan before parsing must count what json would recurse into: never less (or the
    # RecursionError is back), never more for valid JSON (or good commands would be refused).
    value = core
    for shape, text in levels:
        value = [
            [value],
            [text, value],
            [value, [[]]],
            {text: value},
            {text: value, "": [[]]},
            {"": text, text: value},
        ][shape]
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert consumers._too_deep(text) == (json_depth(value) > consumers.MAX_DEPTH), text[:200]


async def test_a_bug_behind_a_command_is_logged_and_answered_and_the_socket_stays(
    table, alice_client, monkeypatch
):
    def broken(**kwargs):
        raise RuntimeError("a bug behind a command")

    monkeypatch.setattr(actions, "run_command", broken)
    alice = await open_fresh(alice_client, table.scene)
    await send_frame(alice, text=WHOLE_ROLL)
    assert "That command failed on the server" in await answer(alice)
    assert [r.getMessage() for r in SERVER_ERRORS.records] == ["scene command failed"]
    SERVER_ERRORS.records.clear()
    await assert_still_answers(alice)
    assert "alice" in await at_the_table(table.scene)
    await assert_gone_after_close(alice, table)


async def test_a_bug_no_handler_caught_closes_the_socket_cleanly(table, alice_client, monkeypatch):
    # The last resort (dispatch): a channel-layer handler fails. The socket closes with 1011 (the
    # browser reconnects) and leaves its groups, its beat and the presence list, as a disconnect
    # does; left to Channels, it would close without any of that.
    real = SceneConsumer.scene_presence

    async def broken(self, message):
        if self.user.pk == table.alice.pk:
            raise RuntimeError("a bug in a layer handler")
        await real(self, message)

    monkeypatch.setattr(SceneConsumer, "scene_presence", broken)
    alice = await open_fresh(alice_client, table.scene)  # her own arrival is broadcast to her
    while (out := await alice.communicator.receive_output(timeout=3))["type"] != "websocket.close":
        pass
    assert out["code"] == 1011
    assert [r.getMessage() for r in SERVER_ERRORS.records] == [
        "scene socket failed on scene.presence"
    ]
    SERVER_ERRORS.records.clear()
    assert "alice" not in await at_the_table(table.scene)
    assert await presence_rows(table.scene, table.alice) == 0
    assert beats.local_sockets(table.scene.pk) == 0
    await alice.close()
