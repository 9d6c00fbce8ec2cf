"""The composer and the roll forms on a game night, in Chromium (issue 42):

- ``/r`` rolls in the mode picked under the box ("Rolls"), as Foundry's; ``/pr`` in the open;
- a double or triple click on Roll is one roll, and Enter pressed twice one line;
- a page whose session ended refuses a line or a roll at once, saying why by the box or the
  form, keeps the line, and brings it back after the login;
- ``/help`` opens a panel that leaves the log its height, and clears the box;
- a refused line's error goes once the next line is said, even when it came after that line.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.test_scene_live import log_in
from tests.browser.test_table import DESKTOP, PHONE, Seat, fresh_scenes


@pytest.fixture(scope="module")
def paths(server) -> dict[str, str]:
    return fresh_scenes(server, "Composer night")


def cards(page: Page) -> int:
    return page.locator("#scene-log > [data-seq]").count()


def show_log(page: Page) -> None:
    """The log, with the composer at its foot: behind its tab on a phone, always in view else."""
    if page.get_by_role("tab", name="Log", exact=True).is_visible():
        show_tab(page, "Log")


def pick_rolls_mode(page: Page, mode: str) -> None:
    page.locator("#table-mode").select_option(mode)


def test_r_rolls_in_the_mode_picked_under_the_box(browser: Browser, server, paths):
    path = paths["Demo: Conductor"]
    gm, alice, bob = (Seat(browser, server, user, path) for user in ("gm", "alice", "bob"))
    for name in ("alice", "bob"):
        expect(gm.page.locator("#presence")).to_contain_text(name)

    # The GM left on "Secret (GM)": /r is secret, as in Foundry; nothing of it reaches a player.
    pick_rolls_mode(gm.page, "secret")
    gm.say("/r 1d6+500")
    secret = gm.page.locator(".event-roll", has_text=re.compile(r"50[1-6]")).last
    expect(secret).to_be_visible()
    expect(secret).to_contain_text("GM secret")
    seq = secret.get_attribute("data-seq")
    gm.page.wait_for_timeout(500)  # anything the players would be sent has come
    for player in (alice, bob):
        expect(player.page.locator(f"#event-{seq}")).to_have_count(0)
        assert "1d6 + 500" not in player.everything() and "1d6+500" not in player.everything()
        assert f'id="event-{seq}"' not in player.everything()

    # /pr: the same GM, still on Secret, rolls in the open.
    gm.say("/pr 1d6+600")
    for seat in (gm, alice, bob):
        expect(seat.page.locator(".event-roll", has_text=re.compile(r"60[1-6]"))).to_have_count(1)

    # alice on "Blind to GM": her /r and /roll are blind (the GM sees them; she and bob a stub).
    pick_rolls_mode(alice.page, "blind")
    for line in ("/r 1d6+700", "/roll 1d6+800"):
        before = cards(gm.page)
        alice.say(line)
        expect(gm.page.locator("#scene-log > [data-seq]")).to_have_count(before + 1)
        card = gm.page.locator("#scene-log > [data-seq]").last
        expect(card).to_contain_text("blind")
        seq = card.get_attribute("data-seq")
        for player in (alice, bob):
            expect(player.page.locator(f"#event-{seq} .roll-hidden")).to_be_visible()
            expect(player.page.locator(f"#event-{seq} .roll-summary")).to_have_count(0)
        assert line.split()[1] not in alice.everything() + bob.everything()
    expect(alice.page.get_by_label("Message")).to_have_value("")


def dice_box(page: Page):
    show_tab(page, "Roll")
    roll_form = page.locator("#tab-roll details", has=page.locator("summary", has_text="Dice"))
    if roll_form.get_attribute("open") is None:
        roll_form.locator("summary").click()
    return roll_form.locator("form.roll-form")


def test_a_double_or_triple_click_on_roll_is_one_roll(browser: Browser, server, paths):
    seat = Seat(browser, server, "alice", paths["Demo: Two Dice"])
    page = seat.page
    form = dice_box(page)
    form.locator("input[name='expression']").fill("1d6+900")
    roll = form.get_by_role("button", name="Roll", exact=True)
    for clicks in (2, 3):
        show_tab(page, "Roll")
        before = cards(page)
        roll.click(click_count=clicks)
        expect(page.locator("#scene-log > [data-seq]")).to_have_count(before + 1)
        page.wait_for_timeout(1000)  # a second roll would have come by now
        assert cards(page) == before + 1, f"{clicks} clicks made {cards(page) - before} rolls"
    rolled = [f for f in seat.sent if '"command":"roll"' in f]
    assert len(rolled) == 2, rolled

    # The composer: Enter twice, quickly, says the line once.
    show_log(page)
    box = page.get_by_label("Message")
    box.fill("only once, please")
    box.press("Enter")
    box.press("Enter")
    said = page.locator("#scene-log > .event-chat", has_text="only once, please")
    expect(said).to_have_count(1)
    page.wait_for_timeout(1000)
    expect(said).to_have_count(1)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_signed_out_page_refuses_input_at_once_and_keeps_the_line(
    browser: Browser, server, paths, viewport
):
    path = paths["Demo: Annulus"]
    laptop = Seat(browser, server, "bob", path, viewport=viewport)
    other = close_after_test(browser.new_context(viewport=viewport)).new_page()
    log_in(other, server, "bob")
    other.goto(server.url + "/accounts/me/")
    other.get_by_role("button", name="Sign out everywhere else").click()
    expect(other.get_by_text("Signed out everywhere else")).to_be_visible()
    page = laptop.page
    expect(page.locator("#connection")).to_contain_text("Session ended")
    sent = len(laptop.sent)

    # A line: refused by the box at once (no "sending…"), the reason and the way back shown.
    show_log(page)
    box = page.get_by_label("Message")
    box.fill("are you still there?")
    box.press("Enter")
    refused = page.locator("#composer-pending .command-line[data-state='ended']")
    expect(refused).to_contain_text("not sent. Session ended (signed out everywhere)")
    expect(refused.get_by_role("link", name="log in again")).to_be_visible()
    expect(page.locator("#composer-pending")).not_to_contain_text("sending")
    expect(box).to_have_value("are you still there?")

    # A roll: refused by its form at once, the form as it was.
    form = dice_box(page)
    form.locator("input[name='expression']").fill("2d6")
    form.get_by_role("button", name="Roll", exact=True).click()
    bar = form.locator(".command-state")
    expect(bar.locator(".command-line[data-state='ended']")).to_contain_text("Session ended")
    expect(bar).not_to_contain_text("sending")
    expect(form.locator("input[name='expression']")).to_have_value("2d6")
    page.wait_for_timeout(500)
    assert laptop.sent[sent:] == []  # nothing went

    # The way back: the login returns to the scene, the line back in the box.
    show_log(page)
    refused.get_by_role("link", name="log in again").click()
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=" + re.escape(path)))
    page.get_by_label("Username").fill("bob")
    page.get_by_label("Password").fill("tabletop-demo")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(server.url + path)
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.get_by_label("Message")).to_have_value("are you still there?")


def test_a_kept_line_goes_back_to_its_writer_alone(browser: Browser, server, paths):
    """A shared computer: bob's session ends with a line in the box, alice logs in on that
    tab; the line is bob's, and never lands in alice's box, to be sent under her name."""
    path = paths["Demo: Annulus"]
    laptop = Seat(browser, server, "bob", path)
    other = close_after_test(browser.new_context()).new_page()
    log_in(other, server, "bob")
    other.goto(server.url + "/accounts/me/")
    other.get_by_role("button", name="Sign out everywhere else").click()
    page = laptop.page
    expect(page.locator("#connection")).to_contain_text("Session ended")
    show_log(page)
    box = page.get_by_label("Message")
    box.fill("bob's secret plan")
    box.press("Enter")
    refused = page.locator("#composer-pending .command-line[data-state='ended']")
    refused.get_by_role("link", name="log in again").click()
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("tabletop-demo")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(server.url + path)
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.get_by_label("Message")).to_have_value("")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_help_leaves_the_log_its_height_and_the_box_empty(
    browser: Browser, server, paths, viewport, tmp_path
):
    seat = Seat(browser, server, "alice", paths["Demo: Percentile"], viewport=viewport)
    page = seat.page
    show_log(page)
    log = page.locator("#scene-log")
    height = log.bounding_box()["height"]
    box = page.get_by_label("Message")
    box.fill("/help")
    box.press("Enter")
    help_panel = page.locator("#composer-help")
    expect(help_panel).to_be_visible()
    expect(help_panel).to_contain_text("/r 2d6+1: roll in the mode picked under the box")
    expect(box).to_have_value("")
    assert log.bounding_box()["height"] == pytest.approx(height, abs=1)
    panel = help_panel.bounding_box()
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= viewport["width"]
    page.screenshot(path=str(tmp_path / f"help-{viewport['width']}.png"))
    # Closed by Escape; the log is as it was, and scrolls.
    page.keyboard.press("Escape")
    expect(help_panel).to_be_hidden()
    assert log.bounding_box()["height"] == pytest.approx(height, abs=1)
    # Closed by its button too.
    box.fill("/help")
    box.press("Enter")
    expect(help_panel).to_be_visible()
    help_panel.get_by_role("button", name="Close").click()
    expect(help_panel).to_be_hidden()


class HoldingSeat(Seat):
    """A member's page whose incoming frames are held while ``holding`` is a list, then
    released in order: an answer that comes late."""

    def __init__(self, *args, **kwargs) -> None:
        self.holding: list | None = None
        super().__init__(*args, **kwargs)

    def _relay(self, ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            self.frames.append(message if isinstance(message, str) else message.decode())
            if self.holding is not None:
                self.holding.append(message)
            else:
                ws.send(message)

        def up(message: str | bytes) -> None:
            self.sent.append(message if isinstance(message, str) else message.decode())
            upstream.send(message)

        upstream.on_message(down)
        ws.on_message(up)
        self.sockets.append(ws)

    def wait_held(self, answers: int) -> None:
        for _ in range(100):
            if sum('"type": "done"' in str(m) for m in self.holding or []) >= answers:
                return
            self.page.wait_for_timeout(50)
        raise AssertionError(f"fewer than {answers} answers came: {self.holding}")

    def release(self) -> None:
        held, self.holding = self.holding or [], None
        for message in held:
            self.sockets[-1].send(message)


def test_a_refused_lines_error_goes_once_the_next_line_is_said(browser: Browser, server, paths):
    seat = HoldingSeat(browser, server, "bob", paths["Demo: Roll and Keep"])
    page = seat.page
    box = page.get_by_label("Message")
    # Refused by the server: its error shows under the box, the line stays.
    box.fill("/r 2d")
    box.press("Enter")
    expect(page.locator("#composer-status .error")).to_contain_text("2d")
    expect(box).to_have_value("/r 2d")
    box.fill("never mind, walking on")
    box.press("Enter")
    expect(page.locator("#scene-log > .event-chat").last).to_contain_text("walking on")
    expect(page.locator("#composer-status .error")).to_have_count(0)
    expect(page.locator("#scene-errors .error")).to_have_count(0)

    # The refusal comes after the next line went (a slow answer): the next line said clears it.
    seat.holding = []
    box.fill("/r 3d")
    box.press("Enter")
    seat.wait_held(1)
    box.fill("on we go")
    box.press("Enter")
    seat.wait_held(2)
    seat.release()
    expect(page.locator("#scene-log > .event-chat").last).to_contain_text("on we go")
    expect(box).to_have_value("")
    page.wait_for_timeout(300)
    expect(page.locator("#composer-status .error")).to_have_count(0)
    expect(page.locator("#scene-errors .error")).to_have_count(0)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_long_lines_bound_shows_by_the_box_before_it_is_sent(
    browser: Browser, server, paths, viewport
):
    seat = Seat(browser, server, "alice", paths["Demo: Annulus"], viewport=viewport)
    page = seat.page
    show_log(page)
    box = page.get_by_label("Message")
    count = page.locator("#composer-count")
    box.fill("a" * 100)
    expect(count).to_be_hidden()
    box.fill("a" * 850)
    expect(count).to_have_text("850 / 1,000 characters")
    expect(count).to_be_visible()
    box.fill("a" * 1001)
    expect(count).to_have_class(re.compile(r"\bover\b"))
    page.screenshot(path=f"/tmp/composer-count-{viewport['width']}.png")
    box.fill("")
    expect(count).to_be_hidden()
