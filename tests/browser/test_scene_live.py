"""Two browsers at one table: a roll appears live in both, and loading a page rolls nothing."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import close_after_test


def log_in(page: Page, server, username: str) -> None:
    page.goto(server.url + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("tabletop-demo")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Welcome back, {username}")).to_be_visible()


def roll_count(server) -> int:
    out = server.shell(
        "from tabletop.scenes.models import SceneEvent; "
        "print(SceneEvent.objects.filter(kind='roll').count())"
    )
    return int(out.strip().splitlines()[-1])


def test_a_roll_appears_live_for_gm_and_player(browser: Browser, server):
    # The browser tests share one server: count from what earlier tests left.
    rolls_before = roll_count(server)
    server.manage("seed_demo")
    gm = close_after_test(browser.new_context()).new_page()
    log_in(gm, server, "gm")
    gm.get_by_role("link", name="Demo: Conductor").first.click()
    gm.get_by_role("button", name=re.compile("^Scenes")).click()
    gm.get_by_label("Scene name").fill("Ambush at the ford")
    gm.get_by_role("button", name="Create scene").click()
    gm.get_by_role("button", name="Open scene").click()
    expect(gm.locator("#connection")).to_have_text("live")
    scene_url = gm.url

    player = close_after_test(browser.new_context()).new_page()
    log_in(player, server, "alice")
    player.goto(scene_url)
    expect(player.locator("#connection")).to_have_text("live")
    expect(gm.locator("#presence")).to_contain_text("alice")

    dice = player.locator("details", has=player.locator("summary", has_text="Dice"))
    dice.locator("summary").click()
    dice.get_by_label("Dice expression").fill("3d6+2")
    # exact odds before the roll: 16 totals from 5 to 20
    expect(dice.locator(".odds meter")).to_have_count(16)
    player.wait_for_timeout(500)
    assert roll_count(server) == rolls_before, "opening pages and typing must not roll"

    dice.get_by_role("button", name="Roll").click()
    expect(player.locator(".event-roll")).to_have_count(1)
    expect(gm.locator(".event-roll")).to_have_count(1)
    total = player.locator(".event-roll .roll-summary").inner_text()
    expect(gm.locator(".event-roll .roll-summary")).to_have_text(total)
    assert roll_count(server) == rolls_before + 1
