"""Roll kinds: the bridge between a roll panel's input, a character's sheet and ``rules/``.

Each roll kind parses the panel's fields (clear ``ValidationError`` on bad input), calls the rules
engine with the production dice (or a test's rng), and returns what the card shows. Game systems
bring their kinds with their ``System`` (tabletop.systems); the dice box
(``tabletop.scenes.dicebox``) is offered in every system. ``ROLL_KINDS`` maps every kind's name
to it, for cards and commands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError

from rules.core import RulesError
from tabletop import systems


@dataclass(frozen=True)
class RollOutcome:
    title: str  # "Attack with Weapon (Sword) vs 4"
    summary: str  # "2 hits" / "Success (17)"
    detail: dict[str, Any]  # the rules result's to_dict(), for the card and for audit
    outcome: str = ""  # a short band/degree name used for styling: success, failure, ...


@dataclass(frozen=True)
class RollKind:
    name: str  # stored in every roll event: never rename one
    label: str
    card: str  # the card's body: the dice as rolled (a template)
    #: roll(*, data, character, ruleset, rng) -> RollOutcome; None for the kinds that only a
    #: procedure records (a contest's sides, a foe's strike-back): a card, no panel.
    roll: Callable[..., RollOutcome] | None = None
    form: str = ""  # the roll panel's fields (a template)
    #: odds(*, data, character, ruleset) -> {"rows", "note"} for the odds panel, and, when the
    #: roll has one goal, "chance" (a Fraction) and "goal" ("to succeed"): the card's headline.
    odds: Callable[..., dict[str, Any]] | None = None
    targets_foe: bool = False  # the panel may pick a foe, whose difficulty the roll is against
    on_panel: bool = True  # False: rolled by a procedure only (the GM's perception roll)
    #: What a roll of this kind sets going at the table once everyone may see it (a foe that
    #: strikes back): consequences(event=, rng=). Public rolls run it at once; a hidden roll's
    #: wait for its reveal, so nothing gives a hidden outcome away (SECURITY.md).
    consequences: Callable[..., Any] | None = None
    #: Procedure panels a roll of this kind makes stale (a contest's sides: "contests").
    stale: frozenset[str] = frozenset()


#: Every roll kind by name (the dice box and every registered system's).
ROLL_KINDS: dict[str, RollKind] = {}
#: Kinds every system offers (the dice box).
GENERIC_KINDS: dict[str, RollKind] = {}


def register_generic(kind: RollKind) -> RollKind:
    GENERIC_KINDS[kind.name] = ROLL_KINDS[kind.name] = kind
    return kind


def _added(system: systems.System) -> None:
    for kind in system.roll_kinds:
        ROLL_KINDS[kind.name] = kind


def _removed(system: systems.System) -> None:
    for kind in system.roll_kinds:
        ROLL_KINDS.pop(kind.name, None)


systems.on_register(_added, _removed)


def kinds_for(slug: str) -> list[RollKind]:
    """The roll panels of a campaign of system ``slug``: its own kinds, then the dice box."""
    system = systems.find(slug)
    own = list(system.roll_kinds) if system else []
    return [k for k in [*own, *GENERIC_KINDS.values()] if k.on_panel and k.roll is not None]


def offered(kind: RollKind | None, slug: str) -> bool:
    return kind is not None and kind in kinds_for(slug)


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


def headline_odds(
    kind: RollKind, *, data: Mapping[str, Any], character: Any, ruleset: Any
) -> dict[str, str] | None:
    """The chance a roll had before it was made, as stored with it and shown on its card:
    ``{"percent": "41.7%", "value": "0.4167", "goal": "to succeed"}``. None when the kind has
    no single goal (the dice box) or its odds can't be worked out: the roll is made anyway.
    Strings only, so the commitment to a hidden roll hashes the same in every browser."""
    if kind.odds is None:
        return None
    try:
        odds = kind.odds(data=dict(data), character=character, ruleset=ruleset)
    except (ValidationError, RulesError):
        return None
    chance = odds.get("chance") if isinstance(odds, Mapping) else None
    if not isinstance(chance, Fraction) or not 0 <= chance <= 1:
        return None
    goal = odds.get("goal")
    return {
        "percent": percent(chance),
        "value": f"{float(chance):.4f}",
        "goal": goal if isinstance(goal, str) and goal else "to succeed",
    }
