"""Record: a scene event's row, in the action's transaction.

``record_event`` is called by actions inside their transaction: it builds the event (its
session ledger entry when every member knows of it, tabletop/scenes/ledger.py, and a commitment
to its secret), has the fast paths write it with the scene's next gapless seq
(``fastpath.Paths.write_event``), and hands it to ``deliver`` once the transaction commits (a
rolled-back action delivers nothing). An action whose one write is its event may run without a
transaction around it, inside ``fastpath.one_write`` (a roll that changes nothing else, a chat
line). The three steps of an event, in order: record (here), render (``render``: what each
viewer gets), deliver (``deliver``: to each audience's group, after commit).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from tabletop.characters.models import Character
from tabletop.scenes import deliver, fastpath, kinds, ledger
from tabletop.scenes.command_threads import Sends
from tabletop.scenes.commitments import commit
from tabletop.scenes.context import CommandContext
from tabletop.scenes.fastpath.paths import Numbered
from tabletop.scenes.feed import durable
from tabletop.scenes.models import Audience, Scene, SceneEvent


def written_already(*, scene_id: int, command_id: str) -> bool:
    """Whether command ``command_id`` has written an event on the scene."""
    return SceneEvent.objects.filter(scene_id=scene_id, command_id=command_id).exists()


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
    context: CommandContext | None = None,
) -> SceneEvent:
    """Store an event with the scene's next seq and broadcast it once the transaction commits.

    Any non-public audience with secret data gets a commitment to that data, except a whisper:
    nobody outside its ``recipients`` ever learns of it, so there is nothing to commit to. An
    event every member knows of (everyone, private, blind) gets its ledger entry, chained to the
    scene's head: the head of the scene as the command read it when no other event came since,
    else the real one, read with the next seq under the scene row's lock (``fastpath``).
    ``kind`` must be a registered ``EventKind`` (tabletop.scenes.kinds) that allows ``audience``.

    ``context``: the command recording it (``CommandContext``, passed down by its action): its
    first event carries the command's id and checks the scene as seen it went by; under its
    ``one_write`` the event may be written outside a transaction. None: no command's (a
    transaction must be open).

    The steps: the event refused unless its kind allows it (``_allowed``), planned
    (``_planned``: what it holds before its seq, then built with its seq and ledger entry),
    written (``_written``) and delivered after commit (``_deliver_on_commit``)."""
    context = context if context is not None else CommandContext()
    alone = not transaction.get_connection().in_atomic_block
    assert not alone or context.one_write, "record_event needs a transaction (or one_write)"
    public, secret = public or {}, secret or {}
    recipients = _allowed(kind, audience, public, secret, recipients)
    draft = SceneEvent(
        scene=scene,
        kind=kind,
        actor=actor,
        character=character,
        audience=audience,
        public=public,
        secret=secret,
        parent=parent,
        recipients=recipients,
    )
    event = _written(scene, _planned(draft, context), context, alone=alone)
    _deliver_on_commit(event, context.sends)
    return event


def _allowed(
    kind: str, audience: str, public: dict[str, Any], secret: dict[str, Any], recipients: Any
) -> list[int]:
    """Refuse an event its kind does not declare (its payloads checked where
    ``settings.CHECK_EVENT_PAYLOADS`` is on, its audience always), and recipients named for
    anything but a whisper (or a whisper for nobody): the recipients, sorted."""
    declared = kinds.get(kind)
    if settings.CHECK_EVENT_PAYLOADS:
        declared.check(public, secret)
    if audience not in declared.audiences:
        raise ValueError(f"A {kind} event is not recorded for the audience {audience!r}.")
    recipients = sorted(set(recipients))
    if bool(recipients) != (audience == Audience.WHISPER):
        raise ValueError("A whisper, and only a whisper, names its recipients.")
    return recipients


def _planned(draft: SceneEvent, context: CommandContext) -> Numbered:
    """What the event holds before its seq (the command's id, which its first event carries;
    the commitment to its secret; its time), and how it is numbered once the write knows its
    seq and the head it chains onto (``numbered``: it may run twice, when the scene moved
    since the command read it, and each run numbers the same unsaved event afresh)."""
    draft.command_id = context.take_command_id()
    if draft.secret and draft.audience not in (Audience.EVERYONE, Audience.WHISPER):
        draft.commitment, draft.nonce = commit(draft.secret)
    draft.created_at = timezone.now()
    in_chain = ledger.in_chain(draft.audience)

    def numbered(seq: int, head: str) -> SceneEvent:
        draft.seq = seq
        if in_chain:
            _chain(draft, head)
        return draft

    return numbered


def _chain(event: SceneEvent, head: str) -> None:
    """The event's ledger entry, chained onto ``head``. The entry is frozen now: later spends
    may amend ``public``, never the chain."""
    actor = event.actor
    event.ledger, event.ledger_hash = ledger.chain_entry(
        event,
        actor_name=actor.get_username() if actor is not None else None,
        parent=event.parent,
        prev=head,
    )


def _written(
    scene: Scene, numbered: Numbered, context: CommandContext, *, alone: bool
) -> SceneEvent:
    """Write the event (``fastpath.Paths.write_event``), numbered from the scene as the command
    read it where it can be; on a copy of the scene as this process last saw it, the command's
    first event checks it. ``scene`` moves with it: its seq and head are the event's."""
    check = context.check_as_seen(scene)
    event = fastpath.paths().write_event(scene, numbered, check=check, alone=alone)
    scene.last_seq = event.seq
    if event.ledger_hash:
        scene.ledger_head = event.ledger_hash
    return event


def _deliver_on_commit(event: SceneEvent, sends: Sends) -> None:
    """Broadcast the event once its transaction commits (at once where none is open), with the
    sheets its action notes meanwhile (``note_sheet``), through the command's ``sends``."""
    broadcast = _Broadcast(event, sends)
    _waiting[event.pk] = broadcast
    transaction.on_commit(broadcast)
    # The durable readers (notifications, a mirror) only hear of it: they read off this thread.
    transaction.on_commit(functools.partial(durable.recorded, event))


class _Broadcast:
    """An event's broadcast, waiting for its transaction to commit, with the sheets its action
    saved in that transaction (``note_sheet``)."""

    def __init__(self, event: SceneEvent, sends: Sends) -> None:
        self.event = event
        self.sends = sends
        self.sheets: dict[int, Character] = {}

    def __call__(self) -> None:
        # Looked up now: tests stub it.
        deliver.broadcast_event(self.event, sheets=self.sheets, sends=self.sends)


#: The broadcast of each event recorded in a transaction still open, by the event's row id
#: (its pk: no other event's, where an object's ``id()`` may be a later object's): the
#: transaction's commit hooks hold it, and it is forgotten with them (run or rolled back).
#: ``note_sheet`` also checks that the event is the very object recorded.
_waiting: weakref.WeakValueDictionary[int, _Broadcast] = weakref.WeakValueDictionary()


def note_sheet(event: SceneEvent, character: Character) -> None:
    """Say that ``character`` is the sheet its row holds as ``event``'s transaction commits
    (read under its row lock there, or saved on the condition it was as read, and that row's
    last write there): the broadcast renders the sheet's numbers from it instead of reading the
    row again. Nothing once the event's broadcast has gone (no transaction was open)."""
    waiting = _waiting.get(event.pk)
    if waiting is not None and waiting.event is event:
        waiting.sheets[character.pk] = character


def reveal_event(event: SceneEvent) -> None:
    """Make a secret event visible to everyone (its nonce is then published)."""
    event.revealed_at = timezone.now()
    event.save(update_fields=["revealed_at"])
