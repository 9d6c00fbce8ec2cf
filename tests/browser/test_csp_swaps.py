"""No swap breaks the Content-Security-Policy (issue 42): htmx once settled the ``style``
attribute, copying an old element's style onto its new twin with ``setAttribute``, which
``style-src 'self'`` refuses ("Applying inline style violates ..."). An element gets a style
attribute without any template writing one: a script sets it through CSSOM (the composer grows
that way), a browser extension marks a field, Chromium's screenshot hides the caret. Here every
element with an id gets one, then the campaign page makes invite links, the character page
saves a roll and the scene page asks odds, rolls and talks: no CSP violation, no console error
(the conftest fails any test on a console error)."""

from __future__ import annotations

import uuid

from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_offline_commands import dice_box
from tests.browser.test_scene_live import log_in
from tests.browser.test_table import DESKTOP, PHONE, Seat, fresh_scenes

#: Every CSP violation the page sees, kept on the window for the test to read.
WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (evt) {
  window.__cspViolations.push(evt.violatedDirective + " " + evt.sourceFile);
});
"""


def styled(page: Page) -> None:
    """A style on every element with an id, set as scripts and extensions set one (CSSOM, which
    the CSP allows), and a screenshot, as a person checking the page takes."""
    page.evaluate(
        "document.querySelectorAll('[id]').forEach(function (el) {"
        " el.style.setProperty('--marked', '1'); })"
    )
    page.screenshot()


def violations(page: Page) -> list[str]:
    return page.evaluate("window.__cspViolations")


def watched_page(browser: Browser, viewport=None) -> Page:
    context = close_after_test(browser.new_context(viewport=viewport or PHONE))
    context.add_init_script(WATCH)
    return context.new_page()


def test_making_invite_links_breaks_no_csp(browser: Browser, server, page_errors):
    # Chromium asks for /favicon.ico (the site's icon is favicon.svg) when this page is
    # screenshotted: a 404 the test does not look at, nothing to do with the CSP.
    page_errors.expect(r"404 .*/favicon\.ico")
    server.manage("seed_demo")
    page = watched_page(browser, DESKTOP)
    log_in(page, server, "gm")
    page.get_by_role("button", name="New campaign").click()
    page.get_by_label("Name").fill(f"CSP test {uuid.uuid4().hex[:8]}")
    page.get_by_label("Conductor").check()
    page.get_by_role("button", name="Create campaign").click()
    expect(page.get_by_role("button", name="Create an invite link")).to_be_visible()
    styled(page)
    page.get_by_role("button", name="Create an invite link").click()
    link = page.locator("#invite-url")
    expect(link).to_be_visible()
    first = link.input_value()
    styled(page)
    page.get_by_role("button", name="Make a new link").click()
    expect(link).not_to_have_value(first)
    assert violations(page) == []


def test_saving_a_roll_on_a_character_page_breaks_no_csp(browser: Browser, server):
    server.manage("seed_demo")
    out = server.shell(
        "from tabletop.characters.models import Character\n"
        "c = Character.objects.filter(owner__username='alice', campaign__name='Demo: Conductor')"
        ".order_by('pk').first()\n"
        "print('CHARACTER', c.pk)\n"
    )
    pk = int(out.split("CHARACTER")[-1].split()[0])
    page = watched_page(browser)
    log_in(page, server, "alice")
    page.goto(f"{server.url}/characters/{pk}/")
    new = page.locator(".saved-roll-new")
    name = f"Axe {uuid.uuid4().hex[:4]}"
    new.get_by_label("Name").fill(name)
    new.get_by_label("Dice").fill("1d12+2")
    styled(page)
    new.get_by_role("button", name="Save a roll").click()
    expect(page.locator(f".saved-roll-list input[value='{name}']")).to_have_count(1)
    styled(page)
    page.locator(".saved-roll-new").get_by_label("Name").fill("Bad")
    page.locator(".saved-roll-new").get_by_label("Dice").fill("2d")
    page.locator(".saved-roll-new").get_by_role("button", name="Save a roll").click()
    expect(page.locator(".saved-roll-error")).to_be_visible()
    assert violations(page) == []


def test_the_scene_page_s_swaps_break_no_csp(browser: Browser, server):
    path = fresh_scenes(server, "No inline style")["Demo: Conductor"]
    seat = Seat(browser, server, "alice", path)
    page = seat.page
    page.evaluate(WATCH)
    styled(page)
    form = dice_box(page)
    form.locator("[name=expression]").fill("3d6!")
    expect(form.locator(".roll-actions .odds-line")).to_contain_text("%")
    styled(page)
    form.locator("[name=expression]").fill("1d20+5 >= 15")
    expect(form.locator(".roll-actions .odds-line")).to_contain_text("55.0%")
    styled(page)
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(page.locator(".event-roll")).to_have_count(1)
    box = page.get_by_label("Message")
    box.fill("Hello\nthere, on two lines")  # the composer grows: a style set through CSSOM
    box.press("Enter")
    expect(page.locator(".event-chat").last).to_contain_text("on two lines")
    styled(page)
    box.fill("/r 2d6")
    box.press("Enter")
    expect(page.locator(".event-roll")).to_have_count(2)
    assert violations(page) == []
