"""The GM's invite link has a copy button (issue 15): it puts the link on the clipboard and says
"Copied" where a screen reader hears it; without the clipboard API it selects the link instead."""

from __future__ import annotations

import uuid

from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_scene_live import log_in


def campaign_with_invite(page: Page, server) -> str:
    """The demo GM starts a campaign of their own and makes its invite link; returns the link."""
    server.manage("seed_demo")
    log_in(page, server, "gm")
    page.get_by_role("button", name="New campaign").click()
    page.get_by_label("Name").fill(f"Copy test {uuid.uuid4().hex[:8]}")
    page.get_by_label("Conductor").check()
    page.get_by_role("button", name="Create campaign").click()
    page.get_by_role("button", name="Create an invite link").click()
    link = page.locator("#invite-url")
    expect(link).to_be_visible()
    return link.input_value()


def test_copy_link_puts_the_invite_link_on_the_clipboard(browser: Browser, server):
    context = close_after_test(
        browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    invite_url = campaign_with_invite(page, server)
    assert "/campaigns/join/" in invite_url

    status = page.get_by_role("status").filter(has_text="Copied")
    expect(status).to_have_count(0)
    page.get_by_role("button", name="Copy link").click()
    expect(status).to_be_visible()  # in the aria-live region (role="status")
    expect(status).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == invite_url

    # The invites section is swapped by htmx when the GM makes a new link: the button still works,
    # and copies the new link.
    page.get_by_role("button", name="Make a new link").click()
    expect(page.locator("#invite-url")).not_to_have_value(invite_url)
    expect(page.locator("#invite-copy-status")).to_be_empty()
    new_url = page.locator("#invite-url").input_value()
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#invite-copy-status")).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == new_url
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_without_the_clipboard_api_the_link_is_selected(browser: Browser, server):
    page = close_after_test(browser.new_context()).new_page()
    # As on a plain-HTTP deployment: no navigator.clipboard, and the old copy command refused.
    page.add_init_script(
        "Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});"
        "document.execCommand = () => false;"
    )
    invite_url = campaign_with_invite(page, server)
    page.get_by_role("button", name="Copy link").click()
    expect(page.locator("#invite-copy-status")).to_contain_text("Link selected")
    expect(page.locator("#invite-url")).to_be_focused()
    selected = page.evaluate(
        "(() => { const f = document.activeElement;"
        " return f.value.slice(f.selectionStart, f.selectionEnd); })()"
    )
    assert selected == invite_url
