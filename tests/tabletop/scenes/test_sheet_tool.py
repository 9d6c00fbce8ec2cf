"""The scene's Sheet tool (templates/scenes/_sheet_tool.html, tools.sheet_tool): a player's page
holds their own characters' sheets and nobody else's; the GM's holds every character of the
campaign with a picker. Each rollable is a button named for the roll ("Roll Acrobatics (1)") that
carries its roll kind and fields. The currencies mirror the Party tool's and the GM table's
cells, which the server keeps live: an award over the socket moves the cell the sheet mirrors,
and no frame carries anything of the Sheet tool (so none carries another player's sheet)."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from html.parser import HTMLParser

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from tabletop import systems
from tabletop.characters.models import Character
from tabletop.scenes import actions, tools
from tabletop.scenes.audiences import Viewer
from tests.support.tables import make_table
from tests.tabletop.scenes.conftest import seat_table


class _Element(HTMLParser):
    """The outer HTML of the element with one id (its tag counted to find its end)."""

    def __init__(self, wanted: str) -> None:
        super().__init__(convert_charrefs=False)
        self.wanted, self.tag, self.depth, self.start, self.end = wanted, "", 0, None, None

    def handle_starttag(self, tag, attrs):
        if self.start is None and ("id", self.wanted) in attrs:
            self.tag, self.depth, self.start = tag, 1, self.getpos()
        elif self.start is not None and self.end is None and tag == self.tag:
            self.depth += 1

    def handle_endtag(self, tag):
        if self.start is not None and self.end is None and tag == self.tag:
            self.depth -= 1
            if self.depth == 0:
                self.end = self.getpos()


def element(page: str, element_id: str) -> str:
    parser = _Element(element_id)
    parser.feed(page)
    if parser.start is None:
        return ""
    lines = page.splitlines(keepends=True)

    def offset(pos):
        return sum(len(line) for line in lines[: pos[0] - 1]) + pos[1]

    return page[offset(parser.start) : offset(parser.end)]


def page_of(user, scene) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("scenes:detail", args=[scene.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _table():
    table = make_table(system="conductor")
    mira = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[
            {"name": "Acrobatics", "value": 1, "specialisation": ""},
            {"name": "Weapon", "value": 2, "specialisation": "Sword"},
        ],
        bennies=2,
    )
    brannoc = Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Brannoc",
        skills=[{"name": "Poison", "value": 2, "specialisation": ""}],
        bennies=1,
    )
    troll = Character.objects.create(
        campaign=table.campaign,
        owner=table.gm,
        name="Cave troll",
        role="foe",
        difficulty=5,
        skills=[{"name": "Strength", "value": 2, "specialisation": ""}],
        hits=1,
    )
    return table, mira, brannoc, troll


def _mirrors(sheet: str) -> list[str]:
    return re.findall(r'data-mirrors="([^"]+)"', sheet)


@pytest.mark.django_db
def test_a_player_s_sheet_tool_holds_their_own_character_alone():
    table, mira, brannoc, troll = _table()
    page = page_of(table.alice, table.scene)
    sheet = element(page, "tab-sheet")
    assert 'id="tab-button-sheet"' in page and sheet
    assert "Mira" in sheet and 'id="sheet-pick"' not in sheet  # one character: no picker
    assert 'aria-label="Roll Acrobatics (1)"' in sheet
    assert 'aria-label="Roll Weapon (Sword) (3)"' in sheet
    assert 'aria-label="Attack with Weapon (Sword) (4d6)"' in sheet
    # Nothing of bob's character nor of the GM's foe: not their names, skills or numbers.
    for secret in ("Brannoc", "Poison", "Cave troll", "Strength", f'"{troll.pk}"'):
        assert secret not in sheet, secret
    # A button carries its roll: its kind, the character, the fields that pick the skill.
    button = re.search(r"<button[^>]*Roll Acrobatics \(1\)[^>]*>", sheet).group(0)
    assert 'data-roll-kind="conductor_standard"' in button
    assert f'data-character="{mira.pk}"' in button
    fields = json.loads(html.unescape(re.search(r'data-fields="([^"]*)"', button).group(1)))
    assert fields == {"skill_name": "Acrobatics"}
    # Her bennies mirror her party cell, which is on her page.
    assert _mirrors(sheet) == [f"party-{mira.pk}-{f}" for f in ("bennies", "hits", "lasting_hits")]
    assert f'id="party-{mira.pk}-bennies">2<' in page


@pytest.mark.django_db
def test_the_gm_picks_any_character_and_each_mirrors_a_cell_of_the_gm_s_page():
    table, mira, brannoc, troll = _table()
    page = page_of(table.gm, table.scene)
    sheet = element(page, "tab-sheet")
    picker = element(sheet, "sheet-pick")
    options = re.findall(r'<option value="(\d+)">([^<]+)</option>', picker)
    # The players' characters first, then the GM's, grouped by kind.
    assert options == [
        (str(brannoc.pk), "Brannoc"),
        (str(mira.pk), "Mira"),
        (str(troll.pk), "Cave troll"),
    ]
    assert re.findall(r'<optgroup label="([^"]+)"', picker) == ["Player character", "Foe"]
    for character in (mira, brannoc, troll):
        assert element(sheet, f"sheet-{character.pk}"), character.name
    assert 'aria-label="Roll Strength (2)"' in element(sheet, f"sheet-{troll.pk}")
    assert 'aria-label="Brew with Poison (3d6)"' in element(sheet, f"sheet-{brannoc.pk}")
    # A foe's numbers mirror the GM table's cells; a player character's, the Party tool's.
    assert f"gm-table-{troll.pk}-hits" in _mirrors(sheet)
    # The GM table says what a roll against the foe is against (RollKind.against).
    row = element(page, "gm-table")
    assert re.search(r"Cave troll <small class=\"muted\">Foe · difficulty 5</small>", row)
    assert "Mira <small" in row and "Player character · difficulty" not in row
    for cell in _mirrors(sheet):
        assert f'id="{cell}"' in page, cell
    # Each +/− names one of what it steps (issue 42: "one more bennies" read wrong).
    assert 'aria-label="Give Mira one more benny"' in row
    assert 'aria-label="Take one lasting hit from Cave troll"' in row


@pytest.mark.django_db
def test_a_player_with_several_characters_picks_among_them_alone():
    table, mira, brannoc, troll = _table()
    wren = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Wren")
    sheet = element(page_of(table.alice, table.scene), "tab-sheet")
    options = re.findall(r'<option value="(\d+)">([^<]+)</option>', element(sheet, "sheet-pick"))
    assert options == [(str(mira.pk), "Mira"), (str(wren.pk), "Wren")]
    assert "Nothing on Wren's sheet to roll." in sheet
    assert "Brannoc" not in sheet and "Cave troll" not in sheet


@pytest.mark.django_db
def test_a_closed_scene_has_no_sheet_tool():
    table, *_ = _table()
    actions.scene_close(scene=table.scene, actor=table.gm)
    page = page_of(table.alice, table.scene)
    assert 'id="tab-sheet"' not in page and 'id="tab-button-sheet"' not in page


@pytest.mark.django_db
def test_only_rollables_of_kinds_the_roll_forms_offer_are_drawn(monkeypatch):
    table, mira, *_ = _table()
    system = systems.get("conductor")

    def declared(character, ruleset):
        return [
            systems.Rollable(
                "Skills", "Acrobatics", "1", "conductor_standard", {"skill_name": "Acrobatics"}
            ),
            systems.Rollable("Secrets", "Perception", "5", "no_such_kind", {}),
        ]

    monkeypatch.setattr(
        tools.systems, "find", lambda slug: dataclasses.replace(system, rollables=declared)
    )
    sheets = tools.sheet_tool(table.scene, Viewer(user_id=table.alice.pk, is_gm=False))
    assert [c["character"].name for c in sheets] == ["Mira"]
    assert [(s["title"], len(s["rollables"])) for s in sheets[0]["sections"]] == [("Skills", 1)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_an_award_moves_the_cell_alice_s_sheet_mirrors_and_no_frame_carries_a_sheet():
    table, mira, brannoc, troll = await sync_to_async(_table)()
    gm, alice, bob = await seat_table(table)
    await gm.send(command="award", character=mira.pk, field="bennies", amount=1)
    for sock in (gm, alice, bob):
        await sock.drain()
    # The Party tool's cell of Mira's bennies, which her Sheet tool mirrors, reached her page.
    assert f'<span id="party-{mira.pk}-bennies">3</span>' in alice.everything()
    for sock in (alice, bob):
        frames = sock.everything()
        assert 'id="party-' in frames
        for sheet_only in ("tab-sheet", "data-rollable", "data-mirrors", "Poison", "Acrobatics"):
            assert sheet_only not in frames, sheet_only
    for sock in (gm, alice, bob):
        await sock.close()
