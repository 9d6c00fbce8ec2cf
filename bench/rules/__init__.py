"""Rules-speed benchmark cases, one module per system.

Each module ``bench/rules/<slug>.py`` defines ``cases() -> list[Case]``: the odds questions the UI
asks, each with our uncached callable and, where icepool can express the question, an icepool
callable that computes the same answer. ``bench/rules_speed.py`` times them and prints the ratios.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    label: str
    ours: Callable[[], Any]  # must compute uncached (clear caches inside if needed)
    icepool: Callable[[], Any] | None = None
    # Turn both answers into comparable {outcome: Fraction} (or a Fraction) to prove they agree.
    same_answer: Callable[[Any, Any], bool] | None = None
