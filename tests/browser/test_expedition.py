"""A GM and a player walk one wilderness day of the Demo: Conductor campaign: three phases, the
party's travel, the supply roll at the day's end and the no-rest lasting hit on the sheet, each
step live in both browsers."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_scene_spends import open_scene


def member(page: Page, name: str):
    return page.locator("#procedure-expedition tr", has=page.locator("th", has_text=name))


def chosen(page: Page, name: str):
    """The action a member has taken this phase (the buttons' labels are not it)."""
    return member(page, name).locator(".chosen-action")


def lasting_hits(page: Page, name: str):
    return page.locator(f'#party tr:has-text("{name}") td[data-field="lasting_hits"]')


def test_a_wilderness_day_with_a_gm_and_a_player(browser, server):
    gm, player = open_scene(browser, server, "Demo: Conductor")
    pages = (gm, player)
    for page in pages:
        show_tab(page, "In play")
    before = int(lasting_hits(player, "Brannoc").inner_text())

    gm_view = gm.locator("#procedure-expedition")
    gm_view.get_by_text("Set out on an expedition").click()
    gm_view.get_by_label("Leader (rolls the supply die)").select_option(label="Kestrel")
    gm_view.get_by_role("button", name="Set out").click()
    for page in pages:
        expect(page.locator("#procedure-expedition .expedition-clock")).to_contain_text(
            "Day 1 · Morning"
        )
        expect(page.locator("#procedure-expedition .supply")).to_contain_text("d12")

    # alice chooses for Kestrel only; the GM's controls are not on her page.
    view = player.locator("#procedure-expedition")
    expect(view.get_by_role("button", name="Scouting for Kestrel")).to_be_visible()
    expect(view.get_by_role("button", name="Scouting for Brannoc")).to_have_count(0)
    expect(view.get_by_role("button", name=re.compile("^End the"))).to_have_count(0)

    # Morning: alice sends Kestrel scouting, the GM has Brannoc rest.
    view.get_by_role("button", name="Scouting for Kestrel").click()
    # The GM clicks once alice's choice is on the page: a click that lands while the view is
    # swapped out of band (mouse down on the old button, up on the new) is no click at all.
    expect(chosen(gm, "Kestrel")).to_have_text("Scouting")
    gm_view.get_by_role("button", name="Rest for Brannoc").click()
    for page in pages:
        expect(chosen(page, "Kestrel")).to_have_text("Scouting")
        expect(chosen(page, "Brannoc")).to_have_text("Rest")
    gm_view.get_by_role("button", name="End the Morning: wilderness roll").click()
    for page in pages:
        expect(page.locator(".event-expedition_phase")).to_have_count(1)
        expect(page.locator(".event-expedition_phase .encounter")).to_have_count(1)
        expect(page.locator("#procedure-expedition .expedition-clock")).to_contain_text("Afternoon")

    # Afternoon: alice has the party trek one hex.
    view.get_by_role("button", name="Trek (1 hex)").click()
    for page in pages:
        expect(page.locator("#procedure-expedition .hexes-travelled")).to_have_text("1")
        expect(page.locator(".event-expedition_travel")).to_contain_text("The party treks 1 hex")
    gm_view.get_by_role("button", name="End the Afternoon: wilderness roll").click()
    for page in pages:
        expect(page.locator("#procedure-expedition .expedition-clock")).to_contain_text("Night")

    # Night: Kestrel rests; Brannoc (rested this morning) does something of his own.
    gm_view.get_by_label("Another action for Brannoc").fill("Mends a boot")
    # alice's choice re-renders the GM's view while the GM types: the text stays.
    view.get_by_role("button", name="Rest for Kestrel").click()
    expect(chosen(gm, "Kestrel")).to_have_text("Rest")
    expect(gm_view.get_by_label("Another action for Brannoc")).to_have_value("Mends a boot")
    gm_view.get_by_role("button", name="Do it: Brannoc").click()
    for page in pages:
        expect(chosen(page, "Brannoc")).to_have_text("Mends a boot")
    gm_view.get_by_role("button", name=re.compile("^End the Night")).click()

    # The day's end: Kestrel, the leader, rolls the d12 supply die; everyone rested today.
    for page in pages:
        supply = page.locator(".event-expedition_phase .supply-roll")
        expect(supply).to_contain_text("Kestrel rolls the d12")
        expect(page.locator("#procedure-expedition .expedition-clock")).to_contain_text(
            "Day 2 · Morning"
        )
        expect(page.locator(".event-expedition_phase .lasting-hits")).to_have_count(0)
        expect(lasting_hits(page, "Brannoc")).to_have_text(str(before))
    card = player.locator(".event-expedition_phase .supply-roll").inner_text()
    die_now = "d12" if "the supplies hold" in card else "d10"
    for page in pages:
        expect(page.locator("#procedure-expedition .supply")).to_contain_text(die_now)

    # Day 2 goes by with nobody resting: each takes a lasting hit, on the sheet.
    for phase, then in (("Morning", "Afternoon"), ("Afternoon", "Night")):
        gm_view.get_by_role("button", name=f"End the {phase}: wilderness roll").click()
        expect(gm_view.locator(".expedition-clock")).to_contain_text(f"Day 2 · {then}")
    gm_view.get_by_role("button", name=re.compile("^End the Night")).click()
    for page in pages:
        expect(page.locator("#procedure-expedition .expedition-clock")).to_contain_text(
            "Day 3 · Morning"
        )
        expect(lasting_hits(page, "Brannoc")).to_have_text(str(before + 1))
        expect(member(page, "Brannoc")).to_contain_text("1 no rest")
