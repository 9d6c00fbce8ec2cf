"""The authorization matrix for pages: every URL of the app × every role (anonymous, a
non-member, another player, the character's owner, the GM), allowed exactly where it should be.

A URL added without a row here fails ``test_every_url_has_a_rule``. Refused POSTs must also
leave the database as it was (``effect`` is read before and after).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tabletop.campaigns.models import Invite, Membership
from tabletop.characters.models import Character, SavedRoll
from tabletop.discord.models import Mirror
from tabletop.notify.models import ReadMark
from tabletop.outbox.models import Outgoing
from tabletop.scenes.models import Scene
from tests.support.tables import make_table

ROLES = ("anonymous", "outsider", "player", "owner", "gm")
OK, LOGIN, DENIED = "ok", "login", "denied"

#: Pages anyone may open (sign-up, log-in, password reset); checked for anonymous only.
PUBLIC = {
    "home",
    "signup",
    "login",
    "logout",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
    # the dice reference (issue 36): documentation, its examples roll for anyone (nothing is
    # recorded); an expression of one's own needs a login (test_dice_expressions.py)
    "dice_reference",
    "dice_reference_roll",
    # one-click unsubscribe (RFC 8058): its signed token, not a login, says whose mail stops
    # (tests/tabletop/notify/test_notify.py: a wrong or altered token changes nothing)
    "notify:unsubscribe",
}


@dataclass
class World:
    table: Any
    character: Character
    invite: Invite
    saved_roll: SavedRoll


@dataclass(frozen=True)
class Case:
    url: Callable[[World], str]
    expect: dict[str, str]
    method: str = "get"
    data: dict[str, Any] = field(default_factory=dict)
    effect: Callable[[World], Any] | None = None  # what a refused POST must leave unchanged


def members(gm: str = OK, owner: str = OK, player: str = OK, outsider: str = DENIED) -> dict:
    return {"anonymous": LOGIN, "outsider": outsider, "player": player, "owner": owner, "gm": gm}


GM_ONLY = members(owner=DENIED, player=DENIED)
ANY_USER = members(outsider=OK)

CASES: dict[str, Case] = {
    "password_change": Case(lambda w: reverse("password_change"), ANY_USER),
    "password_change_done": Case(lambda w: reverse("password_change_done"), ANY_USER),
    # One's own account: every signed-in user has one; another's session id ends nothing
    # (tests/tabletop/accounts/test_account_page.py).
    "account": Case(lambda w: reverse("account"), ANY_USER),
    "account_download": Case(lambda w: reverse("account_download"), ANY_USER),
    "account_delete": Case(lambda w: reverse("account_delete"), ANY_USER),
    "account_email": Case(lambda w: reverse("account_email"), ANY_USER, method="post"),
    "account_table": Case(lambda w: reverse("account_table"), ANY_USER, method="post"),
    "account_sessions_end": Case(
        lambda w: reverse("account_sessions_end"), ANY_USER, method="post"
    ),
    "account_session_end": Case(
        lambda w: reverse("account_session_end", args=[1]), ANY_USER, method="post"
    ),
    "campaigns:list": Case(lambda w: reverse("campaigns:list"), ANY_USER),
    "campaigns:create": Case(lambda w: reverse("campaigns:create"), ANY_USER),
    # An invite opened logged out names its campaign and GM and offers sign-up or log in
    # (test_invite_logged_out.py): its token is the key, as it is for anyone logged in.
    "campaigns:join": Case(
        lambda w: reverse("campaigns:join", args=[w.invite.token]), {**ANY_USER, "anonymous": OK}
    ),
    "campaigns:detail": Case(
        lambda w: reverse("campaigns:detail", args=[w.table.campaign.pk]), members()
    ),
    "campaigns:settings": Case(
        lambda w: reverse("campaigns:settings", args=[w.table.campaign.pk]), GM_ONLY
    ),
    "campaigns:ruleset_reset": Case(
        lambda w: reverse("campaigns:ruleset_reset", args=[w.table.campaign.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: type(w.table.campaign).objects.get(pk=w.table.campaign.pk).ruleset,
    ),
    "campaigns:invite_create": Case(
        lambda w: reverse("campaigns:invite_create", args=[w.table.campaign.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: Invite.objects.filter(revoked_at__isnull=True).count(),
    ),
    "campaigns:invite_revoke": Case(
        lambda w: reverse("campaigns:invite_revoke", args=[w.table.campaign.pk, w.invite.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: Invite.objects.get(pk=w.invite.pk).revoked_at,
    ),
    "campaigns:invite_email": Case(
        lambda w: reverse("campaigns:invite_email", args=[w.table.campaign.pk, w.invite.pk]),
        GM_ONLY,
        method="post",
        data={"email": "friend@example.org"},
        effect=lambda w: len(mail.outbox),
    ),
    "campaigns:delete": Case(
        lambda w: reverse("campaigns:delete", args=[w.table.campaign.pk]),
        GM_ONLY,
        method="post",
        data={"confirm": "Vault"},
        effect=lambda w: type(w.table.campaign).objects.filter(pk=w.table.campaign.pk).exists(),
    ),
    "campaigns:member_remove": Case(
        lambda w: reverse("campaigns:member_remove", args=[w.table.campaign.pk, w.table.bob.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: Membership.objects.filter(user=w.table.bob).exists(),
    ),
    "characters:create": Case(
        lambda w: reverse("characters:create", args=[w.table.campaign.pk]), members()
    ),
    "characters:detail": Case(
        lambda w: reverse("characters:detail", args=[w.character.pk]), members()
    ),
    "characters:edit": Case(
        lambda w: reverse("characters:edit", args=[w.character.pk]), members(player=DENIED)
    ),
    "characters:delete": Case(
        lambda w: reverse("characters:delete", args=[w.character.pk]),
        members(player=DENIED),
        method="post",
        effect=lambda w: Character.objects.filter(pk=w.character.pk).exists(),
    ),
    "characters:adjust": Case(
        lambda w: reverse("characters:adjust", args=[w.character.pk]),
        GM_ONLY,
        method="post",
        data={"mode": "set", "bennies": "7"},
        effect=lambda w: Character.objects.get(pk=w.character.pk).sheet.bennies,
    ),
    # Saved rolls: a character's are its owner's and the GM's to change; a member's own, theirs.
    "characters:saved_roll_add": Case(
        lambda w: reverse("characters:saved_roll_add", args=[w.character.pk]),
        members(player=DENIED),
        method="post",
        data={"new-name": "Axe", "new-expression": "1d8"},
        effect=lambda w: SavedRoll.objects.count(),
    ),
    "characters:own_roll_add": Case(
        lambda w: reverse("characters:own_roll_add", args=[w.table.campaign.pk]),
        members(),
        method="post",
        data={"new-name": "Luck", "new-expression": "1d6"},
        effect=lambda w: SavedRoll.objects.count(),
    ),
    "characters:saved_roll_update": Case(
        lambda w: reverse("characters:saved_roll_update", args=[w.saved_roll.pk]),
        members(player=DENIED),
        method="post",
        effect=lambda w: SavedRoll.objects.get(pk=w.saved_roll.pk).name,
    ),
    "characters:saved_roll_delete": Case(
        lambda w: reverse("characters:saved_roll_delete", args=[w.saved_roll.pk]),
        members(player=DENIED),
        method="post",
        effect=lambda w: SavedRoll.objects.filter(pk=w.saved_roll.pk).exists(),
    ),
    "scenes:list": Case(lambda w: reverse("scenes:list", args=[w.table.campaign.pk]), members()),
    "scenes:detail": Case(lambda w: reverse("scenes:detail", args=[w.table.scene.pk]), members()),
    "stats:campaign": Case(
        lambda w: reverse("stats:campaign", args=[w.table.campaign.pk]), members()
    ),
    "stats:scene": Case(lambda w: reverse("stats:scene", args=[w.table.scene.pk]), members()),
    "scenes:open": Case(
        lambda w: reverse("scenes:open", args=[w.table.scene.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: Scene.objects.get(pk=w.table.scene.pk).status,
    ),
    "scenes:close": Case(
        lambda w: reverse("scenes:close", args=[w.table.scene.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: Scene.objects.get(pk=w.table.scene.pk).status,
    ),
    "scenes:odds": Case(
        lambda w: (
            reverse("scenes:odds", args=[w.table.scene.pk]) + "?roll_kind=expression&expression=2d6"
        ),
        members(),
    ),
    "scenes:earlier": Case(
        lambda w: reverse("scenes:earlier", args=[w.table.scene.pk]) + "?before=2", members()
    ),
    # Notifications: one's own; a scene's read mark and a campaign's mail choice, members only.
    "notify:list": Case(lambda w: reverse("notify:list"), ANY_USER),
    "notify:campaign": Case(
        lambda w: reverse("notify:campaign", args=[w.table.campaign.pk]), members()
    ),
    "notify:seen": Case(
        lambda w: reverse("notify:seen", args=[w.table.scene.pk]),
        members(),
        method="post",
        data={"seq": "1", "visible": "1"},
        effect=lambda w: ReadMark.objects.count(),
    ),
    # The campaign's Discord mirror: its GM's alone (a player learns what goes from the
    # campaign page; the webhook is never shown to them).
    "discord:save": Case(
        lambda w: reverse("discord:save", args=[w.table.campaign.pk]),
        GM_ONLY,
        method="post",
        data={
            "webhook_url": f"https://discord.com/api/webhooks/118011/{'t' * 68}",
            "sends": "chat",
        },
        effect=lambda w: list(Mirror.objects.values_list("webhook_id", flat=True)),
    ),
    "discord:test": Case(
        lambda w: reverse("discord:test", args=[w.table.campaign.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: Outgoing.objects.count(),
    ),
    "discord:off": Case(
        lambda w: reverse("discord:off", args=[w.table.campaign.pk]),
        GM_ONLY,
        method="post",
        effect=lambda w: Mirror.objects.count(),
    ),
    "discord:status": Case(
        lambda w: reverse("discord:status", args=[w.table.campaign.pk]), GM_ONLY
    ),
    # The session ledger: each member downloads their own; a non-member gets 404.
    "scenes:ledger_json": Case(
        lambda w: reverse("scenes:ledger_json", args=[w.table.scene.pk]), members()
    ),
    "scenes:ledger_md": Case(
        lambda w: reverse("scenes:ledger_md", args=[w.table.scene.pk]), members()
    ),
    "scenes:ledger_html": Case(
        lambda w: reverse("scenes:ledger_html", args=[w.table.scene.pk]), members()
    ),
}

#: A scene is created by POST to the list page: the GM only.
POST_CASES: dict[str, Case] = {
    "scenes:list": Case(
        lambda w: reverse("scenes:list", args=[w.table.campaign.pk]),
        members(owner=DENIED, player=DENIED),
        method="post",
        data={"name": "Another scene"},
        effect=lambda w: Scene.objects.count(),
    ),
}


def url_names() -> set[str]:
    def walk(patterns, namespace=None):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, pattern.namespace or namespace)
            elif isinstance(pattern, URLPattern):
                yield f"{namespace}:{pattern.name}" if namespace else pattern.name

    return {name for name in walk(get_resolver().url_patterns) if not name.startswith("admin:")}


def test_every_url_has_a_rule():
    missing = url_names() - set(CASES) - PUBLIC
    assert not missing, f"URLs without an authorization rule: {sorted(missing)}"
    assert not (set(CASES) | PUBLIC) - url_names(), "rules for URLs that no longer exist"


@pytest.fixture
def world(db, settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    table = make_table(system="conductor")
    character = Character.objects.create(
        campaign=table.campaign, owner=table.alice, name="Mira", bennies=1
    )
    invite = Invite.objects.create(campaign=table.campaign, created_by=table.gm)
    saved_roll = SavedRoll.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        character=character,
        name="Sword",
        expression="1d20",
    )
    return World(table, character, invite, saved_roll)


def client_for(world: World, role: str) -> Client:
    client = Client()
    user = {
        "anonymous": None,
        "outsider": world.table.outsider,
        "player": world.table.bob,
        "owner": world.table.alice,
        "gm": world.table.gm,
    }[role]
    if user is not None:
        client.force_login(user)
    return client


def outcome(response) -> str:
    if response.status_code in (403, 404):
        return DENIED
    if response.status_code == 302 and response.url.startswith(reverse("login")):
        return LOGIN
    assert response.status_code in (200, 302), response.status_code
    return OK


MATRIX = [(name, role, case) for name, case in CASES.items() for role in ROLES] + [
    (f"{name} (POST)", role, case) for name, case in POST_CASES.items() for role in ROLES
]


@pytest.mark.parametrize(("name", "role", "case"), MATRIX, ids=[f"{n}-{r}" for n, r, _ in MATRIX])
def test_page_authorization(world: World, name: str, role: str, case: Case):
    before = case.effect(world) if case.effect else None
    response = getattr(client_for(world, role), case.method)(case.url(world), case.data)
    assert outcome(response) == case.expect[role], (name, role, response.status_code)
    if case.effect is not None and case.expect[role] != OK:
        assert case.effect(world) == before, f"{name} refused {role} yet changed something"


@pytest.mark.parametrize(
    "name", sorted(PUBLIC - {"password_reset_confirm", "logout", "notify:unsubscribe"})
)
def test_public_pages_open_to_anyone(db, name: str):
    assert Client().get(reverse(name)).status_code == 200


def test_the_unsubscribe_page_opens_to_anyone_and_only_shows_its_button(db):
    page = Client().get(reverse("notify:unsubscribe", args=["any-token"]))
    assert page.status_code == 200 and b"Stop mail from this campaign</button>" in page.content


def test_a_refused_gm_action_by_a_player_really_is_refused(world: World):
    # The matrix's effect check can fail: a GM-only POST by the GM does change things.
    before = Membership.objects.filter(user=world.table.bob).exists()
    client_for(world, "gm").post(
        reverse("campaigns:member_remove", args=[world.table.campaign.pk, world.table.bob.pk])
    )
    assert before and not Membership.objects.filter(user=world.table.bob).exists()
    assert get_user_model().objects.filter(pk=world.table.bob.pk).exists()
