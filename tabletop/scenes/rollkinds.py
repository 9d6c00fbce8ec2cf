"""Roll kinds: the bridge between a roll form's input, a character's sheet and ``rules/``.

Each roll kind parses the roll form's fields (clear ``ValidationError`` on bad input), calls the
rules engine with the production dice (or a test's rng), and returns what the card shows. Game
systems bring their kinds with their ``System`` (tabletop.systems); the dice box
(``tabletop.scenes.dicebox``) is offered in every system. ``ROLL_KINDS`` maps every kind's name
to it, for cards and commands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
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
    #: procedure records (a contest's sides, a foe's strike-back): a card, no roll form.
    roll: Callable[..., RollOutcome] | None = None
    form: str = ""  # the roll form's fields (a template)
    #: odds(*, data, character, ruleset) -> {"rows", "note"} for the roll form's odds, and, when the
    #: roll has one goal, "chance" (a Fraction) and "goal" ("to succeed"): the card's headline;
    #: "bands": every outcome band's exact chance, worst to best (``ordered_bands``), stored with
    #: the roll for the dice statistics (tabletop/stats).
    odds: Callable[..., dict[str, Any]] | None = None
    #: band_of(outcome, keys) -> which of the stored bands' keys a roll landed in (None: none
    #: of them). Default: the outcome's ``outcome`` (a band or degree name).
    band_of: Callable[[RollOutcome, tuple[str, ...]], str | None] | None = None
    #: How the statistics page names each band (default: the key, its ``_`` as spaces).
    band_labels: Mapping[str, str] = field(default_factory=dict)
    #: Why rolls of this kind never store odds (the statistics page says so): "their odds
    #: depend on the other side's roll". Empty for kinds whose rolls do.
    no_odds: str = ""
    #: A roll the roll form may make against a foe it picks: against(foe) -> the fields the foe
    #: sets (its difficulty, as its system's sheet keeps it). None: no foe.
    against: Callable[[Any], dict[str, Any]] | None = None
    on_roll_form: bool = True  # False: rolled by a procedure only (the GM's perception roll)
    #: What a roll of this kind sets going at the table once everyone may see it (a foe that
    #: strikes back): consequences(event=, rng=, context=), recording with the command's
    #: context (its broadcasts held with the roll's). Public rolls run it at once; a hidden roll's
    #: wait for its reveal, so nothing gives a hidden outcome away (SECURITY.md).
    consequences: Callable[..., Any] | None = None
    #: Procedure views a roll of this kind makes stale (a contest's sides: "contests").
    stale: frozenset[str] = frozenset()

    def facing(self, foe: Any) -> dict[str, Any]:
        """The fields a roll against ``foe`` takes from it (its difficulty...) and its name."""
        if self.against is None:
            raise ValidationError(f"A {self.label.lower()} is not made against a foe.")
        return {**self.against(foe), "foe_name": foe.name}


#: Every roll kind by name (the dice box and every registered system's).
ROLL_KINDS: dict[str, RollKind] = {}
#: Kinds every system offers (the dice box).
GENERIC_KINDS: dict[str, RollKind] = {}


def register_generic(kind: RollKind) -> RollKind:
    systems.claim(ROLL_KINDS, kind.name, kind, what="roll kind", owner="generic code")
    GENERIC_KINDS[kind.name] = kind
    return kind


def _added(system: systems.System) -> None:
    for kind in system.roll_kinds:
        owner = f"system {system.slug!r}"
        systems.claim(ROLL_KINDS, kind.name, kind, what="roll kind", owner=owner)


def _removed(system: systems.System) -> None:
    for kind in system.roll_kinds:
        systems.release(ROLL_KINDS, kind.name, kind)


systems.on_register(_added, _removed)


def kinds_for(slug: str) -> list[RollKind]:
    """The roll forms of a campaign of system ``slug``: its own kinds, then the dice box."""
    system = systems.find(slug)
    own = list(system.roll_kinds) if system else []
    return [k for k in [*own, *GENERIC_KINDS.values()] if k.on_roll_form and k.roll is not None]


def offered(kind: RollKind | None, slug: str) -> bool:
    return kind is not None and kind in kinds_for(slug)


def field_int(data: Mapping[str, Any], name: str, *, label: str, low: int, high: int) -> int:
    """An integer field from a roll form, or a ValidationError a player understands."""
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
    ``{"percent": "41.7%", "value": "0.4167", "goal": "to succeed"}``, and every outcome band's
    exact chance worst to best, ``"bands": [["failure", "7/12"], ["success", "5/12"]]``, for
    the dice statistics (``record_roll`` adds the band it landed in). Only the bands when the
    kind has no single goal (the dice box); None when its odds can't be worked out: the roll
    is made anyway. Strings only, so the commitment to a hidden roll hashes the same in every
    browser."""
    if kind.odds is None:
        return None
    try:
        odds = kind.odds(data=dict(data), character=character, ruleset=ruleset)
    except (ValidationError, RulesError):
        return None
    return stored_odds(odds)


def stored_odds(odds: Any) -> dict[str, Any] | None:
    """An odds function's answer as a roll stores it (``headline_odds``): also for the rolls a
    procedure makes with odds it worked out itself."""
    if not isinstance(odds, Mapping):
        return None
    out: dict[str, Any] = {}
    chance = odds.get("chance")
    if isinstance(chance, Fraction) and 0 <= chance <= 1:
        goal = odds.get("goal")
        out.update(
            percent=percent(chance),
            value=f"{float(chance):.4f}",
            goal=goal if isinstance(goal, str) and goal else "to succeed",
        )
    bands = _stored_bands(odds.get("bands"))
    if bands:
        out["bands"] = bands
    return out or None


def ordered_bands(
    dist: Mapping[Any, Fraction], order: Iterable[Any] | None = None
) -> list[tuple[str, Fraction]]:
    """A distribution as the statistics store it: (band key, exact chance) from the worst band
    to the best, bands that can't happen left out. ``order``: the keys worst to best (default:
    the keys sorted, for numbers: more is better)."""
    keys = list(order) if order is not None else sorted(dist)
    return [(str(k), dist[k]) for k in keys if dist.get(k)]


def hit_bands(dist: Mapping[int, Fraction], top: int) -> list[tuple[str, Fraction]]:
    """Counts 0..top-1 and "top+" (everything from ``top`` up), for the statistics: one set of
    bands for every roll of a kind whatever its pool, so their counts add up."""
    out = [(str(n), dist.get(n, Fraction(0))) for n in range(top)]
    out.append((f"{top}+", sum((p for n, p in dist.items() if n >= top), Fraction(0))))
    return [(k, p) for k, p in out if p]


def hits_band(hits: Any, keys: tuple[str, ...]) -> str | None:
    """The band of ``hit_bands`` a count of hits falls in."""
    if not isinstance(hits, int) or isinstance(hits, bool) or hits < 0:
        return None
    for key in keys:
        if key == str(hits) or (key.endswith("+") and hits >= int(key[:-1])):
            return key
    return None


def _stored_bands(raw: Any) -> list[list[str]] | None:
    """The odds function's bands as stored: ``[[key, "5/12"], ...]`` (bands that can't happen
    left out), or None when they are not a distribution (unique keys, exact chances in [0, 1]
    that add up to exactly 1)."""
    if not isinstance(raw, list | tuple) or not raw:
        return None
    out, keys, total = [], set(), Fraction(0)
    for item in raw:
        if not isinstance(item, list | tuple) or len(item) != 2:
            return None
        key, p = item
        if not isinstance(key, str) or not key or key in keys or not isinstance(p, Fraction):
            return None
        if not 0 <= p <= 1:
            return None
        keys.add(key)
        total += p
        if p:
            out.append([key, str(p)])
    return out if total == 1 else None


def landed_band(kind: RollKind | None, odds: Mapping[str, Any] | None, outcome: RollOutcome):
    """``odds`` with the band the roll landed in (``"band"``), worked out from its outcome; its
    ``bands`` dropped when the outcome is in none of them (nothing the statistics could use)."""
    if not odds or "bands" not in odds:
        return odds
    keys = tuple(key for key, _ in odds["bands"])
    if kind is not None and kind.band_of is not None:
        band = kind.band_of(outcome, keys)
    else:
        band = outcome.outcome or None
    if band in keys:
        return {**odds, "band": band}
    rest = {k: v for k, v in odds.items() if k != "bands"}
    return rest or None
