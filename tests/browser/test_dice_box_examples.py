"""The dice box's examples (from the dice reference) fill its expression field in a scene, the
odds follow, and the roll's card says a comparison's outcome (issue 36)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_table import Seat, fresh_scenes


@pytest.fixture(scope="module")
def paths(server) -> dict[str, str]:
    return fresh_scenes(server, "Dice examples")


def test_an_example_fills_the_dice_box_and_rolls_with_its_outcome(browser: Browser, server, paths):
    seat = Seat(browser, server, "alice", next(iter(paths.values())))
    page = seat.page
    show_tab(page, "Roll")
    dice = page.locator("details", has=page.locator("summary", has_text="Dice"))
    if dice.get_attribute("open") is None:  # any game's only roll form: open already
        dice.locator("summary").click()
    dice.get_by_role("button", name="1d20+5 >= 15").click()
    expect(dice.get_by_label("Dice expression")).to_have_value("1d20+5 >= 15")
    # the odds of a comparison: failure and success, 45% and 55%
    expect(dice.locator(".odds meter")).to_have_count(2)
    expect(dice.locator(".odds")).to_contain_text("55.0%")
    dice.get_by_role("button", name="Roll", exact=True).click()
    card = page.locator(".event-roll").last
    expect(card.locator(".compare-outcome")).to_have_count(1)
    expect(card.locator(".roll-summary")).to_contain_text("(")
    outcome = card.locator(".compare-outcome").inner_text()
    expect(card.locator(".roll-summary")).to_contain_text(outcome.capitalize())


def test_help_lists_the_notation_and_links_the_dice_reference(browser: Browser, server, paths):
    seat = Seat(browser, server, "bob", next(iter(paths.values())))
    page = seat.page
    box = page.get_by_label("Message")
    box.fill("/help")
    box.press("Enter")
    status = page.locator("#composer-help")
    expect(status).to_contain_text("1d20+5 >= 15")
    link = status.get_by_role("link", name="The dice reference: every spelling, with examples")
    assert link.get_attribute("href") == "/dice/"
    reference = page.context.new_page()
    reference.goto(server.url + link.get_attribute("href"))
    expect(reference.get_by_role("heading", name="Dice reference", exact=True)).to_be_visible()
