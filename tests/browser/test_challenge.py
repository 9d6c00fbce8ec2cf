"""Operation challenges in three browsers (GM, alice, bob) in the Demo: Annulus campaign.

The layouts are made deterministic through a test-only path: the challenge is set up by calling
the action with a seeded ``random.Random`` (``server.shell``), and the campaign gets two extra
difficulties whose checks always pass ("certain", 0 successes) or always fail ("hopeless"), so
the dice the server rolls during play can't change the story. Everything else goes through the UI.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.test_scene_live import log_in
from tests.browser.test_scene_spends import open_scene

CAMPAIGN = "Demo: Annulus"
VERIFIED = "✔ verified"


@pytest.fixture
def sure_and_hopeless(server):
    """Two extra difficulties on the demo campaign for the length of one test."""
    server.manage("seed_demo")
    before = server.shell(
        "import json; from tabletop.campaigns.models import Campaign; "
        f"print(json.dumps(Campaign.objects.get(name={CAMPAIGN!r}).ruleset))"
    )
    ruleset = json.loads(before.strip().splitlines()[-1])
    difficulties = {"easy": 2, "medium": 3, "hard": 4, "impossible": 5, "certain": 0}
    difficulties["hopeless"] = 99
    _set_ruleset(server, {**ruleset, "difficulties": difficulties})
    yield
    _set_ruleset(server, ruleset)


def _set_ruleset(server, ruleset: dict) -> None:
    server.shell(
        "from tabletop.campaigns.models import Campaign; "
        f"Campaign.objects.filter(name={CAMPAIGN!r}).update(ruleset={ruleset!r})"
    )


def seeded_challenge(server, page: Page, *, seed: int, difficulty: str, length: int) -> None:
    """The test-only path: the GM's setup action with a seeded Random, then pages reload."""
    scene = int(page.url.rstrip("/").split("/")[-1])
    server.shell(
        "import random\n"
        "from tabletop.systems.annulus import actions\n"
        "from tabletop.scenes.models import Scene\n"
        f"scene = Scene.objects.select_related('campaign').get(pk={scene})\n"
        f"actions.challenge_setup(scene=scene, actor=scene.campaign.gm, difficulty={difficulty!r},"
        f" types=['Finesse'], length={length}, rng=random.Random({seed}))\n"
    )


def join(browser: Browser, server, user: str, url: str) -> Page:
    page = close_after_test(browser.new_context()).new_page()
    log_in(page, server, user)
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("live")
    show_tab(page, "In play")
    return page


def at_the_challenge(browser: Browser, server) -> tuple[Page, Page]:
    """The GM and alice at a new scene, the challenge view in front of them."""
    gm, alice = open_scene(browser, server, CAMPAIGN)
    for page in (gm, alice):
        show_tab(page, "In play")
    return gm, alice


def reload(*pages: Page) -> None:
    # The shell's broadcast went to its own in-memory layer: the pages read the new state.
    for page in pages:
        page.reload()
        expect(page.locator("#connection")).to_have_text("live")


def chain(page: Page):
    return page.locator("#procedure-challenge .die-face")


def expect_chain(page: Page, labels: list[str]) -> None:
    faces = chain(page)
    expect(faces).to_have_count(len(labels))
    for i, label in enumerate(labels):
        expect(faces.nth(i)).to_have_attribute("aria-label", label)


def visible_count(server, page: Page) -> int:
    scene = int(page.url.rstrip("/").split("/")[-1])
    out = server.shell(
        "from rules.annulus import Challenge\n"
        "from tabletop.scenes.models import Scene\n"
        f"state = Scene.objects.get(pk={scene}).state['challenge']\n"
        "print(len(Challenge.from_dict(state['challenge']).visible_values()))\n"
    )
    return int(out.strip().splitlines()[-1])


@pytest.mark.usefixtures("sure_and_hopeless")
def test_a_challenge_to_success_with_a_gm_and_two_players(browser: Browser, server):
    gm, alice = at_the_challenge(browser, server)
    bob = join(browser, server, "bob", gm.url)
    # Seed 192: the chain 5 7 [6] 7, position 3 hidden.
    seeded_challenge(server, gm, seed=192, difficulty="certain", length=4)
    reload(gm, alice, bob)

    players = ["die 1 of 3: 5", "die 2 of 3: 7", "die 3 of 3: 7"]
    for page in (alice, bob):
        expect_chain(page, players)  # no placeholder where the hidden die lies
        expect(page.locator("#procedure-challenge .hidden-die")).to_have_count(0)
        expect(page.locator(".event-challenge_set .commitment.sealed")).to_have_count(1)
    expect_chain(
        gm,
        [
            "position 1 of 4: 5 (players' die 1 of 3)",
            "position 2 of 4: 7 (players' die 2 of 3)",
            "position 3 of 4: 6, hidden",
            "position 4 of 4: 7 (players' die 3 of 3)",
        ],
    )
    expect(gm.locator(".gm-help")).to_contain_text("at least 1 adjustment still needed")

    # Alice (Mira Vell) moves die 2 down: 5 6 7 in view, solved; the GM is asked to reveal.
    alice.get_by_role("button", name="Adjust die 2 down from 7").click()
    for page in (alice, bob):
        expect(chain(page).nth(1)).to_have_attribute("aria-label", "die 2 of 3: 6")
        expect(page.locator(".event-challenge_adjust")).to_contain_text("Mira Vell")
        expect(page.locator(".pair-off")).to_have_count(0)  # every neighbour differs by one
    expect(bob.locator("#procedure-challenge .challenge-banner")).to_contain_text("solved")
    gm.get_by_role("button", name="Reveal position 3 (6)").click()

    # The hidden 6 slides in as die 3 of 4 for everyone.
    for page in (alice, bob):
        expect_chain(page, ["die 1 of 4: 5", "die 2 of 4: 6", "die 3 of 4: 6", "die 4 of 4: 7"])
        expect(page.locator("#procedure-challenge .just-revealed")).to_have_count(1)
        expect(page.locator(".event-challenge_reveal")).to_contain_text("die 3 of 4")

    # Bob calibrates die 4 to 8 with the toolkit; alice moves die 3 up: 5 6 7 8.
    bob.locator("#procedure-challenge .toolkit summary").click()
    calibrate = bob.locator(".toolkit-ability", has_text="Calibrate")
    calibrate.locator('select[name="die"]').select_option(label="die 4: 7")
    calibrate.locator('input[name="value"]').fill("8")
    calibrate.get_by_role("button", name="Use Calibrate").click()
    expect(alice.locator(".event-challenge_toolkit")).to_contain_text("die 4 now shows 8")
    alice.get_by_role("button", name="Adjust die 3 up from 6").click()

    for page in (gm, alice, bob):
        expect(page.locator("#procedure-challenge .challenge-banner")).to_contain_text("Success")
        expect_chain(page, ["die 1 of 4: 5", "die 2 of 4: 6", "die 3 of 4: 7", "die 4 of 4: 8"])
        # Layout and nonce published: each browser recomputed the commitment.
        expect(page.locator("#procedure-challenge .verify-status")).to_have_text(VERIFIED)
        expect(page.locator(".event-challenge_end .verify-status")).to_have_text(VERIFIED)
        expect(page.locator(".event-challenge_set .verify-status")).to_have_text(VERIFIED)
        expect(page.locator(".event-challenge_set")).to_contain_text("6 hidden")
    # The GM can set up the next one.
    expect(gm.locator("#procedure-challenge .challenge-setup summary")).to_contain_text("a new")


@pytest.mark.usefixtures("sure_and_hopeless")
def test_a_challenge_to_failure_jams_and_a_greyed_out_toolkit(browser: Browser, server):
    gm, alice = at_the_challenge(browser, server)
    # Seed 3: 3 6 10, nothing hidden; every check fails.
    seeded_challenge(server, gm, seed=3, difficulty="hopeless", length=3)
    reload(gm, alice)
    expect_chain(alice, ["die 1 of 3: 3", "die 2 of 3: 6", "die 3 of 3: 10"])

    alice.locator("#procedure-challenge .toolkit summary").click()
    shake = alice.locator(".toolkit-ability", has_text="Shake Loose")
    shake.locator('select[name="die"]').select_option(label="die 1: 3")
    shake.get_by_role("button", name="Use Shake Loose").click()
    for page in (alice, gm):
        greyed = page.locator(".toolkit-ability.unavailable", has_text="Shake Loose")
        expect(greyed).to_have_count(1)
        expect(greyed.locator("button", has_text="Use Shake Loose")).to_be_disabled()
        expect(greyed).to_contain_text("unavailable for the rest of this challenge")

    # Die 1 jams: upside down, labelled, and no longer offered for adjustment.
    alice.get_by_role("button", name="Adjust die 1 up from 3").click()
    for page in (alice, gm):
        expect(chain(page).first).to_have_attribute("aria-label", re.compile(r"1 of 3: 3, jammed"))
    expect(chain(alice).first).to_have_attribute("aria-label", "die 1 of 3: 3, jammed")
    expect(alice.get_by_role("button", name=re.compile("^Adjust die 1 "))).to_have_count(0)
    # Turned upside down: the view is morphed in place, so the die turns over (a transition).
    jammed = alice.locator("#procedure-challenge .chain-item.jammed .die-face")
    alice.wait_for_function(
        "el => getComputedStyle(el).transform.startsWith('matrix(-1')", arg=jammed.element_handle()
    )

    # Die 2 jams next to it: 3 and 6 can never be neighbours, so the challenge fails at once.
    alice.get_by_role("button", name="Adjust die 2 down from 6").click()
    for page in (alice, gm):
        banner = page.locator("#procedure-challenge .challenge-banner")
        expect(banner).to_contain_text("Failure")
        expect(banner).to_have_attribute("role", "alert")
        expect(page.locator(".event-challenge_end")).to_contain_text("failed")
        expect(page.locator(".event-challenge_end .verify-status")).to_have_text(VERIFIED)
    expect(alice.get_by_role("button", name=re.compile("^Adjust die"))).to_have_count(0)


def test_the_gm_sets_up_from_the_view_and_calls_it_off(browser: Browser, server):
    gm, alice = at_the_challenge(browser, server)
    setup = gm.locator("#procedure-challenge .challenge-setup")
    setup.get_by_label("Difficulty").select_option("hard")
    setup.get_by_label("Challenge type").select_option("Force")
    setup.get_by_label("Second type").select_option("Perception")
    setup.get_by_label("Chain length").fill("5")
    setup.get_by_role("button", name="Roll the chain").click()

    expect(gm.locator("#procedure-challenge .challenge-meta")).to_contain_text("Force / Perception")
    expect(chain(gm)).to_have_count(5)
    # However many dice the secret mask hid, alice sees exactly the others.
    expect(alice.locator("#procedure-challenge .challenge-meta")).to_contain_text("Hard")
    expect(chain(alice)).to_have_count(visible_count(server, gm))
    expect(alice.get_by_role("button", name="Call the challenge off")).to_have_count(0)

    gm.get_by_role("button", name="Call the challenge off").click()
    for page in (gm, alice):
        expect(page.locator("#procedure-challenge .challenge-banner")).to_contain_text("Called off")
        expect(chain(page)).to_have_count(5)  # the whole layout is public now
        expect(page.locator("#procedure-challenge .verify-status")).to_have_text(VERIFIED)
