"""What the roll-form tests of every system share: a table with one character, a roll sent
over a player's socket, the roll events, and the odds endpoint."""

from __future__ import annotations

import html
import re
from typing import Any

from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from tabletop.characters.models import Character
from tabletop.scenes.models import SceneEvent
from tests.support.tables import make_table
from tests.tabletop.scenes.conftest import connect, events

#: A valid roll form input for each roll kind, typed off-sheet where the kind allows it (the
#: secrecy property test rolls each; the card tests check each one's stored odds).
ROLL_FORM_INPUTS: dict[str, tuple[str, dict[str, Any]]] = {
    "expression": ("conductor", {"expression": "1d6!"}),
    "conductor_standard": ("conductor", {"skill_name": "Acrobatics", "difficulty": 7}),
    # The difficulty is the troll's when the troll is picked (not for a self roll).
    "conductor_attack": ("conductor", {"skill_name": "Acrobatics", "difficulty": 4}),
    "conductor_heal": ("conductor", {"difficulty": "4"}),
    "conductor_poison": ("conductor", {}),
    "annulus_check": ("annulus", {"difficulty": "medium", "type_1": "Knowledge", "perk_dice": 0}),
    "roll_and_keep": (
        "roll_and_keep",
        {"difficulty": "Standard", "dice": 3, "specialities": 0, "keep": 2},
    ),
    "two_dice": (
        "two_dice",
        {
            "attribute": "Might",
            "resource": "Health",
            "difficulty": "Normal",
            "attribute_value": 3,
            "resource_available": 1,
        },
    ),
    "percentile": ("percentile", {"skill_value": 40}),
    "percentile_running": ("percentile", {"quickness": 5, "mv": 20, "pace": "2"}),
    "percentile_potency": ("percentile", {"potency": 30, "resistance": 10}),
    "percentile_breakage": ("percentile", {"potency": 20}),
    "percentile_pure_chance": ("percentile", {"chance": 50}),
}


def table_with_character(system: str, **sheet):
    table = make_table(system=system)
    character = Character.objects.create(
        campaign=table.campaign, owner=table.alice, name="Ayla", **sheet
    )
    return table, character


def rolls() -> list[SceneEvent]:
    return events("roll")


async def roll_as(user, scene, **fields):
    sock = await connect(user, scene)
    sock.frames.clear()
    await sock.send(command="roll", mode="public", **fields)
    await sock.drain()
    await sock.close()
    return sock.everything()


async def roll_via_socket(table, character, **fields):
    sock = await connect(table.alice, table.scene)
    sock.frames.clear()
    await sock.send(command="roll", character=str(character.pk), mode="public", **fields)
    await sock.drain()
    await sock.close()
    return html.unescape(sock.everything()), await sync_to_async(rolls)()


def odds(user, scene, **params):
    client = Client()
    client.force_login(user)
    response = client.get(reverse("scenes:odds", args=[scene.pk]), params)
    assert response.status_code == 200
    return response


def odds_page(table, **params) -> str:
    return html.unescape(odds(table.alice, table.scene, **params).content.decode())


def row_total(response) -> float:
    rows = response.context["odds"]["rows"]
    assert rows
    return sum(float(row["value"]) for row in rows)


def meter_sum(page: str) -> float:
    values = [float(v) for v in re.findall(r'<meter [^>]*value="([0-9.]+)"', page)]
    assert values, page
    return sum(values)


def assert_odds_error(system: str, roll_kind: str, params: dict, message: str) -> None:
    """Bad roll form input gets the odds endpoint's clear error, and no bar chart."""
    table, ayla = table_with_character(system)
    page = odds_page(table, roll_kind=roll_kind, character=ayla.pk, **params)
    assert 'class="odds-error"' in page and message in page
    assert "<meter" not in page


def assert_roll_forms_render(system: str, sheet: dict, expected: list[str]) -> None:
    """The system's roll forms on the scene page show what the sheet says (no inline code)."""
    table, _ayla = table_with_character(system, **sheet)
    client = Client()
    client.force_login(table.alice)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    for text in expected:
        assert text in page
    assert "style=" not in page and "<script>" not in page
