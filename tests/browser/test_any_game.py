"""A game night of any game (issue 43), on a phone and on a desktop: the GM creates an "Any game"
campaign from the new-campaign form and names its currency, opens a scene; a player rolls
1d20+5 from the dice box; the GM awards a hero point and the player spends it; the GM builds
an initiative order (a character and a free name, rolled and typed) and moves the turn down it
into round 2, live on the player's page. Any console or htmx error fails the test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.test_scene_live import log_in

SHOTS = Path("/tmp/any-game-shots")
WIDTHS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def seat(browser: Browser, server, who: str, viewport: dict) -> Page:
    page = close_after_test(browser.new_context(viewport=viewport)).new_page()
    log_in(page, server, who)
    return page


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.parametrize("size", sorted(WIDTHS))
def test_a_game_night_of_any_game(browser: Browser, server, size):
    viewport = WIDTHS[size]
    server.manage("seed_demo")  # the users gm, alice and bob
    campaign = f"Friday d20 ({size})"
    gm = seat(browser, server, "gm", viewport)

    # The new-campaign form: Any game is its first choice.
    gm.goto(server.url + "/campaigns/new/")
    choices = gm.locator('input[name="system"]')
    expect(choices.first).to_have_attribute("value", "any_game")
    gm.get_by_label("Campaign name").fill(campaign)
    expect(gm.locator("fieldset.system-choice label").first).to_contain_text("Any game (")
    choices.first.check()
    shot(gm, f"{size}-1-new-campaign")
    gm.get_by_role("button", name=re.compile("Create")).click()
    expect(gm.get_by_role("heading", name=campaign)).to_be_visible()
    pk = int(re.search(r"/campaigns/(\d+)/", gm.url).group(1))

    # The GM names the currency on the campaign's settings.
    gm.goto(f"{server.url}/campaigns/{pk}/settings/")
    gm.get_by_label("The table's currency").fill("Hero point / Hero points")
    gm.get_by_role("button", name=re.compile("^Save")).first.click()
    # The page after the save says so (the field alone held the typed words before it went:
    # moving on at once could leave before the form reached the server).
    expect(gm.get_by_text("Ruleset saved.")).to_be_visible()
    expect(gm.get_by_label("The table's currency")).to_have_value("Hero point / Hero points")

    # alice joins with her character (the invitation itself is tested elsewhere).
    server.shell(
        "from django.contrib.auth import get_user_model; "
        "from tabletop.campaigns.models import Campaign, Membership; "
        "from tabletop.systems.any_game.models import AnyGameSheet; "
        f"c = Campaign.objects.get(pk={pk}); "
        "alice = get_user_model().objects.get(username='alice'); "
        "Membership.objects.create(campaign=c, user=alice); "
        "AnyGameSheet.objects.create(campaign=c, owner=alice, name='Mira', "
        "notes='Halfling rogue, AC 15.')"
    )

    gm.goto(f"{server.url}/campaigns/{pk}/")
    gm.get_by_role("button", name=re.compile("^Scenes")).click()
    gm.get_by_label("Scene name").fill("The goblin cave")
    gm.get_by_role("button", name="Create scene").click()
    gm.get_by_role("button", name="Open scene").click()
    expect(gm.locator("#connection")).to_have_text("live")
    alice = seat(browser, server, "alice", viewport)
    alice.goto(gm.url)
    expect(alice.locator("#connection")).to_have_text("live")

    # A roll in the dice language from the dice box.
    show_tab(alice, "Roll")
    dice = alice.locator("#tab-roll form.roll-form").first
    dice.get_by_label("Dice expression").fill("1d20+5")
    # Its exact odds before the roll: every total from 6 to 25 at 5.0% (no 2d6 total is).
    expect(dice.locator(".odds")).to_contain_text("5.0%")
    shot(alice, f"{size}-2-dice-box")
    dice.get_by_role("button", name="Roll", exact=True).click()
    for page in (alice, gm):
        expect(page.locator(".event-roll")).to_have_count(1)
        expect(page.locator(".event-roll")).to_contain_text("1d20")

    # The GM awards a hero point; alice spends it, in the log on both pages.
    show_tab(gm, "GM")
    gm.get_by_role("button", name="Give Mira one more hero point").click()
    for page in (alice, gm):
        expect(page.locator(".event-award")).to_contain_text("gave 1 hero point to Mira")
    show_tab(alice, "Party")
    expect(alice.locator("#party thead")).to_contain_text("Hero points")
    expect(
        alice.locator('#party tr:has-text("Mira") td[data-field="table_currency"]')
    ).to_have_text("1")
    show_tab(alice, "In play")
    alice.get_by_label("What for (optional)").fill("reroll the save")
    shot(alice, f"{size}-3-spend")
    alice.get_by_role("button", name="Spend 1 hero point").click()
    for page in (alice, gm):
        card = page.locator(".event-currency_spend")
        expect(card).to_contain_text("alice spends 1 hero point for Mira: reroll the save")
        expect(card).to_contain_text("(0 left)")
    show_tab(alice, "Party")
    expect(
        alice.locator('#party tr:has-text("Mira") td[data-field="table_currency"]')
    ).to_have_text("0")

    # The GM builds an initiative order and moves the turn down it.
    show_tab(gm, "In play")
    turns = gm.locator("#procedure-turns")
    add = turns.locator("form.initiative-add")
    add.get_by_label("Or a name").fill("Goblin 2")
    add.get_by_label("Initiative").fill("1d20+2")
    add.get_by_role("button", name="Add to the order").click()
    expect(turns.locator("[data-entry]")).to_have_count(1)
    add = turns.locator("form.initiative-add")
    add.get_by_label("Character").select_option(label="Mira")
    add.get_by_label("Initiative").fill("23")  # over any 1d20+2: Mira goes first
    add.get_by_role("button", name="Add to the order").click()
    expect(turns.locator("[data-entry]")).to_have_count(2)
    expect(turns.locator("[data-entry]").first).to_contain_text("Mira")
    turns.get_by_role("button", name="Start round 1").click()
    expect(turns.locator(".turn-now")).to_have_text("Turn: Mira")
    turns.get_by_role("button", name="Next turn").click()
    expect(turns.locator(".turn-now")).to_have_text("Turn: Goblin 2")
    shot(gm, f"{size}-4-initiative-gm")

    show_tab(alice, "In play")
    theirs = alice.locator("#procedure-turns")
    expect(theirs.locator(".turn-now")).to_have_text("Turn: Goblin 2")
    expect(theirs.locator("li.current")).to_contain_text("Goblin 2")
    expect(theirs.get_by_role("button", name="Next turn")).to_have_count(0)
    turns.get_by_role("button", name="Next turn").click()
    expect(theirs.locator("h2")).to_have_text("Turns · round 2")
    expect(theirs.locator(".turn-now")).to_have_text("Turn: Mira")
    turns.get_by_role("button", name="Previous turn").click()
    expect(theirs.locator("h2")).to_have_text("Turns · round 1")
    expect(theirs.locator(".turn-now")).to_have_text("Turn: Goblin 2")
    shot(alice, f"{size}-5-initiative-player")
