"""Recording scene events and broadcasting them after commit.

``record_event`` is called by actions inside their transaction: it takes the next gapless seq under
a row lock, stores the event (with its session ledger entry when every member knows of it,
tabletop/scenes/ledger.py) and schedules ``broadcast_event`` with ``transaction.on_commit`` (a
rolled-back action broadcasts nothing). An action whose one write is its event may run it
without a transaction around it, inside ``one_write`` (a roll that changes nothing else, a chat
line): on PostgreSQL the event is then one statement, committed on its own. The broadcast
renders each viewer class's frame ONCE (GM, the actor, every other player) and sends it to that
class's group; consumers only forward.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from functools import partial
from typing import Any

from django.db import transaction
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from tabletop.campaigns.models import Campaign
from tabletop.characters.models import Character
from tabletop.scenes import kinds, ledger, outbox, sql
from tabletop.scenes.audiences import (
    Viewer,
    Visibility,
    audience_of,
    gm_group,
    players_group,
    scene_group,
    user_group,
    visibility,
)
from tabletop.scenes.cards import event_context
from tabletop.scenes.commitments import commit
from tabletop.scenes.frames import render_fragment
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.panels import (
    ROW_PANELS,
    SIDE_PANELS,
    campaign_characters,
    render_character_row,
    render_hidden_entry,
    render_side_panel,
    side_panels_for,
    stale_panels,
)
from tabletop.scenes.procedures import render_procedure_panels

log = logging.getLogger(__name__)

#: A reconnecting client further behind than this reloads the page instead of replaying.
REPLAY_LIMIT = 500

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
            # A scene as this process last saw it (``access.scene_as_seen``): the event is
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
_read_character = sql.RowRead(Character)


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
    transaction.on_commit(partial(broadcast_event, event))
    return event


def note_sheet(event: SceneEvent, character: Character) -> None:
    """Say that ``character`` was read under its row lock in the event's transaction, and is
    that row's last write there: it is the sheet as the event commits it, so the broadcast
    renders the sheet's numbers from it instead of reading the row again."""
    event.__dict__.setdefault("_noted_sheets", {})[character.pk] = character


def reveal_event(event: SceneEvent) -> None:
    """Make a secret event visible to everyone (its nonce is then published)."""
    event.revealed_at = timezone.now()
    event.save(update_fields=["revealed_at"])


# --- rendering ----------------------------------------------------------------------------------


def render_card(
    event: SceneEvent, vis: Visibility, viewer: Viewer, *, live: bool, oob: bool = False
) -> str:
    """One card for one viewer; ``oob``: swapped in place of the card already on the page."""
    return _render_card(event, vis, viewer, live=live, oob=oob)[0]


#: The context keys in which two viewers with the same visibility of an event differ.
VIEWER_KEYS = frozenset({"viewer_is_gm", "is_actor"})


class _Asked(dict):  # type: ignore[type-arg]
    """A card's context that remembers which viewer keys (``VIEWER_KEYS``) its templates
    looked up. Django's context asks ``key in d`` before every ``d[key]``; anything that
    copies or walks the whole dict counts as asking for all of them (the safe side)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: set[str] = set()

    def __contains__(self, key: object) -> bool:
        if key in VIEWER_KEYS:
            self.asked.add(key)  # type: ignore[arg-type]
        return dict.__contains__(self, key)

    def __getitem__(self, key: str) -> Any:
        if key in VIEWER_KEYS:
            self.asked.add(key)
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in VIEWER_KEYS:
            self.asked.add(key)
        return dict.get(self, key, default)

    def _all(self) -> None:
        self.asked |= VIEWER_KEYS

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.__iter__(self)

    def keys(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.keys(self)

    def items(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.items(self)

    def values(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.values(self)

    def copy(self) -> dict[str, Any]:
        self._all()
        return dict(dict.items(self))


def _render_card(
    event: SceneEvent, vis: Visibility, viewer: Viewer, *, live: bool, oob: bool
) -> tuple[str, set[str]]:
    """The card and the viewer keys its templates looked up (the rest of its context is the
    event's, the same for every viewer with this visibility)."""
    if vis is None:
        return "", set()
    ctx = _Asked(event_context(event, vis, viewer))
    ctx["live"] = live
    ctx["card_template"] = kinds.get(event.kind).template
    ctx["oob"] = oob
    return render_fragment("scenes/_event.html", ctx), ctx.asked


class Renders:
    """What one broadcast has rendered: a card or side panel is rendered once per output that
    can differ, and reused for every other viewer who would get the same bytes.

    A card is a function of the event, the viewer's visibility of it and the viewer keys its
    templates looked up (``_Asked``): a public card that never asks who is looking is rendered
    once for the GM, its actor and everyone else. Side panels depend on whether the viewer is
    the GM, nothing more, and the party panel not even on that (``panels.render_side_panel``)."""

    def __init__(self, scene: Scene) -> None:
        self._scene = scene
        self._cards: dict[tuple[Any, ...], list[tuple[dict[str, bool], str]]] = {}
        self._panels: dict[tuple[Any, ...], str] = {}
        self._cast: list[Character] | None = None
        self._sheets: dict[int, Character | None] = {}

    def card(
        self, event: SceneEvent, vis: Visibility, viewer: Viewer, *, live: bool, oob: bool = False
    ) -> str:
        if vis is None:
            return ""
        values = {
            "viewer_is_gm": viewer.is_gm,
            "is_actor": viewer.user_id is not None and viewer.user_id == event.actor_id,
        }
        key = (event.pk, vis, live, oob)
        for asked, html in self._cards.get(key, ()):
            if all(values[name] == value for name, value in asked.items()):
                return html
        html, asked_names = _render_card(event, vis, viewer, live=live, oob=oob)
        self._cards.setdefault(key, []).append(({n: values[n] for n in asked_names}, html))
        return html

    def side_panels(self, event: SceneEvent, viewer: Viewer, wanted: frozenset[str]) -> str:
        html = ""
        for name in side_panels_for(wanted, is_gm=viewer.is_gm):
            # The party panel (and its cells) are everyone's, the GM's included.
            key = (name, viewer.is_gm and name not in ("party", "party-row"))
            if key not in self._panels:
                if name == "hidden":  # a hidden roll joined the list (kinds._roll_stale)
                    self._panels[key] = render_hidden_entry(event)
                elif name in ROW_PANELS:  # only the event's character's sheet changed
                    self._panels[key] = render_character_row(event.scene, name, self._sheet(event))
                else:
                    self._panels[key] = render_side_panel(
                        event.scene, name, is_gm=viewer.is_gm, oob=True, characters=self._characters
                    )
            html += self._panels[key]
        return html

    def _sheet(self, event: SceneEvent) -> Character | None:
        # The event's character as committed, read once for the players' cells and the GM's
        # (not at all when the action noted the copy it locked and saved: ``note_sheet``).
        if event.character_id is None:
            return None
        noted = getattr(event, "_noted_sheets", {}).get(event.character_id)
        if noted is not None:
            return noted
        if event.character_id not in self._sheets:
            self._sheets[event.character_id] = _read_character(event.character_id)
        return self._sheets[event.character_id]

    def _characters(self) -> list[Character]:
        # The campaign's characters, read once for the GM's panels and the players'.
        if self._cast is None:
            self._cast = campaign_characters(self._scene)
        return self._cast


def render_frame(
    event: SceneEvent, viewer: Viewer, *, live: bool, renders: Renders | None = None
) -> str:
    """The HTML frame one viewer class receives for an event ('' when it may see nothing).

    The new card is appended to the log; a parent card it changed (a spend, a reveal) is
    re-rendered in place; kinds may add their own out-of-band swaps (dashboards, panels).
    ``renders``: a broadcast's shared renders (every viewer's frame of one event).
    """
    vis = visibility(event, viewer)
    if vis is None:
        return ""
    renders = renders or Renders(event.scene)
    parts = [
        '<div id="scene-log" hx-swap-oob="beforeend">',
        renders.card(event, vis, viewer, live=live),
        "</div>",
    ]
    for changed in _changed_cards(event):
        changed_vis = visibility(changed, viewer)
        if changed_vis is not None:
            parts.append(renders.card(changed, changed_vis, viewer, live=False, oob=True))
    stale = stale_panels(event)
    if live and stale:
        side = frozenset(stale & SIDE_PANELS)
        if side:
            parts.append(renders.side_panels(event, viewer, side))
        procedures = stale - SIDE_PANELS
        if procedures:
            event.scene.refresh_from_db(fields=["state"])
            parts += render_procedure_panels(event.scene, viewer, oob=True, only=procedures)
    if event.ledger_hash:
        # A chain event moves the ledger head: every member's page shows the same new one.
        context = {"ledger_head": event.ledger_hash, "oob": True}
        parts.append(render_fragment("scenes/_ledger_head.html#ledger-head", context))
    return "".join(parts)


def _changed_cards(event: SceneEvent) -> list[SceneEvent]:
    """Earlier cards this event changed: its parent (a spend's roll) and any it names."""
    changed = [event.parent] if event.parent is not None else []
    seqs = [s for s in event.public.get("refresh", []) if isinstance(s, int)]
    if seqs:
        changed += list(
            SceneEvent.objects.filter(scene_id=event.scene_id, seq__in=seqs)
            .exclude(pk=event.parent_id)
            .select_related("character")
        )
    for card in changed:
        card.scene = event.scene  # the same scene, already read
    return changed


# --- broadcasting ---------------------------------------------------------------------------


def broadcast_event(recorded: SceneEvent) -> None:
    """Send one event to every socket of its scene. Each viewer class's frame (the GM, the
    actor, every other player) is built from shared renders (``Renders``); when the three
    are the same bytes, the frame goes out once, to the whole scene."""
    event = recorded if _as_recorded(recorded) else _committed(recorded.pk)
    scene_id = event.scene_id
    gm_id = event.scene.campaign.gm_id
    renders = Renders(event.scene)

    def send(group: str, content: dict[str, Any]) -> None:
        # The event is committed: the database is the truth and sockets catch up from it (seq
        # gap, heartbeat, hello). A layer that is down must not turn a stored roll into an error.
        try:
            outbox.group_send(group, content)
        except Exception:
            log.exception("scene event %s not broadcast to %s", event.seq, group)

    def message(html: str, exclude: tuple[int, ...] = ()) -> dict[str, Any]:
        # Every socket learns the seq, even when it may see nothing, so it can spot a gap.
        return {"type": "scene.event", "seq": event.seq, "html": html, "exclude": list(exclude)}

    def frame(viewer: Viewer) -> str:
        return render_frame(event, viewer, live=True, renders=renders)

    if event.audience == Audience.WHISPER:
        # Only its audience's own groups carry it; every other socket learns the seq alone.
        audience = audience_of(event)
        for uid in sorted(audience):
            send(user_group(scene_id, uid), message(frame(Viewer(uid, uid == gm_id))))
        send(gm_group(scene_id), message("", exclude=tuple(audience)))
        send(players_group(scene_id), message("", exclude=tuple(audience)))
        return
    gm = frame(Viewer(gm_id, True))
    other = frame(Viewer(None, False))
    actor_id = event.actor_id
    mine = other
    if actor_id is not None and actor_id != gm_id:
        mine = frame(Viewer(actor_id, False))
    if gm == other == mine:
        send(scene_group(scene_id), message(gm))  # a public card: one frame for the table
        return
    send(gm_group(scene_id), message(gm))
    if mine != other:
        send(user_group(scene_id, actor_id), message(mine))
        send(players_group(scene_id), message(other, exclude=(actor_id,)))
        return
    send(players_group(scene_id), message(other))


def _as_recorded(event: SceneEvent) -> bool:
    """Whether the object the action recorded is what its frames need: it changed no earlier
    card (a parent or a ``refresh``, read again as committed, with their characters)."""
    return event.parent_id is None and not event.public.get("refresh")


def _committed(pk: int) -> SceneEvent:
    """The event as committed, with everything its frames read (other cards, panels)."""
    return SceneEvent.objects.select_related(
        "scene__campaign", "character", "parent__character"
    ).get(pk=pk)


#: How many cards the scene page shows at first; earlier ones load on demand.
LOG_PAGE = 200


def visible_page(
    *, scene: Scene, viewer: Viewer, before_seq: int | None = None, limit: int = LOG_PAGE
) -> tuple[list[tuple[SceneEvent, Visibility]], bool]:
    """The last ``limit`` events the viewer may see (before ``before_seq``), in order, and
    whether any visible one is earlier still. Reads newest first in chunks, so a long scene
    costs what its last page costs, not its whole log."""
    # Cards never show the ledger entry itself (the exports do): not read, not decoded.
    events = (
        SceneEvent.objects.filter(scene=scene)
        .select_related("actor", "character", "parent")
        .defer("ledger", "parent__ledger")
    )
    if before_seq is not None:
        events = events.filter(seq__lt=before_seq)
    found: list[tuple[SceneEvent, Visibility]] = []
    below: int | None = None
    while True:
        chunk = events if below is None else events.filter(seq__lt=below)
        batch = list(chunk.order_by("-seq")[: limit * 2])
        for event in batch:
            event.scene = scene  # the cards ask for the campaign's system: no query per card
            vis = visibility(event, viewer)
            if vis is None:
                continue
            if len(found) == limit:
                return found[::-1], True
            found.append((event, vis))
        if len(batch) < limit * 2:
            return found[::-1], False
        below = batch[-1].seq


def visible_events(
    *, scene: Scene, viewer: Viewer, after_seq: int = 0
) -> list[tuple[SceneEvent, Visibility]]:
    """The events a viewer may see after ``after_seq``, in order (page load and replay)."""
    events = (
        SceneEvent.objects.filter(scene=scene, seq__gt=after_seq)
        .select_related("actor", "character", "parent")
        .defer("ledger", "parent__ledger")
        .order_by("seq")
    )
    out = []
    for event in events:
        event.scene = scene  # the cards ask for the campaign's system: no query per card
        vis = visibility(event, viewer)
        if vis is not None:
            out.append((event, vis))
    return out
