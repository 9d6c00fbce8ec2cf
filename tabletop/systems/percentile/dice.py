"""How percentile's d100 reads on a card: a face (1-100) added or, after a low open-ended
roll, subtracted; a roll again on a high one; a face the player chose with plot points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import DieReading


def read_die(d: Mapping[str, Any]) -> DieReading:
    """A stored d100 (``face``, ``sign``, ``exploded``, ``chosen``) as the generic die tag
    reads it (a 100-sided die showing its face) and the words only this system says."""
    marks: list[tuple[str, str]] = []
    if d.get("exploded"):
        marks.append(("rolls again", "exploded"))
    if d.get("sign") == -1:
        marks.append(("subtracted", "subtracted"))
    if d.get("chosen"):
        marks.append(("chosen with plot points", "chosen"))
    return DieReading(die={"value": d.get("face"), "sides": 100}, marks=tuple(marks))
