"""A page reconnects quickly when its server comes back: the first retry within half a second,
never more than 5 s apart (htmx-ext-ws's own backoff grows to 64 s, so a table whose server was
down for 20 s stayed dead up to half a minute after it returned). On a daphne of the test's own,
stopped and started again on the same port."""

from __future__ import annotations

import time

from playwright.sync_api import Browser, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_scene_live import log_in
from tests.browser.test_table import demo_scenes
from tests.servers import start_daphne

OUTAGE_SECONDS = 20
#: The longest wait between retries (5 s), and a second for the reconnect and its hello.
LIVE_WITHIN_SECONDS = 6


def test_a_page_is_live_within_seconds_of_its_server_s_return(
    browser: Browser, tmp_path, page_errors
):
    page_errors.expect_outage()  # what the browser logs while the server is away
    server = start_daphne(tmp_path)
    try:
        path = demo_scenes(server)["Demo: Conductor"]
        page = close_after_test(browser.new_context()).new_page()
        log_in(page, server, "alice")
        page.goto(server.url + path)
        status = page.locator("#connection")
        expect(status).to_have_text("live")

        server.stop()
        expect(status).to_have_text("reconnecting…")
        page.wait_for_timeout(OUTAGE_SECONDS * 1000)  # the page keeps trying, backing off
        server.restart()  # returns once it serves pages again
        back = time.monotonic()
        expect(status).to_have_text("live", timeout=(LIVE_WITHIN_SECONDS + 5) * 1000)
        took = time.monotonic() - back
        assert took <= LIVE_WITHIN_SECONDS, f"live {took:.1f} s after the server came back"
        # And the table works: a line said now reaches the log.
        box = page.get_by_label("Message")
        box.fill("Back at the table")
        box.press("Enter")
        expect(page.locator("#scene-log > .event-chat").last).to_contain_text("Back at the table")
    finally:
        server.stop()
