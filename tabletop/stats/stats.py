"""Dice statistics: are my dice rigged?

Every roll made with exact odds stores them (``rollkinds.headline_odds``): the chance of each
outcome band, worst to best, as exact fractions, and the band the roll landed in. For each
roller and each kind of roll (the dice box: each expression) this module counts the rolls and
compares the bands they landed in with the exact expectation:

- expected count of a band = the sum over the rolls of that roll's chance of it (rolls of one
  kind are made against different difficulties, so each brings its own chances);
- Pearson's chi-square goodness of fit over the bands (``scipy.stats.chisquare``), adjacent
  bands merged until every expected count is at least ``MIN_EXPECTED``; with fewer than two
  such cells there is no test ("not enough rolls yet to say");
- the luck index: the mean over the rolls of the mid-rank percentile of the band landed in,
  P(worse) + P(same) / 2, times 100. 50 is average luck whatever the odds were; its spread
  under fair dice is exact from the same chances, so the page can say what range fair dice
  give for that many rolls.

Only rolls the viewer sees in full count (``audiences.visibility``): a hidden roll once revealed,
never a stub, never a roll kept from them, not even in a count. Rolls stored without bands
(before odds were stored, or whose odds depend on another roll: contests, opposed checks) are
counted and left out of the test and the luck index, with a note.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scipy import stats as scipy_stats

#: Pearson's rule of thumb: every merged cell expects at least this many rolls.
MIN_EXPECTED = 5
#: Below this p-value a kind of roll is flagged: fair dice do this about once in 100 tests.
FLAG_P = 0.01
STRONG_P = 0.001
UNUSUAL_P = 0.05
#: The luck range fair dice stay within 95% of the time (a normal approximation).
LUCK_Z = 1.96
EVERYONE = "Everyone at the table"


@dataclass(frozen=True)
class Roll:
    """One roll as the statistics see it."""

    roller: str
    kind: str  # the roll kind's name
    group: str  # what the rolls are grouped by: the kind, or the dice box's expression
    label: str  # "Standard roll", "Dice: 3d6"
    bands: tuple[tuple[str, Fraction], ...] = ()  # worst to best; () without stored odds
    band: str = ""  # the band it landed in

    @property
    def fitted(self) -> bool:
        return bool(self.bands) and self.band in dict(self.bands)


def stored_bands(odds: Any) -> tuple[tuple[tuple[str, Fraction], ...], str]:
    """A roll's stored ``odds`` as (bands, band landed in); ((), "") when it has none, or
    anything that is not an exact distribution with the band in it."""
    if not isinstance(odds, Mapping):
        return (), ""
    raw, band = odds.get("bands"), odds.get("band")
    if not isinstance(raw, list) or not isinstance(band, str):
        return (), ""
    bands = []
    try:
        for key, p in raw:
            if not isinstance(key, str) or not isinstance(p, str):
                return (), ""
            bands.append((key, Fraction(p)))
    except (TypeError, ValueError, ZeroDivisionError):
        return (), ""
    keys = [k for k, _ in bands]
    if (
        len(set(keys)) != len(keys)
        or band not in keys
        or any(not 0 < p <= 1 for _, p in bands)
        or sum(p for _, p in bands) != 1
    ):
        return (), ""
    return tuple(bands), band


# --- the computation ----------------------------------------------------------------------------


def band_order(rolls: Iterable[Roll]) -> list[str]:
    """Every band of the rolls, worst to best: each roll's own order, merged (a band one roll
    lacks goes in after the band before it in the roll that has it)."""
    order: list[str] = []
    for roll in rolls:
        previous = -1
        for key, _ in roll.bands:
            if key in order:
                previous = order.index(key)
            else:
                order.insert(previous + 1, key)
                previous += 1
    return order


def expected_counts(rolls: Sequence[Roll]) -> dict[str, Fraction]:
    """The exact expected count of each band: the sum of every roll's chance of it."""
    out: dict[str, Fraction] = {}
    for roll in rolls:
        for key, p in roll.bands:
            out[key] = out.get(key, Fraction(0)) + p
    return out


def observed_counts(rolls: Sequence[Roll]) -> dict[str, int]:
    out: dict[str, int] = {}
    for roll in rolls:
        out[roll.band] = out.get(roll.band, 0) + 1
    return out


def merge_cells(
    cells: Sequence[tuple[str, int, Fraction]], minimum: int = MIN_EXPECTED
) -> list[tuple[list[str], int, Fraction]]:
    """Adjacent bands (in order, so a merged cell is a run of neighbours) joined until each
    cell's expected count is at least ``minimum``; a short tail joins the cell before it."""
    groups: list[tuple[list[str], int, Fraction]] = []
    keys: list[str] = []
    observed, expected = 0, Fraction(0)
    for key, obs, exp in cells:
        keys, observed, expected = [*keys, key], observed + obs, expected + exp
        if expected >= minimum:
            groups.append((keys, observed, expected))
            keys, observed, expected = [], 0, Fraction(0)
    if keys:
        if groups:
            last_keys, last_obs, last_exp = groups.pop()
            groups.append((last_keys + keys, last_obs + observed, last_exp + expected))
        else:
            groups.append((keys, observed, expected))
    return groups


@dataclass(frozen=True)
class Fit:
    """Pearson's chi-square test of the bands landed in against the exact odds."""

    statistic: float
    df: int
    p_value: float
    cells: int  # after merging
    bands: int  # before merging


def goodness_of_fit(rolls: Sequence[Roll]) -> Fit | None:
    """The test over the rolls' bands, or None when too few rolls leave two cells that each
    expect ``MIN_EXPECTED``."""
    rolls = [r for r in rolls if r.fitted]
    order = band_order(rolls)
    expected, observed = expected_counts(rolls), observed_counts(rolls)
    cells = merge_cells([(k, observed.get(k, 0), expected[k]) for k in order])
    if len(cells) < 2 or any(exp < MIN_EXPECTED for _, _, exp in cells):
        return None
    f_obs = [obs for _, obs, _ in cells]
    f_exp = [float(exp) for _, _, exp in cells]
    result = scipy_stats.chisquare(f_obs, f_exp=f_exp)
    return Fit(
        statistic=float(result.statistic),
        df=len(cells) - 1,
        p_value=float(result.pvalue),
        cells=len(cells),
        bands=len(order),
    )


def percentile_of(roll: Roll) -> Fraction:
    """The mid-rank percentile (0..1) of the band a roll landed in under its exact odds:
    P(a worse band) + P(that band) / 2."""
    worse = Fraction(0)
    for key, p in roll.bands:
        if key == roll.band:
            return worse + p / 2
        worse += p
    raise ValueError(f"band {roll.band!r} is not one of the roll's bands")


def luck_index(rolls: Sequence[Roll]) -> Fraction | None:
    """The mean mid-rank percentile of the rolls, times 100:
    50 is average luck."""
    rolls = [r for r in rolls if r.fitted]
    if not rolls:
        return None
    return 100 * sum((percentile_of(r) for r in rolls), Fraction(0)) / len(rolls)


def luck_range(rolls: Sequence[Roll]) -> tuple[float, float] | None:
    """The luck index fair dice give 95% of the time for these rolls: 50 ± 1.96 standard
    errors, the variance of each roll's percentile exact from its odds."""
    rolls = [r for r in rolls if r.fitted]
    if not rolls:
        return None
    variance = Fraction(0)
    for roll in rolls:
        worse, second = Fraction(0), Fraction(0)
        for _, p in roll.bands:
            second += p * (worse + p / 2) ** 2
            worse += p
        variance += second - Fraction(1, 4)
    spread = 100 * LUCK_Z * math.sqrt(variance) / len(rolls)
    return max(0.0, 50 - spread), min(100.0, 50 + spread)


# --- what the page shows ------------------------------------------------------------------------


@dataclass(frozen=True)
class BandRow:
    key: str
    label: str
    observed: int
    expected: float  # the expected count

    @property
    def expected_text(self) -> str:
        return f"{self.expected:.1f}"


@dataclass
class KindStats:
    group: str
    kind: str
    label: str
    count: int  # every roll of it the viewer sees
    fitted: int  # those with stored odds: in the test and the luck index
    rows: list[BandRow]
    fit: Fit | None
    luck_index: float | None
    luck_range: tuple[float, float] | None
    notes: list[str] = field(default_factory=list)
    chart_id: str = ""

    @property
    def flagged(self) -> bool:
        return self.fit is not None and self.fit.p_value < FLAG_P

    @property
    def verdict(self) -> str:
        if self.fit is None:
            return "Not enough rolls yet to say"
        p = self.fit.p_value
        if p < STRONG_P:
            return "Very unlikely to be chance: these dice look off"
        if p < FLAG_P:
            return "Unlikely to be chance: these dice look off"
        if p < UNUSUAL_P:
            return "A little unusual (among many kinds of roll, some will be by chance)"
        return "Consistent with fair dice"

    @property
    def tone(self) -> str:
        """How the verdict is marked: flagged, unusual, fair, or "" without a test."""
        if self.fit is None:
            return ""
        if self.flagged:
            return "flagged"
        return "unusual" if self.fit.p_value < UNUSUAL_P else "fair"

    @property
    def p_text(self) -> str:
        if self.fit is None:
            return ""
        p = self.fit.p_value
        return "< 0.001" if p < STRONG_P else f"{p:.3f}"

    @property
    def luck_text(self) -> str:
        return "" if self.luck_index is None else f"{self.luck_index:.0f}"

    @property
    def luck_range_text(self) -> str:
        if self.luck_range is None:
            return ""
        low, high = self.luck_range
        return f"{low:.0f}–{high:.0f}"

    @property
    def luck_note(self) -> str:
        """What the luck index says when fair dice seldom give it (outside the 95% range)."""
        if self.luck_index is None or self.luck_range is None:
            return ""
        low, high = self.luck_range
        if self.luck_index > high:
            return f"Luckier than fair dice usually are ({self.luck_range_text})."
        if self.luck_index < low:
            return f"Unluckier than fair dice usually are ({self.luck_range_text})."
        return ""


@dataclass
class RollerStats:
    roller: str
    count: int
    kinds: list[KindStats]

    @property
    def flagged(self) -> list[KindStats]:
        return [k for k in self.kinds if k.flagged]


def _label(key: str, labels: Mapping[str, str]) -> str:
    return labels.get(key) or key.replace("_", " ").capitalize()


def kind_stats(
    rolls: Sequence[Roll],
    *,
    labels: Mapping[str, str] | None = None,
    no_odds: str = "",
    chart_id: str = "",
) -> KindStats:
    """Everything the page says about one roller's rolls of one kind. ``no_odds``: why rolls
    of this kind store no odds, when they never do (``RollKind.no_odds``)."""
    first = rolls[0]
    fitted = [r for r in rolls if r.fitted]
    expected, observed = expected_counts(fitted), observed_counts(fitted)
    rows = [
        BandRow(key, _label(key, labels or {}), observed.get(key, 0), float(expected[key]))
        for key in band_order(fitted)
    ]
    luck = luck_index(fitted)
    stats = KindStats(
        group=first.group,
        kind=first.kind,
        label=first.label,
        count=len(rolls),
        fitted=len(fitted),
        rows=rows,
        fit=goodness_of_fit(fitted),
        luck_index=None if luck is None else float(luck),
        luck_range=luck_range(fitted),
        chart_id=chart_id,
    )
    left_out = len(rolls) - len(fitted)
    if left_out and no_odds:
        stats.notes.append(f"Counted only, not in the test or the luck index: {no_odds}")
    elif left_out:
        stats.notes.append(
            f"{left_out} of these {len(rolls)} rolls {'was' if left_out == 1 else 'were'} "
            "made before odds were stored with each roll: counted, but not in the test or the "
            "luck index."
        )
    if stats.fit is not None and stats.fit.cells < stats.fit.bands:
        stats.notes.append(
            f"For the test, neighbouring outcomes are merged into {stats.fit.cells} groups "
            f"that each expect at least {MIN_EXPECTED} rolls."
        )
    return stats


def summarise(
    rolls: Sequence[Roll], *, about: Any = None, everyone: bool = True
) -> list[RollerStats]:
    """Per roller (and first, with ``everyone``, all of them together), per kind of roll.
    ``about(kind name)``: that kind's band labels and why it stores no odds, if it never does
    (``selectors.about_kind``)."""
    about = about or (lambda kind: ({}, ""))
    sections: list[tuple[str, list[Roll]]] = []
    rollers: dict[str, list[Roll]] = {}
    for roll in rolls:
        rollers.setdefault(roll.roller, []).append(roll)
    if everyone and len(rollers) > 1:
        sections.append((EVERYONE, list(rolls)))
    sections += sorted(rollers.items(), key=lambda item: item[0].casefold())
    out = []
    for n, (roller, own) in enumerate(sections):
        groups: dict[str, list[Roll]] = {}
        for roll in own:
            groups.setdefault(roll.group, []).append(roll)
        kinds = []
        for m, group in enumerate(sorted(groups.values(), key=lambda g: g[0].label)):
            labels, no_odds = about(group[0].kind)
            kinds.append(
                kind_stats(group, labels=labels, no_odds=no_odds, chart_id=f"chart-{n}-{m}")
            )
        out.append(RollerStats(roller=roller, count=len(own), kinds=kinds))
    return out


def chart_data(sections: Sequence[RollerStats]) -> list[dict[str, Any]]:
    """What static/js/stats.js draws: per chart, its bands and both counts."""
    return [
        {
            "id": kind.chart_id,
            "labels": [row.label for row in kind.rows],
            "observed": [row.observed for row in kind.rows],
            "expected": [round(row.expected, 3) for row in kind.rows],
        }
        for section in sections
        for kind in section.kinds
        if kind.rows
    ]
