"""The scene page as a game-night table, in Chromium with a GM and two players: chat, whispers
that reach no one else (page, socket frames, replay), slash-command rolls, the table-wide roll
mode, the "N new" pill and the missed marker, and every demo scene laid out on a phone and a
desktop with the composer and the newest card in view."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.browser.conftest import close_after_test
from tests.browser.scene_page import show_tab
from tests.browser.test_scene_live import log_in

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def demo_scenes(server) -> dict[str, str]:
    """Each demo campaign's open scene (its path), as `make demo` prints them."""
    out = server.manage("seed_demo")
    return dict(re.findall(r"^\s+(Demo: [^:]+): \S+?(/scenes/\d+/)$", out, flags=re.M))


def fresh_scenes(server, name: str) -> dict[str, str]:
    """A new open scene called ``name`` in each demo campaign (its path): a test that plays a
    whole evening there leaves the demo scenes as other tests expect them."""
    demo_scenes(server)
    out = server.shell(
        "from django.contrib.auth import get_user_model\n"
        "from tabletop.campaigns.models import Campaign\n"
        "from tabletop.scenes.actions import scene_create, scene_open\n"
        "gm = get_user_model().objects.get(username='gm')\n"
        "for c in Campaign.objects.filter(gm=gm, name__startswith='Demo: ').order_by('pk'):\n"
        f"    s = scene_open(scene=scene_create(campaign=c, actor=gm, name={name!r}), actor=gm)\n"
        "    print(c.name + ': /scenes/%d/' % s.pk)\n"
    )
    return dict(re.findall(r"^(Demo: [^:]+): (/scenes/\d+/)$", out, flags=re.M))


class Seat:
    """A member's page at the scene, with every frame its socket received and a way to drop the
    socket (the page then reconnects and asks for what it missed)."""

    def __init__(
        self,
        browser: Browser,
        server,
        user: str,
        path: str,
        viewport=DESKTOP,
        outgoing: Callable[[str], str] | None = None,
    ) -> None:
        self.frames: list[str] = []  # what the server sent this page
        self.sent: list[str] = []  # what this page sent the server
        self.outgoing = outgoing  # rewrites what the page sends, before the server has it
        self.sockets: list[WebSocketRoute] = []
        context = browser.new_context(viewport=viewport)
        close_after_test(context)
        self.page = context.new_page()
        self.page.route_web_socket(re.compile(r"/ws/scenes/"), self._relay)
        log_in(self.page, server, user)
        self.page.goto(server.url + path)
        expect(self.page.locator("#connection")).to_have_text("live")

    def _relay(self, ws: WebSocketRoute) -> None:
        upstream = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            self.frames.append(message if isinstance(message, str) else message.decode())
            ws.send(message)

        def up(message: str | bytes) -> None:
            if self.outgoing is not None and isinstance(message, str):
                message = self.outgoing(message)
            self.sent.append(message if isinstance(message, str) else message.decode())
            upstream.send(message)

        upstream.on_message(down)
        ws.on_message(up)
        self.sockets.append(ws)

    def everything(self) -> str:
        return "\n".join(self.frames)

    def say(self, line: str) -> None:
        box = self.page.get_by_label("Message")
        box.fill(line)
        box.press("Enter")

    def drop_socket(self, *, stay_away: bool = False) -> None:
        """Drop the page's socket; it comes back on its own within a second, or with
        ``stay_away`` only on ``come_back`` (what is said meanwhile is surely missed)."""
        if stay_away:  # the page's own retry put off past the test
            self.page.evaluate("() => { htmx.config.wsReconnectDelay = () => 600000; }")
        # 1011 "server error": the page comes back on its own retry (a clean 1000 close would
        # mean the page closed it on purpose, and it would not come back; 1012, a stopping
        # server, brings it back at once, whatever its retry says).
        self.sockets[-1].close(code=1011)
        expect(self.page.locator("#connection")).to_have_text("reconnecting…")

    def come_back(self) -> None:
        """After ``drop_socket(stay_away=True)``: "Retry now", and the page is live again."""
        self.page.get_by_role("button", name="Retry now").click()
        expect(self.page.locator("#connection")).to_have_text("live")

    def cards(self):
        return self.page.locator("#scene-log > article.event")


def wait_for(check: Callable[[], bool], page: Page, what: str) -> None:
    for _ in range(50):
        if check():
            return
        page.wait_for_timeout(100)
    raise AssertionError(what)


@pytest.fixture
def table(browser: Browser, server):
    path = demo_scenes(server)["Demo: Roll and Keep"]
    seats = [Seat(browser, server, user, path) for user in ("gm", "alice", "bob")]
    for name in ("alice", "bob"):
        expect(seats[0].page.locator("#presence")).to_contain_text(name)
    return seats


def test_chat_whispers_and_slash_rolls_at_the_table(table, server):
    gm, alice, bob = table

    alice.say("Hello *table*, **roll** <b>up</b>")
    for seat in table:
        line = seat.page.locator(".event-chat").last
        expect(line).to_contain_text("alice")
        expect(line.locator("em")).to_have_text("table")
        expect(line.locator("strong", has_text="roll")).to_have_count(1)
        expect(line).to_contain_text("<b>up</b>")  # escaped, shown as typed

    # A whisper to the GM: bob's page, socket and reloaded page never hold it.
    alice.say("/w gm the idol is a fake quartz-heron")
    for seat in (gm, alice):
        expect(seat.page.locator(".event-chat").last).to_contain_text("quartz-heron")
        expect(seat.page.locator(".event-chat").last).to_contain_text("whisper")
    gm.say("/w alice,bob noted")  # a GM's whisper to both players, to mark time
    expect(bob.page.locator(".event-chat").last).to_contain_text("noted")
    assert "quartz-heron" not in bob.page.content()
    assert "quartz-heron" not in bob.everything()
    bob.page.reload()
    expect(bob.page.locator("#connection")).to_have_text("live")
    assert "quartz-heron" not in bob.page.content()

    # Replay: bob's socket drops; a whisper and a line are said; bob comes back.
    bob.drop_socket(stay_away=True)
    alice.say("/w gm second secret opal-falcon")
    alice.say("Onwards!")
    expect(alice.page.locator(".event-chat").last).to_contain_text("Onwards!")
    bob.come_back()
    expect(bob.page.locator(".event-chat").last).to_contain_text("Onwards!")
    expect(bob.page.locator("#missed-marker")).to_have_text("You missed 1 event while reconnecting")
    assert "opal-falcon" not in bob.everything() and "opal-falcon" not in bob.page.content()
    expect(gm.page.locator(".event-chat", has_text="opal-falcon")).to_have_count(1)

    # /r rolls in the mode picked under the box (public here); /gmr to the GM and the roller.
    # (Totals no other number on the page can look like.)
    bob.say("/r 1d2+77775")
    for seat in table:
        expect(seat.page.locator(".event-roll").last).to_contain_text(re.compile("7777[67]"))
    alice.say("/gmr 1d2+55553")
    for seat in (gm, alice):
        expect(seat.page.locator(".event-roll").last).to_contain_text(re.compile("5555[45]"))
    expect(bob.page.locator(".event-roll").last).to_contain_text("privately to the GM")
    assert not re.search("5555[45]", bob.everything() + bob.page.content())
    # One card for the GM and the roller: the Reveal button stays on the GM's page alone.
    reveal = "Reveal to everyone"
    expect(gm.page.locator(".event-roll").last.get_by_role("button", name=reveal)).to_have_count(1)
    expect(alice.page.locator(".event-roll").last.get_by_role("button", name=reveal)).to_have_count(
        0
    )
    # The GM's frame carried the roll's entry in the hidden results alone, put at the top of
    # the list; the list's "none waiting" line is gone from view.
    show_tab(gm.page, "GM")
    entries = gm.page.locator("#gm-dashboard #gm-hidden-list > li:visible")
    expect(entries).to_have_count(1)
    expect(entries.first).to_contain_text(re.compile("5555[45]"))
    frame = next(f for f in reversed(gm.frames) if re.search("5555[45]", f))
    assert "afterbegin:#gm-hidden-list" in frame and 'id="gm-dashboard"' not in frame
    assert "No hidden rolls" not in frame
    # The entry's Reveal works on the swapped-in entry; the list is then empty again.
    entries.first.get_by_role("button", name="Reveal").click()
    expect(bob.page.locator(".event-roll", has_text=re.compile("5555[45]"))).to_have_count(1)
    expect(gm.page.locator("#gm-hidden-list > li:visible")).to_have_text("No hidden rolls waiting.")

    # /help and a bad whisper: a message in the composer, nothing sent.
    before = len(alice.sent)
    alice.say("/help")
    expect(alice.page.locator("#composer-help")).to_contain_text("/gmr")
    alice.page.keyboard.press("Escape")  # the help's panel closes
    expect(alice.page.locator("#composer-help")).to_be_hidden()
    alice.say("/w nobody hello")
    expect(alice.page.locator("#composer-status")).to_contain_text(
        'No one at this table is called "nobody"'
    )
    expect(alice.page.get_by_label("Message")).to_have_value("/w nobody hello")  # kept to fix
    alice.page.wait_for_timeout(500)
    # Only the page's pings went out (it measures its round trip every few seconds).
    assert all('"command":"ping"' in frame for frame in alice.sent[before:]), alice.sent[before:]


def test_a_quiet_reconnect_marks_no_later_card_as_missed(table):
    """A socket that comes back to a page already up to date replays nothing; a line said well
    after that is live, not "missed while reconnecting"."""
    gm, alice, bob = table
    bob.page.reload()
    expect(bob.page.locator("#connection")).to_have_text("live")
    bob.drop_socket()
    expect(bob.page.locator("#connection")).to_have_text("live", timeout=15000)
    bob.page.wait_for_timeout(3500)  # past the replay's window
    alice.say("Still here, all of us")
    expect(bob.page.locator(".event-chat").last).to_contain_text("Still here, all of us")
    expect(bob.page.locator("#missed-marker")).to_have_count(0)


def test_the_table_wide_roll_mode_is_every_roll_form_s_default(table):
    gm, alice, bob = table
    dice = alice.page.locator("details", has=alice.page.locator("summary", has_text="Dice"))
    dice.locator("summary").click()
    form_mode = dice.get_by_label("Mode")
    expect(form_mode).to_have_value("public")
    alice.page.locator("#table-mode").select_option(label="Blind to GM")
    expect(form_mode).to_have_value("blind")

    dice.get_by_label("Dice expression").fill("1d2+33331")
    dice.get_by_role("button", name="Roll").click()
    expect(alice.page.locator(".event-roll").last).to_contain_text("You rolled blind")
    expect(alice.page.locator(".event-roll").last).not_to_contain_text("rolled blind.")
    # The table's stub is the same frame: each page keeps its own line.
    expect(bob.page.locator(".event-roll").last.locator(".roll-hidden")).to_have_text(
        "rolled blind."
    )
    expect(gm.page.locator(".event-roll").last).to_contain_text(re.compile("3333[23]"))
    assert not re.search("3333[23]", alice.everything() + bob.everything())

    # One roll in another mode; the roll form then goes back to the table's.
    form_mode.select_option("public")
    dice.get_by_label("Dice expression").fill("1d2+22220")
    dice.get_by_role("button", name="Roll").click()
    for seat in table:
        expect(seat.page.locator(".event-roll").last).to_contain_text(re.compile("2222[12]"))
    expect(form_mode).to_have_value("blind")
    # The page remembers the table's mode.
    alice.page.reload()
    expect(alice.page.locator("#table-mode")).to_have_value("blind")


def test_new_entries_while_reading_back_show_a_pill(browser: Browser, server):
    path = demo_scenes(server)["Demo: Percentile"]
    scene = int(path.strip("/").split("/")[-1])
    server.shell(
        "from tabletop.scenes import actions\n"
        "from tabletop.scenes.models import Scene\n"
        f"scene = Scene.objects.select_related('campaign').get(pk={scene})\n"
        "for n in range(40):\n"
        "    actions.chat(scene=scene, actor=scene.campaign.gm, text=f'line {n}', to=[])\n"
    )
    gm = Seat(browser, server, "gm", path)
    alice = Seat(browser, server, "alice", path)
    log = gm.page.locator("#scene-log")
    log.evaluate("el => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    alice.say("one")
    alice.say("two")
    pill = gm.page.get_by_role("button", name=re.compile(r"new"))
    expect(pill).to_have_text(re.compile(r"^\s*2 new"))
    assert log.evaluate("el => el.scrollTop") == 0, "the reader stays where they were"
    pill.click()
    expect(pill).to_be_hidden()
    expect(gm.page.locator(".event-chat").last).to_be_in_viewport()


def in_view(page: Page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= size["height"] + 1
        and box["x"] >= 0
        and box["x"] + box["width"] <= size["width"] + 1
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("user", ["gm", "alice"])
def test_every_demo_scene_fits_with_the_composer_and_newest_card_in_view(
    browser: Browser, server, viewport, user
):
    scenes = demo_scenes(server)
    # The six built in, and the tests' own (tests/settings.py: the coin system, its own
    # stylesheet).
    six = {"Any game", "Annulus", "Roll and Keep", "Conductor", "Two Dice", "Percentile"}
    assert {f"Demo: {system}" for system in six} | {"Demo: Coin"} == set(scenes), scenes
    page = close_after_test(browser.new_context(viewport=viewport)).new_page()
    log_in(page, server, user)
    for campaign, path in scenes.items():
        page.goto(server.url + path)
        expect(page.locator("#connection")).to_have_text("live")
        composer = page.get_by_label("Message")
        newest = page.locator("#scene-log > article.event").last
        expect(newest).to_be_visible()
        off_screen = f"{campaign}: the newest card is off screen"
        wait_for(lambda card=newest: in_view(page, card), page, off_screen)
        assert in_view(page, composer), f"{campaign}: the composer is off screen"
        widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert widths[0] <= widths[1], f"{campaign} overflows: {widths}"
        # Every tool tab fits too (wide party and GM tables scroll inside their tool).
        for tab in page.get_by_role("tab").all():
            if tab.is_visible():
                tab.click()
                widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
                assert widths[0] <= widths[1], f"{campaign}, {tab.inner_text()}: {widths}"
        if viewport is PHONE:
            show_tab(page, "Log")


@pytest.mark.parametrize("user", ["gm", "alice"])
def test_every_tool_tab_of_every_demo_scene_passes_axe(browser: Browser, server, user):
    # axe skips what is hidden: each tab is checked while it shows, with cards in the log.
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    scenes = demo_scenes(server)
    page = close_after_test(browser.new_context(viewport=DESKTOP)).new_page()
    log_in(page, server, user)
    for campaign, path in scenes.items():
        page.goto(server.url + path)
        expect(page.locator("#connection")).to_have_text("live")
        # With an inline roll, its dice showing (focused): axe checks them too.
        page.get_by_label("Message").fill("/me checks the *map* [[1d20+2]]")
        page.get_by_label("Message").press("Enter")
        expect(page.locator(".event-chat").last).to_contain_text("checks the map")
        page.locator(".event-chat .inline-roll").last.focus()
        for tab in page.get_by_role("tab").all():
            if not tab.is_visible():
                continue
            tab.click()
            # Cards fade in and tabs change colour: axe measures contrast once they are done.
            page.wait_for_function(
                "() => document.getAnimations().every(a => a.playState !== 'running')"
            )
            violations = axe.run(page).response["violations"]
            failing = [
                f"{v['id']}: {[n['target'] for n in v['nodes'][:3]]}"
                for v in violations
                if v["impact"] in ("serious", "critical")
            ]
            assert not failing, f"{campaign}, {tab.inner_text()} tab: {failing}"


def test_on_a_phone_a_roll_lands_where_the_roller_looks(browser: Browser, server):
    path = demo_scenes(server)["Demo: Conductor"]
    alice = Seat(browser, server, "alice", path, viewport=PHONE)
    expect(alice.page.get_by_role("tab", name="Log")).to_have_attribute("aria-selected", "true")
    show_tab(alice.page, "Roll")
    expect(alice.page.get_by_label("Message")).to_be_hidden()
    dice = alice.page.locator("details", has=alice.page.locator("summary", has_text="Dice"))
    dice.locator("summary").click()
    dice.get_by_label("Dice expression").fill("1d2+44443")
    dice.get_by_role("button", name="Roll").click()
    # Back on the log, the new card in view at its foot.
    expect(alice.page.get_by_role("tab", name="Log")).to_have_attribute("aria-selected", "true")
    card = alice.page.locator(".event-roll").last
    expect(card).to_contain_text(re.compile("4444[45]"))
    expect(card).to_be_in_viewport()
    expect(alice.page.get_by_label("Message")).to_be_in_viewport()


def test_a_tool_that_changes_behind_another_tab_gets_a_dot(browser: Browser, server):
    path = demo_scenes(server)["Demo: Conductor"]
    alice = Seat(browser, server, "alice", path)
    party = alice.page.get_by_role("tab", name="Party")
    expect(alice.page.get_by_role("tab", name="Roll")).to_have_attribute("aria-selected", "true")
    Seat(browser, server, "bob", path)  # who is connected changes: no dot for that
    expect(alice.page.locator("#presence")).to_contain_text("bob")
    expect(party).not_to_have_class(re.compile("updated"))
    gm = Seat(browser, server, "gm", path)
    show_tab(gm.page, "GM")
    kestrel = alice.page.locator('#party tr:has-text("Kestrel") td[data-field="bennies"]')
    before = int(kestrel.inner_text())
    gm.page.get_by_role("button", name=re.compile("^Give Kestrel one more benny")).click()
    expect(kestrel).to_have_text(str(before + 1))  # the Party tool changed behind Roll
    expect(party).to_have_class(re.compile("updated"))
    # The GM's own table (the dashboard's, morphed alone) says the same.
    mine = gm.page.locator('#gm-dashboard #gm-table tr:has-text("Kestrel") [data-field="bennies"]')
    expect(mine.locator(".value")).to_have_text(str(before + 1))
    expect(gm.page.locator("#gm-table")).to_have_count(1)
    show_tab(alice.page, "Party")
    expect(party).not_to_have_class(re.compile("updated"))


def test_each_member_s_round_trip_shows_in_the_presence_list(browser: Browser, server):
    path = demo_scenes(server)["Demo: Annulus"]
    gm = Seat(browser, server, "gm", path)
    alice = Seat(browser, server, "alice", path)
    show_tab(gm.page, "Party")
    for seat, user in ((gm, "gm"), (gm, "alice"), (alice, "gm")):
        row = seat.page.locator("#presence li", has_text=user)
        # A page paints its own at its first pong and reports it at once; the others' reach
        # the list at the scene's next beat (SCENE_HEARTBEAT_SECONDS, 8 s), so within 8 s
        # and the broadcast of the list (given room for a loaded CI box).
        expect(row.locator(".rtt")).to_have_text(re.compile(r"^\d+ ms$"), timeout=16000)


def test_a_check_moves_only_its_characters_numbers_on_every_page(browser: Browser, server):
    # A two_dice check pays its cost from the roller's sheet: the frames carry that
    # character's numbers alone, each swapped into its cell of the Party tool and of the
    # GM's table (not the whole tools, not the other characters).
    path = demo_scenes(server)["Demo: Two Dice"]
    gm = Seat(browser, server, "gm", path)
    alice = Seat(browser, server, "alice", path)
    show_tab(gm.page, "GM")
    tamsin = 'tr:has-text("Tamsin Reed") td:nth-of-type(3)'  # Focus: Health, Stamina, Focus
    gm_focus = gm.page.locator(f"#gm-table {tamsin}")
    party_focus = alice.page.locator(f"#party {tamsin}")
    expect(gm_focus).to_have_text("5 / 5")
    form = alice.page.locator('form[data-roll-kind="two_dice"]')
    form.get_by_label("Character").select_option(label="Tamsin Reed")
    form.get_by_label("Attribute").select_option("Wits")
    form.get_by_label("Difficulty").select_option("Normal")  # cost 2
    form.get_by_label("Resource that pays").select_option("Focus")
    form.get_by_role("button", name="Roll").click()
    expect(gm_focus).to_have_text("3 / 5")
    expect(party_focus).to_have_text("3 / 5")
    expect(gm.page.locator(f"#party {tamsin}")).to_have_text("3 / 5")
    expect(gm.page.locator("#gm-table tbody tr")).to_have_count(3)  # nothing added or lost
    expect(gm.page.locator("#gm-table tbody tr td span[id]")).to_have_count(3 * 4)
    frame = next(f for f in reversed(alice.frames) if 'id="party-' in f)
    assert 'id="party"' not in frame and "gm-table" not in frame  # cells, and only hers
    gm_frame = next(f for f in reversed(gm.frames) if 'id="gm-table-' in f)
    assert 'id="gm-table"' not in gm_frame and "Garrick" not in gm_frame
