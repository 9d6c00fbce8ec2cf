"""The GM's Discord setting (issue 46): only a webhook URL at Discord's hosts (or the host of
DISCORD_API_BASE) is taken, kept as its id and token; the token is never in a page served to
anyone (the GM sees it masked), never in a log, never in an outbox row."""

from __future__ import annotations

import logging

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from tabletop.discord import webhooks
from tabletop.discord.models import Mirror
from tabletop.outbox.models import Outgoing
from tabletop.scenes import actions
from tabletop.scenes.models import ReaderCursor
from tests.tabletop.discord.conftest import deliver

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEfGhIjKlMnOpQrStUvWxYz01"
ID = "1180123456789012345"


@pytest.mark.parametrize(
    "url",
    [
        f"https://discord.com/api/webhooks/{ID}/{TOKEN}",
        f"https://discordapp.com/api/webhooks/{ID}/{TOKEN}",
        f"https://ptb.discord.com/api/webhooks/{ID}/{TOKEN}",
        f"https://canary.discordapp.com/api/webhooks/{ID}/{TOKEN}",
        f"https://discord.com/api/v10/webhooks/{ID}/{TOKEN}/",
        f"  https://DISCORD.com/api/webhooks/{ID}/{TOKEN}  ",
    ],
)
def test_a_discord_webhook_url_is_taken_as_its_id_and_token(url, fake):
    webhook = webhooks.parse(url)
    assert (webhook.id, webhook.token) == (ID, TOKEN)
    assert TOKEN not in repr(webhook)
    # Whatever host it was pasted at, requests go to DISCORD_API_BASE.
    assert webhook.url() == f"{fake.base}/webhooks/{ID}/{TOKEN}"


def test_the_host_of_discord_api_base_is_taken(fake):
    webhook = webhooks.parse(f"{fake.base}/webhooks/{ID}/{TOKEN}")
    assert webhook.id == ID


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("", "Paste the webhook's URL"),
        (f"http://discord.com/api/webhooks/{ID}/{TOKEN}", "https://"),
        (f"https://evil.example/api/webhooks/{ID}/{TOKEN}", "evil.example"),
        (f"https://discord.com.evil.example/api/webhooks/{ID}/{TOKEN}", "Only a Discord webhook"),
        (f"https://discord.com@evil.example/api/webhooks/{ID}/{TOKEN}", "not a webhook URL"),
        (f"https://evil.example/?u=https://discord.com/api/webhooks/{ID}/{TOKEN}", "evil.example"),
        (f"https://discord.com/api/webhooks/{ID}/{TOKEN}?thread_id=1", "without ? or #"),
        (f"https://discord.com/api/channels/{ID}/{TOKEN}", "is not a webhook's"),
        (f"https://discord.com/api/webhooks/{ID}/short", "is not a webhook's"),
        (f"https://discord.com:8443/api/webhooks/{ID}/{TOKEN}", "Only a Discord webhook"),
        (f"javascript:https://discord.com/api/webhooks/{ID}/{TOKEN}", "not a webhook URL"),
    ],
)
def test_any_other_url_is_refused_with_a_message_that_never_repeats_it(url, says, fake):
    with pytest.raises(ValidationError) as refused:
        webhooks.parse(url)
    message = " ".join(refused.value.messages)
    assert says in message
    assert TOKEN not in message


def test_the_fake_base_at_another_port_is_refused(fake):
    other = fake.base.replace(f":{fake.port}", f":{fake.port + 1}")
    with pytest.raises(ValidationError):
        webhooks.parse(f"{other}/webhooks/{ID}/{TOKEN}")


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_gm_sets_it_and_the_token_is_shown_to_nobody_nor_logged(table, fake, caplog):
    caplog.set_level(logging.DEBUG)
    webhook_id, token, url = fake.webhook()
    gm = _client(table.gm)
    save = reverse("discord:save", args=[table.campaign.pk])
    answer = gm.post(save, {"webhook_url": url, "sends": ["chat", "rolls"]})
    assert answer.status_code == 302
    mirror = Mirror.objects.get()
    assert (mirror.webhook_id, mirror.token, mirror.sends) == (webhook_id, token, ["chat", "rolls"])
    # It starts at the scene's position: a cursor there.
    table.scene.refresh_from_db()
    assert ReaderCursor.objects.get(reader="discord").seq == table.scene.last_seq

    settings_page = gm.get(reverse("campaigns:settings", args=[table.campaign.pk])).content
    assert webhook_id.encode() in settings_page and token.encode() not in settings_page
    actions.chat(scene=table.scene, actor=table.alice, text="hello Discord", to=[])
    fake.answer_next(503)
    deliver()
    fake.answer_next(404, {"message": "Unknown Webhook", "code": 10015})
    from tabletop.discord import actions as mirror_actions

    mirror_actions.mirror_test(campaign=table.campaign, actor=table.gm)
    from django.utils import timezone

    Outgoing.objects.update(due_at=timezone.now())
    deliver()
    assert Mirror.objects.get().stopped_at is not None  # the 404 stopped it

    alice = _client(table.alice)
    pages = [
        gm.get(reverse("campaigns:settings", args=[table.campaign.pk])),
        gm.get(reverse("discord:status", args=[table.campaign.pk]), HTTP_HX_REQUEST="true"),
        gm.get(reverse("campaigns:detail", args=[table.campaign.pk])),
        alice.get(reverse("campaigns:detail", args=[table.campaign.pk])),
        alice.get(reverse("scenes:detail", args=[table.scene.pk])),
    ]
    for page in pages:
        assert page.status_code == 200
        assert token.encode() not in page.content
    assert b"goes to the group's Discord channel" not in pages[3].content  # stopped: nothing goes
    for row in Outgoing.objects.all():
        assert token not in f"{row.body} {row.headers} {row.address} {row.subject} {row.last_error}"
    assert token not in caplog.text
    assert "Discord answered 503" in caplog.text  # the logs did see the failures


def test_players_are_told_what_goes_and_may_not_touch_it(table, fake):
    _, _, url = fake.webhook()
    alice = _client(table.alice)
    save = reverse("discord:save", args=[table.campaign.pk])
    assert alice.post(save, {"webhook_url": url, "sends": ["chat"]}).status_code == 403
    assert _client(table.outsider).post(save, {"webhook_url": url}).status_code == 404
    assert not Mirror.objects.exists()
    _client(table.gm).post(save, {"webhook_url": url, "sends": ["chat", "rolls"]})
    page = alice.get(reverse("campaigns:detail", args=[table.campaign.pk])).content.decode()
    assert "goes to the group's Discord channel" in page and "chat lines and emotes, rolls" in page
    assert alice.get(reverse("campaigns:settings", args=[table.campaign.pk])).status_code == 403
    assert alice.post(reverse("discord:off", args=[table.campaign.pk])).status_code == 403


def test_a_url_at_another_host_is_refused_and_nothing_is_saved(table, fake):
    gm = _client(table.gm)
    save = reverse("discord:save", args=[table.campaign.pk])
    pasted = f"https://evil.example/api/webhooks/{ID}/{TOKEN}"
    answer = gm.post(save, {"webhook_url": pasted, "sends": ["chat"]})
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "Only a Discord webhook URL is taken" in page and "Nothing was saved" in page
    assert TOKEN not in page  # the refused URL is not shown again
    assert not Mirror.objects.exists()
    # htmx gets the section alone, with the same message.
    answer = gm.post(save, {"webhook_url": pasted}, HTTP_HX_REQUEST="true")
    assert 'id="discord"' in answer.content.decode() and "<html" not in answer.content.decode()
    assert "Only a Discord webhook URL is taken" in answer.content.decode()


def test_blank_keeps_the_webhook_and_changes_what_goes(table, fake):
    _, token, url = fake.webhook()
    gm = _client(table.gm)
    save = reverse("discord:save", args=[table.campaign.pk])
    gm.post(save, {"webhook_url": url, "sends": ["chat"]})
    started = Mirror.objects.get().started_at
    gm.post(save, {"webhook_url": "", "sends": ["rolls", "reveals"]})
    mirror = Mirror.objects.get()
    assert mirror.token == token and mirror.sends == ["rolls", "reveals"]
    assert mirror.started_at == started
