"""The Sheet tool (issue 28, "the sheet at the table"), in Chromium: in each of the five demo
campaigns alice opens her sheet and clicks its main rollable; the Roll tool shows that roll's
roll form with her character and that skill (or attribute, training perk...) picked, in the
table-wide mode, with its odds; she rolls and the card lands in the log with that roll, in that
mode. The GM's sheet shows any character (a foe's, rolled the same way). A currency the GM
changes moves on alice's sheet without a reload (and a cost a check pays, on two_dice). On a
phone the click leads to the Roll tab with the roll form filled. Nothing overflows at 390x844 or
1280x800."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_table import DESKTOP, PHONE, Seat, fresh_scenes

#: Each demo campaign: alice's character, her sheet's main rollable and the words of it that its
#: card shows (seed_demo's tables: tabletop/systems/<slug>/demo.py).
MAIN_ROLLABLES = {
    "Demo: Annulus": ("Mira Vell", "Challenge check: Knowledge (+2)", "Knowledge"),
    "Demo: Conductor": ("Kestrel", "Roll Acrobatics (1)", "Acrobatics"),
    "Demo: Percentile": ("Tomalfson", "Roll Broadsword (55)", "Broadsword"),
    "Demo: Roll and Keep": ("Sable", "Roll Deceit (5)", "Deceit"),
    "Demo: Two Dice": ("Tamsin Reed", "Roll Agility (8)", "Agility"),
}


@pytest.fixture(scope="module")
def scenes(server) -> dict[str, str]:
    return fresh_scenes(server, "The sheet at the table")


def sheet_button(page: Page, name: str) -> Locator:
    return page.locator("#tab-sheet").get_by_role("button", name=name, exact=True)


def click_rollable(page: Page, name: str) -> tuple[Locator, dict[str, str], str]:
    """Click a rollable of the sheet showing; the roll form it fills, its fields, its character."""
    button = sheet_button(page, name)
    fields = json.loads(button.get_attribute("data-fields"))
    character = button.get_attribute("data-character")
    kind = button.get_attribute("data-roll-kind")
    button.click()
    expect(page.get_by_role("tab", name="Roll", exact=True)).to_have_attribute(
        "aria-selected", "true"
    )
    return page.locator(f'#tab-roll form.roll-form[data-roll-kind="{kind}"]'), fields, character


def expect_filled(form: Locator, fields: dict[str, str], character: str, mode: str) -> None:
    """The roll form open and showing, with the rollable's character, fields and the table's mode,
    and its odds (the chart, and their gist beside Roll)."""
    expect(form).to_be_visible()
    expect(form.locator("select[name=character]")).to_have_value(character)
    for name, value in fields.items():
        field = form.locator(f'[name="{name}"]')
        kind = field.first.get_attribute("type")
        if kind == "radio":
            expect(form.locator(f'input[name="{name}"][value="{value}"]')).to_be_checked()
        elif kind == "checkbox":
            expect(field.first).to_be_checked()
        else:
            expect(field).to_have_value(value)
    expect(form.locator("select[name=mode]")).to_have_value(mode)
    expect(form.locator(".odds .odds-chart")).to_be_visible()
    expect(form.locator(".roll-actions .odds-line")).to_contain_text("%")


def no_overflow(page: Page, what: str) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1], f"{what} overflows the page: {widths}"
    tool = page.locator("#tab-sheet").evaluate("t => [t.scrollWidth, t.clientWidth]")
    assert tool[0] <= tool[1], f"{what}: the Sheet tool scrolls sideways: {tool}"


@pytest.mark.parametrize("campaign", list(MAIN_ROLLABLES))
def test_a_skill_on_the_sheet_is_rolled_in_the_table_wide_mode(
    browser: Browser, server, scenes, campaign
):
    name, rollable, words = MAIN_ROLLABLES[campaign]
    alice = Seat(browser, server, "alice", scenes[campaign])
    alice.page.locator("#table-mode").select_option("gm")  # the table-wide mode: Private to GM
    show_tab(alice.page, "Sheet")
    sheet = alice.page.locator("#tab-sheet")
    expect(sheet.get_by_role("heading", name=name)).to_be_visible()
    expect(sheet.locator("#sheet-pick")).to_have_count(0)  # her one character: no picker

    form, fields, character = click_rollable(alice.page, rollable)
    expect_filled(form, fields, character, "gm")
    # Only the filled roll form is open in the Roll tool, its Roll button ready for the next click.
    expect(alice.page.locator("#tab-roll details[open]")).to_have_count(1)
    expect(form.get_by_role("button", name="Roll", exact=True)).to_be_focused()
    form.get_by_role("button", name="Roll", exact=True).click()

    card = alice.page.locator(".event-roll").last
    expect(card).to_contain_text(words)
    expect(card).to_contain_text(name)
    expect(card.locator(".badge")).to_have_text("private to GM")
    expect(form.locator("select[name=mode]")).to_have_value("gm")


def test_a_check_s_cost_moves_the_resource_on_the_sheet(browser: Browser, server, scenes):
    # A two_dice check in the open pays its cost from the sheet at once (a hidden one waits for
    # its reveal): the resource moves on alice's sheet, unreloaded.
    alice = Seat(browser, server, "alice", scenes["Demo: Two Dice"])
    show_tab(alice.page, "Sheet")
    form, fields, character = click_rollable(alice.page, "Roll Agility (8)")
    expect_filled(form, fields, character, "public")
    expect(form.get_by_label("Difficulty")).to_have_value("Normal")  # cost 2
    show_tab(alice.page, "Sheet")
    resource = alice.page.locator("#tab-sheet .sheet-card .sheet-money div").filter(
        has=alice.page.locator("dt", has_text=re.compile(f"^{fields['resource']}$"))
    )
    current, maximum = (int(n) for n in resource.locator("dd").inner_text().split(" / "))
    show_tab(alice.page, "Roll")
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(alice.page.locator(".event-roll").last).to_contain_text("Agility")
    expect(resource.locator("dd")).to_have_text(f"{max(current - 2, 0)} / {maximum}")


def test_the_gm_s_sheet_shows_any_character_and_rolls_a_foe_s_skill(
    browser: Browser, server, scenes
):
    gm = Seat(browser, server, "gm", scenes["Demo: Conductor"])
    gm.page.locator("#table-mode").select_option("secret")
    show_tab(gm.page, "Sheet")
    pick = gm.page.locator("#tab-sheet").get_by_label("Character")
    names = pick.locator("option").all_inner_texts()
    assert names == ["Brannoc", "Kestrel", "Bog Wight", "Ridge Wolf"], names
    for name in names:
        pick.select_option(label=name)
        expect(gm.page.locator("#tab-sheet .sheet-card:visible h3")).to_have_text(name)
    pick.select_option(label="Bog Wight")
    form, fields, character = click_rollable(gm.page, "Roll Strength (2)")
    assert fields == {"skill_name": "Strength"}
    expect_filled(form, fields, character, "secret")
    form.get_by_role("button", name="Roll", exact=True).click()
    card = gm.page.locator(".event-roll").last
    expect(card).to_contain_text("Bog Wight")
    expect(card).to_contain_text("Strength")
    expect(card.locator(".badge")).to_have_text("GM secret")
    # The page remembers whose sheet the GM was looking at.
    gm.page.reload()
    show_tab(gm.page, "Sheet")
    expect(gm.page.locator("#tab-sheet .sheet-card:visible h3")).to_have_text("Bog Wight")


def test_an_award_moves_alice_s_sheet_live(browser: Browser, server, scenes):
    path = scenes["Demo: Conductor"]
    alice = Seat(browser, server, "alice", path)
    gm = Seat(browser, server, "gm", path)
    show_tab(alice.page, "Sheet")
    bennies = alice.page.locator('#tab-sheet .sheet-card:visible [data-mirrors$="-bennies"]')
    before = int(bennies.inner_text())
    show_tab(gm.page, "GM")
    gm.page.get_by_role("button", name=re.compile("^Give Kestrel one more benny")).click()
    expect(bennies).to_have_text(str(before + 1))
    # Hits the GM marks on her too (harm is on the sheet as well).
    hits = alice.page.locator('#tab-sheet .sheet-card:visible [data-mirrors$="-hits"]').first
    marked = int(hits.inner_text()) + 1
    gm.page.get_by_role("button", name=re.compile("^Give Kestrel one more hit")).click()
    expect(hits).to_have_text(str(marked))
    # The GM's own sheet of her moves too.
    show_tab(gm.page, "Sheet")
    gm.page.locator("#tab-sheet").get_by_label("Character").select_option(label="Kestrel")
    expect(
        gm.page.locator('#tab-sheet .sheet-card:visible [data-mirrors$="-bennies"]')
    ).to_have_text(str(before + 1))


def test_on_a_phone_a_rollable_leads_to_the_roll_tab_filled(browser: Browser, server, scenes):
    alice = Seat(browser, server, "alice", scenes["Demo: Roll and Keep"], viewport=PHONE)
    show_tab(alice.page, "Sheet")
    expect(alice.page.get_by_label("Message")).to_be_hidden()
    form, fields, character = click_rollable(alice.page, "Roll Deceit (5)")
    expect_filled(form, fields, character, "public")
    roll = form.get_by_role("button", name="Roll", exact=True)
    expect(roll).to_be_in_viewport()
    # A box left ticked by an earlier roll is unticked: exactly the rollable's are.
    show_tab(alice.page, "Sheet")
    form, fields, character = click_rollable(alice.page, "Roll Cunning (4)")
    expect(form.get_by_label("Deceit")).not_to_be_checked()
    expect_filled(form, fields, character, "public")
    roll.click()
    expect(alice.page.get_by_role("tab", name="Log")).to_have_attribute("aria-selected", "true")
    card = alice.page.locator(".event-roll").last
    expect(card).to_contain_text("Cunning: roll 4, keep 3")
    expect(card).to_be_in_viewport()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("user", ["alice", "gm"])
def test_no_sheet_overflows(browser: Browser, server, scenes, viewport, user):
    for campaign, path in scenes.items():
        seat = Seat(browser, server, user, path, viewport=viewport)
        show_tab(seat.page, "Sheet")
        pick = seat.page.locator("#sheet-pick")
        names = pick.locator("option").all_inner_texts() if pick.count() else [None]
        for name in names:
            if name is not None:
                pick.select_option(label=name)
            expect(seat.page.locator("#tab-sheet .sheet-card:visible")).to_have_count(1)
            no_overflow(seat.page, f"{campaign}, {user}, {name or 'her sheet'}")
        seat.page.context.close()
