"""Layout a new user found broken, measured where it broke, on a phone and a desktop.

- roll_and_keep's speciality checkboxes on the Roll tab: the caption "(Cunning, Sable)" lay over
  the box (Pico styles a ``<small>`` after an input as the field's help line);
- annulus's "Act in the challenge as" select ran past the right edge on a phone;
- two_dice's Party and GM tables were wider than their tool (the Resolve column cut off);
- the statistics tables' Expected column was cut on a phone;
- the character form after a refused save: an error summary at the top, focused, each error a
  link to its field.

"Fits" means more than test_page_widths.py's check (the document no wider than the window):
no scroll container in the part of the page measured holds content wider than itself, since a
tool that scrolls sideways hides its last column as surely as the page edge does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.site_pages import resize_and_settle, site_data
from tests.browser.test_scene_live import log_in

#: The smallest phone the site supports (test_page_widths.py), a common phone, a desktop.
WIDTHS = (360, 390, 1280)
HEIGHTS = {360: 800, 390: 844, 1280: 800}

#: What sticks out inside ``root``: the document wider than the window, or a scroll container
#: (overflow other than visible) whose content is wider than its box, with the innermost
#: elements past its right edge (what to fix).
CONTAINED = """root => {
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + [...el.classList].map(c => '.' + c).join('');
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) {
    problems.push(`the page is ${doc.scrollWidth}px wide in a ${window.innerWidth}px window`);
  }
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (el.closest('.visually-hidden') || el.clientWidth < 2) continue;
    if (getComputedStyle(el).overflowX === 'visible') continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    const edge = el.getBoundingClientRect().left + el.clientLeft + el.clientWidth;
    const out = c => c.getBoundingClientRect().right > edge + 0.5;
    const culprits = [...el.querySelectorAll('*')]
      .filter(c => out(c) && ![...c.children].some(out))
      .slice(0, 4)
      .map(c => `${name(c)} "${(c.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 30)}"`);
    problems.push(`${name(el)} holds ${el.scrollWidth}px in ${el.clientWidth}px: `
      + culprits.join('; '));
  }
  return problems;
}"""

#: Each checkbox label on the Roll tab whose box is overlapped by its own text or caption.
OVERLAPS = """() => {
  const hit = (a, b) => Math.min(a.right, b.right) > Math.max(a.left, b.left) + 0.5
    && Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top) + 0.5;
  const found = [];
  const labels = [...document.querySelectorAll('#tab-roll label')]
    .filter(label => label.querySelector('input[type=checkbox]') && label.offsetParent);
  for (const label of labels) {
    const box = label.querySelector('input[type=checkbox]').getBoundingClientRect();
    for (const node of label.childNodes) {
      if (node.nodeName === 'INPUT' || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) {
        if (hit(box, rect)) {
          found.push(`"${label.textContent.trim()}": "${node.textContent.trim()}" lies on the box`);
          break;
        }
      }
    }
  }
  return {labels: labels.length, found};
}"""


@pytest.fixture(scope="module")
def data(server) -> dict:
    return site_data(server)


@pytest.fixture(scope="module")
def challenge_scene(server, data) -> str:
    """A scene of the annulus demo campaign with an operation challenge under way (made once)."""
    out = server.shell(
        "import random\n"
        "from tabletop.campaigns.models import Campaign\n"
        "from tabletop.scenes import actions as scene_actions\n"
        "from tabletop.systems.annulus import actions\n"
        f"campaign = Campaign.objects.get(pk={data['systems']['annulus']['campaign']})\n"
        "name = 'Layout checks: a challenge under way'\n"
        "scene = campaign.scenes.filter(name=name).first()\n"
        "if scene is None:\n"
        "    scene = scene_actions.scene_create(campaign=campaign, actor=campaign.gm, name=name)\n"
        "    scene = scene_actions.scene_open(scene=scene, actor=campaign.gm)\n"
        "    actions.challenge_setup(scene=scene, actor=campaign.gm, difficulty='medium',\n"
        "        types=['Finesse'], length=6, rng=random.Random(3))\n"
        "print('SCENE', scene.pk)\n"
    )
    return "/scenes/" + re.search(r"^SCENE (\d+)$", out, re.M).group(1) + "/"


@pytest.fixture(scope="module")
def pages(browser: Browser, server) -> Iterator[dict[str, Page]]:
    """One logged-in tab per user, reused across the module's tests."""
    opened: dict[str, Page] = {}

    def page_for(user: str) -> Page:
        if user not in opened:
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            log_in(page, server, user)
            opened[user] = page
        return opened[user]

    yield page_for
    for page in opened.values():
        page.context.close()


def at_width(page: Page, width: int) -> None:
    resize_and_settle(page, width, HEIGHTS[width])


def open_scene_tab(page: Page, url: str, tab: str) -> None:
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("live")
    show_tab(page, tab)


def contained(page: Page, root: str) -> list[str]:
    return page.locator(root).first.evaluate(CONTAINED)


@pytest.mark.parametrize("width", WIDTHS)
def test_speciality_checkboxes_are_not_covered_by_their_captions(pages, server, data, width):
    page = pages("gm")
    page.set_viewport_size({"width": width, "height": HEIGHTS[width]})
    scene = data["systems"]["roll_and_keep"]["scene"]
    open_scene_tab(page, f"{server.url}/scenes/{scene}/", "Roll")
    # A form shows the picked character's specialities alone: the GM picks each in turn.
    pick = page.locator("#tab-roll details[open] select[name='character']").first
    labels = 0
    for index in range(1, pick.locator("option").count()):
        pick.select_option(index=index)
        found = page.evaluate(OVERLAPS)
        labels += found["labels"]
        assert not found["found"], f"at {width}px:\n" + "\n".join(found["found"])
    assert labels >= 2, "the demo characters' specialities are on the Roll tab"
    assert not contained(page, ".side-pane"), contained(page, ".side-pane")


@pytest.mark.parametrize("user", ["gm", "alice"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_challenge_character_select_fits(pages, server, challenge_scene, user, width):
    page = pages(user)
    page.set_viewport_size({"width": width, "height": HEIGHTS[width]})
    open_scene_tab(page, server.url + challenge_scene, "In play")
    select = page.locator("#challenge-as")
    expect(select).to_be_visible()
    box = select.bounding_box()
    pane = page.locator(".side-pane").bounding_box()
    assert box["x"] + box["width"] <= pane["x"] + pane["width"] + 0.5, (
        f"at {width}px the select ends at {box['x'] + box['width']:.0f}px, "
        f"its pane at {pane['x'] + pane['width']:.0f}px"
    )
    assert not (found := contained(page, ".side-pane")), f"at {width}px:\n" + "\n".join(found)


@pytest.mark.parametrize("tab", ["Party", "GM"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_two_dice_tables_fit_their_tool(pages, server, data, tab, width):
    page = pages("gm")
    page.set_viewport_size({"width": width, "height": HEIGHTS[width]})
    open_scene_tab(page, f"{server.url}/scenes/{data['systems']['two_dice']['scene']}/", tab)
    table = page.locator(".tool:not([hidden]) table").first
    expect(table.locator("thead th").last).to_have_text("Resolve")
    assert not (found := contained(page, ".side-pane")), f"at {width}px:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/stats/campaigns/{campaign}/", id="campaign"),
        pytest.param("/stats/scenes/{stats_scene}/", id="scene"),
    ],
)
def test_the_statistics_tables_fit_a_phone(pages, server, data, path):
    page = pages("gm")
    page.goto(server.url + path.format(**data["systems"]["conductor"]))
    expect(page.locator(".stats-table").first).to_be_attached()
    for width in WIDTHS:
        at_width(page, width)
        found = contained(page, "main")
        assert not found, f"at {width}px:\n" + "\n".join(found)
        last = page.locator(".stats-table thead th").last
        expect(last).to_have_text("Expected")


def test_a_refused_sheet_opens_on_its_error_summary_focused(browser: Browser, server, data):
    """On a phone: the summary heads the form, has focus, and each error links to its field."""
    page = close_after_test(browser.new_context(viewport={"width": 390, "height": 844})).new_page()
    log_in(page, server, "alice")
    page.goto(f"{server.url}/characters/{data['systems']['conductor']['alice_pc']}/edit/")
    rows = page.locator("fieldset.rows", has=page.locator("legend", has_text="Skills"))
    blank = rows.locator(".row-fields").last
    blank.locator("select").first.select_option("Weapon")
    blank.locator("input[type=number]").fill("2")
    with page.expect_navigation():
        page.get_by_role("button", name="Save sheet").click()

    summary = page.locator(".error-summary")
    expect(summary).to_be_focused()
    expect(summary).to_be_in_viewport()
    form_top = page.locator("form.sheet-form").bounding_box()["y"]
    first_fieldset = page.locator("form.sheet-form fieldset").first.bounding_box()["y"]
    assert form_top <= summary.bounding_box()["y"] < first_fieldset, "the summary heads the form"
    link = summary.get_by_role("link", name=re.compile("Weapon must be specified"))
    expect(link).to_have_count(1)
    target = link.get_attribute("href")
    field = page.locator(target)
    expect(field).to_have_attribute("aria-invalid", "true")
    link.click()
    expect(field).to_be_focused()
    expect(field).to_be_in_viewport()
    page.context.close()
