"""How conductor's dice read on a card: a die a player raised with bennies, one pip a benny."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import DieReading


def read_die(d: Mapping[str, Any]) -> DieReading:
    """A stored die whose ``bonus`` is the bennies spent on it: "rolled 4 +1 benny"."""
    bonus, rolled = d.get("bonus"), d.get("rolled")
    if not isinstance(bonus, int) or isinstance(bonus, bool) or bonus <= 0:
        return DieReading(die=d)
    raised = f"+{bonus} {'benny' if bonus == 1 else 'bennies'}"
    words = f"rolled {rolled} {raised}" if isinstance(rolled, int) else raised
    return DieReading(die={k: v for k, v in d.items() if k != "bonus"}, marks=((words, "benny"),))
