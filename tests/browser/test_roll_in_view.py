"""The main roll's button is in view when a member opens the Roll tool, for every system, on a
phone (390x844) and a desktop (1280x800), with the newest card: beside it in the log on a
desktop, as a line at the top of the tool on a phone (where the log is behind its own tab).
The forms are longer than a screen (the percentile maneuver's was 1,400 px below the fold):
the Roll button and the odds' summary line ride in an action bar at the foot of the tool."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.test_scene_live import log_in
from tests.browser.test_table import DESKTOP, PHONE, demo_scenes


def in_view(page: Page, element: Locator) -> bool:
    """Wholly inside the window, and the topmost thing at its centre (not under the tab bar)."""
    box = element.bounding_box()
    size = page.viewport_size
    if box is None or box["y"] < 0 or box["y"] + box["height"] > size["height"]:
        return False
    return element.evaluate(
        """el => { const r = el.getBoundingClientRect();
                   const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                   return top === el || el.contains(top); }"""
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("user", ["alice", "gm"])
def test_roll_is_in_view_with_the_newest_card(browser: Browser, server, viewport, user):
    scenes = demo_scenes(server)
    context = browser.new_context(viewport=viewport)
    close_after_test(context)
    page = context.new_page()
    log_in(page, server, user)
    for name, path in scenes.items():
        page.goto(server.url + path)
        expect(page.locator("#connection")).to_have_text("live")
        show_tab(page, "Roll")
        form = page.locator("#tab-roll details[open] form.roll-form")
        roll = form.get_by_role("button", name="Roll", exact=True)
        expect(form.locator(".odds-line")).not_to_be_empty()  # the odds came, and their gist
        assert in_view(page, roll), f"{name}: Roll is out of view at {viewport}"
        assert in_view(page, form.locator(".odds-line")), f"{name}: the odds' line is hidden"
        newest = page.locator("#scene-log > article[data-seq]").last
        seq = newest.get_attribute("data-seq")
        if viewport is PHONE:
            latest = page.locator("#latest-card")
            expect(latest).to_contain_text(f"#{seq} ")
            assert in_view(page, latest), f"{name}: the newest card's line is hidden"
            latest.click()  # it leads to the log, where the card is
            expect(newest).to_be_in_viewport()
        else:
            expect(page.locator("#latest-card")).to_be_hidden()
            expect(newest).to_be_in_viewport()
