"""Spend odds on the turn tracker (issue 16): a reaction says what a successful hinder or
resist buys against the pending check, every band before → after, exact over the penalty die,
in the text and in the reaction button's accessible name."""

from __future__ import annotations

import html
import itertools
import re
from fractions import Fraction

import pytest

from tabletop.scenes.audiences import Viewer
from tabletop.scenes.procedures import turns as turns_view
from tabletop.scenes.rollkinds import percent
from tabletop.scenes.tools import render_tools_and_views
from tabletop.systems.two_dice import checks
from tests.tabletop.systems.two_dice.tables import start, two_dice_table

pytestmark = pytest.mark.django_db


def bands(penalty_faces) -> dict[str, Fraction]:
    """Tamsin's Normal Agility check (2d6 + 3) less a penalty die, by brute force (seed: 15+
    succeeds, 20+ critical, 10 or lower a critical failure)."""
    out = dict.fromkeys(("critical failure", "failure", "success", "critical success"), Fraction(0))
    rolls = list(itertools.product(range(1, 7), range(1, 7), penalty_faces))
    for a, b, face in rolls:
        total = a + b + 3 - face
        name = (
            "critical success"
            if total >= 20
            else "success"
            if total >= 15
            else "critical failure"
            if total <= 10
            else "failure"
        )
        out[name] += Fraction(1, len(rolls))
    return out


def test_a_reaction_says_what_each_band_becomes():
    table, cast = two_dice_table()
    start(table, cast)
    checks.check_declare(
        scene=table.scene,
        actor=table.alice,
        character=cast["tamsin"],
        targets=[cast["rhee"]],
        attribute="Agility",
        difficulty="Normal",
        resource="Stamina",
    )
    text = render_tools_and_views(
        table.scene, Viewer(user_id=table.bob.pk, is_gm=False), oob=True, only=[turns_view.NAME]
    )
    text = html.unescape(text)
    before, after = bands([0]), bands(range(1, 7))
    words = ", ".join(
        f"{name} {percent(before[name])} → {percent(after[name])}"
        for name in before
        if before[name] or after[name]
    )
    success_now = percent(before["success"] + before["critical success"])
    success_then = percent(after["success"] + after["critical success"])
    assert f"A successful hinder: Tamsin's check succeeds {success_now} → " in text
    assert f"({words})" in text
    label = "Roll the reaction for Garrick (a successful hinder: Tamsin's check succeeds "
    label += f"{success_now} to {success_then})"
    assert f'aria-label="{label}"' in text
    # Rhee is a target: the GM's page offers Rhee a resist too, against Rhee only.
    gm = html.unescape(
        render_tools_and_views(
            table.scene, Viewer(user_id=table.gm.pk, is_gm=True), oob=True, only=[turns_view.NAME]
        )
    )
    resist = r"A successful resist: Tamsin's check succeeds [^ ]+ → <b>[^<]+</b> against Rhee"
    assert re.search(resist, gm)
