"""Durable cursors: readers of a scene's events that are not sockets (a member's
notifications, an outside mirror), each a row (reader, scene, member or none, seq) that
survives a restart.

A reader reads as a viewer worked out from current membership at each read (``viewer_of``):
a member removed from the campaign stops, a change of GM applies at once; an outside reader
(no member) sees what an outsider may. Every event goes through the one ``visibility()``.

What a reader makes of a batch of events (its effect: say an outbox row) and its cursor's
advance are one transaction, and the advance is a conditional UPDATE on the cursor row (the
seq it read from): a second process that read the same seq finds the row moved, rolls its
effect back and handles nothing twice. Cursors advance after commit: ``record`` calls
``recorded`` once an event's transaction commits, which only wakes this process's sender
thread (tabletop/outbox/sender.py), so no scene waits on a reader; the sender sweeps every
cursor at its start (after a restart) and every ``SWEEP_SECONDS``.

An event no reader has a use for now (a roll that names nobody, in a campaign with no mirror
and nobody mailed everything: ``Reader.wants`` and ``Reader.busy``) wakes nothing: its
cursors move at the next sweep, with whatever came after it. A pass over a scene costs a few
statements whatever it reads, and passes over every busy scene's rolls were most of what the
readers cost a busy server (bench/README.md, "One feed").

A reader is a ``Reader`` registered with ``register``: it names the members it reads for on a
scene (``subjects``), and ``handle`` makes its effect of the events it may see.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone

from tabletop.campaigns.models import Membership
from tabletop.scenes.audiences import Viewer, Visibility, visibility
from tabletop.scenes.models import ReaderCursor, Scene, SceneEvent

log = logging.getLogger(__name__)

#: Events one advance reads at most: a cursor far behind moves in steps, each its own
#: transaction, so a long backlog never holds one open for long.
BATCH = 200

#: How often the sender sweeps every cursor (besides at its start, after a restart).
SWEEP_SECONDS = 60.0
#: The sweep's pause between scenes: the interpreter goes to the rolls waiting for it between
#: two scenes, so a sweep of many scenes is spread out rather than one burst.
SWEEP_PAUSE_SECONDS = 0.002
#: How often at most it catches up the scenes woken since: a scene's pass costs a few
#: statements whatever it reads (about 5 ms of the process's CPU), so a busy scene's events
#: are read several at a time, not one pass each (bench/README.md, "One feed").
WOKEN_EVERY_SECONDS = 5.0

#: The events a reader handles: each with what its viewer may see of it (never None: an
#: event the viewer may not see is left out before the reader is called).
Seen = Sequence[tuple[SceneEvent, Visibility]]
#: One cursor's share of a batch: the cursor, the viewer it reads as, what that viewer sees.
Handled = tuple[ReaderCursor, Viewer, Seen]


@dataclass(frozen=True)
class Reader:
    """A durable reader: ``name`` (its cursors' ``reader``), ``subjects`` (the members it
    reads a scene for; ``None`` in the list: one outside cursor) and ``handle`` (its effect
    of the events the viewer may see, called inside the cursor's transaction)."""

    name: str
    subjects: Callable[[Scene], Iterable[int | None]]
    handle: Callable[[ReaderCursor, Viewer, Seen], None]
    #: where a new cursor starts on a scene for a subject (the seq it has handled): by
    #: default the start, so the event that woke the reader is read too
    start: Callable[[Scene, int | None], int] = lambda scene, subject: 0
    #: ``handle`` for several cursors of one scene at once (one query for them all, where a
    #: reader can): by default ``handle`` for each
    handle_many: Callable[[Sequence[Handled]], None] | None = None
    #: Whether an event may have an effect wherever it is (a mention, a whisper): judged from
    #: the event in memory, no query (it runs in the command's thread after its commit). A
    #: scene with such an event is caught up at the next pass. None: every event may.
    wants: Callable[[SceneEvent], bool] | None = None
    #: Of some campaigns, those where any event may have an effect (a mirror running, a member
    #: mailed everything), in one query: their scenes are caught up at the next pass too. An
    #: event neither ``wants`` nor ``busy`` claims is read at the next sweep.
    busy: Callable[[set[int]], set[int]] | None = None

    def handle_all(self, batch: Sequence[Handled]) -> None:
        if self.handle_many is not None:
            self.handle_many(batch)
            return
        for cursor, viewer, seen in batch:
            self.handle(cursor, viewer, seen)


READERS: dict[str, Reader] = {}


def register(reader: Reader) -> Reader:
    """Register a durable reader (a name is taken once)."""
    if reader.name in READERS and READERS[reader.name] is not reader:
        raise ValueError(f"A durable reader named {reader.name!r} is registered already.")
    READERS[reader.name] = reader
    return reader


def unregister(name: str) -> None:
    """Forget a reader (tests that define their own)."""
    READERS.pop(name, None)


def viewer_of(cursor: ReaderCursor, scene: Scene) -> Viewer | None:
    """The viewer a cursor reads as now: its member as the campaign holds them (None once
    they left it: the reader stops), or an outsider."""
    if cursor.user_id is None:
        return Viewer(None, False)
    campaign = scene.campaign
    if not Membership.objects.filter(campaign_id=campaign.pk, user_id=cursor.user_id).exists():
        return None
    return Viewer(cursor.user_id, campaign.gm_id == cursor.user_id)


def cursors(reader: Reader, scene: Scene) -> list[ReaderCursor]:
    """The reader's cursors on the scene, one per subject, made where missing (all in one
    statement: a scene's first event made eight, one transaction each, on every fresh scene)."""
    wanted = list(dict.fromkeys(reader.subjects(scene)))
    have = {c.user_id: c for c in ReaderCursor.objects.filter(reader=reader.name, scene=scene)}
    missing = [subject for subject in wanted if subject not in have]
    if missing:
        # A cursor another process made meanwhile stays as it made it (the row is unique).
        ReaderCursor.objects.bulk_create(
            [
                ReaderCursor(
                    reader=reader.name,
                    scene=scene,
                    user_id=subject,
                    seq=reader.start(scene, subject),
                )
                for subject in missing
            ],
            ignore_conflicts=True,
        )
        made = ReaderCursor.objects.filter(reader=reader.name, scene=scene, user_id__in=missing)
        have.update({c.user_id: c for c in made})
        if None in missing:  # ``user_id__in`` never matches a null
            made = ReaderCursor.objects.filter(reader=reader.name, scene=scene, user=None)
            have.update({c.user_id: c for c in made})
    return [have[s] for s in wanted if s in have]


class _Moved(Exception):
    """Another process advanced the cursor first: this one's effect is rolled back."""


def advance(reader: Reader, cursor: ReaderCursor, scene: Scene) -> int:
    """Handle the next batch after the cursor's seq: the reader's effect and the cursor's
    conditional advance in one transaction. The number of events handled (0: nothing new, the
    member left, or another process moved the cursor first)."""
    if cursor.seq >= scene.last_seq:
        return 0  # nothing new: no transaction, no write
    try:
        with transaction.atomic():
            return _advance(reader, cursor, scene)
    except _Moved:
        cursor.refresh_from_db(fields=["seq"])
        return 0


def _advance(reader: Reader, cursor: ReaderCursor, scene: Scene) -> int:
    viewer = viewer_of(cursor, scene)
    if viewer is None:
        return 0
    events = _events_after(scene, cursor.seq)
    if not events:
        return 0
    seen = [(event, vis) for event in events if (vis := visibility(event, viewer)) is not None]
    if seen:
        cursor.scene = scene  # read already, with its campaign
        reader.handle(cursor, viewer, seen)
    _moved([cursor], events[-1].seq)
    return len(events)


def _events_after(scene: Scene, seq: int) -> list[SceneEvent]:
    return list(
        SceneEvent.objects.filter(scene_id=scene.pk, seq__gt=seq)
        .select_related("actor", "character")
        .order_by("seq")[:BATCH]
    )


def _moved(together: Sequence[ReaderCursor], newest: int) -> None:
    """The conditional advance of cursors that were at one seq: all of them, or ``_Moved``."""
    seq = together[0].seq
    moved = ReaderCursor.objects.filter(pk__in=[c.pk for c in together], seq=seq).update(
        seq=newest, moved_at=timezone.now()
    )
    if moved != len(together):
        raise _Moved
    for cursor in together:
        cursor.seq = newest


def advance_together(
    reader: Reader,
    together: Sequence[ReaderCursor],
    scene: Scene,
    members: set[int] | None = None,
) -> int:
    """``advance`` for a reader's cursors on one scene that are at one seq (a scene's members
    move together): the events and the members read once, every cursor's effect and one
    conditional advance of them all in one transaction, where a transaction per member made a
    busy scene's readers cost as much as its rolls (bench/README.md, "One feed"). A cursor moved
    by another process meanwhile rolls the whole batch back; each is then advanced alone.
    ``members``: the campaign's members as just read (read here when not given). The number of
    events read (0: nothing new)."""
    if len({c.seq for c in together}) != 1 or len(together) == 1:
        return max((advance(reader, cursor, scene) for cursor in together), default=0)
    if together[0].seq >= scene.last_seq:
        return 0
    try:
        with transaction.atomic():
            return _advance_together(reader, together, scene, members)
    except _Moved:
        for cursor in together:
            cursor.refresh_from_db(fields=["seq"])
        return max(advance(reader, cursor, scene) for cursor in together)


def _advance_together(
    reader: Reader, together: Sequence[ReaderCursor], scene: Scene, members: set[int] | None
) -> int:
    if members is None:
        members = _members_of(scene)
    gm_id = scene.campaign.gm_id
    # A member who left stays where they were (as ``viewer_of``): their reader stops.
    movers = [c for c in together if c.user_id is None or c.user_id in members]
    events = _events_after(scene, together[0].seq)
    if not movers or not events:
        return 0
    batch: list[Handled] = []
    for cursor in movers:
        viewer = Viewer(cursor.user_id, cursor.user_id is not None and cursor.user_id == gm_id)
        seen = [(e, vis) for e in events if (vis := visibility(e, viewer)) is not None]
        if seen:
            cursor.scene = scene  # read already, with its campaign
            batch.append((cursor, viewer, seen))
    if batch:
        reader.handle_all(batch)
    _moved(movers, events[-1].seq)
    return len(events)


def _members_of(scene: Scene) -> set[int]:
    return set(
        Membership.objects.filter(campaign_id=scene.campaign_id).values_list("user_id", flat=True)
    )


def catch_up(scene_id: int, scene: Scene | None = None) -> int:
    """Every reader's cursors on the scene up to its newest event; the events handled.
    ``scene``: the scene already read, with its campaign (read here when not given)."""
    if scene is None:
        scene = Scene.objects.select_related("campaign").filter(pk=scene_id).first()
    if scene is None:
        return 0
    handled = 0
    members = _members_of(scene)  # once for every reader of the pass
    for reader in list(READERS.values()):
        at: dict[int, list[ReaderCursor]] = {}
        for cursor in cursors(reader, scene):
            at.setdefault(cursor.seq, []).append(cursor)
        for together in at.values():
            while (step := advance_together(reader, together, scene, members)) > 0:
                handled += step
                if step < BATCH:
                    break
    return handled


def sweep() -> int:
    """Every scene with an event some cursor has not handled (after a restart, or a wake
    lost when a process died between commit and its reader): caught up."""
    if not READERS:
        return 0
    handled = 0
    cursor_at = ReaderCursor.objects.filter(scene=OuterRef("pk"))
    behind = Scene.objects.filter(last_seq__gt=0).filter(
        Exists(cursor_at.filter(seq__lt=OuterRef("last_seq"))) | ~Exists(cursor_at)
    )
    for scene_id in behind.values_list("pk", flat=True):
        try:
            handled += catch_up(scene_id)
        except Exception:  # one scene's failure must not stop the others'
            log.exception("durable readers of scene %s", scene_id)
        time.sleep(SWEEP_PAUSE_SECONDS)
    return handled


def resume_after_restore(*, using: str = DEFAULT_DB_ALIAS, **_: object) -> int:
    """After a restore (``tabletop.operating.restoring.restored``): every durable cursor at its
    scene's newest seq, so a reader whose effects left the database (a mail, a post) before the
    backup's events were read again sends none of them twice; the cursors moved."""
    newest = Scene.objects.using(using).filter(pk=OuterRef("scene_id")).values("last_seq")[:1]
    return (
        ReaderCursor.objects.using(using)
        .filter(seq__lt=Subquery(newest))
        .update(seq=Subquery(newest), moved_at=timezone.now())
    )


# --- waking after commit -------------------------------------------------------------------------

_woken: set[int] = set()
#: Scenes with events no reader wanted by themselves: scene id -> its campaign's id.
_quiet: dict[int, int] = {}
_lock = threading.Lock()
#: Set when a scene has new events; the sender thread waits on it.
wake = threading.Event()


def recorded(event: SceneEvent) -> None:
    """An event committed: this process's sender catches its scene's readers up soon. Cheap
    and without I/O: it runs in the command's thread, after its commit."""
    if not READERS:
        return
    wanted = any(_wanted(reader, event) for reader in list(READERS.values()))
    with _lock:
        if wanted:
            _woken.add(event.scene_id)
        else:
            _quiet[event.scene_id] = event.scene.campaign_id
    if wanted:
        wake.set()


def _wanted(reader: Reader, event: SceneEvent) -> bool:
    if reader.wants is None:
        return True
    try:
        return reader.wants(event)
    except Exception:  # a reader that cannot tell reads it at the next pass
        log.exception("durable reader %s: wants", reader.name)
        return True


def take_woken() -> list[int]:
    """Takes the scenes woken since last asked (each once), with the quiet ones of campaigns where
    some reader is busy (``Reader.busy``); the other quiet scenes wait for the sweep."""
    with _lock:
        scenes = set(_woken)
        quiet = dict(_quiet)
        _woken.clear()
        _quiet.clear()
    quiet = {scene: campaign for scene, campaign in quiet.items() if scene not in scenes}
    if quiet:
        busy: set[int] = set()
        for reader in list(READERS.values()):
            if reader.busy is not None:
                busy |= reader.busy(set(quiet.values()))
        scenes |= {scene for scene, campaign in quiet.items() if campaign in busy}
    return sorted(scenes)


def catch_up_woken() -> int:
    """Catch up every woken scene's readers (the sender's chore), the scenes read at once."""
    handled = 0
    ids = take_woken()
    scenes = Scene.objects.select_related("campaign").in_bulk(ids) if ids else {}
    for scene_id in ids:
        if scene_id not in scenes:
            continue  # deleted since
        try:
            handled += catch_up(scene_id, scenes[scene_id])
        except Exception:
            log.exception("durable readers of scene %s", scene_id)
    return handled
