"""Speaking as a character in Chromium (issue 43, item 2), on a phone and a desktop: alice picks
her character beside the message box and her line and her roll reach bob's page under its name
(hers small beside it); a reload keeps the pick; the GM speaks as an NPC name typed (marked NPC)
and narrates with /desc (no speaker shown); a player's /desc and /as of another player's
character are refused under the box, sending nothing. A roll form's roll goes as the pick.
Any console or htmx error fails the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_table import DESKTOP, PHONE, Seat, fresh_scenes

SHOTS = Path("/tmp/speaking-as-shots")
SIZES = {"phone": PHONE, "desktop": DESKTOP}


def last_line(seat: Seat):
    return seat.page.locator("#scene-log .event-chat").last


@pytest.mark.parametrize("size", sorted(SIZES))
def test_speaking_as_a_character_at_the_table(browser: Browser, server, size):
    path = fresh_scenes(server, f"Speaking as ({size})")["Demo: Any game"]
    viewport = SIZES[size]
    alice, bob, gm = (Seat(browser, server, who, path, viewport) for who in ("alice", "bob", "gm"))

    # alice speaks as her character: bob's page names it, and her, small beside it.
    picker = alice.page.locator("#speaking-as")
    expect(picker.locator("option")).to_have_text(["You", "Mira Quickfoot"])
    picker.select_option("Mira Quickfoot")
    alice.say("The lock clicks open")
    line = last_line(bob)
    expect(line).to_contain_text("The lock clicks open")
    expect(line.locator(".speaker")).to_have_text("Mira Quickfoot")
    expect(line.locator(".speaker-by")).to_have_text("(alice)")

    # A reload keeps the pick; a roll from the composer goes as it too.
    alice.page.reload()
    expect(alice.page.locator("#connection")).to_have_text("live")
    expect(alice.page.locator("#speaking-as")).to_have_value("Mira Quickfoot")
    alice.say("/r 1d20+4")
    card = bob.page.locator("#scene-log .event-roll").last
    expect(card.locator(".speaker")).to_have_text("Mira Quickfoot")
    expect(card.locator(".speaker-by")).to_have_text("(alice)")
    # So does a roll form's (the dice box's 2d6).
    if size == "phone":
        show_tab(alice.page, "Roll")
    alice.page.locator("form.roll-form").first.get_by_role("button", name="Roll").click()
    expect(bob.page.locator("#scene-log .event-roll")).to_have_count(2)
    card = bob.page.locator("#scene-log .event-roll").last
    expect(card).to_contain_text("2d6")
    expect(card.locator(".speaker")).to_have_text("Mira Quickfoot")
    if size == "phone":
        show_tab(alice.page, "Log")

    # Another player's character, and narration, are refused under alice's box: nothing sent.
    seqs = bob.page.locator("#scene-log article").count()
    for said, refusal in (
        ('/as "Brother Aldous" Bless you', "Brother Aldous is another player's character"),
        ("/desc The sky darkens.", "Narration (/desc) is the GM's"),
    ):
        alice.say(said)
        expect(alice.page.locator("#composer-status")).to_contain_text(refusal)
        expect(alice.page.get_by_label("Message")).to_have_value(said)  # kept, to fix
    expect(bob.page.locator("#scene-log article")).to_have_count(seqs)

    # The GM speaks as an NPC name typed, marked NPC, and narrates with no speaker.
    gm.page.locator("#speaking-as").select_option("Another NPC…")
    gm.page.get_by_label("The NPC's name").fill("Old Sailor")
    gm.say("Ahoy there!")
    line = last_line(alice)
    expect(line).to_contain_text("Ahoy there!")
    expect(line.locator(".speaker")).to_have_text("Old Sailor")
    expect(line.locator(".speaker-npc")).to_have_text("NPC")
    gm.say("/desc The fog rolls in.")
    line = last_line(bob)
    expect(line.locator(".narration")).to_contain_text("The fog rolls in.")
    expect(line.locator(".speaker")).to_have_count(0)

    SHOTS.mkdir(exist_ok=True)
    for seat, who in ((alice, "alice"), (gm, "gm")):
        seat.page.screenshot(path=str(SHOTS / f"{size}-{who}.png"))
