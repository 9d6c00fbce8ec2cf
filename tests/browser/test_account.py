"""The door in a browser: "sign out everywhere else" closes another browser's open scene at once,
which says why and links the login back to the scene; a forgotten password comes back through
the link the server's terminal shows; a burst of wrong passwords gets the lock's message; a new
email address asks for the password and the old one is told."""

from __future__ import annotations

import re
import time
import uuid

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_scene_live import log_in
from tests.browser.test_table import DESKTOP, PHONE, Seat, demo_scenes


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_sign_out_everywhere_else_closes_another_browsers_scene_at_once(
    browser: Browser, server, viewport
):
    path = demo_scenes(server)["Demo: Conductor"]
    laptop = Seat(browser, server, "alice", path, viewport=viewport)
    phone = close_after_test(browser.new_context(viewport=viewport)).new_page()
    log_in(phone, server, "alice")
    phone.goto(server.url + "/accounts/me/")
    expect(phone.get_by_text("This browser")).to_be_visible()
    phone.get_by_role("button", name="Sign out everywhere else").click()
    expect(phone.get_by_text("Signed out everywhere else")).to_be_visible()

    status = laptop.page.locator("#connection")
    expect(status).to_have_text("Session ended (signed out everywhere): log in again")
    status.get_by_role("link", name="log in again").click()
    expect(laptop.page).to_have_url(re.compile(r"/accounts/login/\?next=" + re.escape(path)))
    laptop.page.get_by_label("Username").fill("alice")
    laptop.page.get_by_label("Password").fill("tabletop-demo")
    laptop.page.get_by_role("button", name="Log in").click()
    expect(laptop.page).to_have_url(server.url + path)
    expect(laptop.page.locator("#connection")).to_have_text("live")
    # The page that signed the others out is still logged in.
    phone.goto(server.url + "/accounts/me/")
    expect(phone.get_by_role("heading", name="Your account")).to_be_visible()


def reset_link(server, since: int) -> str:
    """The newest reset link the server printed (its console mail) after ``since`` chars."""
    for _ in range(50):
        links = re.findall(r"(http://\S+/accounts/reset/\S+/)", server.log()[since:])
        if links:
            return links[-1]
        time.sleep(0.1)
    raise AssertionError("no reset mail on the server's terminal")


def test_a_forgotten_password_comes_back_through_the_mailed_link(browser: Browser, server):
    name = f"mira{uuid.uuid4().hex[:6]}"
    server.shell(
        "from django.contrib.auth import get_user_model; get_user_model().objects.create_user("
        f"{name!r}, email='{name}@example.org', password='an-old-forgotten-one')"
    )
    page = close_after_test(browser.new_context(viewport=PHONE)).new_page()
    page.goto(server.url + "/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    since = len(server.log())
    page.get_by_label("Email").fill(f"{name}@example.org")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    page.goto(reset_link(server, since))
    page.get_by_label("New password", exact=True).fill("a-fresh-table-secret")
    page.get_by_label("New password confirmation").fill("a-fresh-table-secret")
    page.get_by_role("button", name="Set my password").click()
    expect(page.get_by_role("heading", name="Password set")).to_be_visible()
    page.goto(server.url + "/accounts/login/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill("a-fresh-table-secret")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Welcome back, {name}")).to_be_visible()


def test_a_burst_of_wrong_passwords_gets_the_locks_message(browser: Browser, server, page_errors):
    name = f"sam{uuid.uuid4().hex[:6]}"
    server.shell(
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_user({name!r}, password='the-right-one-here')"
    )
    # The lock's answer is a 429 page, which the browser notes in its console.
    page_errors.expect(r"status of 429")
    page = close_after_test(browser.new_context(viewport=DESKTOP)).new_page()
    for n in range(5):
        page.goto(server.url + "/accounts/login/")
        page.get_by_label("Username").fill(name)
        page.get_by_label("Password").fill(f"guess-{n}")
        page.get_by_role("button", name="Log in").click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(
        re.compile(r"Too many failed logins\. Try again in \d+ seconds\.")
    )
    page.get_by_label("Password").fill("the-right-one-here")
    page.get_by_role("button", name="Log in").click()
    expect(alert).to_contain_text("Too many failed logins")
    server.manage("axes_reset_username", name)  # the operator lifts it
    page.get_by_label("Password").fill("the-right-one-here")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name=f"Welcome back, {name}")).to_be_visible()


def test_changing_the_email_asks_for_the_password_and_tells_the_old_address(
    browser: Browser, server
):
    name = f"ines{uuid.uuid4().hex[:6]}"
    server.shell(
        "from django.contrib.auth import get_user_model; get_user_model().objects.create_user("
        f"{name!r}, email='{name}@example.org', password='the-right-one-here')"
    )
    page = close_after_test(browser.new_context(viewport=DESKTOP)).new_page()
    page.goto(server.url + "/accounts/login/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill("the-right-one-here")
    page.get_by_role("button", name="Log in").click()
    page.goto(server.url + "/accounts/me/")
    page.get_by_label("Email address").fill(f"{name}@elsewhere.example.net")
    page.get_by_label("Your password, to confirm").fill("not-it")
    page.get_by_role("button", name="Save email").click()
    expect(page.get_by_role("alert")).to_contain_text("That is not your password.")
    expect(page.get_by_label("Email address")).to_have_value(f"{name}@elsewhere.example.net")
    since = len(server.log())
    page.get_by_label("Your password, to confirm").fill("the-right-one-here")
    page.get_by_role("button", name="Save email").click()
    expect(page.get_by_text(f"A note went to {name}@example.org")).to_be_visible()
    expect(page.get_by_label("Email address")).to_have_value(f"{name}@elsewhere.example.net")
    for _ in range(50):  # the console mail, on the server's terminal
        if f"To: {name}@example.org" in server.log()[since:]:
            break
        time.sleep(0.1)
    assert "was changed" in server.log()[since:]
