"""A GM signs up, creates a campaign and invites a player, who joins and creates a character."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.browser.conftest import close_after_test


def sign_up(page, server, username: str) -> None:
    page.goto(server.url + "/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill("a-long-table-secret")
    page.get_by_label("Password confirmation").fill("a-long-table-secret")
    page.get_by_role("button", name="Create account").click()
    # A new account is welcomed, not "welcomed back" (issue 42), and shown where to start.
    expect(page.get_by_role("heading", name=f"Welcome, {username}")).to_be_visible()
    expect(page.get_by_role("link", name="Start a campaign")).to_be_visible()


def test_gm_invites_a_player_who_joins_and_creates_a_character(browser: Browser, server):
    gm = close_after_test(browser.new_context()).new_page()
    errors: list[str] = []
    gm.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sign_up(gm, server, "mira")

    gm.get_by_role("button", name="New campaign").click()
    gm.get_by_label("Name").fill("The Drowned Crown")
    gm.get_by_label(re.compile("Conductor")).check()
    gm.get_by_role("button", name="Create campaign").click()
    expect(gm.get_by_role("heading", name="The Drowned Crown")).to_be_visible()

    gm.get_by_role("button", name="Create an invite link").click()
    invite = gm.get_by_label(re.compile("Invite link"))
    expect(invite).to_be_visible()
    invite_url = invite.input_value()
    assert "/campaigns/join/" in invite_url

    player = close_after_test(browser.new_context()).new_page()
    sign_up(player, server, "tomas")
    player.goto(invite_url)
    player.get_by_role("button", name="Join as a player").click()
    expect(player.get_by_role("heading", name="The Drowned Crown")).to_be_visible()

    player.get_by_role("button", name="New character").click()
    player.get_by_label("Name", exact=True).fill("Ilse Varn")
    player.get_by_role("button", name="Create character").click()
    expect(player.get_by_role("heading", name="Ilse Varn")).to_be_visible()

    gm.reload()
    expect(gm.get_by_role("link", name="Ilse Varn")).to_be_visible()
    expect(gm.get_by_text("tomas").first).to_be_visible()
    assert not [e for e in errors if "Content Security Policy" in e], errors
