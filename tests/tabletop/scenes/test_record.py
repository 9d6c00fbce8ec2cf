"""Recording an event (tabletop/scenes/record.py): the sheets an action notes for its event
(``note_sheet``) ride on that event's own broadcast, the object recorded and no other copy of its
row, and only while its transaction is open."""

from __future__ import annotations

import pytest
from django.db import transaction

from tabletop.scenes import deliver, record
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.record import note_sheet, record_event
from tests.support.tables import mira_and_troll

SAID = {"speaker": "bob", "text": "Ready?", "emote": False}


@pytest.fixture
def sent(monkeypatch):
    found: list[tuple[SceneEvent, dict]] = []
    monkeypatch.setattr(
        deliver,
        "broadcast_event",
        lambda event, *, sheets, sends: found.append((event, dict(sheets))),
    )
    return found


def test_a_sheet_noted_for_an_event_rides_on_its_own_broadcast(table, sent):
    mira, _troll = mira_and_troll(table)
    with transaction.atomic():
        event = record_event(scene=table.scene, kind="chat", actor=table.bob, public=SAID)
        note_sheet(SceneEvent.objects.get(pk=event.pk), mira)  # its row, another object: no
        assert sent == []  # the broadcast waits for the commit
        note_sheet(event, mira)
    assert sent == [(event, {mira.pk: mira})]
    assert event.pk not in record._waiting  # forgotten with the commit's hooks
    note_sheet(event, mira)  # its broadcast has gone: nothing
    assert sent == [(event, {mira.pk: mira})]


def test_a_rolled_back_event_is_forgotten_and_never_broadcast(table, sent):
    with pytest.raises(RuntimeError), transaction.atomic():
        event = record_event(scene=table.scene, kind="chat", actor=table.bob, public=SAID)
        assert event.pk in record._waiting
        raise RuntimeError("the action failed after its event")
    assert event.pk not in record._waiting and sent == []
