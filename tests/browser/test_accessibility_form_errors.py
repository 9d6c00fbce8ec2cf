"""Each form a player uses says its errors to a screen reader (issue 47), read from Chromium's
accessibility tree (the DevTools protocol's Accessibility.getFullAXTree), not from the HTML: a
refused field is marked invalid and described by its error, and a refusal that belongs to no
one field sits in a live region (an alert, a status or a live log). Login, sign-up, the
account's email and password, a roll form's refusal and the message box's."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.test_scene_live import log_in
from tests.browser.test_scene_spends import open_scene, roll_form

LIVE_ROLES = ("alert", "status", "log")


def ax_tree(page: Page) -> list[dict[str, Any]]:
    client = page.context.new_cdp_session(page)
    try:
        return client.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        client.detach()


def prop(node: dict[str, Any], name: str) -> Any:
    for p in node.get("properties", []):
        if p["name"] == name:
            return p["value"].get("value")
    return None


def text_under(nodes: list[dict[str, Any]], node: dict[str, Any]) -> str:
    by_id = {n["nodeId"]: n for n in nodes}
    words, todo = [], list(node.get("childIds", []))
    while todo:
        child = by_id.get(todo.pop(0))
        if child is None:
            continue
        if child.get("role", {}).get("value") == "StaticText":
            words.append(child.get("name", {}).get("value", ""))
        todo[0:0] = child.get("childIds", [])
    return " ".join(words)


def invalid_fields(page: Page) -> dict[str, str]:
    """Every field Chromium reports invalid: its name -> its description (what is read after
    its name)."""
    return {
        n.get("name", {}).get("value", ""): n.get("description", {}).get("value", "")
        for n in ax_tree(page)
        if not n.get("ignored") and prop(n, "invalid") not in (None, "false")
    }


def live_words(page: Page) -> str:
    """The words in the page's live regions (alerts, statuses, live logs)."""
    nodes = ax_tree(page)
    regions = [
        n
        for n in nodes
        if not n.get("ignored")
        and (
            n.get("role", {}).get("value") in LIVE_ROLES
            or prop(n, "live") in ("polite", "assertive")
        )
    ]
    return " ".join(text_under(nodes, n) for n in regions)


def submit(page: Page, button: str) -> None:
    with page.expect_navigation():
        page.get_by_role("button", name=button, exact=True).click()


def test_login_and_sign_up_errors_are_read_with_their_fields(browser: Browser, server):
    server.manage("seed_demo")
    page = browser.new_context().new_page()
    page.goto(server.url + "/accounts/signup/")
    page.get_by_role("textbox", name="Email").fill("not an address")
    submit(page, "Create account")
    fields = invalid_fields(page)
    assert fields, "no field is marked invalid"
    assert any(
        "email" in name.lower() and "valid email" in desc.lower() for name, desc in fields.items()
    ), fields
    assert all(desc.strip() for desc in fields.values()), fields
    assert "valid email" in live_words(page).lower()

    page.goto(server.url + "/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("not her password")
    submit(page, "Log in")
    said = live_words(page)
    assert re.search(r"correct username and password", said), said
    # The fields it refused are marked so, each read with why.
    fields = invalid_fields(page)
    assert {"Username", "Password"} <= set(fields), fields
    assert all("correct username and password" in d for d in fields.values()), fields
    page.context.close()


def test_the_accounts_email_and_password_errors_are_read_with_their_fields(
    browser: Browser, server
):
    server.manage("seed_demo")
    page = browser.new_context().new_page()
    log_in(page, server, "alice")
    page.goto(server.url + "/accounts/me/")
    page.get_by_role("textbox", name="Email").fill("not an address")
    submit(page, "Save email")
    fields = invalid_fields(page)
    assert [d for n, d in fields.items() if "email" in n.lower() and "valid email" in d.lower()], (
        fields
    )

    page.goto(server.url + "/accounts/password_change/")
    page.get_by_label("Old password").fill("wrong")
    submit(page, "Change password")
    fields = invalid_fields(page)
    assert fields and all(d.strip() for d in fields.values()), fields
    assert "Old password" in fields and "incorrectly" in fields["Old password"], fields
    page.context.close()


def test_a_roll_forms_and_the_message_boxs_refusals_are_spoken(browser: Browser, server):
    gm, player = open_scene(browser, server, "Demo: Conductor")
    dice = roll_form(player, "Dice")
    dice.get_by_label("Dice expression").fill("1d6 + ")
    dice.get_by_role("button", name="Roll").click()
    expect(player.locator("#scene-errors")).not_to_be_empty()
    refusal = player.locator("#scene-errors").inner_text().strip()
    assert refusal and refusal in live_words(player), (refusal, live_words(player))

    box = player.get_by_label("Message")
    box.fill("/r 1d6 +")
    box.press("Enter")
    expect(player.locator("#composer-status")).not_to_be_empty()
    said = player.locator("#composer-status").inner_text().strip()
    assert said in live_words(player)
    fields = invalid_fields(player)
    assert "Message" in fields and said in fields["Message"], fields
    # Escape clears it, and the box is no longer marked.
    box.press("Escape")
    expect(player.locator("#composer-status")).to_be_empty()
    assert "Message" not in invalid_fields(player)
