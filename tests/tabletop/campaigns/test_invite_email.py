"""Invites by email: the GM sends the campaign's link to an address; the mail is plain, names the
site, the GM and the campaign, and the link in it joins the table. Limited per GM per hour."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from tabletop.campaigns import actions
from tabletop.campaigns.models import Membership

pytestmark = pytest.mark.django_db


def email_url(campaign, invite):
    return reverse("campaigns:invite_email", kwargs={"pk": campaign.pk, "invite_pk": invite.pk})


def test_the_gm_sends_the_link_and_it_joins_the_table(client, campaign, gm, outsider):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    client.force_login(gm)
    page = client.get(reverse("campaigns:detail", kwargs={"pk": campaign.pk})).content.decode()
    assert email_url(campaign, invite) in page  # the form is on the invites section
    response = client.post(
        email_url(campaign, invite), {"email": "friend@example.org"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and "Invite sent to friend@example.org." in (
        response.content.decode()
    )
    [sent] = mail.outbox
    assert sent.to == ["friend@example.org"] and sent.alternatives == []
    assert gm.username in sent.subject and campaign.name in sent.subject
    assert "Tabletop" in sent.subject
    link = re.search(r"http://testserver(/campaigns/join/\S+/)", sent.body).group(1)
    client.force_login(outsider)
    client.post(link)
    assert Membership.objects.filter(campaign=campaign, user=outsider).exists()


def test_a_revoked_link_or_a_bad_address_sends_nothing(client, campaign, gm):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    client.force_login(gm)
    bad = client.post(email_url(campaign, invite), {"email": "nope"}, HTTP_HX_REQUEST="true")
    assert "Give an email address." in bad.content.decode()
    actions.invite_revoke(invite=invite, actor=gm)
    revoked = client.post(
        email_url(campaign, invite), {"email": "a@example.org"}, HTTP_HX_REQUEST="true"
    )
    assert "revoked" in revoked.content.decode()
    assert mail.outbox == []


def test_a_gm_sends_so_many_invites_an_hour(client, campaign, gm, settings):
    settings.INVITE_MAILS_PER_HOUR = 2
    invite = actions.invite_create(campaign=campaign, actor=gm)
    client.force_login(gm)
    answers = [
        client.post(email_url(campaign, invite), {"email": f"p{n}@example.org"}).status_code
        for n in range(3)
    ]
    assert answers == [302, 302, 302]
    assert len(mail.outbox) == 2
    page = client.get(reverse("campaigns:detail", kwargs={"pk": campaign.pk})).content.decode()
    assert "You sent many invites this hour. Try again in" in page


def test_a_player_cannot_send_the_gms_invite(client, campaign, gm, seated_player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    client.force_login(seated_player)
    response = client.post(email_url(campaign, invite), {"email": "x@example.org"})
    assert response.status_code == 403 and mail.outbox == []
