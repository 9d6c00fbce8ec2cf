"""A command made while the server is away is neither lost nor doubled (issue 27, point 4).

With the server stopped, Send or Roll keeps the line in the composer and the roll form as the
user left it, shows "sending…" and then "not sent" with Retry and Cancel; once the server is
back, the page is live within 5 s and sends each command again with its id, which the server
records once: one card, also after a reload. "Retry now" reconnects at once, and the roll
forms ask for no odds while the server is away. Each test runs on a daphne of its own (the
module's), stopped and started again on the same port.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, WebSocketRoute, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.test_scene_live import log_in
from tests.browser.test_table import Seat, demo_scenes
from tests.servers import Server, start_daphne

#: The page's retries are at most 4 s apart, and a second covers the reconnect and its hello.
LIVE_WITHIN_SECONDS = 5
#: How long a command waits for its answer before it shows "not sent" (scene.js), and a margin.
NOT_SENT_AFTER_MS = 8000 + 4000

FIELDS = """form => [...form.elements].filter(e => e.name && e.type !== "hidden"
  && e.type !== "submit").map(e => [e.name, e.type === "checkbox" ? e.checked : e.value])"""


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    server = start_daphne(tmp_path_factory.mktemp("offline"))
    try:
        yield server, demo_scenes(server)["Demo: Conductor"]
    finally:
        server.stop()


@pytest.fixture
def outage(own, page_errors) -> Iterator[Server]:
    """The module's server, for a test that stops it: what an outage shows in the browser is
    expected (refused connections, a request in flight as it stopped); it serves again after."""
    page_errors.expect_outage()
    server, _ = own
    yield server
    if server.process.poll() is not None:
        server.restart()


def scene_page(browser: Browser, server: Server, path: str) -> Page:
    page = close_after_test(browser.new_context()).new_page()
    log_in(page, server, "alice")
    page.goto(server.url + path)
    expect(page.locator("#connection")).to_have_text("live")
    return page


def stop(server: Server, page: Page) -> None:
    server.stop()
    expect(page.locator("#connection")).to_have_text("reconnecting…")


def back(server: Server, page: Page) -> None:
    """Start the server again; the page is live within LIVE_WITHIN_SECONDS of its return."""
    server.restart()  # returns once it serves pages again
    returned = time.monotonic()
    expect(page.locator("#connection")).to_have_text("live", timeout=15000)
    took = time.monotonic() - returned
    assert took <= LIVE_WITHIN_SECONDS, f"live {took:.1f} s after the server came back"


def dice_box(page: Page) -> Locator:
    show_tab(page, "Roll")
    roll_form = page.locator("#tab-roll details", has=page.locator("summary", has_text="Dice"))
    if roll_form.get_attribute("open") is None:
        roll_form.locator("summary").click()
    return roll_form.locator("form.roll-form")


def test_a_line_said_while_the_server_is_down_is_kept_then_sent_once(browser: Browser, own, outage):
    server, path = own
    page = scene_page(browser, server, path)
    box = page.get_by_label("Message")
    pending = page.locator("#composer-pending")
    line = f"Said in the dark {uuid.uuid4().hex[:8]}"
    said = page.locator("#scene-log > .event-chat", has_text=line)

    stop(server, page)
    box.fill(line)
    box.press("Enter")
    expect(pending).to_contain_text("sending…")
    expect(box).to_have_value(line)
    expect(pending).to_contain_text("not sent", timeout=NOT_SENT_AFTER_MS)
    expect(pending.get_by_role("button", name="Retry")).to_be_visible()
    expect(pending.get_by_role("button", name="Cancel")).to_be_visible()
    expect(box).to_have_value(line)  # never cleared before the server has the line
    # Enter again while it is stuck retries the same line: still one command.
    box.press("Enter")
    expect(pending.locator(".command-line")).to_have_count(1)

    back(server, page)
    expect(said).to_have_count(1)
    expect(box).to_have_value("")
    expect(pending.locator(".command-line")).to_have_count(0)
    page.wait_for_timeout(1500)  # a second copy would be here by now
    expect(said).to_have_count(1)
    page.reload()
    expect(page.locator("#connection")).to_have_text("live")
    expect(said).to_have_count(1)


def test_a_roll_made_while_the_server_is_down_is_made_once_when_it_is_back(
    browser: Browser, own, outage
):
    server, path = own
    page = scene_page(browser, server, path)
    form = dice_box(page)
    form.get_by_label("Dice expression").fill("1d2+66660")
    form.get_by_label("Mode").select_option("gm")  # this roll's own mode, not the table's
    chosen = form.evaluate(FIELDS)
    state = form.locator(".command-state")
    rolls = page.locator("#scene-log > .event-roll", has_text=re.compile("6666[12]"))

    stop(server, page)
    form.get_by_role("button", name="Roll", exact=True).click()
    expect(state).to_contain_text("sending…")
    expect(state).to_contain_text("not sent", timeout=NOT_SENT_AFTER_MS)
    expect(state.get_by_role("button", name="Retry Roll")).to_be_visible()
    expect(state.get_by_role("button", name="Cancel Roll")).to_be_visible()
    assert form.evaluate(FIELDS) == chosen, "the roll form changed before the roll was made"

    back(server, page)
    expect(rolls).to_have_count(1)
    expect(state.locator(".command-line")).to_have_count(0)
    # Made: the roll form's one-roll mode goes back to the table's.
    expect(form.get_by_label("Mode")).to_have_value("public")
    page.wait_for_timeout(1500)
    expect(rolls).to_have_count(1)
    page.reload()
    expect(page.locator("#connection")).to_have_text("live")
    expect(rolls).to_have_count(1)


def test_cancel_forgets_a_command_not_sent_and_leaves_the_line(browser: Browser, own, outage):
    server, path = own
    page = scene_page(browser, server, path)
    box = page.get_by_label("Message")
    pending = page.locator("#composer-pending")
    line = f"Never mind {uuid.uuid4().hex[:8]}"

    stop(server, page)
    box.fill(line)
    box.press("Enter")
    pending.get_by_role("button", name="Cancel").click(timeout=NOT_SENT_AFTER_MS)
    expect(pending.locator(".command-line")).to_have_count(0)
    expect(box).to_have_value(line)
    expect(box).to_be_focused()

    back(server, page)
    page.wait_for_timeout(1500)
    expect(page.locator("#scene-log > .event-chat", has_text=line)).to_have_count(0)
    expect(box).to_have_value(line)


def test_retry_now_reconnects_at_once_when_the_server_is_back(browser: Browser, own, outage):
    server, path = own
    page = scene_page(browser, server, path)
    status = page.locator("#connection")
    retry_now = page.get_by_role("button", name="Retry now")
    expect(retry_now).to_be_hidden()
    # The page's own retries a minute apart: only "Retry now" brings it back in time.
    page.evaluate("() => { htmx.config.wsReconnectDelay = () => 60000; }")

    stop(server, page)
    expect(retry_now).to_be_visible()
    server.restart()
    pressed = time.monotonic()
    retry_now.click()
    expect(status).to_have_text("live", timeout=5000)
    took = time.monotonic() - pressed
    assert took <= 2, f"live {took:.1f} s after Retry now"
    expect(retry_now).to_be_hidden()


def test_retry_now_opens_one_socket_and_the_extension_s_own_retry_then_does_nothing(
    browser: Browser, server
):
    # On the shared server: the page's socket is dropped (1012) rather than the server stopped.
    alice = Seat(browser, server, "alice", demo_scenes(server)["Demo: Conductor"])
    page = alice.page
    page.evaluate("() => { htmx.config.wsReconnectDelay = () => 2500; }")
    alice.drop_socket()
    page.get_by_role("button", name="Retry now").click()
    expect(page.locator("#connection")).to_have_text("live", timeout=2000)
    page.wait_for_timeout(3500)  # the extension's own retry has come due: it finds a socket open
    expect(page.locator("#connection")).to_have_text("live")
    assert len(alice.sockets) == 2, "one socket at load, one on Retry now"
    hellos = [frame for frame in alice.sent if '"command":"hello"' in frame]
    assert len(hellos) == 2
    alice.say("Still one socket")
    expect(page.locator("#scene-log > .event-chat", has_text="Still one socket")).to_have_count(1)
    page.wait_for_timeout(500)
    expect(page.locator("#scene-log > .event-chat", has_text="Still one socket")).to_have_count(1)


def test_no_odds_are_asked_for_while_the_server_is_down(browser: Browser, own, outage):
    server, path = own
    page = scene_page(browser, server, path)
    asked: list[str] = []  # the odds requests the page makes

    def note(request) -> None:
        if "/odds/" in request.url:
            asked.append(request.url)

    page.on("request", note)
    form = dice_box(page)
    odds = form.locator(".odds")
    expect(odds).not_to_be_empty()

    stop(server, page)
    before = len(asked)
    form.get_by_label("Dice expression").fill("4d6")
    form.get_by_label("Dice expression").press("Tab")
    page.wait_for_timeout(1000)  # past the odds' 200 ms delay
    assert asked[before:] == [], "odds were asked for while the server was down"

    back(server, page)
    # Live again: the roll form's odds are asked for once more, for what its fields say now.
    for _ in range(50):
        if len(asked) > before:
            break
        page.wait_for_timeout(100)
    assert len(asked) > before, "the odds were not asked for again once live"
    assert "4d6" in asked[-1]


class DeafSeat(Seat):
    """A member's page that hears no answer to its commands while ``deaf`` is on (the frames
    that say a command is done are dropped on their way): as when a socket dies between the
    server recording a command and the page hearing so."""

    deaf = False

    def _relay(self, ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            self.frames.append(text)
            if not (self.deaf and answer(text)):
                ws.send(message)

        def up(message: str | bytes) -> None:
            self.sent.append(message if isinstance(message, str) else message.decode())
            upstream.send(message)

        upstream.on_message(down)
        ws.on_message(up)
        self.sockets.append(ws)


def answer(frame: str) -> dict | None:
    """The server's answer to a command, if the frame is one."""
    control = json.loads(frame) if frame.startswith("{") else {}
    return control if control.get("type") == "done" else None


def test_a_command_recorded_as_its_socket_dies_is_sent_again_and_made_once(
    browser: Browser, server
):
    alice = DeafSeat(browser, server, "alice", demo_scenes(server)["Demo: Conductor"])
    page = alice.page
    box = page.get_by_label("Message")
    line = f"Recorded, unheard {uuid.uuid4().hex[:8]}"
    said = page.locator("#scene-log > .event-chat", has_text=line)
    alice.deaf = True
    alice.say(line)
    expect(said).to_have_count(1)  # recorded: its card came
    expect(page.locator("#composer-pending")).to_contain_text("sending…")
    expect(box).to_have_value(line)  # the answer never came: the line stays
    alice.deaf = False
    alice.drop_socket()
    expect(page.locator("#connection")).to_have_text("live", timeout=10000)
    expect(box).to_have_value("")  # sent again, and answered: a repeat, done
    again = [f for f in alice.sent if line in f]
    assert len(again) == 2 and '"again":true' in again[1], again
    answers = [answer(f) for f in alice.frames if answer(f)]
    assert answers[-1].get("repeat") is True, answers[-1]  # made before: not made again
    page.reload()
    expect(page.locator("#connection")).to_have_text("live")
    expect(said).to_have_count(1)
