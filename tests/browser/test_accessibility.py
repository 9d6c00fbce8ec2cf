"""axe-core on every page of the site (the list is tests/browser/site_pages.py): no violation of
impact "serious" or "critical", with axe's rules as shipped (axe-playwright-python bundles
axe-core; nothing is disabled). Moderate and minor findings are printed, not failed on.

The live scene page is checked here as loaded (its Roll tab); every tool tab of every demo
scene is checked in tests/browser/test_table.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import URLPattern, URLResolver, get_resolver
from playwright.sync_api import Browser

from tests.browser.site_pages import (
    NOT_PAGES,
    PAGES,
    SitePage,
    Visitors,
    all_pages,
    open_site_page,
    resize_and_settle,
    site_data,
)

FAILING_IMPACTS = ("serious", "critical")
#: A desktop and a phone: what is shown (and how it overlaps) differs between them.
VIEWPORTS = ({"width": 1280, "height": 800}, {"width": 390, "height": 844})
AXE = Axe()

# What axe lets pass: an aria-describedby (or label, or list) naming an id the page does not
# have. Django's widgets point aria-describedby at "<id>_error" and "<id>_helptext", so a
# template that shows an error or help text without that id leaves a screen reader without it.
DANGLING_IDREFS = """() => {
  const found = [];
  const attrs = ['aria-describedby', 'aria-labelledby', 'aria-controls', 'aria-owns',
                 'aria-errormessage', 'for', 'list', 'form'];
  for (const attr of attrs) {
    for (const el of document.querySelectorAll(`[${attr}]`)) {
      if (attr === 'for' && !['LABEL', 'OUTPUT'].includes(el.tagName)) continue;
      for (const id of el.getAttribute(attr).split(/\\s+/).filter(Boolean)) {
        if (!document.getElementById(id)) {
          found.push(`<${el.tagName.toLowerCase()}${el.id ? ' id=' + el.id : ''}> ${attr}="${id}"`);
        }
      }
    }
  }
  return found;
}"""


@pytest.fixture(scope="module")
def visitors(browser: Browser, server) -> Iterator[Visitors]:
    site_data(server)  # the demo users exist before anyone logs in
    visitors = Visitors(browser, server)
    yield visitors
    visitors.close()


def describe(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:6]:
            target = " ".join(str(t) for t in node["target"])
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    {target}: {node['html'][:160]}\n      {summary[:300]}")
        if len(violation["nodes"]) > 6:
            lines.append(f"    ... and {len(violation['nodes']) - 6} more")
    return "\n".join(lines)


@pytest.mark.parametrize("site_page", all_pages())
def test_no_serious_or_critical_axe_violations(site_page: SitePage, visitors: Visitors, server):
    page = visitors.page_for(site_page.user)
    page.set_viewport_size(VIEWPORTS[0])
    open_site_page(visitors, site_page, site_data(server))
    report = []
    for viewport in VIEWPORTS:  # one load: the phone layout is a resize away
        resize_and_settle(page, **viewport)
        violations = AXE.run(page).response["violations"]
        failing = [v for v in violations if v["impact"] in FAILING_IMPACTS]
        others = [v for v in violations if v["impact"] not in FAILING_IMPACTS]
        if others:
            print(f"\n{site_page.id} at {viewport['width']}px, not failing:\n{describe(others)}")
        if failing:
            report.append(f"at {viewport['width']}px:\n{describe(failing)}")
    assert not report, f"{site_page.id} ({page.url}):\n" + "\n".join(report)
    dangling = page.evaluate(DANGLING_IDREFS)
    assert not dangling, f"{site_page.id}: these name an element the page does not have: {dangling}"


def _named_urls(resolver: URLResolver, namespace: str = "") -> Iterator[str]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace == "admin":
                yield "admin"
                continue
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _named_urls(entry, inner)
        elif isinstance(entry, URLPattern):
            assert entry.name, f"unnamed URL {entry.pattern}: name it, and list it in site_pages"
            yield namespace + entry.name


def test_every_url_of_the_site_is_a_checked_page_or_named_as_no_page():
    urls = set(_named_urls(get_resolver()))
    pages = {p.url_name for p in PAGES if p.url_name}
    unlisted = urls - pages - set(NOT_PAGES)
    assert not unlisted, f"add these to site_pages.PAGES (or NOT_PAGES, with why): {unlisted}"
    assert not (pages & set(NOT_PAGES)), "a URL is both a page and no page"
    assert not (pages | set(NOT_PAGES)) - urls, "site_pages names a URL the site no longer has"
    ids = [p.id for p in PAGES]
    assert len(ids) == len(set(ids)), "page ids must be unique"
