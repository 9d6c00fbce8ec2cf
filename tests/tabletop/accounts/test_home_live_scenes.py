"""The home page lists the member's live scenes first: the open scenes of their campaigns, each
with its way in and who is at it now; then their campaigns, as before."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tabletop.campaigns.models import Campaign, Membership
from tabletop.scenes import actions
from tabletop.scenes.models import Presence
from tabletop.scenes.selectors import live_scenes_for, presence_stale_after
from tests.support.tables import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    return make_table()


def home(client, user) -> str:
    client.force_login(user)
    return client.get(reverse("home")).content.decode()


def live_section(page: str) -> str:
    found = re.findall(r'<section aria-labelledby="live-heading".*?</section>', page, re.S)
    return found[0] if found else ""


def seat(scene, user, *, seen_ago=timedelta(0), channel="c1"):
    Presence.objects.create(
        scene=scene, user=user, channel_name=channel, last_seen=timezone.now() - seen_ago
    )


def test_the_open_scenes_of_my_campaigns_come_first_with_a_way_in(client, table):
    gm = table.gm
    actions.scene_create(campaign=table.campaign, actor=gm, name="Prepared cellar")
    closed = actions.scene_create(campaign=table.campaign, actor=gm, name="Old crypt")
    actions.scene_close(scene=actions.scene_open(scene=closed, actor=gm), actor=gm)
    page = home(client, table.alice)
    live = live_section(page)
    assert "The sunken vault" in live and "Vault" in live
    assert f'href="{reverse("scenes:detail", args=[table.scene.pk])}" role="button"' in live
    assert "Prepared cellar" not in live and "Old crypt" not in live
    # First: before the campaigns as they were listed.
    assert page.index("live-heading") < page.index('class="card-grid"')


def test_another_tables_live_scene_is_never_shown(client, table, django_user_model):
    stranger = django_user_model.objects.create_user("sten", password="a-long-table-secret")
    elsewhere = Campaign.objects.create(name="Secret Moon", system="conductor", gm=stranger)
    Membership.objects.create(campaign=elsewhere, user=stranger, role="gm")
    hidden = actions.scene_create(campaign=elsewhere, actor=stranger, name="Moon base")
    actions.scene_open(scene=hidden, actor=stranger)
    page = home(client, table.alice)
    assert "Moon base" not in page and "Secret Moon" not in page
    assert "Moon base" in live_section(home(client, stranger))
    assert "Moon base" not in live_section(home(client, table.outsider))
    assert live_section(home(client, table.outsider)) == ""


def test_who_is_at_the_table_is_shown_and_a_stale_socket_is_not(client, table):
    seat(table.scene, table.bob)
    seat(table.scene, table.gm, seen_ago=presence_stale_after() * 2, channel="c2")
    live = live_section(home(client, table.alice))
    assert "At the table: bob" in live
    assert "gm" not in re.sub(r"<[^>]+>", "", live).split("At the table:")[1]


def test_an_empty_live_scene_says_no_one_is_there(client, table):
    assert "No one at the table yet" in live_section(home(client, table.alice))


def test_the_live_scenes_are_read_in_two_statements_however_many(table, django_assert_num_queries):
    for n in range(3):
        scene = actions.scene_create(campaign=table.campaign, actor=table.gm, name=f"Side {n}")
        actions.scene_open(scene=scene, actor=table.gm)
        seat(scene, table.bob, channel=f"c{n}")
    with django_assert_num_queries(2):
        live = live_scenes_for(user=table.alice)
        names = [(item.scene.name, item.scene.campaign.gm.username) for item in live]
    assert names[0] == ("Side 2", "gm")  # the most recently opened first
    assert {name for name, _ in names} == {"The sunken vault", "Side 0", "Side 1", "Side 2"}
