"""Usable at 200% zoom (issue 47; WCAG 1.4.4 and 1.4.10): a 1280x800 screen zoomed to 200% is a
640x400 CSS-pixel window drawn at twice the pixels. On the scene page (a player's and the
GM's), a sheet, the dice reference, the account and campaign pages, nothing scrolls sideways,
and on the scene page the message box and the open Roll tool's Roll button can be reached and
pressed: each scrolled to is on screen and not under anything else (a sticky header, a tab bar).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.scene_page import show_tab
from tests.browser.site_pages import PAGES, Visitors, open_site_page, site_data
from tests.browser.test_page_widths import MEASURE
from tests.browser.test_scene_live import log_in

ZOOMED = {"width": 640, "height": 400}

CHECKED = (
    "scene-player-conductor",
    "scene-gm-conductor",
    "character-detail-owner-conductor",
    "character-edit-conductor",
    "dice-reference-player",
    "account",
    "campaign-detail-player-conductor",
    "campaign-detail-gm-conductor",
)

# Whether the element, scrolled into view, is inside the window and the topmost thing at its
# middle (nothing sticky or fixed lies over it).
REACHABLE = """el => {
  el.scrollIntoView({ block: 'center', inline: 'nearest' });
  const r = el.getBoundingClientRect();
  const x = r.left + Math.min(r.width / 2, 20), y = r.top + r.height / 2;
  const inside = r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth
    && r.top >= 0 && r.bottom <= window.innerHeight;
  const top = document.elementFromPoint(x, y);
  return { inside: inside, onTop: !!top && (top === el || el.contains(top)),
           over: top ? top.tagName.toLowerCase() + (top.id ? '#' + top.id : '') +
             [...top.classList].map(c => '.' + c).join('') : null };
}"""


class ZoomedVisitors(Visitors):
    """Each user's tab at 200% zoom: 640x400 CSS pixels, two device pixels to each."""

    def page_for(self, user: str | None) -> Page:
        if user not in self._pages:
            context: BrowserContext = self.browser.new_context(
                viewport=ZOOMED, device_scale_factor=2
            )
            page = context.new_page()
            if user is not None:
                log_in(page, self.server, user)
            self._contexts[user], self._pages[user] = context, page
        return self._pages[user]


@pytest.fixture(scope="module")
def visitors(browser: Browser, server) -> Iterator[Visitors]:
    site_data(server)
    visitors = ZoomedVisitors(browser, server)
    yield visitors
    visitors.close()


def reachable(page: Page, selector: str) -> dict:
    target = page.locator(selector).first
    expect(target).to_be_attached()
    return target.evaluate(REACHABLE)


@pytest.mark.parametrize("page_id", CHECKED)
def test_nothing_scrolls_sideways_at_200_percent_and_the_table_is_in_reach(
    visitors: Visitors, server, page_id: str
):
    site_page = next(p for p in PAGES if p.id == page_id)
    page = visitors.page_for(site_page.user)
    open_site_page(visitors, site_page, site_data(server))
    assert page.evaluate("window.devicePixelRatio") == 2
    m = page.evaluate(MEASURE)
    assert m["scrollWidth"] <= m["width"], f"{page_id} at 200%: {m}"
    if not page_id.startswith("scene"):
        return
    expect(page.locator("#connection")).to_have_text("live")
    box = reachable(page, "#composer-text")
    assert box["inside"] and box["onTop"], f"the message box at 200%: {box}"
    page.locator("#composer-text").focus()
    page.keyboard.type("the box takes a line")
    expect(page.locator("#composer-text")).to_have_value("the box takes a line")
    page.locator("#composer-text").fill("")
    show_tab(page, "Roll")
    details = page.locator("#tab-roll details").first
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    roll = reachable(page, "#tab-roll details[open] button[type=submit]")
    assert roll["inside"] and roll["onTop"], f"Roll at 200%: {roll}"
    assert page.evaluate(MEASURE)["scrollWidth"] <= ZOOMED["width"]
