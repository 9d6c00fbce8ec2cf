"""The data the page checks (tests/browser/site_pages.py) visit, made inside the server's
process: ``server.shell`` imports this module and prints ``prepare()`` as JSON.

Idempotent on the browser tests' shared database: the demo table (``seed_demo``) is assumed,
and what is added here (two scenes per demo campaign, a campaign with a live invite link) is
found by name on later runs, never made twice. Nothing here touches what other tests count.
"""

from __future__ import annotations

import json
import random
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.test import Client, RequestFactory, override_settings
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.views import defaults

from tabletop import systems
from tabletop.campaigns.actions import campaign_create, campaign_join, invite_create
from tabletop.campaigns.models import Campaign
from tabletop.characters.actions import character_create
from tabletop.characters.management.commands.seed_demo import DEMO_PASSWORD, demo_characters
from tabletop.characters.models import Character
from tabletop.scenes import actions as scene_actions
from tabletop.scenes.models import Scene

SCENE_NAME = "Page checks: the ford at dusk"
#: A scene of many rolls, for the dice statistics pages (seeded: the same history every run).
STATS_SCENE_NAME = "Page checks: a night of many rolls"
JOIN_CAMPAIGN = "Page checks: an open invitation"
#: Long unbroken words, where people do type them: a username, names, a pasted link. Pages must
#: wrap them, not widen (test_page_widths.py), so one table holds them all.
LONG_USER = "Bartholomew_Fitzwilliam_of_Ashbury_Manor"
LONG_CAMPAIGN = "Page checks: The_Unbelievably_Long_Chronicles_of_Nowhere_In_Particular"
LONG_CHARACTER = "Wolfeschlegelsteinhausenbergerdorff_the_Unpronounceable_of_the_Eastern_Reach"
LONG_SCENE = "Page checks: Underneath_the_Extraordinarily_Long_Bridge_of_Wandering_Souls"
LONG_LINK = (
    "https://example.org/wiki/campaigns/the-unbelievably-long-chronicles/session-notes/"
    "2024-11-03/what-happened-at-the-bridge?with=everything&and=more"
)
LONG_SYSTEM = "two_dice"
#: A user only the password-reset pages use (their link needs a real user).
RESET_USER = "page-checks-reset"
#: Where the DEBUG-off error pages are fetched (site_pages serves them at the same paths):
#: a URL that is no route (anonymous visitors get the login page for a campaign's URL), and a
#: campaign that does not exist.
NO_ROUTE_PATH = "/nothing-here/"
MISSING_CAMPAIGN_PATH = "/campaigns/999999999/"


def _demo_campaign(gm: Any, system: systems.System) -> Campaign:
    name = f"Demo: {system.label.split(' (')[0]}"
    return Campaign.objects.get(name=name, gm=gm, system=system.slug)


def _scene(campaign: Campaign, gm: Any, alice: Any, alice_pc: Character) -> Scene:
    scene = campaign.scenes.filter(name=SCENE_NAME).first()
    if scene is not None:
        return scene
    scene = scene_actions.scene_create(campaign=campaign, actor=gm, name=SCENE_NAME)
    scene = scene_actions.scene_open(scene=scene, actor=gm)
    # A few cards in the log, so the page's cards are checked too: a player's roll for all to
    # see, and one the GM keeps to themself.
    scene_actions.roll(
        scene=scene,
        actor=alice,
        roll_kind="expression",
        character=alice_pc,
        data={"expression": "3d6+2"},
    )
    scene_actions.roll(
        scene=scene, actor=gm, roll_kind="expression", mode="gm", data={"expression": "1d20"}
    )
    return scene


def _stats_scene(campaign: Campaign, gm: Any, alice: Any, bob: Any) -> Scene:
    """A closed scene with a seeded history of dice-box rolls (and, in conductor, standard and
    attack rolls), a blind one never revealed and the GM's secret one: the statistics pages'
    charts, tables and notes, for the page checks."""
    scene = campaign.scenes.filter(name=STATS_SCENE_NAME).first()
    if scene is not None:
        return scene
    scene = scene_actions.scene_create(campaign=campaign, actor=gm, name=STATS_SCENE_NAME)
    scene = scene_actions.scene_open(scene=scene, actor=gm)
    dice = random.Random(16)
    roll = scene_actions.roll
    for _ in range(24):
        roll(
            scene=scene, actor=alice, roll_kind="expression", data={"expression": "1d20"}, rng=dice
        )
        roll(scene=scene, actor=bob, roll_kind="expression", data={"expression": "2d6"}, rng=dice)
        if campaign.system == "conductor":
            data = {"skill": dice.randint(0, 3), "difficulty": dice.randint(5, 12)}
            roll(scene=scene, actor=alice, roll_kind="conductor_standard", data=data, rng=dice)
            data = {"skill": dice.randint(0, 2), "difficulty": dice.randint(3, 5)}
            roll(scene=scene, actor=bob, roll_kind="conductor_attack", data=data, rng=dice)
    roll(scene=scene, actor=alice, roll_kind="expression", mode="blind", data={"expression": "1d8"})
    roll(scene=scene, actor=gm, roll_kind="expression", mode="secret", data={"expression": "1d4"})
    return scene_actions.scene_close(scene=scene, actor=gm)


def _join_token(gm: Any) -> str:
    campaign = Campaign.objects.filter(name=JOIN_CAMPAIGN, gm=gm).first()
    if campaign is None:
        campaign = campaign_create(
            gm=gm,
            name=JOIN_CAMPAIGN,
            system=next(systems.all_systems()).slug,
            description="A table nobody joins: its invite page is checked, never accepted.",
        )
    invite = campaign.invites.filter(revoked_at__isnull=True).first()
    return (invite or invite_create(campaign=campaign, actor=gm)).token


def _reset_link() -> str:
    user, _ = get_user_model().objects.get_or_create(username=RESET_USER)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return f"/accounts/reset/{uid}/{default_token_generator.make_token(user)}/"


def _error_page(path: str, user: Any | None) -> dict[str, Any]:
    """The page a visitor gets with DEBUG off, as `make run` and production serve it (the test
    server runs with DEBUG on, which shows Django's technical 404 page instead)."""
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    with override_settings(DEBUG=False, ALLOWED_HOSTS=["testserver"]):
        response = client.get(path)
    return _served(response)


def _served(response: Any) -> dict[str, Any]:
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
    return {"status": response.status_code, "headers": headers, "html": response.content.decode()}


def _server_error_page() -> dict[str, Any]:
    """What Django's handler serves when a view raises (no URL here fails on purpose)."""
    response = defaults.server_error(RequestFactory().get("/"))
    # The CSP middleware wraps the handler's response in production; not called here.
    response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
    return _served(response)


def _long_table(gm: Any) -> dict[str, int]:
    """A campaign of long words: its GM is the demo GM, its player LONG_USER with a character."""
    player, created = get_user_model().objects.get_or_create(username=LONG_USER)
    if created:
        player.set_password(DEMO_PASSWORD)
        player.save(update_fields=["password"])
    campaign = Campaign.objects.filter(name=LONG_CAMPAIGN, gm=gm).first()
    if campaign is None:
        campaign = campaign_create(
            gm=gm,
            name=LONG_CAMPAIGN,
            system=LONG_SYSTEM,
            description=f"Notes from last time: {LONG_LINK}",
        )
        campaign_join(user=player, token=invite_create(campaign=campaign, actor=gm).token)
        demo = demo_characters(campaign)[0]
        sheet = {**demo["sheet"], "notes": f"Backstory in full at {LONG_LINK}"}
        character_create(
            campaign=campaign, actor=player, name=LONG_CHARACTER, role="pc", sheet=sheet
        )
        scene_actions.scene_create(campaign=campaign, actor=gm, name=LONG_SCENE)
    return {
        "campaign": campaign.pk,
        "character": campaign.characters.get(name=LONG_CHARACTER).pk,
    }


def prepare() -> dict[str, Any]:
    users = get_user_model().objects
    gm, alice, bob = (users.get(username=name) for name in ("gm", "alice", "bob"))
    by_system: dict[str, dict[str, int]] = {}
    for system in systems.all_systems():
        campaign = _demo_campaign(gm, system)
        mine = Character.objects.filter(campaign=campaign)
        alice_pc = mine.filter(owner=alice).order_by("pk").first()
        bob_pc = mine.filter(owner=bob).order_by("pk").first()
        gm_char = mine.filter(owner=gm).order_by("pk").first()
        by_system[system.slug] = {
            "campaign": campaign.pk,
            "alice_pc": alice_pc.pk,
            "bob_pc": bob_pc.pk,
            "gm_character": gm_char.pk if gm_char else alice_pc.pk,
            "scene": _scene(campaign, gm, alice, alice_pc).pk,
            "stats_scene": _stats_scene(campaign, gm, alice, bob).pk,
        }
    return {
        "systems": by_system,
        "join_token": _join_token(gm),
        "long": _long_table(gm),
        "reset_link": _reset_link(),
        "error_pages": {
            "404-anonymous": _error_page(NO_ROUTE_PATH, None),
            "404-player": _error_page(MISSING_CAMPAIGN_PATH, alice),
            "500": _server_error_page(),
        },
    }


if __name__ == "__main__":  # pragma: no cover - `manage.py shell -c` imports, never runs this
    print(json.dumps(prepare()))
