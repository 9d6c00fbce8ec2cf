""" "Your turn", and lines that mention a member, as a screen reader hears them (issue 47): the
server marks a card addressed to its viewer (a turn handed to them: ``turn_to``; a line that
mentions them: ``mentions``), so the announcer says "Your turn" to the members the turn is
handed to, in every choice but nothing, and "mine" hears the lines that mention the member."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_keyboard_and_screen_readers import forget, seat, spoken
from tests.browser.test_scene_spends import open_scene


def prefer(server, **choices: str) -> None:
    """Each named member's announce choice."""
    server.shell(
        "from django.contrib.auth import get_user_model\n"
        "from tabletop.accounts import actions\n"
        "users = get_user_model().objects\n"
        + "".join(
            f"actions.table_preferences_save(user=users.get(username={name!r}),"
            f" announce={choice!r}, slash_key=True)\n"
            for name, choice in choices.items()
        )
    )


def start_turns(gm: Page) -> None:
    """The GM starts the turns with the form's defaults: the PCs (alice's and bob's) first."""
    show_tab(gm, "In play")
    gm.locator("#turns-start summary").click()
    gm.get_by_role("button", name="Start round 1").click()


def say(page: Page, text: str) -> None:
    page.get_by_label("Message").fill(text)
    page.get_by_label("Message").press("Enter")


def test_your_turn_is_spoken_to_whom_it_is_handed_and_mine_hears_its_mentions(
    browser: Browser, server
):
    gm, _ = open_scene(browser, server, "Demo: Conductor")
    prefer(server, alice="mine", bob="none", gm="all")
    alice = seat(browser, server, gm.url, "desktop")
    bob = seat(browser, server, gm.url, "desktop", user="bob")
    gm_ear = seat(browser, server, gm.url, "desktop", user="gm")

    # The turns begin with the PCs' team: alice (who hears only what is hers) is told it is
    # her turn; the GM (who hears everything) hears the turn, and not "Your turn"; bob chose
    # nothing, and hears nothing, his turn neither.
    start_turns(gm)
    expect(alice.locator("article.event-turn")).to_have_count(1)
    expect(alice.locator("#announcer p")).to_have_count(1)
    expect(gm_ear.locator("#announcer p")).to_have_count(1)
    heard = spoken(alice)
    assert len(heard) == 1 and heard[0].startswith("Your turn. Turns begin"), heard
    assert len(heard[0]) < 120
    assert spoken(gm_ear)[0].startswith("Turns begin"), spoken(gm_ear)
    expect(bob.locator("article.event-turn[data-for-me]")).to_have_count(1)
    # The cards say whom they are for to that member alone.
    expect(gm_ear.locator("article[data-for-me]")).to_have_count(0)

    # bob talks: alice hears the line that mentions her, not the one that does not.
    forget(alice)
    say(bob, "Nice weather")
    say(bob, "@alice behind you")
    expect(alice.locator("#scene-log > article.event-chat")).to_have_count(2)
    alice.wait_for_timeout(300)
    assert spoken(alice) == ["bob: @alice behind you"], spoken(alice)
    expect(alice.locator("article.event-chat[data-for-me]")).to_have_count(1)
    assert spoken(bob) == []
