"""The session ledger in Chromium: the head on every member's page moves live and stays the same
for all; the HTML ledger downloaded from the scene page, opened from disk with no server, checks
itself and says "verified", a copy changed by one word names the entry that broke, and so does a
copy whose visible text alone was changed (the data left as it was). The file reads as text, not
JSON, and fits a phone and a desktop without scrolling sideways."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Browser, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_table import DESKTOP, PHONE, Seat, demo_scenes

HASH = re.compile(r"^[0-9a-f]{64}$")
DATA = '<script id="ledger-data"'
#: Elements wider than their box (the page itself, or a box that scrolls or cuts its content).
TOO_WIDE = """() => [document.documentElement, ...document.querySelectorAll("body *")]
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
    .map((el) => `${el.tagName}#${el.id} ${el.scrollWidth} > ${el.clientWidth}`)"""


def test_the_head_moves_live_and_the_html_ledger_verifies_itself_from_disk(
    browser: Browser, server, tmp_path
):
    path = demo_scenes(server)["Demo: Conductor"]
    alice, bob = (Seat(browser, server, user, path) for user in ("alice", "bob"))
    before = alice.page.locator("#ledger-head").text_content()
    assert HASH.match(before)
    expect(bob.page.locator("#ledger-head")).to_have_text(before)

    # A line said to the table is a chain event: both heads move to the same new one.
    alice.say("The ledger-wren sings")
    for seat in (alice, bob):
        expect(seat.page.locator(".event-chat").last).to_contain_text("ledger-wren")
        expect(seat.page.locator("#ledger-head")).not_to_have_text(before)
    head = alice.page.locator("#ledger-head").text_content()
    assert HASH.match(head)
    expect(bob.page.locator("#ledger-head")).to_have_text(head)
    # A whisper is no one else's business, and not the chain's: the head stays.
    alice.say("/w bob only-for-bob")
    expect(bob.page.locator(".event-chat").last).to_contain_text("only-for-bob")
    expect(alice.page.locator("#ledger-head")).to_have_text(head)
    # A roll in the open and one to the GM alone (a stub with its commitment in the chain).
    alice.say("/r 1d2+77775")
    alice.say("/gmr 1d2+55553")
    expect(bob.page.locator(".event-roll").last).to_contain_text("privately to the GM")
    head = bob.page.locator("#ledger-head").text_content()

    with bob.page.expect_download() as download:
        bob.page.locator(".ledger-bar").get_by_role("link", name="HTML").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.suffix == ".html"
    text = saved.read_text(encoding="utf-8")
    assert head in text and "only-for-bob" in text  # bob's own whisper, in his details

    page = close_after_test(browser.new_context()).new_page()
    page.goto(saved.as_uri())
    expect(page.locator("#ledger-status")).to_have_text("verified")
    expect(page.locator("#head")).to_have_text(head)
    # Read as text: who did what, never the data's JSON; the page says what the chain covers.
    chain = page.locator("#ledger-entries")
    expect(chain).to_contain_text("The ledger-wren sings")
    expect(chain).to_contain_text(re.compile("7777[67]"))
    assert '{"' not in page.locator("main").inner_text()
    expect(page.locator("#ledger-covers")).to_contain_text("whispers")
    expect(page.locator("#ledger-covers")).to_contain_text("self rolls")
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        page.screenshot(path=tmp_path / f"ledger-{viewport['width']}.png", full_page=True)
        assert page.evaluate(TOO_WIDE) == [], viewport
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], (viewport, width)

    # One word changed in one entry: the file says which entry broke, and is not verified.
    embedded = re.search(
        r'(<script id="ledger-data" type="application/json">)(.*?)(</script>)', text, re.S
    )
    doc = json.loads(embedded.group(2))
    index = next(i for i, entry in enumerate(doc["entries"]) if "ledger-wren" in json.dumps(entry))
    forged = tmp_path / "forged.html"
    forged.write_text(text.replace("The ledger-wren sings", "The ledger-wren croaks"), "utf-8")
    page.goto(forged.as_uri())
    expect(page.locator("#ledger-status")).to_contain_text("NOT VERIFIED")
    seq = doc["entries"][index]["seq"]
    expect(page.locator("#ledger-problems li").first).to_have_text(
        f"entry {index + 1} (seq {seq}) was changed: its hash does not match its content."
    )

    # The words a reader sees changed, the data left as it was: not verified either, and the
    # page names the entry whose text is not its data's.
    shown, data = text.split(DATA, 1)
    assert "The ledger-wren sings" in shown
    retold = tmp_path / "retold.html"
    retold.write_text(
        shown.replace("ledger-wren sings", "ledger-wren croaks") + DATA + data, "utf-8"
    )
    page.goto(retold.as_uri())
    expect(page.locator("#ledger-status")).to_contain_text("NOT VERIFIED")
    expect(page.locator("#ledger-problems li")).to_have_count(1)
    expect(page.locator("#ledger-problems li").first).to_contain_text(
        f"entry {index + 1} (seq {seq}) is shown otherwise than its data"
    )
    expect(page.locator("#ledger-problems li").first).to_contain_text("croaks")
    expect(page.locator(f"#entry-{index + 1}")).to_have_attribute("data-problem", re.compile("."))
    page.context.close()
    for seat in (alice, bob):
        seat.page.context.close()
