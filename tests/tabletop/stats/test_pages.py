"""The statistics pages: members only, linked from the campaign and scene pages, and never a
roll the viewer may not see, not even through a count (as test_audiences.py checks the live
paths): a blind roll before its reveal, someone else's self or private roll, the GM's secret
rolls. A hidden roll counts for everyone once revealed. A loaded die is flagged on the page."""

from __future__ import annotations

import json
import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from tabletop.scenes import actions
from tabletop.stats import selectors
from tabletop.stats.stats import summarise
from tests.support.dice import Always, Faces
from tests.support.tables import make_table

pytestmark = pytest.mark.django_db

# One distinct expression per audience: each names its own group on the page ("Dice: 1d7").
HIDDEN = {
    "blind": "1d7",  # alice's, blind: a stub to her and to bob, full to the GM
    "gm": "1d9",  # bob's, private to the GM: a stub to alice
    "self": "1d11",  # bob's own
    "secret": "1d13",  # the GM's
}


def page(client_user, url) -> str:
    client = Client()
    client.force_login(client_user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def rolled(table):
    scene = table.scene
    roll = actions.roll
    for face in (1, 2, 3):
        roll(
            scene=scene,
            actor=table.alice,
            roll_kind="expression",
            data={"expression": "1d6"},
            rng=Faces(face),
        )
    blind = roll(
        scene=scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": HIDDEN["blind"]},
        mode="blind",
        rng=Faces(7),
    )
    roll(
        scene=scene,
        actor=table.bob,
        roll_kind="expression",
        data={"expression": HIDDEN["gm"]},
        mode="gm",
        rng=Faces(9),
    )
    roll(
        scene=scene,
        actor=table.bob,
        roll_kind="expression",
        data={"expression": HIDDEN["self"]},
        mode="self",
        rng=Faces(11),
    )
    roll(
        scene=scene,
        actor=table.gm,
        roll_kind="expression",
        data={"expression": HIDDEN["secret"]},
        mode="secret",
        rng=Faces(13),
    )
    return blind


def counts(text: str) -> dict[str, int]:
    """Each roller's count as the page says it."""
    found = re.findall(r'<h2 id="roller-\d+">([^<]+?) <small class="muted">(\d+) rolls?', text)
    return {name.strip(): int(n) for name, n in found}


# Which hidden expressions each member may see in full, before any reveal.
SEES = {
    "gm": {"blind", "gm", "secret"},
    "alice": set(),
    "bob": {"gm", "self"},
}


@pytest.mark.parametrize("who", ["gm", "alice", "bob"])
@pytest.mark.parametrize("where", ["campaign", "scene"])
def test_a_member_sees_statistics_of_exactly_the_rolls_they_may_see(who, where):
    table = make_table("conductor")
    rolled(table)
    user = getattr(table, who)
    url = reverse(
        f"stats:{where}", args=[table.campaign.pk if where == "campaign" else table.scene.pk]
    )
    text = page(user, url)
    for mode, expression in HIDDEN.items():
        assert (f"Dice: {expression}" in text) == (mode in SEES[who]), (who, mode)
    seen = 3 + len(SEES[who])
    assert f"{seen} rolls you can see" in text
    per_roller = counts(text)
    assert per_roller["alice"] == 3 + ("blind" in SEES[who])
    assert per_roller.get("bob", 0) == len(SEES[who] & {"gm", "self"})
    assert per_roller.get("gm", 0) == ("secret" in SEES[who])
    # nor in the chart data
    data = json.loads(
        re.search(r'id="stats-charts" type="application/json">(.*?)</script>', text, re.S).group(1)
    )
    sections = 2 if len(per_roller) > 1 else 1  # "Everyone at the table" and each roller
    assert sum(sum(chart["observed"]) for chart in data) == sections * seen


def test_a_blind_roll_counts_for_everyone_once_revealed():
    table = make_table("conductor")
    blind = rolled(table)
    url = reverse("stats:scene", args=[table.scene.pk])
    assert "Dice: 1d7" not in page(table.bob, url)
    actions.reveal(scene=table.scene, actor=table.gm, seq=blind.seq)
    for user in (table.alice, table.bob):
        text = page(user, url)
        assert "Dice: 1d7" in text and counts(text)["alice"] == 4
    # still not the rolls that stay hidden
    assert "Dice: 1d13" not in page(table.alice, url)


def test_the_selector_counts_only_full_visibility():
    table = make_table("conductor")
    rolled(table)
    from tabletop.scenes.audiences import Viewer

    events = selectors.roll_events(scene=table.scene)
    alice = selectors.visible_rolls(events, Viewer(user_id=table.alice.pk, is_gm=False))
    assert sorted(r.label for r in alice) == ["Dice: 1d6"] * 3
    everyone = summarise(alice)
    assert [s.roller for s in everyone] == ["alice"]  # bob's and the GM's rolls: not even named


def test_outsiders_get_no_statistics():
    table = make_table("conductor")
    client = Client()
    client.force_login(table.outsider)
    for url in (
        reverse("stats:campaign", args=[table.campaign.pk]),
        reverse("stats:scene", args=[table.scene.pk]),
    ):
        assert client.get(url).status_code == 404
        assert Client().get(url).status_code == 302  # log in first


def test_the_campaign_and_scene_pages_link_to_their_statistics():
    table = make_table("conductor")
    campaign = page(table.alice, reverse("campaigns:detail", args=[table.campaign.pk]))
    assert reverse("stats:campaign", args=[table.campaign.pk]) in campaign
    scene = page(table.alice, reverse("scenes:detail", args=[table.scene.pk]))
    assert reverse("stats:scene", args=[table.scene.pk]) in scene


class Loaded:
    """A die that shows its highest face a third of the time (seeded)."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def randint(self, low: int, high: int) -> int:
        if self.random.random() < 1 / 3:
            return high
        return self.random.randint(low, high)


def test_a_loaded_die_is_flagged_on_the_page_and_fair_dice_are_not():
    table = make_table("conductor")
    loaded, fair = Loaded(seed=4), random.Random(5)
    for _ in range(150):
        actions.roll(
            scene=table.scene,
            actor=table.alice,
            roll_kind="expression",
            data={"expression": "1d6"},
            rng=loaded,
        )
        actions.roll(
            scene=table.scene,
            actor=table.bob,
            roll_kind="conductor_standard",
            data={"skill": 2, "difficulty": 8},
            rng=fair,
        )
    text = page(table.gm, reverse("stats:scene", args=[table.scene.pk]))
    assert "These rolls look off" in text
    flagged = text.split("These rolls look off")[1].split("</ul>")[0]
    assert "alice: Dice: 1d6" in flagged and "bob" not in flagged


def test_fair_dice_with_enough_rolls_say_no_sign_of_it():
    table = make_table("conductor")
    fair = random.Random(6)
    for _ in range(60):
        actions.roll(
            scene=table.scene,
            actor=table.alice,
            roll_kind="conductor_standard",
            data={"skill": 2, "difficulty": 8},
            rng=fair,
        )
    text = page(table.alice, reverse("stats:campaign", args=[table.campaign.pk]))
    assert "No sign of it." in text and "look off" not in text


def test_too_few_rolls_say_not_enough_yet():
    table = make_table("conductor")
    actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": "1d6"},
        rng=Always(6),
    )
    text = page(table.alice, reverse("stats:scene", args=[table.scene.pk]))
    assert "Not enough rolls yet to say" in text
