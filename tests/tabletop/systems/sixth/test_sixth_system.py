"""A sixth system plugs in without touching generic code: the "coin" system (tests/ only:
sixth/coin.py and its templates) is registered, a campaign of it is created, and a roll made on
one member's socket reaches another member's socket, card and panel rendered from its own
templates."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from tabletop import systems
from tabletop.campaigns.actions import campaign_create
from tabletop.campaigns.models import Campaign, Membership
from tabletop.scenes import actions
from tabletop.scenes.commands import COMMANDS, Command
from tabletop.scenes.kinds import EVENT_KINDS, EventKind
from tabletop.scenes.rollkinds import ROLL_KINDS, kinds_for
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.sixth import coin


@pytest.fixture
def coin_system(settings):
    """Register the coin system and let Django find its templates; take both away after."""
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [*templates[0]["DIRS"], coin.TEMPLATES]
    settings.TEMPLATES = templates
    systems.register(coin.SYSTEM)
    yield coin.SYSTEM
    systems.unregister("coin")


def coin_table(django_user_model):
    gm = django_user_model.objects.create_user("gm", password="a-long-table-secret")
    alice = django_user_model.objects.create_user("alice", password="a-long-table-secret")
    bob = django_user_model.objects.create_user("bob", password="a-long-table-secret")
    campaign = campaign_create(gm=gm, name="Heads or tails", system="coin")
    Membership.objects.create(campaign=campaign, user=alice)
    Membership.objects.create(campaign=campaign, user=bob)
    scene = actions.scene_open(
        scene=actions.scene_create(campaign=campaign, actor=gm, name="The bridge"), actor=gm
    )
    return gm, alice, bob, campaign, scene


@pytest.mark.django_db
def test_the_registry_offers_what_the_system_brings(coin_system, django_user_model):
    gm, alice, bob, campaign, scene = coin_table(django_user_model)
    assert ("coin", "Coin (one toss)") in systems.choices()
    assert campaign.game is coin_system and campaign.effective_ruleset() == {"calls": True}
    assert [k.name for k in kinds_for("coin")][0] == "coin_flip"
    assert ROLL_KINDS["coin_flip"].card == "systems/coin/rolls/flip.html"
    # The scene page shows its roll panel and its procedure panel, from its own templates.
    client = Client()
    client.force_login(bob)
    page = client.get(reverse("scenes:detail", args=[scene.pk])).content.decode()
    assert '<option value="tails">Tails</option>' in page
    assert "0 tosses so far." in page


@pytest.mark.django_db
def test_once_taken_away_the_system_is_gone(coin_system, django_user_model):
    systems.unregister("coin")
    assert "coin_flip" not in ROLL_KINDS and "coin" not in dict(systems.choices())
    with pytest.raises(Exception, match="system"):
        campaign_create(gm=django_user_model.objects.create_user("gm"), name="Gone", system="coin")
    assert not Campaign.objects.exists()
    systems.register(coin.SYSTEM)  # the fixture takes it away again
    assert "roll" in COMMANDS  # generic commands were never the system's


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_roll_of_the_sixth_system_reaches_another_members_socket(
    coin_system, django_user_model, monkeypatch
):
    gm, alice, bob, campaign, scene = await sync_to_async(coin_table)(django_user_model)
    alice_socket = await connect(alice, scene)
    bob_socket = await connect(bob, scene)
    script_dice(monkeypatch, Faces(2))  # the coin shows tails
    await alice_socket.send(command="roll", roll_kind="coin_flip", mode="public", call="heads")
    await alice_socket.drain()
    frames = await bob_socket.drain()
    seen = "\n".join(frames)
    assert "The coin shows <b>tails</b> (heads was called)." in seen
    assert "Tails: lost" in seen
    assert "1 toss so far." in seen  # its panel, made stale by its roll kind
    # A roll kind it does not offer is refused in its campaign, with an error frame.
    await alice_socket.send(command="roll", roll_kind="conductor_attack", mode="public")
    assert "Unknown roll" in "\n".join(await alice_socket.drain())
    for socket in (alice_socket, bob_socket):
        await socket.close()


def coin_roll_again(**kwargs: object) -> None:
    """An action a clashing command would run (never run: the command is refused first)."""


def clashing(**names: object) -> systems.System:
    """The coin system under another slug, with one of its names changed to ``names``."""
    return dataclasses.replace(coin.SYSTEM, slug="coin2", label="Coin again", **names)


@pytest.mark.parametrize(
    ("clash", "says"),
    [
        ("slug", "Two systems are named 'coin'"),
        ("command", "Two commands are named 'roll'"),
        ("event kind", "Two event kinds are named 'roll'"),
        ("roll kind", "Two roll kinds are named 'coin_flip'"),
    ],
)
def test_a_name_taken_is_refused_at_start_up_and_nothing_of_the_system_stays(
    coin_system, clash, says
):
    before = (dict(COMMANDS), dict(EVENT_KINDS), dict(ROLL_KINDS), list(systems.choices()))
    if clash == "slug":
        other = dataclasses.replace(coin.SYSTEM, label="Another coin")
    elif clash == "command":
        other = clashing(commands=(Command("roll", coin_roll_again),), roll_kinds=())
    elif clash == "event kind":
        kind = EventKind("roll", template="systems/coin/rolls/flip.html")
        other = clashing(event_kinds=(kind,), roll_kinds=(), commands=())
    else:  # the coin system's own roll kind, as another object under the same name
        flip = dataclasses.replace(coin.SYSTEM.roll_kinds[0])
        other = clashing(roll_kinds=(flip,), commands=(), event_kinds=())
    with pytest.raises(systems.NameTaken, match=says):
        systems.register(other)
    # Refused whole: the registries hold exactly what they held.
    assert (dict(COMMANDS), dict(EVENT_KINDS), dict(ROLL_KINDS), list(systems.choices())) == before
