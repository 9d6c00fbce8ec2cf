"""Every page of the site, in one place: what the accessibility check (test_accessibility.py)
and the page-width check (test_page_widths.py) visit, who visits it, and in which state.

``PAGES`` must pass both checks. ``NOT_PAGES`` names every URL that is no page of its own, with
the reason; test_accessibility.py checks that each URL of the site is in exactly one of these.

The data (ids, the invite token, the DEBUG-off error pages) comes from site_data.py, run in the
server's process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.test_scene_live import log_in

#: The site's systems, as their demo campaigns are keyed (tabletop/systems/<slug>).
SYSTEMS = tuple(module.rsplit(".", 1)[1] for module in settings.TABLETOP_SYSTEMS)
#: The demo users (manage.py seed_demo); None is a visitor who is not logged in.
GM, PLAYER, ANONYMOUS = "gm", "alice", None
LONG_USER = "Bartholomew_Fitzwilliam_of_Ashbury_Manor"  # site_data.LONG_USER


@dataclass(frozen=True)
class SitePage:
    """One page in one state.

    ``path`` is filled in from the data site_data.py makes: ``{s[campaign]}`` is the demo
    campaign of ``system`` (likewise ``alice_pc``, ``bob_pc``, ``gm_character``, ``scene``),
    ``{join_token}`` and ``{reset_link}`` as named; ``{long[campaign]}`` and
    ``{long[character]}`` are the table of long unbroken words (site_data.LONG_*), which
    ``LONG_USER`` plays at.
    """

    id: str
    #: The URL's name, as in ``{% url %}`` (None: a URL that is no route of the site).
    url_name: str | None
    path: str
    user: str | None
    status: int = 200
    system: str | None = None
    #: Submit the page's form blank by clicking this button: the page with its errors shown.
    submit: str | None = None
    #: Serve this DEBUG-off page (site_data ``error_pages``) at ``path`` instead of the server's:
    #: the test server runs with DEBUG on, which answers a 404 with Django's technical page.
    served: str | None = None

    def url(self, server: Any, data: dict[str, Any]) -> str:
        fill = {
            "join_token": data["join_token"],
            "reset_link": data["reset_link"],
            "long": data["long"],
        }
        if self.system:
            fill["s"] = data["systems"][self.system]
        return server.url + self.path.format(**fill)


# fmt: off
def _per_system() -> Iterator[SitePage]:
    for s in SYSTEMS:
        yield SitePage(f"campaign-detail-gm-{s}", "campaigns:detail", "/campaigns/{s[campaign]}/", GM, system=s)  # noqa: E501
        yield SitePage(f"campaign-detail-player-{s}", "campaigns:detail", "/campaigns/{s[campaign]}/", PLAYER, system=s)  # noqa: E501
        yield SitePage(f"character-detail-owner-{s}", "characters:detail", "/characters/{s[alice_pc]}/", PLAYER, system=s)  # noqa: E501
        yield SitePage(f"character-detail-gm-{s}", "characters:detail", "/characters/{s[alice_pc]}/", GM, system=s)  # noqa: E501
        yield SitePage(f"character-detail-gm-own-{s}", "characters:detail", "/characters/{s[gm_character]}/", GM, system=s)  # noqa: E501
        yield SitePage(f"character-edit-{s}", "characters:edit", "/characters/{s[alice_pc]}/edit/", PLAYER, system=s)  # noqa: E501
        yield SitePage(f"character-create-player-{s}", "characters:create", "/characters/new/{s[campaign]}/", PLAYER, system=s)  # noqa: E501
        yield SitePage(f"character-create-gm-{s}", "characters:create", "/characters/new/{s[campaign]}/", GM, system=s)  # noqa: E501


PAGES: tuple[SitePage, ...] = (
    # --- accounts --------------------------------------------------------------------------------
    SitePage("home-anonymous", "home", "/", ANONYMOUS),
    SitePage("home-gm", "home", "/", GM),
    SitePage("home-player", "home", "/", PLAYER),
    SitePage("login", "login", "/accounts/login/", ANONYMOUS),
    SitePage("login-errors", "login", "/accounts/login/", ANONYMOUS, submit="Log in"),
    SitePage("signup", "signup", "/accounts/signup/", ANONYMOUS),
    SitePage("signup-errors", "signup", "/accounts/signup/", ANONYMOUS, submit="Create account"),
    SitePage("password-change", "password_change", "/accounts/password_change/", PLAYER),
    SitePage("password-change-errors", "password_change", "/accounts/password_change/", PLAYER, submit="Change password"),  # noqa: E501
    SitePage("password-change-done", "password_change_done", "/accounts/password_change/done/", PLAYER),  # noqa: E501
    SitePage("password-reset", "password_reset", "/accounts/password_reset/", ANONYMOUS),
    SitePage("password-reset-done", "password_reset_done", "/accounts/password_reset/done/", ANONYMOUS),  # noqa: E501
    SitePage("password-reset-confirm", "password_reset_confirm", "{reset_link}", ANONYMOUS),
    SitePage("password-reset-confirm-invalid", "password_reset_confirm", "/accounts/reset/MQ/not-a-token/", ANONYMOUS),  # noqa: E501
    SitePage("password-reset-complete", "password_reset_complete", "/accounts/reset/done/", ANONYMOUS),  # noqa: E501
    SitePage("account", "account", "/accounts/me/", PLAYER),
    # --- between game nights (tabletop/notify) ---------------------------------------------------
    SitePage("notifications", "notify:list", "/notifications/", PLAYER),
    SitePage("notify-campaign", "notify:campaign", "/notifications/campaign/{s[campaign]}/", PLAYER, system=SYSTEMS[0]),  # noqa: E501
    SitePage("unsubscribe", "notify:unsubscribe", "/notifications/unsubscribe/not-a-token/", ANONYMOUS),  # noqa: E501
    SitePage("account-gm", "account", "/accounts/me/", GM),
    SitePage("account-delete", "account_delete", "/accounts/me/delete/", PLAYER),
    SitePage("account-delete-errors", "account_delete", "/accounts/me/delete/", PLAYER, submit="Delete my account for good"),  # noqa: E501
    SitePage("account-delete-gm", "account_delete", "/accounts/me/delete/", GM),
    # --- campaigns -------------------------------------------------------------------------------
    SitePage("campaign-list-gm", "campaigns:list", "/campaigns/", GM),
    SitePage("campaign-list-player", "campaigns:list", "/campaigns/", PLAYER),
    SitePage("campaign-create", "campaigns:create", "/campaigns/new/", GM),
    SitePage("campaign-create-errors", "campaigns:create", "/campaigns/new/", GM, submit="Create campaign"),  # noqa: E501
    SitePage("join", "campaigns:join", "/campaigns/join/{join_token}/", PLAYER),
    SitePage("join-invalid", "campaigns:join", "/campaigns/join/not-a-real-token/", PLAYER, status=404),  # noqa: E501
    # --- characters and scenes, each system's sheet ----------------------------------------------
    *_per_system(),
    SitePage("character-create-errors", "characters:create", "/characters/new/{s[campaign]}/", GM, system="conductor", submit="Create character"),  # noqa: E501
    SitePage("character-delete", "characters:delete", "/characters/{s[alice_pc]}/delete/", PLAYER, system="conductor"),  # noqa: E501
    SitePage("scene-list-gm", "scenes:list", "/scenes/campaign/{s[campaign]}/", GM, system="conductor"),  # noqa: E501
    SitePage("scene-list-player", "scenes:list", "/scenes/campaign/{s[campaign]}/", PLAYER, system="conductor"),  # noqa: E501
    # --- long unbroken words (a username, names, a pasted link) -----------------------------------
    SitePage("long-home", "home", "/", LONG_USER),
    SitePage("long-campaign-list", "campaigns:list", "/campaigns/", LONG_USER),
    SitePage("long-campaign-detail-player", "campaigns:detail", "/campaigns/{long[campaign]}/", LONG_USER),  # noqa: E501
    SitePage("long-campaign-detail-gm", "campaigns:detail", "/campaigns/{long[campaign]}/", GM),
    SitePage("long-character-detail-owner", "characters:detail", "/characters/{long[character]}/", LONG_USER),  # noqa: E501
    SitePage("long-character-detail-gm", "characters:detail", "/characters/{long[character]}/", GM),  # noqa: E501
    SitePage("long-character-edit", "characters:edit", "/characters/{long[character]}/edit/", LONG_USER),  # noqa: E501
    SitePage("long-character-delete", "characters:delete", "/characters/{long[character]}/delete/", LONG_USER),  # noqa: E501
    SitePage("long-scene-list", "scenes:list", "/scenes/campaign/{long[campaign]}/", GM),
    SitePage("long-password-change", "password_change", "/accounts/password_change/", LONG_USER),  # noqa: E501
    # --- errors ----------------------------------------------------------------------------------
    SitePage("403-player", "campaigns:settings", "/campaigns/{s[campaign]}/settings/", PLAYER, system="conductor", status=403),  # noqa: E501
    SitePage("403-not-your-sheet", "characters:edit", "/characters/{s[bob_pc]}/edit/", PLAYER, system="conductor", status=403),  # noqa: E501
    SitePage("404-anonymous", None, "/nothing-here/", ANONYMOUS, status=404, served="404-anonymous"),  # noqa: E501
    SitePage("404-player", None, "/campaigns/999999999/", PLAYER, status=404, served="404-player"),  # noqa: E501
    SitePage("500", None, "/page-checks/server-error/", ANONYMOUS, status=500, served="500"),
    # --- each system's campaign settings and live scene (GM and player) --------------------------
    *(SitePage(f"campaign-settings-{s}", "campaigns:settings", "/campaigns/{s[campaign]}/settings/", GM, system=s) for s in SYSTEMS),  # noqa: E501
    *(SitePage(f"scene-gm-{s}", "scenes:detail", "/scenes/{s[scene]}/", GM, system=s) for s in SYSTEMS),  # noqa: E501
    *(SitePage(f"scene-player-{s}", "scenes:detail", "/scenes/{s[scene]}/", PLAYER, system=s) for s in SYSTEMS),  # noqa: E501
    # --- the dice reference: anyone's and a member's (who may try expressions of their own) -----
    SitePage("dice-reference", "dice_reference", "/dice/", ANONYMOUS),
    SitePage("dice-reference-player", "dice_reference", "/dice/", PLAYER),
    # --- the dice statistics: each system's campaign (GM), a player's, a scene's -----------------
    *(SitePage(f"stats-campaign-gm-{s}", "stats:campaign", "/stats/campaigns/{s[campaign]}/", GM, system=s) for s in SYSTEMS),  # noqa: E501
    SitePage("stats-campaign-player", "stats:campaign", "/stats/campaigns/{s[campaign]}/", PLAYER, system="conductor"),  # noqa: E501
    SitePage("stats-scene-gm", "stats:scene", "/stats/scenes/{s[stats_scene]}/", GM, system="conductor"),  # noqa: E501
    SitePage("stats-scene-player", "stats:scene", "/stats/scenes/{s[stats_scene]}/", PLAYER, system="conductor"),  # noqa: E501
)
# fmt: on

#: URLs that are no page of their own: what they answer is checked where it shows.
NOT_PAGES: dict[str, str] = {
    "logout": "POST only; it redirects home",
    "campaigns:ruleset_reset": "POST only; it redirects to the settings page",
    "campaigns:invite_create": "POST only; its htmx partial is part of campaign-detail-gm",
    "campaigns:invite_revoke": "POST only; its htmx partial is part of campaign-detail-gm",
    "campaigns:member_remove": "POST only; its htmx partial is part of campaign-detail-gm",
    "campaigns:invite_email": "POST only; its htmx partial is part of campaign-detail-gm",
    "campaigns:delete": "POST only; its form is on campaign-settings-*, it redirects home",
    "discord:save": "POST only; its htmx partial is part of campaign-settings-* (the Discord "
    "mirror; errors: that page again)",
    "discord:test": "POST only; its htmx partial is part of campaign-settings-*",
    "discord:off": "POST only; its htmx partial is part of campaign-settings-*",
    "discord:status": "htmx only (the Discord mirror's status, polled); a plain GET redirects "
    "to campaign-settings-*",
    "account_email": "POST only; it redirects to the account page (errors: that page again)",
    "account_table": "POST only; it redirects to the account page (errors: that page again)",
    "account_session_end": "POST only; it redirects to the account page",
    "account_sessions_end": "POST only; it redirects to the account page",
    "account_download": "a download (a zip of what is the user's), linked from the account page",
    "characters:adjust": "POST only; its htmx partial is part of character-detail-gm",
    "characters:saved_roll_add": "POST only; its htmx partial is part of the character page",
    "characters:own_roll_add": "POST only; its htmx partial is part of the campaign page",
    "characters:saved_roll_update": "POST only; its htmx partial is part of its list's page",
    "characters:saved_roll_delete": "POST only; its htmx partial is part of its list's page",
    "scenes:open": "POST only; it redirects to the scene",
    "scenes:close": "POST only; it redirects to the scene",
    "scenes:odds": "an htmx fragment of the scene page's roll forms",
    "dice_reference_roll": "an htmx fragment of the dice reference page (a demonstration roll)",
    "scenes:earlier": "an htmx fragment of the scene page's log",
    "notify:seen": "POST only; the scene page's read mark (static/js/seen.js)",
    "scenes:ledger_json": "a download (the session ledger), linked from the scene page's head",
    "scenes:ledger_md": "a download (the session ledger), linked from the scene page's head",
    "scenes:ledger_html": "a download that verifies itself opened from disk (test_ledger.py)",
    "admin": "Django's own admin, for staff; not part of the app's pages",
}


def all_pages() -> list[Any]:
    """Every page, as test parameters named by its id."""
    return [pytest.param(p, id=p.id) for p in PAGES]


# --- visiting them -----------------------------------------------------------------------------

_data: dict[str, dict[str, Any]] = {}


def site_data(server: Any) -> dict[str, Any]:
    """The demo table plus site_data.prepare(), made once per server."""
    if server.url not in _data:
        server.manage("seed_demo")
        out = server.shell(
            "import json; from tests.browser.site_data import prepare; "
            "print('SITE-DATA ' + json.dumps(prepare()))"
        )
        line = next(x for x in out.splitlines() if x.startswith("SITE-DATA "))
        _data[server.url] = json.loads(line.removeprefix("SITE-DATA "))
    return _data[server.url]


class Visitors:
    """One logged-in browser context (and tab) per user, reused for every page they visit."""

    def __init__(self, browser: Browser, server: Any) -> None:
        self.browser, self.server = browser, server
        self._contexts: dict[str | None, BrowserContext] = {}
        self._pages: dict[str | None, Page] = {}

    def page_for(self, user: str | None) -> Page:
        if user not in self._pages:
            context = self.browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            if user is not None:
                log_in(page, self.server, user)
            self._contexts[user], self._pages[user] = context, page
        return self._pages[user]

    def close(self) -> None:
        for context in self._contexts.values():
            context.close()


def open_site_page(visitors: Visitors, site_page: SitePage, data: dict[str, Any]) -> Page:
    """Load the page as its user sees it (one load; a blank submit for an error state) and
    check it answered with the status it should."""
    page = visitors.page_for(site_page.user)
    url = site_page.url(visitors.server, data)
    if site_page.served:
        served = data["error_pages"][site_page.served]
        page.route(
            url,
            lambda route: route.fulfill(
                status=served["status"], headers=served["headers"], body=served["html"]
            ),
        )
    try:
        response = page.goto(url)
    finally:
        if site_page.served:
            page.unroute(url)
    if site_page.submit:
        with page.expect_navigation() as navigation:
            page.get_by_role("button", name=site_page.submit, exact=True).click()
        response = navigation.value
    assert response is not None and response.status == site_page.status, (
        f"{site_page.id}: {url} answered {response and response.status}, "
        f"expected {site_page.status}"
    )
    return page


# Two frames for layout after a load or resize, then the end of every finite animation or
# transition (a colour measured halfway through a button's fade is no colour anyone reads).
_SETTLE = """async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const finite = document.getAnimations().filter(
    a => Number.isFinite(a.effect?.getComputedTiming().endTime));
  await Promise.race([
    Promise.allSettled(finite.map(a => a.finished)),
    new Promise(r => setTimeout(r, 2000)),
  ]);
}"""


def resize_and_settle(page: Page, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate(_SETTLE)
