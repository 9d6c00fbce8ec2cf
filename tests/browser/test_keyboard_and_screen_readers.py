"""A table a blind or keyboard-only player can sit at (issue 47), measured from outside, at a
phone's width and a desktop's, on a scene with a long log (60 cards and more).

What is spoken is heard as a screen reader would hear it: a recorder in the page (a
MutationObserver from the moment the page is parsed) takes the text of every node added inside
an ``aria-live`` region or a ``role=log|status|alert`` one, outside ``aria-hidden`` and outside
what is not rendered. Accessible names are Chromium's own (its accessibility tree, through the
DevTools protocol), not the HTML's.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_scene_live import log_in
from tests.browser.test_scene_spends import open_scene, roll_form

VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

RECORDER = """
(() => {
  window.__spoken = [];
  const LIVE = "[aria-live]:not([aria-live='off']), [role='log'], [role='status'], [role='alert']";
  function heard(node) {
    const el = node.nodeType === 1 ? node : node.parentElement;
    if (!el || !el.isConnected) { return null; }
    const region = el.closest(LIVE);
    if (!region) { return null; }
    const off = el.closest("[aria-live='off']");
    if (off && region.contains(off) && off !== region) { return null; }
    if (el.closest("[aria-hidden='true']")) { return null; }
    const texts = [];
    const walk = document.createTreeWalker(node.nodeType === 1 ? node : el, NodeFilter.SHOW_TEXT);
    const only = node.nodeType === 3 ? [node] : null;
    let t;
    while ((t = only ? only.shift() : walk.nextNode())) {
      const p = t.parentElement;
      if (!p || p.closest("[aria-hidden='true']") || !p.checkVisibility()) { continue; }
      texts.push(t.textContent);
    }
    const text = texts.join(" ").replace(/\\s+/g, " ").trim();
    return text ? { region: region.id || region.className || region.tagName, text: text } : null;
  }
  function start() {
    new MutationObserver(function (records) {
      for (const r of records) {
        const nodes = r.type === "characterData" ? [r.target] : Array.from(r.addedNodes);
        for (const n of nodes) {
          const h = heard(n);
          if (h) { window.__spoken.push(h); }
        }
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  }
  document.addEventListener("DOMContentLoaded", start);
})();
"""

#: What the header says of the connection itself ("connecting…", "live", "reconnecting…").
CONNECTION = "connection"
#: Where the member's own commands say "sending…" or "not sent" (regions named by id, else class).
OWN_COMMANDS = frozenset({"composer-pending", "pending-commands", "command-state"})


def seed_long_log(server, page: Page, count: int = 62) -> None:
    scene = re.search(r"/scenes/(\d+)/", page.url).group(1)
    server.shell(
        "from tabletop.scenes import actions\n"
        "from tabletop.scenes.models import Scene\n"
        f"scene = Scene.objects.select_related('campaign').get(pk={scene})\n"
        f"for _ in range({count}):\n"
        "    actions.roll(scene=scene, actor=scene.campaign.gm, roll_kind='expression',"
        " data={'expression': '1d6'})\n"
    )


def seat(browser: Browser, server, url: str, size: str, user: str = "alice", **options) -> Page:
    """A member's page at the table, at a viewport, listened to by the recorder."""
    context = close_after_test(browser.new_context(viewport=VIEWPORTS[size], **options))
    context.add_init_script(RECORDER)
    page = context.new_page()
    page.sockets = []  # the page's sockets, relayed (a test drops one)

    def relay(ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()
        upstream.on_message(ws.send)
        ws.on_message(upstream.send)
        page.sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws/scenes/"), relay)
    log_in(page, server, user)
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("live")
    return page


def spoken(page: Page, *, but_connection: bool = True) -> list[str]:
    """What the page's live regions said, but what they say of the page's own state: the
    connection, and the member's own commands on their way ("sending…" shows only when an
    answer is slow, static/js/scene/commands.js, so a loaded machine would hear it)."""
    heard = page.evaluate("window.__spoken")
    return [
        h["text"]
        for h in heard
        if not (but_connection and h["region"] == CONNECTION) and h["region"] not in OWN_COMMANDS
    ]


def forget(page: Page) -> None:
    page.evaluate("window.__spoken = []")


def long_table(browser: Browser, server, size: str, **options) -> tuple[Page, Page]:
    gm, _ = open_scene(browser, server, "Demo: Conductor")
    seed_long_log(server, gm)
    player = seat(browser, server, gm.url, size, **options)
    expect(player.locator("#scene-log > article.event")).to_have_count(63)
    # The GM's page opened before the log was written (out of its process: its next beat would
    # bring it): loaded again, it holds the log before anything is rolled there.
    gm.reload()
    expect(gm.locator("#connection")).to_have_text("live")
    expect(gm.locator("#scene-log > article.event")).to_have_count(63)
    return gm, player


def focused(page: Page) -> str:
    return page.evaluate(
        "() => { const a = document.activeElement; return a ? "
        "(a.id || a.getAttribute('data-skip') || a.textContent.trim().slice(0, 30)) : ''; }"
    )


@pytest.mark.parametrize("size", VIEWPORTS)
def test_the_message_box_in_five_tabs_or_one_slash_and_roll_in_ten_more(
    browser: Browser, server, size
):
    _, page = long_table(browser, server, size)
    path = []
    for _ in range(5):
        page.keyboard.press("Tab")
        path.append(focused(page))
        if path[-1] == "composer":  # "Skip to message box"
            page.keyboard.press("Enter")
            break
    assert focused(page) == "composer-text", f"Tab went {path}"

    # From the box to the open roll form's Roll, with Tab (Enter or an arrow on the tool's tab).
    submit = page.locator("#tab-roll details[open] button[type=submit]").first
    path = []
    for _ in range(10):
        page.keyboard.press("Tab")
        path.append(focused(page))
        if page.evaluate("document.activeElement.getAttribute('role') === 'tab'"):
            if page.evaluate("document.activeElement.dataset.tab") != "roll":
                page.keyboard.press("ArrowRight")  # the tool tabs: Log, then Roll
            expect(page.get_by_role("tab", name="Roll")).to_have_attribute("aria-selected", "true")
        if submit.evaluate("b => b === document.activeElement"):
            break
    expect(submit).to_be_focused()

    # "/" from anywhere outside a field: the box again.
    page.locator("#scene-log > article.event").last.focus()
    page.keyboard.press("/")
    expect(page.locator("#composer-text")).to_be_focused()
    expect(page.locator("#composer-text")).to_have_value("")


@pytest.mark.parametrize("size", VIEWPORTS)
def test_the_log_is_one_tab_stop_moved_through_by_arrows_home_and_end(
    browser: Browser, server, size
):
    _, page = long_table(browser, server, size)
    cards = page.locator("#scene-log > article.event")
    stops = "#scene-log [tabindex='0'], #scene-log a[href]:not([tabindex])"
    assert page.locator(stops).count() == 1
    page.locator("#composer-text").focus()
    page.keyboard.press("Escape")  # nothing under the box: Escape leaves it for the log
    expect(cards.last).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(cards.nth(61)).to_be_focused()
    page.keyboard.press("Home")
    expect(cards.first).to_be_focused()
    page.keyboard.press("End")
    expect(cards.last).to_be_focused()
    # Its name is its line for the ear, as Chromium gives it to a screen reader.
    name = ax_name_of_focused(page)
    assert re.fullmatch(r"gm rolled 1d6: [1-6]", name), name
    # Enter opens its controls (the card's number, a link); Escape closes them.
    page.keyboard.press("Enter")
    expect(cards.last.locator("a.event-seq")).to_be_focused()
    page.keyboard.press("Escape")
    expect(cards.last).to_be_focused()


def ax_name_of_focused(page: Page) -> str:
    client = page.context.new_cdp_session(page)
    nodes = client.send("Accessibility.getFullAXTree")["nodes"]
    for node in nodes:
        props = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        role = node.get("role", {}).get("value")
        if props.get("focused") and role != "RootWebArea":
            return node.get("name", {}).get("value", "")
    return ""


def ax_names(page: Page) -> list[str]:
    client = page.context.new_cdp_session(page)
    nodes = client.send("Accessibility.getFullAXTree")["nodes"]
    return [n.get("name", {}).get("value", "") for n in nodes if not n.get("ignored")]


@pytest.mark.parametrize("size", VIEWPORTS)
def test_a_remote_roll_is_spoken_once_in_one_short_line_and_history_speaks_nothing(
    browser: Browser, server, size
):
    gm, page = long_table(browser, server, size)
    assert spoken(page) == [], "the history the page opened on was spoken"

    dice = roll_form(gm, "Dice")
    dice.get_by_label("Dice expression").fill("1d20+5")
    dice.get_by_role("button", name="Roll").click()
    expect(page.locator("#scene-log > article.event")).to_have_count(64)
    expect(page.locator("#announcer p")).to_have_count(1)
    page.wait_for_timeout(300)  # anything else it would say arrives with the same frame
    lines = spoken(page)
    total = re.search(r"= (\d+)", page.locator(".event-roll").last.inner_text()).group(1)
    assert lines == [f"gm rolled 1d20 plus 5: {total}"], lines
    assert len(lines[0]) < 120

    # Earlier entries brought in speak nothing, and neither does a reconnect's replay.
    forget(page)
    more = page.get_by_role("button", name="Show earlier entries")
    if more.count():
        more.click()
        expect(more).to_have_count(0)
    page.evaluate("() => { htmx.config.wsReconnectDelay = () => 600000; }")
    # 1011 (a server error): the page waits to reconnect (1012, a stopping server, would
    # reconnect at once, static/js/scene/socket.js), so "Retry now" shows.
    page.sockets[-1].close(code=1011)
    expect(page.locator("#connection")).to_have_text("reconnecting…")
    roll_form(gm, "Dice").get_by_role("button", name="Roll").click()
    expect(gm.locator("#scene-log > article.event")).to_have_count(65)
    page.get_by_role("button", name="Retry now").click()
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator("#scene-log > article.event")).to_have_count(65)
    page.wait_for_timeout(300)
    replayed = [line for line in spoken(page) if not line.startswith("You missed")]
    assert replayed == [], f"the replay was spoken: {replayed}"


@pytest.mark.parametrize("size", VIEWPORTS)
def test_own_results_are_spoken_presence_is_not_and_no_animation_runs_with_reduced_motion(
    browser: Browser, server, size
):
    gm, page = long_table(browser, server, size, reduced_motion="reduce")
    forget(page)
    # Someone arriving at the table (or leaving) is no news to be read out.
    bob = seat(browser, server, gm.url, size, user="bob")
    expect(page.locator("#presence")).to_contain_text("bob")
    bob.context.close()
    expect(page.locator("#presence")).not_to_contain_text("bob")
    page.wait_for_timeout(300)
    assert spoken(page) == []

    # The member's own roll: its result, in one line, and not one animation on the page.
    if size == "phone":
        page.get_by_role("tab", name="Roll").click()
    dice = roll_form(page, "Dice")
    dice.get_by_label("Dice expression").fill("2d6")
    dice.get_by_role("button", name="Roll").click()
    expect(page.locator("#announcer p")).to_have_count(1)
    line = page.locator("#announcer p").inner_text()
    assert re.fullmatch(r"alice( as \w+)? rolled 2d6: \d+", line), line
    running = page.evaluate(
        "document.getAnimations().map(a => a.animationName || a.transitionProperty || 'anim')"
    )
    assert running == [], f"animations ran with reduced motion: {running}"
    smooth = page.evaluate(
        "[...document.querySelectorAll('*')].filter(e => getComputedStyle(e).scrollBehavior"
        " === 'smooth').length"
    )
    assert smooth == 0


@pytest.mark.parametrize("size", VIEWPORTS)
def test_a_players_accessibility_tree_holds_no_hidden_total(browser: Browser, server, size):
    gm, page = long_table(browser, server, size)
    forget(page)
    dice = roll_form(gm, "Dice")
    # Six digits, which nothing else on the page holds by chance (test_scene_spends says why).
    dice.get_by_label("Dice expression").fill("1d1000+777000")
    dice.locator('select[name="mode"]').select_option("gm")
    dice.get_by_role("button", name="Roll").click()
    expect(gm.locator("#scene-log > article.event")).to_have_count(64)
    value = gm.locator(".event-roll .roll-summary").last.inner_text()
    assert re.fullmatch(r"77[78]\d{3}", value)
    expect(page.locator("#announcer p")).to_have_count(1)
    assert spoken(page) == ["The GM rolled in secret."]
    names = ax_names(page)
    assert not [n for n in names if value in n]
    assert value not in page.locator("#announcer").inner_text()
    assert any(n == "The GM rolled in secret." for n in names)


def test_mine_hears_a_whisper_to_me_and_not_anothers_roll_nothing_hears_nothing(
    browser: Browser, server
):
    gm, _ = open_scene(browser, server, "Demo: Conductor")
    server.shell(
        "from django.contrib.auth import get_user_model\n"
        "from tabletop.accounts import actions\n"
        "users = get_user_model().objects\n"
        "actions.table_preferences_save(user=users.get(username='alice'), announce='mine',"
        " slash_key=True)\n"
        "actions.table_preferences_save(user=users.get(username='bob'), announce='none',"
        " slash_key=False)\n"
    )
    alice = seat(browser, server, gm.url, "desktop")
    bob = seat(browser, server, gm.url, "desktop", user="bob")
    gm.get_by_label("Message").fill("/w alice The door is trapped")
    gm.get_by_label("Message").press("Enter")
    roll_form(gm, "Dice").get_by_role("button", name="Roll").click()
    expect(bob.locator("#scene-log > article.event-roll")).to_have_count(1)
    expect(alice.locator("#scene-log > article.event-roll")).to_have_count(1)
    alice.wait_for_timeout(300)
    heard = spoken(alice)
    assert heard == ["gm whispers to alice: The door is trapped"], heard
    assert spoken(bob) == []
    # bob turned "/" off: it types a slash where it is, and the box stays where it was.
    bob.locator("#scene-log > article.event").last.focus()
    bob.keyboard.press("/")
    expect(bob.locator("#composer-text")).not_to_be_focused()
