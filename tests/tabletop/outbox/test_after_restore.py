"""After a restore (tabletop.operating.restoring.restored) nothing already sent goes again: the
durable readers resume at each scene's newest seq, and what the backup held as pending in the
outbox is dropped (it may have left before the restore)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tabletop.operating.restoring import Restored, restored
from tabletop.outbox.models import Outgoing
from tabletop.scenes import actions
from tabletop.scenes.models import ReaderCursor
from tests.support.tables import make_table

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_restore_moves_the_readers_to_the_newest_seq_and_drops_what_was_pending():
    table = make_table()
    for text in ("one", "two", "three"):
        actions.chat(scene=table.scene, actor=table.alice, text=text, to=[])
    table.scene.refresh_from_db()
    newest = table.scene.last_seq
    assert newest >= 3
    behind = ReaderCursor.objects.create(reader="test-mirror", scene=table.scene, seq=1)
    pending = Outgoing.objects.create(channel="mail", body="pending at the backup")
    sent = Outgoing.objects.create(channel="mail", body="sent", sent_at=timezone.now())

    restored.send(sender=Restored, using="default", manifest={})

    behind.refresh_from_db()
    pending.refresh_from_db()
    sent.refresh_from_db()
    assert behind.seq == newest
    assert pending.dropped_at is not None and pending.sent_at is None
    assert "restored" in pending.last_error
    assert sent.dropped_at is None  # what went stays as it was
