"""The socket answers each command the page named (``cid``): done, or refused and why. The page
keeps the form or the composer's line as the user left it until then, so a refused roll is
fixed and sent again instead of being reset (its hidden mode back to public)."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from tabletop.scenes.models import SceneEvent
from tests.tabletop.scenes.conftest import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


def answers(frames: list[str]) -> list[dict]:
    return [json.loads(f) for f in frames if f.startswith("{") and '"done"' in f]


def count_events() -> int:
    return SceneEvent.objects.count()


async def test_a_command_is_answered_done_after_it_is_recorded(table):
    alice = await connect(table.alice, table.scene)
    await alice.send(command="chat", text="Onwards", cid="k1-1")
    frames = await alice.drain()
    assert answers(frames) == [{"type": "done", "cid": "k1-1"}]
    assert any("Onwards" in f and "scene-log" in f for f in frames)
    await alice.close()


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        ({"command": "roll", "roll_kind": "expression", "expression": "2d", "mode": "blind"}, "2d"),
        ({"command": "chat", "text": ""}, "Say something"),
        ({"command": "no_such_command"}, "Unknown command"),
    ],
)
async def test_a_refused_command_is_answered_with_why_and_records_nothing(table, frame, why):
    before = await sync_to_async(count_events)()
    alice = await connect(table.alice, table.scene)
    await alice.send(**frame, cid="k1-2")
    frames = await alice.drain()
    (answer,) = answers(frames)
    assert answer["cid"] == "k1-2" and why.lower() in answer["error"].lower(), answer
    assert any('id="scene-errors"' in f for f in frames)  # the error the page shows
    assert await sync_to_async(count_events)() == before
    await alice.close()


@pytest.mark.parametrize("cid", [None, 7, "", "x" * 41, "<b>", ["a"]])
async def test_no_answer_without_an_id_of_the_page_s_own(table, cid):
    alice = await connect(table.alice, table.scene)
    frame = {"command": "chat", "text": "hi"}
    if cid is not None:
        frame["cid"] = cid
    await alice.send(**frame)
    frames = await alice.drain()
    assert answers(frames) == []
    assert any("hi" in f and "scene-log" in f for f in frames)  # the line was still said
    await alice.close()


async def test_a_flood_s_refusal_answers_the_command_it_refused(table, monkeypatch):
    from tabletop.scenes import consumers

    monkeypatch.setattr(consumers, "RATE_BURST", 1.0)
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 0.001)
    alice = await connect(table.alice, table.scene, hello=None)
    await alice.send(command="hello", last_seq=0)  # the one token
    await alice.send(command="chat", text="too fast", cid="k1-3")
    frames = await alice.drain()
    (answer,) = answers(frames)
    assert answer["cid"] == "k1-3" and "Slow down" in answer["error"]
    await alice.close()
