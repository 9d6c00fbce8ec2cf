"""The read mark (static/js/seen.js): a visible scene page tells the server how far it has
shown the scene, moves it as lines arrive, and a hidden page leaves the table."""

from __future__ import annotations

import json
import re
import time

from playwright.sync_api import Browser, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_scene_live import log_in

MARK = """
import json
from tabletop.notify.models import ReadMark
from tabletop.scenes.models import Scene
scene = Scene.objects.get(pk={scene})
mark = ReadMark.objects.filter(user__username="bob", scene=scene).first()
print(json.dumps({{"last": scene.last_seq, "seq": mark and mark.seq,
                   "visible": bool(mark and mark.visible_at)}}))
"""


def mark_of(server, scene: int) -> dict:
    return json.loads(server.shell(MARK.format(scene=scene)).strip().splitlines()[-1])


def until(check, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while not (result := check()) and time.monotonic() < deadline:
        time.sleep(0.3)
    return result


def gm_opens_a_scene(browser: Browser, server, name: str):
    """The GM's page on a new open scene of the demo's Conductor campaign, and its id."""
    gm = close_after_test(browser.new_context()).new_page()
    log_in(gm, server, "gm")
    gm.get_by_role("link", name="Demo: Conductor").first.click()
    gm.get_by_role("button", name=re.compile("^Scenes")).click()
    gm.get_by_label("Scene name").fill(name)
    gm.get_by_role("button", name="Create scene").click()
    gm.get_by_role("button", name="Open scene").click()
    expect(gm.locator("#connection")).to_have_text("live")
    return gm, int(re.search(r"/scenes/(\d+)/", gm.url).group(1))


def test_a_visible_page_moves_the_read_mark_and_a_hidden_one_leaves_the_table(
    browser: Browser, server
):
    server.manage("seed_demo")
    gm, scene = gm_opens_a_scene(browser, server, "The read mark")

    bob = close_after_test(browser.new_context()).new_page()
    log_in(bob, server, "bob")
    bob.goto(gm.url)
    expect(bob.locator("#connection")).to_have_text("live")
    assert until(lambda: (m := mark_of(server, scene))["seq"] == m["last"] and m["visible"])

    gm.locator("#composer-text").fill("@bob look at this")
    gm.locator("#composer-text").press("Enter")
    expect(bob.locator("#scene-log")).to_contain_text("look at this")
    assert until(lambda: (m := mark_of(server, scene))["seq"] == m["last"])

    bob.evaluate(
        "Object.defineProperty(document, 'visibilityState', {get: () => 'hidden'});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    assert until(lambda: not mark_of(server, scene)["visible"])


UNSEEN = """
from tabletop.notify.models import Notification
from tabletop.scenes.feed import durable
durable.sweep()  # the sender thread's pass (off in the tests' daphne)
print(Notification.objects.filter(user__username="bob", scene_id={scene}, seen=False)
      .exclude(why="").count())
"""

#: What earlier tests on this worker's server left bob: swept, then marked seen, so the header
#: counts only what this test sends him.
ALL_SEEN = """
from tabletop.notify.models import Notification
from tabletop.scenes.feed import durable
durable.sweep()
Notification.objects.filter(user__username="bob").update(seen=True)
"""


def test_the_header_count_drops_as_the_scene_page_shows_what_it_counted(browser: Browser, server):
    """Bob's header counts a mention he has not seen; opening its scene shows it, and the count
    on that very page goes with it (it said "Notifications 1" while the mention sat on screen)."""
    server.manage("seed_demo")
    server.shell(ALL_SEEN)
    gm, scene = gm_opens_a_scene(browser, server, "The count in the header")
    gm.locator("#composer-text").fill("@bob the gate is open")
    gm.locator("#composer-text").press("Enter")
    expect(gm.locator("#scene-log")).to_contain_text("the gate is open")
    unseen = lambda: int(server.shell(UNSEEN.format(scene=scene)).strip().splitlines()[-1])  # noqa: E731
    assert unseen() == 2  # the scene opened, the mention

    bob = close_after_test(browser.new_context()).new_page()
    log_in(bob, server, "bob")
    expect(bob.get_by_role("link", name="Notifications, 2 new")).to_be_visible()
    bob.goto(gm.url)
    expect(bob.locator("#scene-log")).to_contain_text("the gate is open")
    assert until(lambda: unseen() == 0)
    notifications = bob.locator('a[href="/notifications/"]')
    expect(notifications).to_have_text("Notifications")
    expect(notifications).not_to_have_attribute("aria-label", re.compile("new"))
