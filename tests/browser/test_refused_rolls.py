"""A refused roll leaves its roll form exactly as the user left it, on every roll form of every
system: the mode above all (a hidden roll must never turn public behind the user's back), and
every other field.

Each roll form of the Roll tool is filled with values of the user's own (the GM in the GM's secret
mode, a player blind to the GM), and the roll is refused by the server: the socket relay swaps
the character for one that is in no campaign, which every roll refuses. Nothing is recorded,
the refusal shows, and every field still holds what the user chose. Then the same roll form rolls
for real, and its mode goes back to the table's, as a one-roll choice should.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_table import Seat, fresh_scenes

SYSTEMS = ("Annulus", "Roll and Keep", "Conductor", "Two Dice", "Percentile")
NO_SUCH_CHARACTER = "999999"

FIELDS = """form => [...form.elements].filter(e => e.name && e.type !== "hidden"
  && e.type !== "submit").map(e => [e.name, e.type === "checkbox" ? e.checked : e.value])"""

#: Every field a different value from its default, where it has another: the last option of a
#: select (the mode picked apart), a number one up (one down at its max), a checkbox flipped.
CHANGE_FIELDS = """(form, mode) => {
  for (const e of form.elements) {
    if (!e.name || e.type === "hidden" || e.readOnly || e.disabled) continue;
    if (e.name === "mode") { e.value = mode; }
    else if (e.name === "character") { continue; }
    else if (e.tagName === "SELECT" && e.options.length > 1) {
      // The last choice a person could make: not another character's (disabled) skill.
      const offered = Array.from(e.options).filter(
        (o) => !o.disabled && !(o.parentNode.tagName === "OPTGROUP" && o.parentNode.disabled));
      offered[offered.length - 1].selected = true;  // not by value: options share values
    } else if (e.type === "number") {
      const up = (+e.value || 0) + 1;
      e.value = e.max !== "" && up > +e.max ? (+e.value || 0) - 1 : up;
    } else if (e.type === "checkbox") { e.checked = !e.checked; }
    else if (e.type === "text" && !e.value) { e.value = "2d"; }
    e.dispatchEvent(new Event("input", { bubbles: true }));
    e.dispatchEvent(new Event("change", { bubbles: true }));
  }
}"""


class RefusingSeat(Seat):
    """A member's scene page whose roll frames the server refuses (a character that is in no
    campaign), while ``refusing`` is on."""

    def __init__(self, browser: Browser, server, user: str, path: str) -> None:
        self.refusing = True
        super().__init__(browser, server, user, path, outgoing=self._refuse)

    def _refuse(self, message: str) -> str:
        if not self.refusing or '"command":"roll"' not in message:
            return message
        frame = json.loads(message)
        frame["character"] = NO_SUCH_CHARACTER
        return json.dumps(frame)


def fields(form: Locator) -> list:
    return form.evaluate(FIELDS)


def cards(page: Page) -> int:
    return page.locator("#scene-log > [data-seq]").count()


@pytest.fixture(scope="module")
def paths(server) -> dict[str, str]:
    return fresh_scenes(server, "Refusals")


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize(("user", "mode"), [("gm", "secret"), ("alice", "blind")])
def test_a_refused_roll_keeps_the_mode_and_every_field(
    browser: Browser, server, paths, system, user, mode
):
    seat = RefusingSeat(browser, server, user, paths[f"Demo: {system}"])
    page = seat.page
    show_tab(page, "Roll")
    roll_forms = page.locator("#tab-roll details")
    assert roll_forms.count() >= 2, "every system has its rolls and the dice box"
    for index in range(roll_forms.count()):
        roll_form = roll_forms.nth(index)
        if roll_form.get_attribute("open") is None:
            roll_form.locator("summary").click()
        form = roll_form.locator("form.roll-form")
        form.evaluate(CHANGE_FIELDS, mode)
        chosen = fields(form)
        assert ["mode", mode] in chosen
        before = cards(page)
        form.get_by_role("button", name="Roll", exact=True).click()
        expect(page.locator("#scene-errors .error")).to_be_visible()
        page.wait_for_timeout(300)  # the page's own reaction to the refusal, if it had one
        assert fields(form) == chosen, f"roll form {index + 1} changed after a refusal"
        assert cards(page) == before  # nothing recorded
        page.locator("#scene-errors").evaluate("el => el.replaceChildren()")

    # The table's mode is public; a roll form's one-roll mode returns to it once a roll is made.
    seat.refusing = False
    roll_form = roll_forms.last  # the dice box: any expression rolls
    form = roll_form.locator("form.roll-form")
    form.locator("input[name='expression'], input[type='text']").first.fill("1d6")
    form.locator("select[name='mode']").select_option(mode)
    before = cards(page)
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(page.locator("#scene-log > [data-seq]")).to_have_count(before + 1)
    expect(form.locator("select[name='mode']")).to_have_value("public")


def test_the_composer_keeps_a_refused_line_and_clears_a_said_one(browser: Browser, server, paths):
    seat = RefusingSeat(browser, server, "bob", paths["Demo: Conductor"])
    seat.refusing = False
    page = seat.page
    box = page.get_by_label("Message")
    before = cards(page)
    # Refused by the server (the composer reads "/r 2d" as a roll; the dice box refuses "2d"):
    # the error shows under the box and the line stays to be fixed, as a line refused in the
    # browser does.
    box.fill("/r 2d")
    box.press("Enter")
    expect(page.locator("#composer-status .error")).to_be_visible()
    page.wait_for_timeout(300)
    expect(box).to_have_value("/r 2d")
    box.fill("/w nobody psst")
    box.press("Enter")
    expect(page.locator("#composer-status .error")).to_be_visible()
    expect(box).to_have_value("/w nobody psst")
    # A long paste is refused with its length, not cut silently.
    box.fill("x" * 5000)
    box.press("Enter")
    expect(page.locator("#composer-status .error")).to_contain_text("5000")
    expect(box).to_have_value("x" * 5000)
    assert cards(page) == before
    # Said: the line is cleared once the server has it, and it is in the log, breaks and all.
    box.fill("first line")
    box.press("Shift+Enter")
    box.type("second line")
    box.press("Enter")
    said = page.locator("#scene-log > .event-chat").last
    expect(said).to_contain_text("second line")
    expect(said.locator("br")).to_have_count(1)
    expect(box).to_have_value("")
