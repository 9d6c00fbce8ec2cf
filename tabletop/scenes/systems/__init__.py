"""Roll kinds: the bridge between a roll panel's input, a character's sheet and ``rules/``.

Each roll kind parses the panel's fields (clear ``ValidationError`` on bad input), calls the rules
engine with the production dice (or a test's rng), and returns what the card shows. A system module
registers its kinds with ``register``; ``ROLL_KINDS`` maps a kind's name to it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError


@dataclass(frozen=True)
class RollOutcome:
    title: str  # "Attack with Weapon (Sword) vs 4"
    summary: str  # "2 hits" / "Success (17)"
    detail: dict[str, Any]  # the rules result's to_dict(), for the card and for audit
    outcome: str = ""  # a short band/degree name used for styling: success, failure, ...


@dataclass(frozen=True)
class RollKind:
    name: str
    label: str
    systems: tuple[str, ...]  # campaign systems that offer it ("*" for all)
    roll: Callable[..., RollOutcome]  # roll(*, data, character, ruleset, rng) -> RollOutcome
    odds: Callable[..., dict[str, Any]] | None = None  # odds(*, data, character, ruleset)
    targets_foe: bool = False  # the panel may pick a foe, whose difficulty the roll is against


ROLL_KINDS: dict[str, RollKind] = {}


def register(kind: RollKind) -> RollKind:
    ROLL_KINDS[kind.name] = kind
    return kind


def kinds_for(system: str) -> list[RollKind]:
    return [k for k in ROLL_KINDS.values() if "*" in k.systems or system in k.systems]


def field_int(data: Mapping[str, Any], name: str, *, label: str, low: int, high: int) -> int:
    """An integer field from a panel, or a ValidationError a player understands."""
    raw = data.get(name)
    if isinstance(raw, bool):
        raise ValidationError(f"{label} must be a whole number.")
    try:
        value = int(str(raw).strip())
    except (TypeError, ValueError):
        raise ValidationError(f"{label} must be a whole number.") from None
    if not low <= value <= high:
        raise ValidationError(f"{label} must be between {low} and {high}.")
    return value


def field_int_or_zero(
    data: Mapping[str, Any], name: str, *, label: str, low: int, high: int
) -> int:
    """An optional integer field: blank or missing means 0."""
    if data.get(name) in (None, ""):
        return 0
    return field_int(data, name, label=label, low=low, high=high)


def field_str(data: Mapping[str, Any], name: str, *, label: str, max_length: int = 200) -> str:
    raw = data.get(name)
    if not isinstance(raw, str) or not raw.strip():
        raise ValidationError(f"{label} is required.")
    if len(raw) > max_length:
        raise ValidationError(f"{label} is too long (at most {max_length} characters).")
    return raw.strip()


def odds_rows(
    dist: Mapping[Any, Fraction], *, labels: Mapping[Any, str] | None = None, max_rows: int = 24
) -> list[dict[str, Any]]:
    """Rows for the odds bar chart; a long numeric support is grouped into ranges."""
    items = [(k, p) for k, p in dist.items() if p]
    if labels is None and len(items) > max_rows and all(isinstance(k, int) for k, _ in items):
        items.sort()
        size = -(-len(items) // max_rows)
        grouped = []
        for start in range(0, len(items), size):
            chunk = items[start : start + size]
            low, high = chunk[0][0], chunk[-1][0]
            label = str(low) if low == high else f"{low}–{high}"
            grouped.append((label, sum((p for _, p in chunk), Fraction(0))))
        items = grouped
    rows = []
    for key, p in items:
        label = labels.get(key, str(key)) if labels else str(key)
        rows.append({"label": label, "value": f"{float(p):.4f}", "percent": percent(p)})
    return rows


def percent(p: Fraction) -> str:
    """A probability as a person reads it: 0.1%, 12.5%, <0.1%, 100%."""
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    value = float(p) * 100
    if value < 0.1:
        return "<0.1%"
    if value > 99.9:
        return ">99.9%"
    return f"{value:.1f}%"


def load_all() -> None:
    """Import every module of this package so each registers its roll kinds (once, at startup)."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
