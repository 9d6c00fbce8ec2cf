"""The GM's Discord mirror on the campaign settings page, in Chromium at a phone's width and a
laptop's (issue 46): a URL at another host is refused with a message, the fake Discord's
webhook URL is taken (shown masked), the test message arrives at the fake and the page says
so; nothing is wider than the screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.site_pages import resize_and_settle
from tests.browser.test_scene_live import log_in
from tests.servers import Server, start_daphne
from tests.support.fake_discord import FakeDiscord

CAMPAIGN = """
from tabletop.campaigns.models import Campaign
print(Campaign.objects.filter(gm__username="gm", system="conductor").order_by("pk").first().pk)
"""


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as server:
        yield server


@pytest.fixture(scope="module")
def mirror_server(tmp_path_factory: pytest.TempPathFactory, fake: FakeDiscord) -> Iterator[Server]:
    env = {"DISCORD_API_BASE": fake.base, "OUTBOX_SENDER": "true"}
    srv = start_daphne(tmp_path_factory.mktemp("discord"), env)
    srv.manage("seed_demo")
    yield srv
    srv.stop()


@pytest.mark.parametrize("width", [390, 1280])
def test_the_gm_pastes_the_url_and_the_test_message_arrives(
    page: Page, mirror_server: Server, fake: FakeDiscord, width: int, tmp_path: Path
):
    resize_and_settle(page, width, 900)
    campaign = mirror_server.shell(CAMPAIGN).strip().splitlines()[-1]
    log_in(page, mirror_server, "gm")
    page.goto(f"{mirror_server.url}/campaigns/{campaign}/")
    page.get_by_role("button", name="Discord mirror").click()
    section = page.locator("#discord")
    expect(section.get_by_role("heading", name="Discord mirror")).to_be_visible()

    webhook_id, token, url = fake.webhook()
    field = section.get_by_label("Discord webhook URL")
    field.fill(url.replace("127.0.0.1", "evil.example"))
    section.get_by_role("button", name="Save the Discord mirror").click()
    expect(section.get_by_role("alert").first).to_contain_text("Only a Discord webhook URL")
    expect(section.get_by_label("Discord webhook URL")).to_have_value("")  # never shown again

    section.get_by_label("Discord webhook URL").fill(url)
    section.get_by_role("checkbox", name="A scene opened or closed").uncheck()
    section.get_by_role("button", name="Save the Discord mirror").click()
    expect(section.get_by_role("status")).to_contain_text("Saved")
    expect(section).to_contain_text(f"/webhooks/{webhook_id}/")
    assert token not in page.content()

    posts = len(fake.posts())
    section.get_by_role("button", name="Send a test message").click()
    expect(section.locator("#discord-status")).to_contain_text(
        "The test message arrived in Discord", timeout=15_000
    )
    assert len(fake.posts()) == posts + 1
    assert "will be posted here" in fake.posts()[-1].body["content"]

    widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1], widths
    section.screenshot(path=str(tmp_path / f"discord-{width}.png"))
