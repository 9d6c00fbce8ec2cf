"""The free-form dice box: ``3d6+2``, ``4d10k2``, ``2d6!``, ``8d6>3``, ``1d20+5 >= 15`` (the whole
notation: ``rules.expression``, the page ``/dice/``), offered in every system.

Its statistics bands are its totals, lowest (the "worst") to highest, from the exact
distribution of ``rules.expression``; a wide spread is grouped into ranges of about equal
chance (``total_bands``) so a roll stores a short list. The odds shown of an open-ended roll
(exploding dice, or many totals) are the chance of reaching a number the player types, with a
chart (``reach_odds``): that number is the preview's alone, never stored with a roll.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules import expression
from tabletop.characters.saved_rolls import dice_for
from tabletop.scenes.rollkinds import (
    RollKind,
    RollOutcome,
    field_str,
    odds_rows,
    percent,
    register_generic,
)

#: Most totals stored one by one (a d100's); a wider spread is grouped into ``STATS_GROUPS``.
STATS_MAX_BANDS = 100
STATS_GROUPS = 40
#: Between the two ends of a range of totals: "7–9".
RANGE = "–"


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    result = expression.roll(text, rng=rng)
    detail = result.to_dict()
    if "success" in detail:  # a comparison with a target, "1d20+5 >= 15": its outcome
        outcome = "success" if detail["success"] else "failure"
        summary = f"{outcome.capitalize()} ({detail['left']} {detail['op']} {detail['target']})"
        return RollOutcome(str(result.expression), summary, detail, outcome)
    return RollOutcome(title=str(result.expression), summary=str(result.total), detail=detail)


def total_bands(dist: Mapping[int, Fraction]) -> list[tuple[str, Fraction]]:
    """The totals' exact chances, lowest first; past ``STATS_MAX_BANDS`` totals, contiguous
    ranges of about 1/``STATS_GROUPS`` chance each ("7–9"), worked out from the distribution
    alone so every roll of one expression gets the same ranges."""
    items = sorted((total, p) for total, p in dist.items() if p)
    if len(items) <= STATS_MAX_BANDS:
        return [(str(total), p) for total, p in items]
    out: list[tuple[str, Fraction]] = []
    start, chance, cumulative = None, Fraction(0), Fraction(0)
    for i, (total, p) in enumerate(items):
        start = total if start is None else start
        chance += p
        cumulative += p
        if cumulative >= Fraction(len(out) + 1, STATS_GROUPS) or i == len(items) - 1:
            out.append((str(total) if start == total else f"{start}{RANGE}{total}", chance))
            start, chance = None, Fraction(0)
    return out


def total_landed(outcome: RollOutcome, keys: tuple[str, ...]) -> str | None:
    """The band (a total, or a range of totals) a roll's total is in."""
    total = outcome.detail.get("total")
    if not isinstance(total, int) or isinstance(total, bool):
        return None
    for key in keys:
        low, _, high = key.partition(RANGE)
        if int(low) <= total <= int(high or low):
            return key
    return None


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    tree = expression.parse(text)
    dist = expression.distribution(tree)
    if isinstance(tree.body, expression.Compare):  # 1 is success: its chance is the headline
        rows = odds_rows(dict(sorted(dist.items())), labels={0: "failure", 1: "success"})
        return {"rows": rows, "bands": total_bands(dist), "chance": dist.get(1, Fraction(0)),
                "goal": "to succeed"}  # fmt: skip
    if len(dist) > OPEN_ENDED_TOTALS:  # exploding dice, or just many totals: no table of ranges
        return {"reach": reach_odds(dist, data.get("at_least")), "bands": total_bands(dist)}
    return {"rows": odds_rows(dict(sorted(dist.items()))), "bands": total_bands(dist)}


# --- an open-ended roll's odds: the chance of reaching a number, and a chart ------------------

#: Past this many totals (exploding dice run on to hundreds) a table of ranges says little: the
#: odds are the chance of reaching a number the player types, beside a chart of every total.
OPEN_ENDED_TOTALS = 24
#: The "at least" a player may type, either side of zero (the box holds 8 characters).
REACH_LIMIT = 999_999
#: The chart runs from the lowest total to where this share of rolls has ended (the rest is a
#: long thin tail, named below it), in at most ``CHART_BARS`` bars.
CHART_SHOWN = Fraction(999, 1000)
CHART_BARS = 60
REACH_LABEL = "Chance of at least"


def _typed_whole_number(raw: Any) -> tuple[int | None, str]:
    """The number typed in "Chance of at least" (None when blank) and the message when it is
    not one the box takes."""
    text = str(raw or "").strip().replace("\u2212", "-")
    if not text:
        return None, ""
    if len(text) > 8 or not re.fullmatch(r"[+-]?[0-9]+", text):
        return None, f"“{REACH_LABEL}” takes a whole number, like 15."
    number = int(text)
    if abs(number) > REACH_LIMIT:
        return None, f"“{REACH_LABEL}” takes a number from −{REACH_LIMIT:,} to {REACH_LIMIT:,}."
    return number, ""


def reach_odds(dist: Mapping[int, Fraction], raw: Any) -> dict[str, Any]:
    """The exact chance that the total is at least the number typed (blank: the total a roll
    reaches about half the time), with a bar chart of the totals (bars at or past the number
    marked) and the same numbers as a table. A number the box does not take gets a message,
    and the chart stays."""
    items = sorted((total, p) for total, p in dist.items() if p)
    at_least_of: dict[int, Fraction] = {}
    left = Fraction(1)
    for total, p in items:
        at_least_of[total] = left
        left -= p
    low, high = items[0][0], items[-1][0]
    default = next((t for t, p in at_least_of.items() if p <= Fraction(1, 2)), high)
    number, error = _typed_whole_number(raw)
    target = default if number is None else number

    totals = [total for total, _ in items]

    def at_least(n: int) -> Fraction:
        i = bisect.bisect_left(totals, n)  # the first total that reaches n
        return at_least_of[totals[i]] if i < len(totals) else Fraction(0)

    chance = at_least(target)
    mean = sum((t * p for t, p in items), Fraction(0))
    out: dict[str, Any] = {
        "label": REACH_LABEL,
        "typed": str(raw or "").strip()[:8],
        "default": default,
        "at_least": target,
        "chance": chance,
        "percent": percent(chance),
        "error": error,
        "gist": error or f"At least {target}: {percent(chance)}",
        "mean": f"{float(mean):.1f}".rstrip("0").rstrip("."),
        "low": low,
        "high": high,
        "limit": f"{REACH_LIMIT:,}",
    }
    out.update(_chart(items, at_least, target, low))
    return out


def _chart(items, at_least, target: int, low: int) -> dict[str, Any]:
    """The chart's bars (an SVG's rectangles, 100 high, one wide each) and its table's rows."""
    cumulative, shown_to = Fraction(0), items[-1][0]
    for total, p in items:
        cumulative += p
        if cumulative >= CHART_SHOWN:
            shown_to = total
            break
    width = -(-(shown_to - low + 1) // CHART_BARS)  # totals per bar
    chances = dict(items)
    bars = []
    for start in range(low, shown_to + 1, width):
        end = min(start + width - 1, shown_to)
        p = sum((chances.get(t, Fraction(0)) for t in range(start, end + 1)), Fraction(0))
        bars.append({"label": str(start) if start == end else f"{start}{RANGE}{end}",
                     "chance": p, "percent": percent(p), "at_least": percent(at_least(start)),
                     "reached": start >= target})  # fmt: skip
    tallest = max(bar["chance"] for bar in bars)
    for i, bar in enumerate(bars):
        height = 0.0 if not bar["chance"] else max(float(bar["chance"] / tallest) * 100, 0.8)
        bar.update(x=f"{i + 0.1:.1f}", y=f"{100 - height:.2f}", height=f"{height:.2f}")
    peak = max(bars, key=lambda bar: bar["chance"])
    beyond = at_least(shown_to + 1)
    return {
        "bars": bars,
        "bar_count": len(bars),
        "shown_to": shown_to,
        "beyond": percent(beyond) if beyond else "",
        "chart_label": (
            f"Bar chart of the chance of each total from {low} to {shown_to}, most likely "
            f"{peak['label']} ({peak['percent']}); the table below gives every number."
        ),
    }


# --- a saved roll's name in place of dice (tabletop.characters.saved_rolls) -------------------


def _dice(data: dict[str, Any], character: Any) -> tuple[dict[str, Any], Any]:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    dice, saved = dice_for(text, data=data, character=character)
    return {**data, "expression": dice}, saved


def saved_or_typed_roll(
    *, data: dict[str, Any], character: Any, ruleset: Any, rng: Any
) -> RollOutcome:
    """``roll`` of the dice typed, or of the saved roll named, its card titled with its name
    ("Longsword: 1d20 + 5")."""
    data, saved = _dice(data, character)
    outcome = roll(data=data, character=character, ruleset=ruleset, rng=rng)
    if saved is None:
        return outcome
    return dataclasses.replace(outcome, title=f"{saved.name}: {outcome.title}")


def saved_or_typed_odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    """``odds`` of the dice typed, or of the saved roll named."""
    return odds(data=_dice(data, character)[0], character=character, ruleset=ruleset)


register_generic(
    RollKind(
        name="expression",
        label="Dice",
        card="scenes/dicebox/card.html",
        form="scenes/dicebox/form.html",
        roll=saved_or_typed_roll,
        odds=saved_or_typed_odds,
        band_of=total_landed,
    )
)
