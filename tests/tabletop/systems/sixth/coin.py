"""A sixth game system, "coin", defined entirely here: its rules (a coin toss), one roll kind,
one card template, one procedure panel. Registering it touches no generic code."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

from rules.core import Rng, RulesError
from tabletop.characters.sheets import SheetSpec
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.procedures import ProcedurePanel
from tabletop.scenes.rollkinds import RollKind, RollOutcome, odds_rows
from tabletop.systems import System

TEMPLATES = Path(__file__).parent / "templates"
FACES = ("heads", "tails")
DEFAULT_RULESET: dict[str, Any] = {"calls": True}


# --- the rules (what a rules/ module would hold) ---------------------------------------------


def validate_ruleset(data: Any) -> dict[str, Any]:
    if data not in (None, {}) and not isinstance(data, dict):
        raise RulesError("The ruleset must be a mapping.")
    return {**DEFAULT_RULESET, **(data or {})}


def toss(*, rng: Rng) -> str:
    return FACES[rng.randint(1, 2) - 1]


# --- the web side (what tabletop/systems/coin/ would hold) -----------------------------------


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Rng) -> RollOutcome:
    face = toss(rng=rng)
    called = str(data.get("call") or "heads")
    if called not in FACES:
        raise RulesError("Call heads or tails.")
    won = face == called
    return RollOutcome(
        title=f"A coin toss, {called} called",
        summary=f"{face.capitalize()}: {'won' if won else 'lost'}",
        detail={"face": face, "called": called},
        outcome="success" if won else "failure",
    )


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    return {"rows": odds_rows({"heads": Fraction(1, 2), "tails": Fraction(1, 2)})}


def tally(scene: Any, viewer: Any) -> dict[str, Any]:
    """The panel: how many tosses the table has seen."""
    seen = SceneEvent.objects.filter(scene=scene, kind="roll", public__roll_kind="coin_flip")
    return {"tosses": seen.count()}


SYSTEM = System(
    slug="coin",
    label="Coin (one toss)",
    rules=sys.modules[__name__],  # this module is the system's rules
    roll_kinds=(
        RollKind(
            name="coin_flip",
            label="Toss a coin",
            card="systems/coin/rolls/flip.html",
            form="systems/coin/forms/flip.html",
            roll=roll,
            odds=odds,
            stale=frozenset({"coin_tally"}),
        ),
    ),
    panels=(
        ProcedurePanel(
            name="coin_tally",
            label="Tosses",
            template="systems/coin/panels/tally.html",
            context=tally,
        ),
    ),
    sheet=lambda ruleset: SheetSpec(system="coin"),
)
