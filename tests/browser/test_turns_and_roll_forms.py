"""Issue 42 at the table, in Chromium on a phone and a desktop: "End our turn" asks first while a
teammate has not acted (a "no" sends nothing); a GM's roll form offers only the picked
character's skills and rolls them; the perception list names whose each skill is; a card's
status header keeps its first letter inside the card."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.scene_page import show_tab
from tests.browser.test_game_night import arrived, newest_seq
from tests.browser.test_table import DESKTOP, PHONE, Seat, fresh_scenes

VIEWPORTS = pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])


@pytest.fixture(scope="module")
def paths(server) -> dict[str, str]:
    return fresh_scenes(server, "Issue 42: turns, roll forms and cards")


def start_turns(gm: Page) -> None:
    """The GM starts the turns with the form's defaults: Heroes (the PCs), then Foes."""
    show_tab(gm, "In play")
    gm.locator("#turns-start summary").click()
    gm.get_by_role("button", name="Start round 1").click()
    expect(gm.locator("#procedure-turns .turn-now")).to_contain_text("Heroes")


def turns_ended(seat: Seat) -> list[str]:
    return [frame for frame in seat.sent if '"turns_end"' in frame]


@VIEWPORTS
def test_end_our_turn_asks_first_naming_who_has_not_acted(browser: Browser, server, viewport):
    path = fresh_scenes(server, f"Issue 42: our turn ({viewport['width']})")["Demo: Conductor"]
    gm = Seat(browser, server, "gm", path)
    alice = Seat(browser, server, "alice", path, viewport=viewport)
    start_turns(gm.page)
    page = alice.page
    show_tab(page, "In play")
    turns = page.locator("#procedure-turns")
    expect(turns.locator(".turn-now")).to_contain_text("Heroes")
    asked: list[str] = []

    def answer(yes: bool):
        def on_dialog(dialog) -> None:
            asked.append(dialog.message)
            dialog.accept() if yes else dialog.dismiss()

        return on_dialog

    # Nobody has acted: the question names both; "Cancel" sends nothing and changes nothing.
    page.once("dialog", answer(False))
    turns.get_by_role("button", name="End our turn").click()
    assert asked == [
        "Brannoc and Kestrel have not acted yet. End Heroes's turn anyway? "
        "Their action this turn is lost."
    ]
    page.wait_for_timeout(500)  # a command sent would be on its way by now
    assert turns_ended(alice) == []
    expect(turns.locator(".turn-now")).to_contain_text("Heroes")
    expect(gm.page.locator("#procedure-turns .turn-now")).to_contain_text("Heroes")
    page.screenshot(path=f"/tmp/issue42-turns-{viewport['width']}.png")

    # Kestrel acts; the question names Brannoc alone, and "OK" ends the turn for everyone.
    kestrel = turns.locator("li[data-participant]", has_text="Kestrel")
    kestrel.get_by_role("button", name="Act", exact=True).click()
    expect(kestrel.locator(".badge").first).to_have_text("acted")
    page.once("dialog", answer(True))
    turns.get_by_role("button", name="End our turn").click()
    assert asked[1].startswith("Brannoc has not acted yet. End Heroes's turn anyway?")
    expect(turns.locator(".turn-now")).to_contain_text("Foes")
    expect(gm.page.locator("#procedure-turns .turn-now")).to_contain_text("Foes")
    [sent] = turns_ended(alice)
    assert '"round":"1","team":"Heroes"' in sent  # the turn it ends


def offered(page: Page, select) -> list[tuple[str, str]]:
    """(its group's label, its text) of each option a select offers: shown and not disabled."""
    return select.evaluate(
        """s => [...s.options]
             .filter(o => !o.disabled && !o.hidden
                          && !(o.parentNode.tagName === 'OPTGROUP' && o.parentNode.disabled))
             .map(o => [o.parentNode.tagName === 'OPTGROUP' ? o.parentNode.label : '',
                        o.textContent.trim()])"""
    )


def chosen_group(select) -> str:
    return select.evaluate(
        "s => { const o = s.options[s.selectedIndex]; "
        "return o.parentNode.tagName === 'OPTGROUP' ? o.parentNode.label : ''; }"
    )


@VIEWPORTS
def test_a_gm_roll_form_follows_the_character_picked(browser: Browser, server, paths, viewport):
    gm = Seat(browser, server, "gm", paths["Demo: Conductor"], viewport=viewport)
    page = gm.page
    show_tab(page, "Roll")
    standard = "form.roll-form[data-roll-kind='conductor_standard']"
    form = page.locator(f"#tab-roll {standard}")
    details = page.locator("#tab-roll details", has=page.locator(standard))
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    character = form.locator("select[name='character']")
    skill = form.locator("select[name='skill_name']")
    for name in ("Brannoc", "Kestrel", "Brannoc", "Kestrel"):
        character.select_option(label=name)
        options = offered(page, skill)
        assert {group for group, _ in options} == {name, ""}, options
        assert [text for group, text in options if not group] == ["Untrained (skill 0)"]
        assert chosen_group(skill) == name  # never another character's skill left selected
    page.screenshot(path=f"/tmp/issue42-rollform-{viewport['width']}.png")
    # Kestrel picked after Brannoc (whose Strength came first): the roll is hers, not refused.
    before = newest_seq(page)
    form.get_by_role("button", name="Roll", exact=True).click()
    seq = arrived(page, before)
    expect(page.locator(f"#event-{seq} .roll-head")).to_contain_text("Kestrel")
    expect(page.locator(f"#event-{seq} .roll-title")).to_contain_text("Weapon (Sword)")


@VIEWPORTS
def test_the_perception_list_names_whose_each_skill_is(browser: Browser, server, paths, viewport):
    gm = Seat(browser, server, "gm", paths["Demo: Percentile"], viewport=viewport)
    page = gm.page
    show_tab(page, "In play")
    perception = page.locator("#perception-roll")
    perception.locator("summary").click()
    character = perception.locator("select[name='character']")
    skill = perception.locator("select[name='skill']")
    names = [n.strip() for n in character.locator("option").all_text_contents()]
    assert "Tomalfson" in names and "Ilsa Marrow" in names
    for name in ("Ilsa Marrow", "Tomalfson"):
        character.select_option(label=name)
        texts = [text for _, text in offered(page, skill)]
        assert texts[0] == "Perceptivity (general perception)"
        assert texts[1:] and all(t.startswith(f"{name}: ") for t in texts[1:]), texts
        skill.select_option(label=texts[-1])
    page.screenshot(path=f"/tmp/issue42-perception-{viewport['width']}.png")
    before = newest_seq(page)
    perception.get_by_role("button", name="Roll in secret").click()
    seq = arrived(page, before)
    expect(page.locator(f"#event-{seq} .roll-head")).to_contain_text("Tomalfson")


def declare_a_check(server, path: str) -> None:
    """Alice's Tamsin declares a check on the two_dice table: a card with a status header."""
    pk = int(re.search(r"/scenes/(\d+)/", path).group(1))
    server.shell(
        "from django.contrib.auth import get_user_model\n"
        "from tabletop.scenes import actions\n"
        "from tabletop.scenes.models import Scene\n"
        "from tabletop.systems.two_dice import checks\n"
        "from tabletop.systems.two_dice.models import TwoDiceSheet\n"
        "users = get_user_model().objects\n"
        f"scene = Scene.objects.get(pk={pk})\n"
        "cast = TwoDiceSheet.objects.filter(campaign=scene.campaign)\n"
        "tamsin, garrick = cast.get(name='Tamsin Reed'), cast.get(name='Garrick Stone')\n"
        "actions.turns_start(scene=scene, actor=users.get(username='gm'),\n"
        "                    lineup=[(tamsin, 'Heroes'), (garrick, 'Heroes')])\n"
        "checks.check_declare(scene=scene, actor=users.get(username='alice'), character=tamsin,\n"
        "                     attribute='Might', difficulty='Normal', resource='Health')\n"
    )


@pytest.fixture(scope="module")
def declared(server, paths) -> str:
    declare_a_check(server, paths["Demo: Two Dice"])
    return paths["Demo: Two Dice"]


@VIEWPORTS
def test_a_status_header_keeps_its_first_letter_inside_the_card(
    browser: Browser, server, declared, viewport
):
    alice = Seat(browser, server, "alice", declared, viewport=viewport)
    page = alice.page
    if viewport is PHONE:
        show_tab(page, "Log")
    header = page.locator("#scene-log .event-check_declared > header").last
    expect(header).to_contain_text("alice as Tamsin Reed")
    header.scroll_into_view_if_needed()
    page.screenshot(path=f"/tmp/issue42-header-{viewport['width']}.png")
    inside = header.evaluate(
        """h => {
             const card = h.closest('.event');
             const box = card.getBoundingClientRect();
             const left = box.left + parseFloat(getComputedStyle(card).paddingLeft);
             const text = document.createRange();
             text.selectNodeContents(h.querySelector('strong'));
             return { text: text.getBoundingClientRect().left, content: left };
           }"""
    )
    assert inside["text"] >= inside["content"] - 0.5, inside
