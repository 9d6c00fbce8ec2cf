"""The campaign page lists the campaign's scenes, the open ones first, with "Join the live scene"
on the open ones (issue 15), for the GM and the players alike."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tabletop.campaigns import selectors
from tabletop.scenes import actions as scene_actions
from tests.tabletop.campaigns.conftest import make_campaign

pytestmark = pytest.mark.django_db


def scene_url(scene):
    return reverse("scenes:detail", kwargs={"pk": scene.pk})


def join_links(html: str) -> list[str]:
    """The hrefs of the "Join the live scene" buttons on the page."""
    join = r'<a href="([^"]+)" role="button" class="join-scene">Join the live scene'
    return re.findall(join, html)


@pytest.fixture
def scenes(campaign, gm):
    closed = scene_actions.scene_create(campaign=campaign, actor=gm, name="Prologue at the ferry")
    scene_actions.scene_open(scene=closed, actor=gm)
    closed.refresh_from_db()
    scene_actions.scene_close(scene=closed, actor=gm)
    live = scene_actions.scene_create(campaign=campaign, actor=gm, name="Game night")
    scene_actions.scene_open(scene=live, actor=gm)
    prepared = scene_actions.scene_create(campaign=campaign, actor=gm, name="The sunken vault")
    for scene in (closed, live, prepared):
        scene.refresh_from_db()
    return {"closed": closed, "live": live, "prepared": prepared}


@pytest.mark.parametrize("who", ["gm", "seated_player"])
def test_the_campaign_page_offers_to_join_the_open_scene_only(
    client, campaign, scenes, who, request
):
    client.force_login(request.getfixturevalue(who))
    html = client.get(reverse("campaigns:detail", kwargs={"pk": campaign.pk})).content.decode()

    assert join_links(html) == [scene_url(scenes["live"])]
    # Every scene is listed with its status, the live one first.
    assert html.index("Game night") < html.index("The sunken vault") < html.index("Prologue")
    assert "Live now" in html and "Prepared" in html and "Closed" in html
    assert f'href="{scene_url(scenes["closed"])}"' in html  # the closed one is still readable


def test_a_closed_scene_offers_no_join(client, campaign, gm, scenes):
    scene_actions.scene_close(scene=scenes["live"], actor=gm)
    client.force_login(gm)
    html = client.get(reverse("campaigns:detail", kwargs={"pk": campaign.pk})).content.decode()
    assert "Game night" in html
    assert join_links(html) == []
    assert "Join the live scene" not in html


def test_no_scenes_yet_says_so(client, campaign, seated_player):
    client.force_login(seated_player)
    html = client.get(reverse("campaigns:detail", kwargs={"pk": campaign.pk})).content.decode()
    assert "No scenes yet." in html
    assert "Join the live scene" not in html


def test_another_campaigns_scenes_are_not_listed(client, campaign, gm, outsider, scenes):
    theirs = make_campaign(outsider, name="Otto Secret Game")
    hidden = scene_actions.scene_create(campaign=theirs, actor=outsider, name="Otto live scene")
    scene_actions.scene_open(scene=hidden, actor=outsider)
    client.force_login(gm)
    html = client.get(reverse("campaigns:detail", kwargs={"pk": campaign.pk})).content.decode()
    assert "Otto live scene" not in html
    assert join_links(html) == [scene_url(scenes["live"])]


def test_scenes_of_orders_open_then_prepared_then_closed(campaign, scenes):
    assert list(selectors.scenes_of(campaign=campaign)) == [
        scenes["live"],
        scenes["prepared"],
        scenes["closed"],
    ]
