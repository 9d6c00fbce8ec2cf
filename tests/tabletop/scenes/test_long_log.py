"""Long sessions stay fast (issue 15): the scene page shows the last 200 entries a viewer may
see, and earlier ones load on demand, filtered for that viewer like every other path."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tabletop.scenes import actions
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.render import LOG_PAGE
from tests.support.dice import Faces
from tests.support.tables import make_table

CARD = re.compile(r'<article id="event-(\d+)"')


def roll(table, n: int, *, mode: str = "public", actor=None) -> None:
    for _ in range(n):
        actions.roll(
            scene=table.scene,
            actor=actor or table.alice,
            roll_kind="expression",
            mode=mode,
            data={"expression": "1d6"},
            rng=Faces(3),
        )


def seqs(html: str) -> list[int]:
    return [int(s) for s in CARD.findall(html)]


def page(client, table) -> str:
    return client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()


def earlier(client, table, before: int):
    return client.get(reverse("scenes:earlier", args=[table.scene.pk]), {"before": before})


@pytest.mark.django_db
def test_the_page_shows_the_last_page_and_loads_earlier_ones_on_demand():
    table = make_table(system="conductor")
    roll(table, LOG_PAGE + 30)  # with the scene's opening: 231 events
    client = Client()
    client.force_login(table.bob)
    html = page(client, table)
    shown = seqs(html)
    last = SceneEvent.objects.filter(scene=table.scene).order_by("-seq")[0].seq
    assert len(shown) == LOG_PAGE and shown[-1] == last and shown == sorted(shown)
    assert f"?before={shown[0]}" in html and "Show earlier entries" in html
    older = earlier(client, table, shown[0]).content.decode()
    assert seqs(older) == list(range(1, shown[0]))  # the rest, in order, no control left
    assert "Show earlier entries" not in older


@pytest.mark.django_db
def test_earlier_entries_are_filtered_for_the_viewer():
    table = make_table(system="conductor")
    roll(table, 5, mode="secret", actor=table.gm)  # the GM's secret rolls: no stub at all
    roll(table, LOG_PAGE + 5)
    for user, hidden_seen in ((table.gm, True), (table.bob, False)):
        client = Client()
        client.force_login(user)
        first = seqs(page(client, table))[0]
        response = earlier(client, table, first)
        assert response.status_code == 200
        secret_seqs = set(
            SceneEvent.objects.filter(audience="gm_only").values_list("seq", flat=True)
        )
        assert bool(secret_seqs & set(seqs(response.content.decode()))) is hidden_seen
        page_and_earlier = set(seqs(page(client, table))) | set(seqs(response.content.decode()))
        if not hidden_seen:
            assert not secret_seqs & page_and_earlier


@pytest.mark.django_db
def test_a_long_log_costs_the_page_what_a_short_one_does():
    table = make_table(system="conductor")
    client = Client()
    client.force_login(table.bob)
    roll(table, LOG_PAGE + 10)
    page(client, table)
    with CaptureQueriesContext(connection) as short:
        page(client, table)
    roll(table, 3 * LOG_PAGE)
    with CaptureQueriesContext(connection) as long:
        html = page(client, table)
    assert len(seqs(html)) == LOG_PAGE
    assert len(long) == len(short)


@pytest.mark.django_db
def test_earlier_needs_a_seq_and_a_member():
    table = make_table(system="conductor")
    client = Client()
    client.force_login(table.bob)
    assert earlier(client, table, "x").status_code == 400
    client.force_login(table.outsider)
    assert earlier(client, table, 5).status_code == 404
