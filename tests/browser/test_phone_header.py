"""The scene's header on a phone (390x844): the site's header, the scene's name and whatever sits
above the log fold to an eighth of the screen at most (it took 330 of 844 px), the rest behind a
toggle; the Roll tool shows one sticky Roll button. On a desktop (1280x800) it all shows, as
before. Every demo system's scene, for the GM and a player."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.test_scene_live import log_in
from tests.browser.test_scene_status import prepared_scene
from tests.browser.test_table import DESKTOP, PHONE, demo_scenes

#: An eighth of a 844 px phone's height.
PHONE_HEADER_MAX = 105

#: Visible Roll buttons in the window, and which of them ride in a sticky (or fixed) bar.
ROLL_BUTTONS = """() => {
  const shown = el => { const r = el.getBoundingClientRect();
    return el.checkVisibility({checkVisibilityCSS: true}) && r.width > 0 && r.height > 0
      && r.bottom > 0 && r.top < innerHeight; };
  const sticky = el => { for (let e = el; e; e = e.parentElement) {
    const p = getComputedStyle(e).position; if (p === 'sticky' || p === 'fixed') return true; }
    return false; };
  const rolls = [...document.querySelectorAll('button')]
    .filter(b => b.getAttribute('role') !== 'tab' && b.textContent.trim() === 'Roll' && shown(b));
  return {shown: rolls.length, sticky: rolls.filter(sticky).length};
}"""


def above_the_log(page: Page) -> float:
    """How far down the window the log starts: all that sits above it."""
    return page.locator("#scene-log").evaluate("el => el.getBoundingClientRect().top")


def background(element) -> str:
    return element.evaluate("el => getComputedStyle(el).backgroundColor")


def seat(browser: Browser, server, user: str, viewport: dict) -> Page:
    context = browser.new_context(viewport=viewport)
    close_after_test(context)
    page = context.new_page()
    log_in(page, server, user)
    return page


def unseen_mentions(server, user: str, count: int) -> None:
    """``count`` notifications the member has not seen: the header's Notifications link
    carries their count (a mention in a scene the member is not looking at)."""
    server.shell(
        "from django.contrib.auth import get_user_model\n"
        "from tabletop.notify.models import Notification\n"
        "from tabletop.scenes.models import Scene\n"
        f"user = get_user_model().objects.get(username={user!r})\n"
        "scene = Scene.objects.filter(campaign__memberships__user=user).first()\n"
        "Notification.objects.bulk_create([Notification(user=user, campaign=scene.campaign, "
        "scene=scene, seq=scene.last_seq + 1000 + n, why='mention', who='bob', what='@you', "
        f"mail='skipped') for n in range({count})], ignore_conflicts=True)\n"
    )


@pytest.mark.parametrize("user", ["gm", "alice"])
def test_on_a_phone_the_header_folds_to_an_eighth_of_the_screen(browser: Browser, server, user):
    scenes = demo_scenes(server)
    # The site's header as a member between game nights sees it: Notifications with a count.
    unseen_mentions(server, user, 12)
    page = seat(browser, server, user, PHONE)
    for name, path in scenes.items():
        page.goto(server.url + path)
        expect(page.locator("#connection")).to_have_text("live")
        show_tab(page, "Log")
        expect(page.get_by_role("link", name="Notifications, 12 new")).to_be_visible()
        height = above_the_log(page)
        assert height <= PHONE_HEADER_MAX, f"{name}: {height:.0f} px above the log"
        head = page.locator("#scene-head")
        expect(head.get_by_role("heading", level=1)).to_be_visible()
        expect(page.locator("#scene-status")).to_be_visible()
        expect(page.locator("#connection")).to_be_visible()
        ledger = page.locator(".ledger-bar")
        expect(ledger).to_be_hidden()
        # Unfolded, the rest is there: the campaign, the ledger, the GM's Close scene.
        closing = head.get_by_role("button", name="Close scene")
        if user == "gm":
            expect(closing).to_be_hidden()  # closing is rare: folded away
        toggle = page.locator("#scene-head-toggle")
        toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        expect(ledger).to_be_visible()
        expect(head.get_by_role("link", name="Dice statistics")).to_be_visible()
        if user == "gm":
            expect(closing).to_be_visible()
        else:
            expect(closing).to_have_count(0)
        toggle.click()
        expect(ledger).to_be_hidden()
        assert above_the_log(page) <= PHONE_HEADER_MAX


@pytest.mark.parametrize("user", ["gm", "alice"])
def test_on_a_phone_the_roll_tool_shows_one_sticky_roll_button(browser: Browser, server, user):
    scenes = demo_scenes(server)
    page = seat(browser, server, user, PHONE)
    for name, path in scenes.items():
        page.goto(server.url + path)
        expect(page.locator("#connection")).to_have_text("live")
        show_tab(page, "Roll")
        forms = page.locator("#tab-roll details")
        # Every form opened in turn, as a player looking for the right one taps each.
        for n in range(forms.count()):
            if forms.nth(n).get_attribute("open") is None:
                forms.nth(n).locator("summary").click()
            expect(forms.nth(n)).to_have_attribute("open", "")
            forms.nth(n).locator("summary").scroll_into_view_if_needed()
            counted = page.evaluate(ROLL_BUTTONS)
            assert counted == {"shown": 1, "sticky": 1}, f"{name}, form {n}: {counted}"
        expect(page.locator("#tab-roll details[open]")).to_have_count(1)
        # The Roll tab just below is a tab: tinted, not a second filled Roll button.
        roll = page.locator("#tab-roll details[open] button[type=submit]")
        tab = page.locator("#tab-button-roll")
        assert background(tab) != background(roll), name
        show_tab(page, "Log")


def test_on_a_desktop_the_whole_header_shows(browser: Browser, server):
    scenes = demo_scenes(server)
    page = seat(browser, server, "gm", DESKTOP)
    for name, path in scenes.items():
        page.goto(server.url + path)
        expect(page.locator("#connection")).to_have_text("live")
        head = page.locator("#scene-head")
        expect(page.locator("#scene-head-toggle")).to_be_hidden()
        expect(page.locator(".ledger-bar")).to_be_visible()
        expect(head.get_by_role("button", name="Close scene")).to_be_visible()
        expect(head.get_by_role("link", name="Dice statistics")).to_be_visible()
        campaign = head.get_by_role("link", name=name)
        expect(campaign).to_be_visible()
        # Nothing sits over the log: it starts below the header's last line.
        bottom = head.evaluate("el => el.getBoundingClientRect().bottom")
        assert above_the_log(page) >= bottom, name
        counted = page.evaluate(ROLL_BUTTONS)
        assert counted["sticky"] == 1, f"{name}: {counted}"


def test_on_a_phone_a_prepared_scenes_open_button_stays_on_the_line(browser: Browser, server):
    path = prepared_scene(server, "Phone header: before the gates")
    page = seat(browser, server, "gm", PHONE)
    page.goto(server.url + path)
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator("#scene-status")).to_have_text("Prepared")
    expect(page.get_by_role("button", name="Open scene")).to_be_visible()  # the next step
    assert above_the_log(page) <= PHONE_HEADER_MAX
    page.get_by_role("button", name="Open scene").click()
    expect(page.locator("#scene-status")).to_have_text("Open")
    expect(page.get_by_role("button", name="Close scene")).to_be_hidden()
    assert above_the_log(page) <= PHONE_HEADER_MAX
