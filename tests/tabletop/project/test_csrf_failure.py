"""A form posted without a valid CSRF token (a login form left open after clearing cookies, a
form kept past its session): a page in the site's layout that says what happened and what to
do, DEBUG on or off, instead of Django's bare "CSRF verification failed" page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

MESSAGE = "Your session expired or cookies were cleared; reload the page and try again."


def refused_login(client: Client | None = None, **headers: str):
    client = client or Client(enforce_csrf_checks=True)
    login = reverse("login")
    return client.post(login, {"username": "alice", "password": "x" * 12}, headers=headers)


@override_settings(DEBUG=False)
def test_a_post_without_a_token_gets_the_sites_page_with_debug_off():
    response = refused_login()
    assert response.status_code == 403
    assert "403_csrf.html" in [t.name for t in response.templates]
    page = response.content.decode().replace("&#x27;", "'")
    assert "<h1>This page expired</h1>" in page
    assert MESSAGE in page
    assert 'class="skip-link"' in page and "pico" in page  # base.html's layout and styles
    assert f'<a href="{reverse("home")}">Back to the start page</a>' in page
    assert "CSRF verification failed" not in page and "Reason" not in page
    assert "Content-Security-Policy" in response.headers


@override_settings(DEBUG=True)
def test_with_debug_on_it_is_the_same_page_with_djangos_reason():
    response = refused_login()
    assert response.status_code == 403
    page = response.content.decode()
    assert "<h1>This page expired</h1>" in page
    assert "CSRF cookie not set." in page


@override_settings(DEBUG=False)
def test_the_link_goes_back_to_the_page_of_the_form_on_this_site_only():
    login_page = "http://testserver" + reverse("login") + "?next=/campaigns/"
    page = refused_login(Referer=login_page).content.decode()
    assert f'<a href="{login_page.replace("&", "&amp;")}">Back to the page you were on</a>' in page
    elsewhere = refused_login(Referer="https://example.org/phish/").content.decode()
    assert "example.org" not in elsewhere
    assert "Back to the start page" in elsewhere


@override_settings(DEBUG=False)
def test_reloading_and_trying_again_works():
    get_user_model().objects.create_user("alice", password="x" * 12)
    client = Client(enforce_csrf_checks=True)
    assert refused_login(client).status_code == 403
    client.get(reverse("login"))  # the reload
    token = client.cookies["csrftoken"].value
    response = client.post(
        reverse("login"),
        {"username": "alice", "password": "x" * 12, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302


@override_settings(DEBUG=False)
def test_a_logged_in_player_sees_the_page_as_theirs():
    # The page is rendered with the request: the site's bar names the player, and the way back
    # is to their campaigns (a template rendered without the request would show a visitor's).
    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.create_user("alice", password="x" * 12))
    response = client.post(reverse("logout"))
    assert response.status_code == 403
    page = response.content.decode()
    assert MESSAGE.replace("'", "&#x27;") in page or MESSAGE in page
    assert ">alice</a>" in page and "Back to your campaigns" in page
