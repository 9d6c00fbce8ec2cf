"""Each event kind declares the data its card reads (tabletop/scenes/payloads.py), and the test
run checks every recorded event against it: an event with a field its kind does not declare, or
without one it must have, is refused with the field named, and nothing is recorded."""

from __future__ import annotations

import typing

import pytest
from django.db import transaction
from django.test import override_settings

from tabletop.scenes import payloads
from tabletop.scenes.kinds import EVENT_KINDS
from tabletop.scenes.models import Audience, SceneEvent
from tabletop.scenes.record import record_event

pytestmark = pytest.mark.django_db(transaction=True)


def _typeddicts(declared) -> list[type]:
    found = typing.get_args(declared) or (declared,)
    return [t for t in found if typing.is_typeddict(t)]


def test_every_event_kind_declares_what_its_card_reads():
    assert {"roll", "reveal", "chat", "benny", "plot_spend", "luck"} <= set(EVENT_KINDS)
    undeclared = sorted(name for name, kind in EVENT_KINDS.items() if kind.public is None)
    assert undeclared == []
    for name, kind in EVENT_KINDS.items():
        # TypedDicts (or unions of them), so the check knows each field and which it needs
        assert _typeddicts(kind.public), name
        assert _typeddicts(kind.secret), name


def test_the_test_run_checks_every_event():
    from django.conf import settings

    assert settings.CHECK_EVENT_PAYLOADS


def _scene_and_count(table):
    scene = table.scene
    return scene, SceneEvent.objects.filter(scene=scene).count()


def test_a_field_its_kind_does_not_declare_is_refused_and_nothing_is_recorded(table):
    scene, before = _scene_and_count(table)
    refused = pytest.raises(payloads.PayloadError, match='unexpected extra key.*"colour"')
    with refused, transaction.atomic():
        record_event(
            scene=scene,
            kind="chat",
            actor=table.alice,
            public={"speaker": "alice", "text": "hi", "emote": False, "colour": "red"},
        )
    assert SceneEvent.objects.filter(scene=scene).count() == before


def test_a_field_its_kind_needs_is_refused_when_missing(table):
    scene, before = _scene_and_count(table)
    refused = pytest.raises(payloads.PayloadError, match=r"A reveal event's public data.*\"seq\"")
    with refused, transaction.atomic():
        record_event(scene=scene, kind="reveal", actor=table.gm, public={"roller": "gm"})
    assert SceneEvent.objects.filter(scene=scene).count() == before


def test_a_field_of_the_wrong_type_is_refused(table):
    scene, _ = _scene_and_count(table)
    with pytest.raises(payloads.PayloadError, match="emote"), transaction.atomic():
        record_event(
            scene=scene,
            kind="chat",
            actor=table.alice,
            public={"speaker": "alice", "text": "hi", "emote": "yes"},
        )


def test_a_secret_kind_keeps_its_secret_in_its_own_shape(table):
    """A whisper's line is all secret: it must name whom it is for; a roll in the open keeps
    no secret at all."""
    scene, _ = _scene_and_count(table)
    said = {"speaker": "alice", "text": "psst", "emote": False}
    with pytest.raises(payloads.PayloadError, match='"to"'), transaction.atomic():
        record_event(
            scene=scene,
            kind="chat",
            actor=table.alice,
            audience=Audience.WHISPER,
            secret=said,
            recipients=[table.bob.pk],
        )
    with transaction.atomic():
        record_event(
            scene=scene,
            kind="chat",
            actor=table.alice,
            audience=Audience.WHISPER,
            secret={**said, "to": ["bob"]},
            recipients=[table.bob.pk],
        )
    with pytest.raises(payloads.PayloadError, match="secret"), transaction.atomic():
        record_event(
            scene=scene,
            kind="roll",
            actor=table.alice,
            public={"roller": "alice", "mode": "public"},
            secret={"note": "not a roll"},
        )


def test_with_the_check_off_anything_is_recorded_as_before(table):
    """Play runs without typeguard: the check is the tests' and development's, not a gate."""
    scene, before = _scene_and_count(table)
    with override_settings(CHECK_EVENT_PAYLOADS=False), transaction.atomic():
        record_event(scene=scene, kind="turn", actor=table.gm, public={"anything": 1})
    assert SceneEvent.objects.filter(scene=scene).count() == before + 1
