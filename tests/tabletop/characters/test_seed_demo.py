"""The seed_demo command: a demo campaign per system, three users, full sheets, idempotent."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.test import RequestFactory

from tabletop import systems
from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character, SavedRoll

#: A login form's request: the door (django-axes) checks every login against one.
LOGIN_REQUEST = RequestFactory().post("/accounts/login/")

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_seed_demo_creates_the_demo_table(django_user_model):
    output = seed()

    assert set(django_user_model.objects.values_list("username", flat=True)) == {
        "gm",
        "alice",
        "bob",
    }
    # One per registered system: the five, and the tests' sixth (tests/settings.py).
    slugs = {system.slug for system in systems.all_systems()}
    assert {"annulus", "roll_and_keep", "conductor", "two_dice", "percentile"} <= slugs
    assert Campaign.objects.count() == len(slugs)
    assert set(Campaign.objects.values_list("system", flat=True)) == slugs
    assert "Demo: Annulus" in Campaign.objects.values_list("name", flat=True)
    for campaign in Campaign.objects.all():
        roles = dict(campaign.memberships.values_list("user__username", "role"))
        assert roles == {"gm": "gm", "alice": "player", "bob": "player"}
        pcs = campaign.characters.filter(role="pc")
        assert set(pcs.values_list("owner__username", flat=True)) == {"alice", "bob"}
        assert campaign.characters.exclude(role="pc").filter(owner__username="gm").exists()
    assert authenticate(LOGIN_REQUEST, username="alice", password="tabletop-demo") is not None
    assert "http://127.0.0.1:8000/" in output and "tabletop-demo" in output


def test_seed_demo_sheets_follow_the_seeds():
    seed()
    sable = Character.objects.get(name="Sable").sheet
    assert sable.mana["Black"] == 3 and sable.mana["Blue"] == 2
    assert {"name": "Deceit", "attribute": "Cunning"} in sable.specialities
    assert {"name": "Artifice", "attribute": "Intelligence"} in sable.specialities

    kestrel = Character.objects.get(name="Kestrel").sheet
    assert {"name": "Weapon", "value": 2, "specialisation": "Sword"} in kestrel.skills
    assert kestrel.bennies > 0
    assert Character.objects.filter(campaign__system="conductor", role="foe").count() == 2

    tomalfson = Character.objects.get(name="Tomalfson").sheet
    assert (tomalfson.quickness, tomalfson.mv, tomalfson.total_penalty) == (-9, 26, -65)
    assert (tomalfson.plot_points, tomalfson.plot_points_total) == (3, 3)

    tamsin = Character.objects.get(name="Tamsin Reed").sheet
    assert set(tamsin.resources) == {"Health", "Stamina", "Focus", "Resolve"}
    assert Character.objects.get(name="Mira Vell").sheet.training_perks["Knowledge"] == 2


def test_seed_demo_is_idempotent(django_user_model):
    seed()
    counts = (
        django_user_model.objects.count(),
        Campaign.objects.count(),
        Membership.objects.count(),
        Character.objects.count(),
        SavedRoll.objects.count(),
    )
    alice = django_user_model.objects.get(username="alice")
    alice.set_password("changed-by-alice")
    alice.save()

    seed()

    assert counts == (
        django_user_model.objects.count(),
        Campaign.objects.count(),
        Membership.objects.count(),
        Character.objects.count(),
        SavedRoll.objects.count(),
    )
    tables = len(list(systems.all_systems()))
    assert counts[:4] == (3, tables, 3 * tables, counts[3]) and counts[3] >= 3 * tables
    # Saved rolls to try: on each player's character (Longsword, Damage) and each member's own.
    assert counts[4] == tables * (2 * 2 + 3)
    longsword = SavedRoll.objects.filter(owner=alice, name="Longsword").first()
    assert longsword.character.owner == alice and longsword.expression == "1d20+5"
    # The demo password is set again, so the printed logins always work.
    assert authenticate(LOGIN_REQUEST, username="alice", password="tabletop-demo") is not None


@pytest.mark.django_db
def test_seed_demo_prints_where_the_site_is_served():
    out = StringIO()
    call_command("seed_demo", "--url", "http://127.0.0.1:9000/", stdout=out)
    assert "Open http://127.0.0.1:9000/ and log in" in out.getvalue()
    makefile = (Path(settings.BASE_DIR) / "Makefile").read_text()
    assert "seed_demo --url http://$(HOST):$(PORT)/" in makefile  # make demo PORT=9000


@pytest.mark.django_db(transaction=True)
def test_the_demo_table_mails_nobody_and_counts_nothing_unread(settings, django_user_model):
    """The demo's scenes are ready to play, not news: `make run` after `make demo` printed a
    "gm opened a scene" digest per scene to alice and bob (twelve mails), which spent bob's six
    mails of the hour before anyone played, so a mention of him was held for an hour."""
    from django.core import mail

    from tabletop.notify import digests, selectors
    from tabletop.outbox import sender
    from tabletop.scenes.feed import durable

    settings.NOTIFY_EMAIL_DELAY_SECONDS = 0
    seed()
    durable.take_woken()
    durable.sweep()
    digests.compose_due()
    sender.send_due()
    assert [m.to for m in mail.outbox] == []
    for name in ("alice", "bob"):
        player = django_user_model.objects.get(username=name)
        assert selectors.unread_by_campaign(user=player) == {}
        assert selectors.unseen_notifications(user=player) == 0
