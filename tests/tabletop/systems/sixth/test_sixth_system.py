"""A sixth system plugs in without touching generic code: the "coin" system is an app under
tests/ (tests/tabletop/systems/sixth: its models and migration, templates, stylesheet), named only
by the test settings (tests/settings.py). Its characters keep their own sheet (the face they
favour, their luck); the GM steps luck, a player spends it on a toss seen by the table to toss
again; the Sheet tool offers its rollable; a roll made on one member's socket reaches another
member's socket, card and procedure view rendered from its own templates."""

from __future__ import annotations

import dataclasses
import html

import pytest
from asgiref.sync import sync_to_async
from django.contrib.staticfiles import finders
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from tabletop import systems
from tabletop.campaigns.actions import campaign_create
from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.commands import COMMANDS, Command
from tabletop.scenes.kinds import EVENT_KINDS, EventKind
from tabletop.scenes.rollkinds import ROLL_KINDS, kinds_for
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect
from tests.tabletop.systems.sixth import coin
from tests.tabletop.systems.sixth.models import CoinSheet
from tests.tabletop.systems.sixth.system import SYSTEM


@pytest.fixture
def coin_system():
    """The coin system, as its app registered it (a test that takes it away puts it back)."""
    yield SYSTEM
    if systems.find("coin") is None:
        systems.register(SYSTEM)


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


def page_of(user, scene) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("scenes:detail", args=[scene.pk]))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


@pytest.mark.django_db
def test_the_registry_offers_what_the_system_brings(coin_system, django_user_model):
    gm, alice, bob, campaign, scene = coin_table(django_user_model)
    assert ("coin", "Coin (one toss)") in systems.choices()
    assert campaign.game is coin_system and campaign.effective_ruleset() == {"calls": True}
    assert [k.name for k in kinds_for("coin")][0] == "coin_flip"
    assert ROLL_KINDS["coin_flip"].card == "systems/coin/rolls/flip.html"
    # The scene page shows its roll form and its procedure view, from its own templates.
    page = page_of(bob, scene)
    assert '<option value="tails">Tails</option>' in page
    assert "0 tosses so far." in page


@pytest.mark.django_db
def test_once_taken_away_the_system_is_gone(coin_system, django_user_model):
    systems.unregister("coin")
    assert "coin_flip" not in ROLL_KINDS and "coin" not in dict(systems.choices())
    with pytest.raises(Exception, match="system"):
        campaign_create(gm=django_user_model.objects.create_user("gm"), name="Gone", system="coin")
    assert not Campaign.objects.exists()
    systems.register(SYSTEM)
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
    assert "1 toss so far." in seen  # its view, made stale by its roll kind
    # A roll kind it does not offer is refused in its campaign, with an error frame.
    await alice_socket.send(command="roll", roll_kind="conductor_attack", mode="public")
    assert "Unknown roll" in "\n".join(await alice_socket.drain())
    for socket in (alice_socket, bob_socket):
        await socket.close()


def coin_roll_again(**kwargs: object) -> None:
    """An action a clashing command would run (never run: the command is refused first)."""


def clashing(**names: object) -> systems.System:
    """The coin system under another slug, with one of its names changed to ``names``."""
    return dataclasses.replace(SYSTEM, slug="coin2", label="Coin again", **names)


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
        other = dataclasses.replace(SYSTEM, label="Another coin")
    elif clash == "command":
        other = clashing(
            commands=(Command("roll", coin_roll_again),), roll_kinds=(), event_kinds=()
        )
    elif clash == "event kind":
        kind = EventKind("roll", template="systems/coin/rolls/flip.html")
        other = clashing(event_kinds=(kind,), roll_kinds=(), commands=())
    else:  # the coin system's own roll kind, as another object under the same name
        flip = dataclasses.replace(SYSTEM.roll_kinds[0])
        other = clashing(roll_kinds=(flip,), commands=(), event_kinds=())
    with pytest.raises(systems.NameTaken, match=says):
        systems.register(other)
    # Refused whole: the registries hold exactly what they held.
    assert (dict(COMMANDS), dict(EVENT_KINDS), dict(ROLL_KINDS), list(systems.choices())) == before


# --- its own sheet, currency, stylesheet and rollable ------------------------------------------


def lucky_table(django_user_model, *, luck: int = 0):
    gm, alice, bob, campaign, scene = coin_table(django_user_model)
    wren = Character.objects.create(
        campaign=campaign, owner=alice, name="Wren", favours="tails", luck=luck
    )
    return gm, alice, bob, campaign, scene, wren


@pytest.mark.django_db
def test_its_characters_keep_their_sheet_in_its_own_table(coin_system, django_user_model):
    gm, alice, bob, campaign, scene, wren = lucky_table(django_user_model, luck=2)
    assert type(wren) is CoinSheet and CoinSheet._meta.db_table == "coin_coinsheet"
    assert Character.objects.get(pk=wren.pk).sheet.luck == 2
    # Created through the generic action, from its sheet form's (empty) fields: a sheet row too.
    from tabletop.characters.actions import character_create

    kit = character_create(campaign=campaign, actor=bob, name="Kit")
    assert CoinSheet.objects.get(pk=kit.pk).luck == 0
    # The page's character sheet shows its currency, read from its declaration.
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("characters:detail", args=[wren.pk])).content.decode()
    assert "Luck" in page


@pytest.mark.django_db
def test_its_sheet_form_edits_the_face_it_favours_and_the_sheet_tool_follows(
    coin_system, django_user_model
):
    """Its sheet's own field, declared as a part of its sheet spec, is on the generic form and
    the generic sheet page; a value it does not know is refused and changes nothing."""
    gm, alice, bob, campaign, scene, wren = lucky_table(django_user_model, luck=1)
    client = Client()
    client.force_login(alice)
    edit = reverse("characters:edit", args=[wren.pk])
    form = client.get(edit).content.decode()
    assert 'name="favours"' in form and '<option value="tails" selected>Tails</option>' in form

    refused = client.post(edit, {"name": "Wren", "notes": "", "favours": "edge"})
    assert refused.status_code == 200 and "Select a valid choice" in refused.content.decode()
    assert CoinSheet.objects.get(pk=wren.pk).favours == "tails"

    saved = client.post(edit, {"name": "Wren", "notes": "", "favours": "heads"})
    assert saved.status_code == 302
    assert CoinSheet.objects.get(pk=wren.pk).favours == "heads"
    sheet = html.unescape(client.get(reverse("characters:detail", args=[wren.pk])).content.decode())
    assert "Favours" in sheet and "called on every toss" in sheet
    assert 'aria-label="Toss a coin, heads called (1)"' in page_of(alice, scene)

    # Written without the form (an import, the demo), the sheet is held to the same part.
    from tabletop.characters.actions import character_create

    kit = character_create(campaign=campaign, actor=bob, name="Kit", sheet={"favours": "Tails"})
    assert CoinSheet.objects.get(pk=kit.pk).favours == "tails"
    with pytest.raises(ValidationError, match="Unknown favours 'edge'; choose one of: Heads"):
        character_create(campaign=campaign, actor=bob, name="Pip", sheet={"favours": "edge"})
    assert not Character.objects.filter(name="Pip").exists()


@pytest.mark.django_db
def test_its_stylesheet_is_its_app_s_and_its_scene_page_loads_it(coin_system, django_user_model):
    gm, alice, bob, campaign, scene, wren = lucky_table(django_user_model)
    found = finders.find("systems/coin/coin.css")
    assert found and "tests/tabletop/systems/sixth/static" in found.replace("\\", "/")
    assert "systems/coin/coin.css" in page_of(bob, scene)


@pytest.mark.django_db
def test_the_sheet_tool_offers_its_rollable_and_the_party_its_currency(
    coin_system, django_user_model
):
    gm, alice, bob, campaign, scene, wren = lucky_table(django_user_model, luck=3)
    page = page_of(alice, scene)
    assert 'aria-label="Toss a coin, tails called (3)"' in page
    assert 'data-roll-kind="coin_flip"' in page
    assert f'id="party-{wren.pk}-luck">3<' in page  # the Party tool reads its Currency
    # A sheet that changed shows at the next page: the value is the sheet's own.
    CoinSheet.objects.filter(pk=wren.pk).update(luck=1)
    assert 'aria-label="Toss a coin, tails called (1)"' in page_of(alice, scene)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_luck_the_gm_steps_is_spent_on_a_toss_and_every_member_sees_it(
    coin_system, django_user_model, monkeypatch
):
    gm, alice, bob, campaign, scene, wren = await sync_to_async(lucky_table)(django_user_model)
    gm_socket = await connect(gm, scene)
    alice_socket = await connect(alice, scene)
    bob_socket = await connect(bob, scene)
    # The GM steps luck, as any system's currency the GM steps (Currency.gm_steps).
    await gm_socket.send(command="award", character=wren.pk, field="luck", amount=1)
    await gm_socket.drain()
    assert f'id="party-{wren.pk}-luck">1<' in "\n".join(await bob_socket.drain())
    await alice_socket.drain()
    script_dice(monkeypatch, Faces(1, 2))  # heads, then tails
    await alice_socket.send(command="roll", roll_kind="coin_flip", character=wren.pk, call="tails")
    seen = html.unescape("\n".join(await alice_socket.drain()))
    assert "Heads: lost" in seen and "Spend luck: toss again" in seen
    await bob_socket.drain()
    toss = await sync_to_async(lambda: scene.events.get(kind="roll"))()
    await alice_socket.send(command="luck", seq=toss.seq)
    await alice_socket.drain()
    seen = html.unescape("\n".join(await bob_socket.drain()))
    assert "alice</strong> spent luck on Wren's toss" in seen
    assert "Tails: won" in seen  # the amended card, to another member
    assert f'id="party-{wren.pk}-luck">0<' in seen
    assert await sync_to_async(lambda: CoinSheet.objects.get(pk=wren.pk).luck)() == 0
    # With none left, a second spend is refused and changes nothing.
    await alice_socket.send(command="luck", seq=toss.seq)
    assert "Wren has 0 luck and this takes 1." in html.unescape(
        "\n".join(await alice_socket.drain())
    )
    for socket in (gm_socket, alice_socket, bob_socket):
        await socket.close()


@pytest.mark.django_db
def test_only_the_character_s_player_spends_its_luck(coin_system, django_user_model):
    gm, alice, bob, campaign, scene, wren = lucky_table(django_user_model, luck=1)
    toss = actions.roll(
        scene=scene, actor=alice, roll_kind="coin_flip", character=wren, rng=Faces(1)
    )
    with pytest.raises(Exception, match="Only the character's player"):
        coin.luck(scene=scene, actor=bob, seq=toss.seq)
    with pytest.raises(ValidationError, match="Luck goes on coin tosses|no such roll"):
        coin.luck(scene=scene, actor=alice, seq=toss.seq + 99)
    assert CoinSheet.objects.get(pk=wren.pk).luck == 1
