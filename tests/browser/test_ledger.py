"""The session ledger in Chromium: the head on every member's page moves live and stays the same
for all; the HTML ledger downloaded from the scene page, opened from disk with no server, checks
itself and says "verified", and a copy changed by one word names the entry that broke."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Browser, expect

from tests.browser.test_table import Seat, demo_scenes

HASH = re.compile(r"^[0-9a-f]{64}$")


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

    with bob.page.expect_download() as download:
        bob.page.locator(".ledger-bar").get_by_role("link", name="HTML").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.suffix == ".html"
    text = saved.read_text(encoding="utf-8")
    assert head in text and "only-for-bob" in text  # bob's own whisper, in his details

    page = browser.new_context().new_page()
    page.goto(saved.as_uri())
    expect(page.locator("#ledger-status")).to_have_text("verified")
    expect(page.locator("#head")).to_have_text(head)

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
    page.context.close()
    for seat in (alice, bob):
        seat.page.context.close()
