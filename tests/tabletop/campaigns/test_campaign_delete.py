"""A GM deletes a campaign (typing its name): its scenes, logs and characters go, its open scenes
close at once for every member, and the GM may then delete their account."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.urls import reverse

from tabletop.campaigns.models import Campaign
from tabletop.characters.models import Character
from tabletop.scenes.actions.talk import chat
from tabletop.scenes.models import Scene, SceneEvent
from tests.support.tables import make_table
from tests.tabletop.scenes.conftest import close_db_after, seat_table  # noqa: F401
from tests.tabletop.security.conftest import assert_ended


def delete_url(campaign):
    return reverse("campaigns:delete", kwargs={"pk": campaign.pk})


@pytest.mark.django_db
def test_the_name_must_be_typed_and_then_everything_of_the_campaign_goes(client):
    table = make_table()
    Character.objects.create(campaign=table.campaign, owner=table.alice, name="Hero")
    chat(scene=table.scene, actor=table.alice, text="hello", to=[])
    client.force_login(table.gm)
    wrong = client.post(delete_url(table.campaign), {"confirm": "vault"}, follow=True)
    assert "Type the campaign&#x27;s name exactly" in wrong.content.decode()
    assert Campaign.objects.filter(pk=table.campaign.pk).exists()

    assert client.post(delete_url(table.campaign), {"confirm": "Vault"}).status_code == 302
    assert not Campaign.objects.exists()
    assert not Scene.objects.exists() and not SceneEvent.objects.exists()
    assert not Character.objects.exists()
    # Now running nothing, the GM may leave.
    client.post(reverse("account_delete"), {"password": "a-long-table-secret"})
    assert not get_user_model().objects.filter(username="gm").exists()


@pytest.mark.django_db
def test_a_player_cannot_delete_the_campaign(client):
    table = make_table()
    client.force_login(table.alice)
    assert client.post(delete_url(table.campaign), {"confirm": "Vault"}).status_code == 403
    assert Campaign.objects.filter(pk=table.campaign.pk).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_every_open_scene_of_it_closes_at_once_saying_why():
    table = await sync_to_async(make_table)()
    sockets = await seat_table(table)
    from tabletop.campaigns.actions import campaign_delete

    await sync_to_async(campaign_delete)(campaign=table.campaign, actor=table.gm, confirm="Vault")
    for socket in sockets:
        await assert_ended(socket, "the campaign was deleted")
        await socket.close()
