"""HTTP hardening: CSRF on every POST (forms and htmx), a CSP that allows no eval and no inline
code, and production responses with HSTS, secure cookies and an HTTPS redirect.

Every URL pattern of our apps and of Django's auth views is enumerated from the resolver, so a
new view is covered (or the test says which value its URL needs) without editing this file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tabletop.campaigns.models import Campaign, Invite, Membership
from tabletop.characters.models import Character, SavedRoll
from tabletop.scenes import actions as scene_actions
from tests.tabletop.project.test_settings import PRODUCTION_ENV, run_manage

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
#: The site's own CSRF failure page (templates/403_csrf.html), not Django's bare one.
CSRF_REFUSED = b"<h1>This page expired</h1>"


def url_patterns(resolver: URLResolver | None = None, namespace: str = "") -> dict[str, URLPattern]:
    """Every named URL (``namespace:name``) except Django's admin, which Django itself tests."""
    found: dict[str, URLPattern] = {}
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace != "admin":
                inner = ":".join(p for p in (namespace, entry.namespace or "") if p)
                found.update(url_patterns(entry, inner))
        else:
            assert entry.name, f"unnamed URL pattern {entry.pattern}: name it so it is tested"
            found[f"{namespace}:{entry.name}" if namespace else entry.name] = entry
    return found


PATTERNS = url_patterns()
VIEW_NAMES = sorted(PATTERNS)
#: POSTs that carry no CSRF token by design, and why.
CSRF_EXEMPT = {
    # RFC 8058 one-click unsubscribe: the mail client POSTs it, with no session and no form;
    # its signed token is what authorizes it (tests/tabletop/notify/test_notify.py).
    "notify:unsubscribe",
}


@dataclass
class World:
    gm: Any
    player: Any
    campaign: Campaign
    character: Character
    invite: Invite
    scene: Any
    saved_roll: SavedRoll

    def url(self, view_name: str) -> str:
        namespace = view_name.split(":")[0] if ":" in view_name else ""
        by_namespace = {
            "campaigns": self.campaign.pk,
            "discord": self.campaign.pk,
            "characters": self.character.pk,
            "scenes": self.scene.pk,
            "stats:campaign": self.campaign.pk,
            "stats:scene": self.scene.pk,
        }
        values = {
            "campaign_pk": self.campaign.pk,
            "user_pk": self.player.pk,
            "invite_pk": self.invite.pk,
            "roll_pk": self.saved_roll.pk,
            "uidb64": "MQ",  # Django's password-reset link
            "session_id": 1,  # a login session on the account page
            "scene_pk": self.scene.pk,
        }
        kwargs = {}
        for name in PATTERNS[view_name].pattern.regex.groupindex:
            if name == "pk":
                kwargs[name] = by_namespace.get(view_name) or by_namespace[namespace]
            elif name == "token":
                kwargs[name] = self.invite.token if namespace == "campaigns" else "set-password"
            else:
                assert name in values, f"{view_name}: give this test a value for <{name}>"
                kwargs[name] = values[name]
        return reverse(view_name, kwargs=kwargs)


@pytest.fixture
def world(settings) -> World:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    users = get_user_model().objects
    gm = users.create_user("gm", password="a-long-table-secret")
    player = users.create_user("alice", password="a-long-table-secret")
    campaign = Campaign.objects.create(name="Vault", system="conductor", gm=gm)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    character = Character.objects.create(campaign=campaign, owner=player, name="Hero")
    invite = Invite.objects.create(campaign=campaign, created_by=gm)
    scene = scene_actions.scene_create(campaign=campaign, actor=gm, name="Hall")
    saved_roll = SavedRoll.objects.create(
        campaign=campaign, owner=player, character=character, name="Axe", expression="1d8"
    )
    return World(gm, player, campaign, character, invite, scene, saved_roll)


def browser(user: Any = None) -> Client:
    """A client that checks CSRF like a real request does (the test client skips it otherwise)."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


# --- CSRF ------------------------------------------------------------------------------------


def test_the_enumeration_sees_every_app_and_the_auth_views():
    assert {"home", "signup", "login", "logout", "password_change"} <= set(VIEW_NAMES)
    for app in ("campaigns", "characters", "scenes"):
        assert any(name.startswith(f"{app}:") for name in VIEW_NAMES)


@pytest.mark.parametrize("view_name", sorted(set(VIEW_NAMES) - CSRF_EXEMPT))
def test_post_without_a_csrf_token_is_refused(world, view_name):
    url = world.url(view_name)
    for user in (world.gm, world.player, None):
        client = browser(user)
        form_post = client.post(url, {"name": "x", "expression": "1d6"})
        assert form_post.status_code == 403, (view_name, user)
        assert CSRF_REFUSED in form_post.content
        htmx_post = client.post(url, {"name": "x"}, headers={"HX-Request": "true"})
        assert htmx_post.status_code == 403 and CSRF_REFUSED in htmx_post.content
        forged = client.post(
            url, {"csrfmiddlewaretoken": "forged" * 8}, headers={"X-CSRFToken": "x"}
        )
        assert forged.status_code == 403 and CSRF_REFUSED in forged.content


@pytest.mark.parametrize("view_name", VIEW_NAMES)
def test_the_same_post_with_the_token_passes_the_csrf_check(world, view_name):
    # So the refusals above are the missing token's doing, for form posts and htmx's header.
    client = browser(world.gm)
    client.get(reverse("home"))
    token = client.cookies[django_settings.CSRF_COOKIE_NAME].value
    response = client.post(
        world.url(view_name), {"name": "x"}, headers={"HX-Request": "true", "X-CSRFToken": token}
    )
    assert CSRF_REFUSED not in response.content


class PageParser(HTMLParser):
    """Collects what CSRF and CSP care about from a rendered page."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []  # post forms and the hidden inputs inside them
        self.htmx_writes: list[str] = []  # hx-post / hx-put / hx-patch / hx-delete targets
        self.body_headers: dict[str, str] | None = None
        self.htmx_config: dict[str, Any] | None = None
        self.inline_scripts = 0
        self.inline_handlers: list[str] = []
        self._form: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.inline_handlers += [k for k in a if k.startswith("on") or k.startswith("hx-on")]
        self.htmx_writes += [a[k] for k in ("hx-post", "hx-put", "hx-patch", "hx-delete") if k in a]
        if tag == "form" and a.get("method", "get").lower() == "post":
            self._form = {"action": a.get("action", ""), "inputs": {}}
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None:
            self._form["inputs"][a.get("name", "")] = a.get("value", "")
        elif tag == "body" and "hx-headers" in a:
            self.body_headers = json.loads(a["hx-headers"])
        elif tag == "meta" and a.get("name") == "htmx-config":
            self.htmx_config = json.loads(a["content"])
        elif tag == "script":
            # A JSON data block (Django's json_script: the scene's member list) is never run.
            data_block = a.get("type") == "application/json"
            self.inline_scripts += "src" not in a and not data_block

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def pages(world: World) -> list[tuple[str, Any, Any]]:
    """(url, user, response) for every page a GET renders as HTML, for the GM, a player and an
    anonymous visitor."""
    rendered = []
    for view_name in VIEW_NAMES:
        url = world.url(view_name)
        for user in (world.gm, world.player, None):
            response = browser(user).get(url)
            # A download (the session ledger's self-verifying HTML file) is saved, not rendered:
            # it is no page, and it runs its own script only when opened from disk.
            download = response.get("Content-Disposition", "").startswith("attachment")
            if (
                response.status_code == 200
                and "text/html" in response.get("Content-Type", "")
                and not download
            ):
                rendered.append((url, user, response))
    return rendered


def test_every_rendered_post_form_and_htmx_request_carries_the_csrf_token(world):
    post_forms = htmx_writes = 0
    for url, user, response in pages(world):
        page = PageParser()
        page.feed(response.content.decode())
        for form in page.forms:
            token = form["inputs"].get("csrfmiddlewaretoken", "")
            assert len(token) == 64, f"{url} as {user}: form to {form['action']!r} has no token"
            post_forms += 1
        if page.htmx_writes:
            # htmx sends the body's hx-headers with every request it makes from the page.
            assert page.body_headers is not None, f"{url}: htmx writes without the CSRF header"
            assert len(page.body_headers.get("X-CSRFToken", "")) == 64, url
            htmx_writes += len(page.htmx_writes)
    # Not vacuous: the sign-up, login, logout, campaign and character forms were all seen.
    assert post_forms >= 10 and htmx_writes >= 2, (post_forms, htmx_writes)


FORM_TAG = re.compile(r"<form\b[^>]*>", re.IGNORECASE)


def test_every_post_form_template_has_a_csrf_token():
    checked = 0
    for template in sorted((ROOT / "templates").rglob("*.html")):
        text = template.read_text()
        for match in FORM_TAG.finditer(text):
            if not re.search(r"method=[\"']post[\"']", match.group(0), re.IGNORECASE):
                continue  # ws-send forms travel over the socket (Origin-checked), not HTTP
            body = text[match.end() : text.find("</form>", match.end())]
            assert "{% csrf_token %}" in body, f"{template.relative_to(ROOT)}: {match.group(0)}"
            checked += 1
    assert checked >= 10


# --- Content-Security-Policy -----------------------------------------------------------------


def test_every_page_has_a_csp_without_eval_or_inline_code_and_htmx_has_eval_off(world):
    seen = 0
    for url, _user, response in pages(world):
        csp = {
            part.split()[0]: part.split()[1:]
            for part in response["Content-Security-Policy"].split(";")
            if part.strip()
        }
        assert csp["script-src"] == ["'self'"], url
        assert csp["object-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"], url
        assert "unsafe" not in response["Content-Security-Policy"], url
        page = PageParser()
        page.feed(response.content.decode())
        assert page.inline_scripts == 0 and page.inline_handlers == [], url
        if page.body_headers is not None:  # a full page: htmx is loaded, with eval off
            assert page.htmx_config is not None, url
            assert page.htmx_config["allowEval"] is False, url
            assert page.htmx_config["allowScriptTags"] is False, url
            seen += 1
    assert seen >= 10


def test_htmx_settles_no_style_attribute_on_any_page(world):
    # Settling copies an old element's attributes onto its new twin with setAttribute: a style
    # a script (or a browser extension) set through CSSOM would be refused by style-src 'self'.
    seen = 0
    for url, _user, response in pages(world):
        page = PageParser()
        page.feed(response.content.decode())
        if page.htmx_config is not None:
            settled = page.htmx_config.get("attributesToSettle", ["style"])
            assert "style" not in settled and "class" in settled, url
            assert page.htmx_config["includeIndicatorStyles"] is False, url
            seen += 1
    assert seen >= 10


def test_templates_use_no_inline_style_or_script_that_the_csp_would_block():
    # style-src 'self' and script-src 'self' silently drop these in the browser.
    inline = re.compile(r"\sstyle=|<style\b|\son[a-z]+=|hx-on|javascript:", re.IGNORECASE)
    for template in sorted((ROOT / "templates").rglob("*.html")):
        found = inline.findall(template.read_text())
        assert not found, f"{template.relative_to(ROOT)}: {found}"


def test_no_template_comment_of_one_brace_spans_lines():
    # Django's {# ... #} is one line only: over two it is printed on the page as text.
    for template in sorted((ROOT / "templates").rglob("*.html")):
        found = re.findall(r"\{#[^}]*\n", template.read_text())
        assert not found, f"{template.relative_to(ROOT)}: {found}"


#: The one template that runs its own script inline: the session ledger's self-verifying HTML
#: file, a download opened from disk, never served as a page under the site's CSP.
OFFLINE_FILES = {"scenes/ledger/ledger.html"}


def test_templates_load_every_script_from_a_file():
    # script-src 'self': a <script> without src (other than a JSON data block) would not run.
    script = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)
    checked = 0
    for template in sorted((ROOT / "templates").rglob("*.html")):
        name = template.relative_to(ROOT / "templates").as_posix()
        for attrs in script.findall(template.read_text()):
            checked += 1
            if name in OFFLINE_FILES:
                continue
            assert "src=" in attrs or 'type="application/json"' in attrs, f"{name}: {attrs}"
    assert checked >= 5


# --- production responses --------------------------------------------------------------------

PROBE = """
from django.test import Client, override_settings
plain = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
with override_settings(STORAGES=plain):  # no collectstatic manifest here; all else as deployed
    client = Client(HTTP_HOST="table.example.org", raise_request_exception=False)
    plain_http = client.get("/accounts/login/")
    https = client.get("/accounts/login/", secure=True)
print("PROBE", plain_http.status_code, plain_http.get("Location"))
for name in ("Strict-Transport-Security", "Content-Security-Policy", "X-Frame-Options",
             "X-Content-Type-Options", "Referrer-Policy"):
    print("HEADER", name, "=", https.get(name))
csrf = https.cookies["csrftoken"]
print("COOKIE", https.status_code, bool(csrf["secure"]), csrf["samesite"])
"""


def test_production_responses_redirect_to_https_and_carry_hsts_csp_and_secure_cookies():
    result = run_manage("shell", "-c", PROBE, env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "PROBE 301 https://table.example.org/accounts/login/" in lines
    headers = dict(
        line.removeprefix("HEADER ").split(" = ", 1) for line in lines if line.startswith("HEADER")
    )
    assert headers["Strict-Transport-Security"] == ("max-age=31536000; includeSubDomains; preload")
    assert "unsafe-eval" not in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert "COOKIE 200 True Lax" in lines
