"""An invite link opened logged out: it names the campaign and its GM and offers to sign up or
log in, each coming back to the invite; a link that does not work names nothing."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from tabletop.campaigns import actions
from tabletop.campaigns.models import Membership

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-table-secret"


def join_url(token: str) -> str:
    return reverse("campaigns:join", kwargs={"token": token})


def offered(page: str, element_id: str) -> str:
    (href,) = re.findall(rf'<a href="([^"]+)"[^>]*id="{element_id}"', page)
    return unescape(href)


def next_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["next"][0]


def test_the_page_names_the_campaign_and_its_gm_and_offers_sign_up_or_log_in(client, campaign, gm):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    response = client.get(join_url(invite.token))
    assert response.status_code == 200
    page = response.content.decode()
    assert campaign.name in page and "GM: gwen" in page
    signup, login = offered(page, "invite-signup"), offered(page, "invite-login")
    assert urlsplit(signup).path == reverse("signup")
    assert urlsplit(login).path == reverse("login")
    assert next_of(signup) == next_of(login) == join_url(invite.token)
    assert "Join as a player" not in page  # joining asks for an account first


def test_signing_up_from_the_invite_comes_back_to_it_and_joins(client, campaign, gm):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    signup = offered(client.get(join_url(invite.token)).content.decode(), "invite-signup")
    form = client.get(signup).content.decode()
    # The sign-up page's own "Log in" keeps the way back too.
    (login,) = re.findall(r'Already have an account\? <a href="([^"]+)"', form)
    assert next_of(unescape(login)) == join_url(invite.token)
    data = {"username": "mira", "password1": PASSWORD, "password2": PASSWORD}
    response = client.post(signup, data)
    assert response["Location"] == join_url(invite.token)
    page = client.get(response["Location"]).content.decode()
    assert "Join as a player" in page and "signed in as <strong>mira</strong>" in page
    client.post(join_url(invite.token))
    assert Membership.objects.get(campaign=campaign, user__username="mira").role == "player"


def test_logging_in_from_the_invite_comes_back_to_it(client, campaign, gm, player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    login = offered(client.get(join_url(invite.token)).content.decode(), "invite-login")
    assert f'value="{join_url(invite.token)}"' in client.get(login).content.decode()
    data = {"username": "pip", "password": "pw-player-12345", "next": next_of(login)}
    response = client.post(urlsplit(login).path, data)
    assert response["Location"] == join_url(invite.token)


@pytest.mark.parametrize("bad_next", ["https://evil.example/", "//evil.example/join/x/"])
def test_sign_up_never_sends_a_new_account_to_another_site(client, bad_next):
    url = f"{reverse('signup')}?next={bad_next}"
    assert "evil.example" not in client.get(url).content.decode()
    data = {"username": "mira", "password1": PASSWORD, "password2": PASSWORD}
    assert client.post(url, data)["Location"] == reverse("home")


@pytest.mark.parametrize("how", ["revoked", "unknown"])
def test_a_link_that_does_not_work_says_so_and_names_nothing(client, campaign, gm, how):
    campaign.description = "Weekly, Thursdays, at the lighthouse."
    campaign.save()
    invite = actions.invite_create(campaign=campaign, actor=gm)
    token = invite.token
    if how == "revoked":
        actions.invite_revoke(invite=invite, actor=gm)
    else:
        token = token[:-4] + "zzzz"
    for response in (client.get(join_url(token)), client.post(join_url(token))):
        page = response.content.decode()
        assert response.status_code == 404
        assert "This invite link does not work" in page
        for told in (campaign.name, "gwen", "lighthouse", campaign.get_system_display()):
            assert told not in page
        assert "invite-signup" not in page
    assert not Membership.objects.exclude(user=gm).exists()
