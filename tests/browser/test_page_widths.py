"""No horizontal overflow on any page (tests/browser/site_pages.py) at any width from a small
phone to a wide desktop: ``document.documentElement.scrollWidth <= window.innerWidth``.

Each page loads once; the viewport is then resized through the widths and the layout measured
again (media queries and flex/grid wrapping respond to a resize as to a fresh load).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.site_pages import (
    SitePage,
    Visitors,
    all_pages,
    open_site_page,
    resize_and_settle,
    site_data,
)

WIDTHS = (360, 390, 768, 1280, 1920)
HEIGHT = 800

# The document's width against the window's, and when it is wider, the elements that stick out
# furthest right (the innermost ones: what to fix) so a failure says where to look.
MEASURE = """() => {
  const width = window.innerWidth;
  const scrollWidth = document.documentElement.scrollWidth;
  const culprits = [];
  if (scrollWidth > width) {
    const out = el => el.getBoundingClientRect().right > width + 0.5;
    for (const el of document.body.querySelectorAll('*')) {
      if (!out(el) || [...el.children].some(out)) continue;
      const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
        + [...el.classList].map(c => '.' + c).join('');
      const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
      culprits.push(`${name} right=${Math.round(el.getBoundingClientRect().right)}`
        + (text ? ` "${text}"` : ''));
    }
  }
  if (scrollWidth > width && !culprits.length) {
    culprits.push('no element sticks out: look for a ::before or ::after box');
  }
  return {width, scrollWidth, culprits: culprits.slice(0, 8)};
}"""


@pytest.fixture(scope="module")
def visitors(browser: Browser, server) -> Iterator[Visitors]:
    site_data(server)
    visitors = Visitors(browser, server)
    yield visitors
    visitors.close()


def overflows(page: Page) -> list[str]:
    found = []
    for width in WIDTHS:
        resize_and_settle(page, width, HEIGHT)
        m = page.evaluate(MEASURE)
        if m["scrollWidth"] > m["width"]:
            found.append(
                f"at {width}px the page is {m['scrollWidth']}px wide: " + "; ".join(m["culprits"])
            )
    return found


@pytest.mark.parametrize("site_page", all_pages())
def test_no_horizontal_overflow_at_any_width(site_page: SitePage, visitors: Visitors, server):
    page = visitors.page_for(site_page.user)
    page.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})
    open_site_page(visitors, site_page, site_data(server))
    found = overflows(page)
    assert not found, f"{site_page.id} ({page.url}):\n" + "\n".join(found)
