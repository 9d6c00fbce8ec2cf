"""Record: a scene event's row, in the action's transaction.

``record_event`` is called by actions inside their transaction: it takes the next gapless seq
under a row lock, stores the event (with its session ledger entry when every member knows of
it, tabletop/scenes/ledger.py, and a commitment to its secret), and hands it to ``deliver``
once the transaction commits (a rolled-back action delivers nothing). An action whose one write
is its event may run without a transaction around it, inside ``one_write`` (a roll that changes
nothing else, a chat line): on PostgreSQL the event is then one statement, committed on its
own. The three steps of an event, in order: record (here), render (``render``: what each viewer
gets), deliver (``deliver``: to each audience's group, after commit).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from django.db import transaction
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from tabletop.campaigns.models import Campaign
from tabletop.characters.models import Character
from tabletop.scenes import deliver, kinds, ledger, sql
from tabletop.scenes.commitments import commit
from tabletop.scenes.models import Audience, Scene, SceneEvent

_NEXT_SEQ = (
    f"UPDATE {Scene._meta.db_table} SET last_seq = last_seq + 1 WHERE id = %s "
    "RETURNING last_seq, ledger_head"
)
_NEW_HEAD = f"UPDATE {Scene._meta.db_table} SET ledger_head = %s WHERE id = %s"


class _EventInsert(sql.WrittenOnce[dict[str, Any]]):
    """An event's INSERT written once per connection (``tabletop.scenes.sql``), every value
    prepared by its field as the ORM's ``save`` prepares it (the ORM compiled the same INSERT
    afresh for every event). On PostgreSQL the scene's row moves in the same statement (a
    data-modifying ``WITH``): its new ledger head after a seq UPDATE, or, when the caller
    numbered the event from the scene as it read it, the seq and head both, on the condition
    that they are still what it read (bench/README.md: a round trip fewer, or two)."""

    def build(self, connection: Any) -> dict[str, Any]:
        quote = connection.ops.quote_name
        meta = SceneEvent._meta
        fields = [f for f in meta.concrete_fields if not f.primary_key]
        columns = ", ".join(quote(f.column) for f in fields)
        marks = ", ".join(["%s"] * len(fields))
        returning = f"RETURNING {quote(meta.pk.column)}"
        insert = f"INSERT INTO {quote(meta.db_table)} ({columns})"
        plan = {"fields": fields, "insert": f"{insert} VALUES ({marks}) {returning}"}
        if connection.vendor == "postgresql":
            scene = quote(Scene._meta.db_table)
            plan["with_head"] = f"WITH head AS ({_NEW_HEAD}) {plan['insert']}"
            plan["numbered"] = (
                f"WITH moved AS (UPDATE {scene} SET last_seq = %s, ledger_head = %s "
                "WHERE id = %s AND last_seq = %s AND ledger_head = %s RETURNING id) "
                f"{insert} SELECT {marks} FROM moved {returning}"
            )
            # A scene as this process last saw it (``seen.scene_as_seen``): the event is
            # written only if its row, its campaign's row and the actor's membership are all
            # still what the command went by.
            seen = sql.scene_and_campaign()
            plan["seen_fields"] = seen
            plan["seen"] = (
                f"WITH moved AS (UPDATE {scene} s SET last_seq = %s, ledger_head = %s "
                f"FROM {quote(Campaign._meta.db_table)} c "
                f"WHERE s.id = %s AND c.{quote(Campaign._meta.pk.column)} = s.campaign_id "
                f"AND ({', '.join(f'{a}.{quote(f.column)}' for a, f in seen)}) "
                f"IS NOT DISTINCT FROM ({', '.join(['%s'] * len(seen))}) "
                f"AND {sql.member_exists(connection)} RETURNING s.id) "
                f"{insert} SELECT {marks} FROM moved {returning}"
            )
        return plan

    def checks_as_seen(self, connection: Any) -> bool:
        """Whether a scene as last seen can be checked in the event's own statement."""
        return "seen" in self.plan(connection)

    def guesses(self, connection: Any) -> bool:
        """Whether an event numbered from the scene as read can be written in one statement."""
        return "numbered" in self.plan(connection)

    def __call__(
        self,
        event: SceneEvent,
        *,
        after: tuple[int, str] | None = None,
        seen_by: int | None = None,
    ) -> bool:
        """Write ``event``; ``after``: the scene's (last seq, ledger head) it was numbered
        from, and nothing is written (False) unless the scene's row still holds them.
        ``seen_by``: the scene is as this process last saw it, for that user's command: nothing
        is written unless its row, its campaign's and that user's membership are unchanged."""
        connection = transaction.get_connection()
        plan = self.plan(connection)
        fields = plan["fields"]
        values = [f.get_db_prep_save(f.pre_save(event, True), connection) for f in fields]
        head = event.ledger_hash or None
        with connection.cursor() as cursor:
            if seen_by is not None and after is not None:
                scene = event.scene
                rows = {"s": scene, "c": scene.campaign}
                as_seen = [
                    f.get_db_prep_value(getattr(rows[alias], f.attname), connection)
                    for alias, f in plan["seen_fields"]
                ]
                moved = [event.seq, head or after[1], event.scene_id, *as_seen, seen_by]
                cursor.execute(plan["seen"], [*moved, *values])
            elif after is not None:
                moved = [event.seq, head or after[1], event.scene_id, *after]
                cursor.execute(plan["numbered"], [*moved, *values])
            elif head and "with_head" in plan:
                cursor.execute(plan["with_head"], [head, event.scene_id, *values])
            else:
                cursor.execute(plan["insert"], values)
            row = cursor.fetchone()
            if row is None:
                return False  # another event came first: the scene's row is as it was
            if head and after is None and "with_head" not in plan:
                cursor.execute(_NEW_HEAD, [head, event.scene_id])
        event.pk = row[0]
        event._state.adding = False
        event._state.db = connection.alias
        return True


_insert = _EventInsert()


def checks_as_seen() -> bool:
    """Whether an event's write can check a scene as this process last saw it (PostgreSQL):
    commands may then skip reading the scene (``actions.run_command``)."""
    return _insert.checks_as_seen(transaction.get_connection())


_one_write: ContextVar[bool] = ContextVar("one_write", default=False)
_command: ContextVar[list[str] | None] = ContextVar("scene_command", default=None)


@contextlib.contextmanager
def written_by(command_id: str) -> Iterator[None]:
    """The first event recorded inside is the one command ``command_id`` wrote (one attempt
    at it): the database holds a command id once per scene, so the same command sent again
    cannot be recorded twice (``actions.run_command``)."""
    token = _command.set([command_id] if command_id else None)
    try:
        yield
    finally:
        _command.reset(token)


def written_already(*, scene_id: int, command_id: str) -> bool:
    """Whether command ``command_id`` has written an event on the scene."""
    return SceneEvent.objects.filter(scene_id=scene_id, command_id=command_id).exists()


class SceneMoved(Exception):
    """The scene as this process last saw it is not the scene any more (an event came, its
    campaign or the actor's membership changed): nothing was written, and the command runs
    again on the scene read afresh (``actions.run_command``)."""


@contextlib.contextmanager
def one_write() -> Iterator[None]:
    """Run an action whose only write is its event without opening a transaction for it (the
    kit runs every ``scene_action(atomic=False)`` under it).

    On PostgreSQL an event numbered from the scene as the command read it is one statement,
    atomic on its own (``_EventInsert``); the BEGIN and COMMIT around it were half of a roll's
    round trips, and under load each round trip costs a wait for the database and then for the
    GIL (bench/README.md). Where the event needs more than that one statement (SQLite, or a
    scene that moved since it was read), ``record_event`` opens the transaction itself. Reads
    are free; a second write outside a transaction is refused before it runs, so an action
    that comes to write more cannot lose its all-or-nothing unnoticed: it needs
    ``transaction.atomic``. Inside a transaction already (a procedure's roll, a test), this
    changes nothing."""
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        yield
        return
    writes = 0

    def guard(execute: Any, sql_text: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal writes
        if not connection.in_atomic_block and sql_text.lstrip()[:6].upper() != "SELECT":
            writes += 1
            if writes > 1:
                raise TransactionManagementError(
                    "A second write outside a transaction: this action needs transaction.atomic."
                )
        return execute(sql_text, params, many, context)

    token = _one_write.set(True)
    try:
        with connection.execute_wrapper(guard):
            yield
    finally:
        _one_write.reset(token)


def record_event(
    *,
    scene: Scene,
    kind: str,
    actor: Any = None,
    character: Any = None,
    audience: str = Audience.EVERYONE,
    public: dict[str, Any] | None = None,
    secret: dict[str, Any] | None = None,
    parent: SceneEvent | None = None,
    recipients: Iterable[int] = (),
) -> SceneEvent:
    """Store an event with the scene's next seq and broadcast it once the transaction commits.

    Any non-public audience with secret data gets a commitment to that data, except a whisper:
    nobody outside its ``recipients`` ever learns of it, so there is nothing to commit to. An
    event every member knows of (everyone, private, blind) gets its ledger entry, chained to the
    scene's head read by the same seq UPDATE, or on PostgreSQL numbered from the scene as the
    command read it and written in one statement with the scene's new seq and head, on the
    condition that no other event came since (``_EventInsert``).
    ``kind`` must be a registered ``EventKind`` (tabletop.scenes.kinds) that allows ``audience``.
    """
    connection = transaction.get_connection()
    alone = not connection.in_atomic_block
    assert not alone or _one_write.get(), "record_event needs a transaction (or one_write)"
    if audience not in kinds.get(kind).audiences:
        raise ValueError(f"A {kind} event is not recorded for the audience {audience!r}.")
    recipients = sorted(set(recipients))
    if bool(recipients) != (audience == Audience.WHISPER):
        raise ValueError("A whisper, and only a whisper, names its recipients.")
    pending = _command.get()
    command_id = pending.pop() if pending else ""  # the command's first event carries its id
    commitment, nonce = "", ""
    if secret and audience not in (Audience.EVERYONE, Audience.WHISPER):
        commitment, nonce = commit(secret)
    created_at = timezone.now()

    def numbered(seq: int, head: str) -> SceneEvent:
        event = SceneEvent(
            scene=scene,
            seq=seq,
            kind=kind,
            actor=actor,
            character=character,
            audience=audience,
            public=public or {},
            secret=secret or {},
            commitment=commitment,
            nonce=nonce,
            parent=parent,
            recipients=recipients,
            created_at=created_at,
            command_id=command_id,
        )
        if ledger.in_chain(audience):
            # The entry is frozen now: later spends may amend ``public``, never the chain.
            event.ledger, event.ledger_hash = ledger.chain_entry(
                event,
                actor_name=actor.get_username() if actor is not None else None,
                parent=parent,
                prev=head,
            )
        return event

    event = None
    # A scene as this process last saw it, for a command that read nothing of it (the first
    # event of that command checks it; any later one is numbered as usual).
    seen_by = scene.__dict__.pop("seen_by", None)
    if (
        _insert.guesses(connection)
        and not {"last_seq", "ledger_head"} & scene.get_deferred_fields()
    ):
        # The scene as the command read it (moments ago, under its scene's lock in this
        # process): the statement writes only if no event came since, else it writes nothing.
        event = numbered(scene.last_seq + 1, scene.ledger_head)
        if not _insert(event, after=(scene.last_seq, scene.ledger_head), seen_by=seen_by):
            if seen_by is not None:
                raise SceneMoved(scene.pk)
            event = None
    elif seen_by is not None:
        raise SceneMoved(scene.pk)  # nothing can check it here: the command reads the scene
    if event is None:
        # The UPDATE takes the scene row's lock until commit, so concurrent events get 1, 2,
        # 3, ... and each chain event reads the head its predecessor left. RETURNING
        # (PostgreSQL, SQLite 3.35+): one round trip instead of an UPDATE and a SELECT. Two
        # statements or three: an event recorded alone (``one_write``) opens its transaction.
        with transaction.atomic() if alone else contextlib.nullcontext():
            with connection.cursor() as cursor:
                cursor.execute(_NEXT_SEQ, [scene.pk])
                seq, head = cursor.fetchone()
            event = numbered(seq, head)
            _insert(event)
    scene.last_seq = event.seq
    if event.ledger_hash:
        scene.ledger_head = event.ledger_hash
    broadcast = _Broadcast(event)
    _waiting[id(event)] = broadcast
    transaction.on_commit(broadcast)
    return event


class _Broadcast:
    """An event's broadcast, waiting for its transaction to commit, with the sheets its action
    saved in that transaction (``note_sheet``)."""

    def __init__(self, event: SceneEvent) -> None:
        self.event = event
        self.sheets: dict[int, Character] = {}

    def __call__(self) -> None:
        # Looked up now: tests stub it.
        deliver.broadcast_event(self.event, sheets=self.sheets)


#: The broadcast of each event recorded in a transaction still open, by the event object's id:
#: the transaction's commit hooks hold it, and it is forgotten with them (run or rolled back).
_waiting: weakref.WeakValueDictionary[int, _Broadcast] = weakref.WeakValueDictionary()


def note_sheet(event: SceneEvent, character: Character) -> None:
    """Say that ``character`` is the sheet its row holds as ``event``'s transaction commits
    (read under its row lock there, or saved on the condition it was as read, and that row's
    last write there): the broadcast renders the sheet's numbers from it instead of reading the
    row again. Nothing once the event's broadcast has gone (no transaction was open)."""
    waiting = _waiting.get(id(event))
    if waiting is not None and waiting.event is event:
        waiting.sheets[character.pk] = character


def reveal_event(event: SceneEvent) -> None:
    """Make a secret event visible to everyone (its nonce is then published)."""
    event.revealed_at = timezone.now()
    event.save(update_fields=["revealed_at"])
