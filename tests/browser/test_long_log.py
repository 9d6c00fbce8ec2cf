"""A long log in Chromium: the page opens on the last entries; "Show earlier entries" brings
the rest above them, in order, with their spend controls pruned like any card's."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from tests.browser.conftest import close_after_test
from tests.browser.test_scene_live import log_in
from tests.browser.test_scene_spends import open_scene


def test_earlier_entries_load_above_the_page(browser: Browser, server):
    gm, player = open_scene(browser, server, "Demo: Conductor")
    scene = re.search(r"/scenes/(\d+)/", gm.url).group(1)
    server.shell(
        "from tabletop.scenes import actions\n"
        "from tabletop.scenes.models import Scene\n"
        f"scene = Scene.objects.select_related('campaign').get(pk={scene})\n"
        "for _ in range(205):\n"
        "    actions.roll(scene=scene, actor=scene.campaign.gm, roll_kind='expression',"
        " data={'expression': '1d6'})\n"
    )
    page = close_after_test(browser.new_context()).new_page()
    log_in(page, server, "alice")
    page.goto(gm.url)
    cards = page.locator("#scene-log article.event")
    expect(cards).to_have_count(200)
    page.get_by_role("button", name="Show earlier entries").click()
    expect(cards).to_have_count(206)  # the scene opening and the 205 rolls
    seqs = [int(s) for s in cards.evaluate_all("els => els.map(e => e.dataset.seq)")]
    assert seqs == sorted(seqs) and seqs[0] == 1
    expect(page.get_by_role("button", name="Show earlier entries")).to_have_count(0)
