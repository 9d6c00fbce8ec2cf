"""A game night for every system and every hidden mode, in Chromium with a GM and two players.

For each demo table, a roll is made from the system's main roll form in each hidden mode
(private to GM, blind, self, the GM's secret) and, on the percentile table, the GM's secret
perception roll; then the GM reveals it (a self roll is its roller's alone: nobody may reveal
it). Every member who may see it has the full card live, in seq order and verified, without a
reload, and the same after one; a member who may not has nothing of it: not on the page, not
in a frame. Any console or htmx error on any page fails the test (tests/browser/conftest.py):
a reveal that swapped a card into an element a player never had (htmx:oobErrorNoTarget) did.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_table import Seat, fresh_scenes

SYSTEMS = ("Annulus", "Roll and Keep", "Conductor", "Two Dice", "Percentile")

#: mode -> (who rolls, who sees the full card before the reveal, who sees a stub)
MODES = {
    "gm": ("alice", {"gm", "alice"}, {"bob"}),
    "blind": ("alice", {"gm"}, {"alice", "bob"}),
    "self": ("alice", {"alice"}, set()),
    "secret": ("gm", {"gm"}, set()),
}


def seqs(page: Page) -> list[int]:
    return [
        int(s)
        for s in page.locator("#scene-log > [data-seq]").evaluate_all(
            "cards => cards.map(card => card.getAttribute('data-seq'))"
        )
    ]


def newest_seq(page: Page) -> int:
    return max(seqs(page))


def roll_from_main_roll_form(seat: Seat, mode: str) -> int:
    """Roll the system's main roll (the Roll tool's open roll form) in ``mode``; the new seq."""
    page = seat.page
    show_tab(page, "Roll")
    form = page.locator("#tab-roll details[open] form.roll-form").first
    character = form.locator("select[name='character']")
    if character.count() and not character.input_value():
        character.select_option(index=1)  # the GM rolls for the first character
    form.locator("select[name='mode']").select_option(mode)
    before = newest_seq(page)
    form.get_by_role("button", name="Roll", exact=True).click()
    return arrived(page, before)


def arrived(page: Page, before: int) -> int:
    """The seq of the roller's new card, newer than ``before`` (a roll another member may not
    see took seqs this page never shows), or the refusal the page shows fails the test."""
    page.wait_for_function(
        "before => [...document.querySelectorAll('#scene-log > [data-seq]')]"
        ".some(card => +card.dataset.seq > before)"
        " || document.querySelector('#scene-errors .error')",
        arg=before,
    )
    errors = page.locator("#scene-errors .error")
    assert not errors.count(), errors.first.text_content()
    return newest_seq(page)


def perception_roll(gm: Seat) -> int:
    page = gm.page
    show_tab(page, "In play")
    perception = page.locator("#perception-roll")
    perception.locator("summary").click()
    before = newest_seq(page)
    perception.get_by_role("button", name="Roll in secret").click()
    return arrived(page, before)


def reveal(gm: Seat, seq: int) -> None:
    show_tab(gm.page, "GM")
    gm.page.locator(f"#gm-hidden-{seq}").get_by_role("button", name="Reveal").click()
    expect(gm.page.locator(f"#gm-hidden-{seq}")).to_have_count(0)


def check_full(seat: Seat, seq: int) -> None:
    card = seat.page.locator(f"#event-{seq}")
    expect(card).to_have_count(1)
    expect(card.locator(".roll-title, .roll-summary").first).to_be_visible()
    expect(card.locator(".verify-status")).to_have_text("✔ verified")
    order = seqs(seat.page)
    assert order == sorted(order), f"{seat.user}'s log is out of seq order: {order}"


def check_nothing(seat: Seat, seq: int) -> None:
    """Not a card, not a frame: the page cannot tell the roll happened."""
    expect(seat.page.locator(f"#event-{seq}")).to_have_count(0)
    assert f'id="event-{seq}"' not in seat.everything()


@pytest.fixture(scope="module")
def paths(server) -> dict[str, str]:
    return fresh_scenes(server, "Game night: hidden modes")


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_hidden_mode_is_revealed_live_to_exactly_who_may_see_it(
    browser: Browser, server, paths, system
):
    path = paths[f"Demo: {system}"]
    seats = {user: Seat(browser, server, user, path) for user in ("gm", "alice", "bob")}
    for user, seat in seats.items():
        seat.user = user  # for the messages
    gm = seats["gm"]
    for name in ("alice", "bob"):
        expect(gm.page.locator("#presence")).to_contain_text(name)

    rolls = [(mode, *MODES[mode]) for mode in MODES]
    if system == "Percentile":
        rolls.append(("perception", "gm", {"gm"}, set()))
    for mode, roller, full, stubbed in rolls:
        seq = (
            perception_roll(gm)
            if mode == "perception"
            else roll_from_main_roll_form(seats[roller], mode)
        )
        words = seats[min(full)].page.locator(f"#event-{seq} .roll-summary").text_content()
        for user, seat in seats.items():
            if user in full:
                expect(seat.page.locator(f"#event-{seq} .roll-summary")).to_be_visible()
            elif user in stubbed:
                expect(seat.page.locator(f"#event-{seq} .roll-hidden")).to_be_visible()
                expect(seat.page.locator(f"#event-{seq} .roll-summary")).to_have_count(0)
            else:
                check_nothing(seat, seq)
        if mode == "self":
            # A self roll is its roller's: the GM has no reveal for it, and still nothing.
            expect(gm.page.locator(f"#gm-hidden-{seq}")).to_have_count(0)
            for user in ("gm", "bob"):
                check_nothing(seats[user], seq)
            continue
        reveal(gm, seq)
        for seat in seats.values():
            check_full(seat, seq)
            expect(seat.page.locator(f"#event-{seq} .roll-summary")).to_have_text(words)

    # The same after a reload: every revealed roll in place and verified, the self roll still
    # its roller's alone.
    self_seq = None
    for seat in seats.values():
        seat.page.reload()
        expect(seat.page.locator("#connection")).to_have_text("live")
    for seat in seats.values():
        order = seqs(seat.page)
        assert order == sorted(order)
    for user, seat in seats.items():
        for card in seat.page.locator("#scene-log > article.event-roll").all():
            if card.locator(".badge.mode-self").count():
                self_seq = int(card.get_attribute("data-seq"))
                assert user == "alice", f"{user} has alice's self roll #{self_seq}"
        for check in seat.page.locator("#scene-log .commitment[data-secret]").all():
            expect(check.locator(".verify-status")).to_have_text("✔ verified")
    assert self_seq is not None
