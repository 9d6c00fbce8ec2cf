"""The campaign pages: what each person sees, and every refusal."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from tabletop.campaigns import actions
from tabletop.campaigns.models import Campaign, Invite, Membership
from tests.tabletop.campaigns.conftest import make_campaign

pytestmark = pytest.mark.django_db


def detail_url(campaign):
    return reverse("campaigns:detail", kwargs={"pk": campaign.pk})


def settings_url(campaign):
    return reverse("campaigns:settings", kwargs={"pk": campaign.pk})


def join_url(token):
    return reverse("campaigns:join", kwargs={"token": token})


# --- creating and listing ------------------------------------------------------------------------


def test_create_page_makes_a_campaign_with_its_gm_membership(client, gm):
    client.force_login(gm)
    assert client.get(reverse("campaigns:create")).status_code == 200
    response = client.post(
        reverse("campaigns:create"),
        {"name": "Night Road", "system": "conductor", "description": "Weekly, Thursdays."},
    )
    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == detail_url(campaign)
    assert (campaign.gm, campaign.system) == (gm, "conductor")
    assert Membership.objects.get(campaign=campaign, user=gm).role == Membership.Role.GM


def test_create_page_offers_any_game_first(client, gm):
    """A D&D or Pathfinder group finds its choice at the top, named for what it is."""
    client.force_login(gm)
    page = client.get(reverse("campaigns:create")).content.decode()
    choices = re.findall(r'name="system" value="([a-z_]+)"', page)
    assert choices[0] == "any_game" and {"annulus", "percentile"} <= set(choices)
    assert "Any game (D&amp;D, Pathfinder, yours: dice notation, your currency, initiative)" in page


def test_create_page_refuses_a_system_not_among_the_five(client, gm):
    client.force_login(gm)
    response = client.post(reverse("campaigns:create"), {"name": "X", "system": "chess"})
    assert response.status_code == 200
    assert "Choose one of the systems" in response.content.decode()
    assert not Campaign.objects.exists()


def test_create_page_needs_a_name(client, gm):
    client.force_login(gm)
    response = client.post(reverse("campaigns:create"), {"name": "", "system": "annulus"})
    assert response.context["form"].errors["name"]
    assert not Campaign.objects.exists()


def test_a_campaigns_description_has_a_bound_said_on_the_form(client, gm):
    client.force_login(gm)
    page = client.get(reverse("campaigns:create")).content.decode()
    assert 'maxlength="2000"' in page and "up to 2,000 characters" in page
    data = {"name": "Night Road", "system": "conductor", "description": "x" * 2001}
    response = client.post(reverse("campaigns:create"), data)
    assert response.status_code == 200 and response.context["form"].errors["description"]
    assert not Campaign.objects.exists()
    with pytest.raises(ValidationError, match="at most 2,000 characters"):
        actions.campaign_create(
            gm=gm, name="Night Road", system="conductor", description="x" * 2001
        )
    assert not Campaign.objects.exists()


def test_list_shows_only_the_users_own_campaigns(client, gm, outsider, campaign, seated_player):
    make_campaign(outsider, name="Otto's Secret Game")
    client.force_login(seated_player)
    page = client.get(reverse("campaigns:list")).content.decode()
    assert campaign.name in page
    assert "Otto&#x27;s Secret Game" not in page and "Otto's Secret Game" not in page


# --- anonymous, outsiders and players ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kwargs", "method"),
    [
        ("campaigns:list", {}, "get"),
        ("campaigns:create", {}, "get"),
        ("campaigns:detail", {"pk": 1}, "get"),
        ("campaigns:settings", {"pk": 1}, "get"),
        ("campaigns:invite_create", {"pk": 1}, "post"),
        ("campaigns:member_remove", {"pk": 1, "user_pk": 1}, "post"),
    ],
)
def test_anonymous_users_are_sent_to_log_in(client, name, kwargs, method):
    url = reverse(name, kwargs=kwargs)
    response = getattr(client, method)(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


@pytest.mark.parametrize("page", ["detail", "settings"])
def test_a_non_member_gets_404(client, campaign, outsider, page):
    client.force_login(outsider)
    assert client.get(reverse(f"campaigns:{page}", kwargs={"pk": campaign.pk})).status_code == 404


def test_a_non_member_gets_404_on_gm_posts(client, campaign, outsider, gm):
    client.force_login(outsider)
    invite = actions.invite_create(campaign=campaign, actor=gm)
    posts = [
        reverse("campaigns:invite_create", kwargs={"pk": campaign.pk}),
        reverse("campaigns:invite_revoke", kwargs={"pk": campaign.pk, "invite_pk": invite.pk}),
        reverse("campaigns:member_remove", kwargs={"pk": campaign.pk, "user_pk": gm.pk}),
        reverse("campaigns:ruleset_reset", kwargs={"pk": campaign.pk}),
    ]
    for url in posts:
        assert client.post(url).status_code == 404, url
    invite.refresh_from_db()
    assert invite.is_active


def test_a_player_gets_403_on_the_gms_pages(client, campaign, gm, seated_player, outsider):
    invite = Invite.objects.get(campaign=campaign)
    actions.campaign_join(user=outsider, token=invite.token)
    client.force_login(seated_player)
    assert client.get(settings_url(campaign)).status_code == 403
    assert client.post(settings_url(campaign), {}).status_code == 403
    posts = [
        reverse("campaigns:invite_create", kwargs={"pk": campaign.pk}),
        reverse("campaigns:invite_revoke", kwargs={"pk": campaign.pk, "invite_pk": invite.pk}),
        reverse("campaigns:member_remove", kwargs={"pk": campaign.pk, "user_pk": outsider.pk}),
        reverse("campaigns:ruleset_reset", kwargs={"pk": campaign.pk}),
    ]
    for url in posts:
        assert client.post(url).status_code == 403, url
    invite.refresh_from_db()
    assert invite.is_active
    assert Invite.objects.filter(campaign=campaign).count() == 1
    assert Membership.objects.filter(campaign=campaign, user=outsider).exists()


def test_gm_actions_refuse_get(client, campaign, gm):
    client.force_login(gm)
    url = reverse("campaigns:invite_create", kwargs={"pk": campaign.pk})
    assert client.get(url).status_code == 405
    assert not Invite.objects.exists()


# --- the detail page -----------------------------------------------------------------------------


def test_detail_shows_system_gm_members_and_roles(client, campaign, seated_player):
    client.force_login(seated_player)
    response = client.get(detail_url(campaign))
    page = response.content.decode()
    assert response.status_code == 200
    assert campaign.get_system_display() in page
    assert "gwen" in page and "pip" in page
    assert "Game master" in page and "Player" in page
    # a player sees the table but no GM controls and no invite link
    assert "member_remove" not in page and "/remove/" not in page
    assert 'id="invites"' not in page
    assert settings_url(campaign) not in page


def test_detail_gives_the_gm_remove_buttons_for_players_only(client, campaign, gm, seated_player):
    client.force_login(gm)
    page = client.get(detail_url(campaign)).content.decode()
    remove_player = reverse(
        "campaigns:member_remove", kwargs={"pk": campaign.pk, "user_pk": seated_player.pk}
    )
    remove_gm = reverse("campaigns:member_remove", kwargs={"pk": campaign.pk, "user_pk": gm.pk})
    assert remove_player in page
    assert 'aria-label="Remove pip from the campaign"' in page
    assert remove_gm not in page


def test_detail_lists_pcs_to_players_and_npcs_only_to_the_gm(client, campaign, gm, seated_player):
    from tabletop.characters.models import Character

    Character.objects.create(campaign=campaign, owner=seated_player, name="Vex")
    Character.objects.create(
        campaign=campaign, owner=gm, name="The Hooded Stranger", role=Character.Role.NPC
    )
    client.force_login(seated_player)
    page = client.get(detail_url(campaign)).content.decode()
    assert "Vex" in page and "The Hooded Stranger" not in page
    client.force_login(gm)
    page = client.get(detail_url(campaign)).content.decode()
    assert "Vex" in page and "The Hooded Stranger" in page


# --- invites -------------------------------------------------------------------------------------


def test_gm_creates_an_invite_and_sees_its_absolute_url(client, campaign, gm):
    client.force_login(gm)
    response = client.post(reverse("campaigns:invite_create", kwargs={"pk": campaign.pk}))
    assert response.status_code == 302
    invite = Invite.objects.get(campaign=campaign)
    page = client.get(detail_url(campaign)).content.decode()
    assert f'value="http://testserver{join_url(invite.token)}"' in page
    assert "readonly" in page


def test_invite_create_over_htmx_returns_the_partial_only(client, campaign, gm):
    client.force_login(gm)
    response = client.post(
        reverse("campaigns:invite_create", kwargs={"pk": campaign.pk}), HTTP_HX_REQUEST="true"
    )
    page = response.content.decode()
    invite = Invite.objects.get(campaign=campaign)
    assert response.status_code == 200
    assert page.lstrip().startswith('<section id="invites"')
    assert join_url(invite.token) in page
    assert "<html" not in page


def test_gm_revokes_an_invite(client, campaign, gm):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    client.force_login(gm)
    url = reverse("campaigns:invite_revoke", kwargs={"pk": campaign.pk, "invite_pk": invite.pk})
    assert client.post(url).status_code == 302
    invite.refresh_from_db()
    assert not invite.is_active
    assert join_url(invite.token) not in client.get(detail_url(campaign)).content.decode()


def test_revoking_another_campaigns_invite_is_404(client, campaign, gm, outsider):
    other = make_campaign(outsider, name="Elsewhere")
    invite = actions.invite_create(campaign=other, actor=outsider)
    client.force_login(gm)
    url = reverse("campaigns:invite_revoke", kwargs={"pk": campaign.pk, "invite_pk": invite.pk})
    assert client.post(url).status_code == 404
    invite.refresh_from_db()
    assert invite.is_active


# --- joining -------------------------------------------------------------------------------------


def test_join_page_shows_the_campaign_then_seats_the_player(client, campaign, gm, player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    client.force_login(player)
    page = client.get(join_url(invite.token)).content.decode()
    assert campaign.name in page and "gwen" in page
    assert not Membership.objects.filter(user=player).exists()  # looking is not joining
    response = client.post(join_url(invite.token))
    assert response.status_code == 302
    assert response["Location"] == detail_url(campaign)
    assert Membership.objects.get(user=player).role == Membership.Role.PLAYER
    assert client.get(detail_url(campaign)).status_code == 200


def test_join_with_a_revoked_token_is_refused_with_a_message(client, campaign, gm, player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    actions.invite_revoke(invite=invite, actor=gm)
    client.force_login(player)
    for response in (client.get(join_url(invite.token)), client.post(join_url(invite.token))):
        assert response.status_code == 404
        assert "This invite link does not work" in response.content.decode()
        assert campaign.name not in response.content.decode()
    assert not Membership.objects.filter(user=player).exists()


def test_join_with_an_unknown_token_is_404(client, player):
    client.force_login(player)
    response = client.get(join_url("made-up"))
    assert response.status_code == 404
    assert "revoked" in response.content.decode()


def test_joining_when_already_a_member_redirects_with_a_message(client, campaign, seated_player):
    invite = Invite.objects.get(campaign=campaign)
    client.force_login(seated_player)
    response = client.post(join_url(invite.token), follow=True)
    assert response.redirect_chain[-1][0] == detail_url(campaign)
    assert "already at the table" in response.content.decode()
    assert Membership.objects.filter(campaign=campaign, user=seated_player).count() == 1


def test_anonymous_join_comes_back_after_log_in(client, campaign, gm, player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    response = client.post(join_url(invite.token))  # joining asks for an account first
    assert response.status_code == 302
    assert not Membership.objects.filter(user=player).exists()
    login = client.post(
        response["Location"],
        {"username": "pip", "password": "pw-player-12345", "next": join_url(invite.token)},
    )
    assert login["Location"] == join_url(invite.token)


# --- removing a player ---------------------------------------------------------------------------


def test_a_removed_player_loses_access(client, campaign, gm, seated_player):
    client.force_login(gm)
    url = reverse(
        "campaigns:member_remove", kwargs={"pk": campaign.pk, "user_pk": seated_player.pk}
    )
    assert client.post(url).status_code == 302
    client.force_login(seated_player)
    assert client.get(detail_url(campaign)).status_code == 404
    assert campaign.name not in client.get(reverse("campaigns:list")).content.decode()


def test_the_gm_cannot_be_removed_through_the_page(client, campaign, gm):
    client.force_login(gm)
    url = reverse("campaigns:member_remove", kwargs={"pk": campaign.pk, "user_pk": gm.pk})
    response = client.post(url, follow=True)
    assert "GM can&#x27;t be removed" in response.content.decode()
    assert Membership.objects.filter(campaign=campaign, user=gm).exists()


def test_member_remove_over_htmx_returns_the_member_list(client, campaign, gm, seated_player):
    client.force_login(gm)
    url = reverse(
        "campaigns:member_remove", kwargs={"pk": campaign.pk, "user_pk": seated_player.pk}
    )
    response = client.post(url, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert page.lstrip().startswith('<section id="member-list"')
    assert "pip left the table" in page
