"""The scene page reads a long log in a fixed number of queries: no card costs a query of its
own (each card asks the campaign's system which spend buttons it offers)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tests.support.dice import Faces
from tests.support.tables import make_table


def _page_queries(table, user) -> int:
    client = Client()
    client.force_login(user)
    url = reverse("scenes:detail", args=[table.scene.pk])
    client.get(url)  # sessions, caches: warm
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["public", "gm"])
def test_more_cards_cost_no_more_queries(mode):
    table = make_table(system="conductor")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
        bennies=2,
    )

    def rolls(count: int) -> None:
        for _ in range(count):
            actions.roll(
                scene=table.scene,
                actor=table.alice,
                roll_kind="conductor_standard",
                mode=mode,
                character=hero,
                data={"skill_name": "Acrobatics", "difficulty": 7},
                rng=Faces(5),
            )

    rolls(2)
    few = {user.username: _page_queries(table, user) for user in (table.gm, table.alice)}
    rolls(10)
    many = {user.username: _page_queries(table, user) for user in (table.gm, table.alice)}
    assert many == few
