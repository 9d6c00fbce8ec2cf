"""Which parts of the character sheet each system uses, read from the campaign's ruleset.

Each system keeps its fields in its own sheet model (``System.sheet_model``, a subclass of
``Character``); a ``SheetSpec`` lists the parts (``characters.parts``) its sheet is made of, each
keeping some of those fields, with their names from the ruleset (so a GM's edits to the ruleset
reach the sheet) and their sane ranges. Nothing here names a system's field: it loops over
parts. ``clean_sheet`` checks a sheet dict against the spec;
the actions call it, so a sheet written without the form (seed_demo, a later import) is held to
the same rules. ``sheet_sections`` prepares the read-only sheet for the template, so the
template only loops.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import ValidationError

from tabletop import systems
from tabletop.campaigns.models import Campaign
from tabletop.characters.parts import Part, Section, Stat
from tabletop.words import listed


@dataclasses.dataclass(frozen=True)
class SheetSpec:
    """The sheet of one system in one campaign: its parts, in the sheet page's reading order."""

    system: str
    parts: tuple[Part, ...] = ()
    #: the currencies and harm this system tracks (changed by the GM's adjust only)
    currencies: tuple[str, ...] = ()
    #: the form's lists of rows in this order of titles, when it differs from reading order
    form_order: tuple[str, ...] = ()
    #: the system's ``Currency``s in this campaign's words (``spec_for_ruleset`` fills it: a
    #: currency the GM names is called what the campaign calls it)
    named: tuple[systems.Currency, ...] = ()

    @property
    def used(self) -> tuple[Part, ...]:
        """The parts this campaign's sheet has (a ruleset may name nothing for one)."""
        return tuple(part for part in self.parts if part.used)

    @property
    def keys(self) -> tuple[str, ...]:
        """The model fields this sheet writes (others keep whatever they hold)."""
        return ("notes", *(key for part in self.used for key in part.keys))

    def part(self, key: str) -> Part:
        """The part that keeps the sheet model's field ``key``."""
        for part in self.parts:
            if key in part.keys:
                return part
        raise KeyError(f"The {self.system} sheet keeps no {key!r}.")

    def form_parts(self) -> tuple[Part, ...]:
        """The used parts in the form's order: its groups of fields, then its lists of rows."""
        groups = [part for part in self.used if not part.rows]
        lists = [part for part in self.used if part.rows]
        rank = {title: index for index, title in enumerate(self.form_order)}
        lists.sort(key=lambda part: rank.get(part.title, len(rank)))
        return (*groups, *lists)


# --- reading the ruleset ----------------------------------------------------------------------


def names_from(value: Any, fallback: Iterable[str]) -> tuple[str, ...]:
    """A list of names from the ruleset (strings, or dicts with a "name"), else the fallback."""
    if isinstance(value, Mapping):
        value = list(value.keys())
    if isinstance(value, list | tuple) and value:
        names = []
        for item in value:
            name = item.get("name") if isinstance(item, Mapping) else item
            if isinstance(name, str) and name.strip():
                names.append(name.strip())
        if names:
            return tuple(names)
    return tuple(fallback)


def links_from(value: Any, fallback: Mapping[str, Iterable[str]]) -> dict[str, tuple[str, ...]]:
    if isinstance(value, Mapping) and value:
        return {
            str(key): (linked,) if isinstance(linked, str) else tuple(linked)
            for key, linked in value.items()
        }
    return {key: tuple(linked) for key, linked in fallback.items()}


def first_of(ruleset: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in ruleset:
            return ruleset[key]
    return None


def int_or(value: Any, fallback: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else fallback


def spec_for_ruleset(system: str, ruleset: Mapping[str, Any]) -> SheetSpec:
    """The sheet of ``system`` under ``ruleset`` (a validated, full ruleset): the system's own."""
    found = systems.find(system)
    if found is None or found.sheet is None:
        raise ValueError(f"No sheet for system {system!r}.")
    return dataclasses.replace(found.sheet(ruleset), named=found.currencies_in(ruleset))


def spec_for(campaign: Campaign) -> SheetSpec:
    """The sheet of the campaign's system, under its effective ruleset."""
    return spec_for_ruleset(campaign.system, campaign.effective_ruleset())


# --- checking a sheet -------------------------------------------------------------------------


def clean_sheet(spec: SheetSpec, sheet: Mapping[str, Any]) -> dict[str, Any]:
    """Check a sheet dict against ``spec``; return it normalised (only the keys given).

    Raises ``ValidationError`` keyed by sheet field. Currencies and unknown keys are refused:
    currencies change through the GM's adjust and play actions only.
    """
    errors: dict[str, list[str]] = {}
    # Any system's currency, not only this one's: the sheet form never writes one.
    declared = {c.field: c for system in systems.all_systems() for c in system.currencies}
    for key in sheet:
        if key in declared:
            errors.setdefault(key, []).append(
                f"{declared[key].label} change only through the GM's adjustments."
            )
        elif key not in spec.keys:
            errors.setdefault(key, []).append(f"This system's sheet has no {key!r}.")
    if errors:
        raise ValidationError(errors)

    owner = {key: part for part in spec.used for key in part.keys}
    cleaned: dict[str, Any] = {}
    for key, raw in sheet.items():
        try:
            cleaned[key] = _long_text(raw) if key == "notes" else owner[key].clean(key, raw)
        except ValidationError as error:
            errors[key] = error.messages
    if errors:
        raise ValidationError(errors)
    return cleaned


NOTES_MAX = 10_000


def _long_text(raw: Any) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise ValidationError("Notes must be text.")
    if len(raw) > NOTES_MAX:
        raise ValidationError(f"Notes may be at most {NOTES_MAX} characters.")
    return raw.strip()


def blank_sheet(spec: SheetSpec) -> dict[str, Any]:
    """A new character's sheet: what each part starts at (every named value at 0...)."""
    sheet: dict[str, Any] = {}
    for part in spec.used:
        sheet.update(part.blank())
    return sheet


# --- reading a sheet for display --------------------------------------------------------------


def sheet_sections(spec: SheetSpec, character: Any) -> list[Section]:
    """The sheet's stat cards, in reading order, for the template to loop over."""
    return [part.section(character) for part in spec.used]


def currencies(spec: SheetSpec) -> tuple[systems.Currency, ...]:
    """The currencies and harm the sheet's system declares (``System.currencies``), in the
    campaign's words."""
    if spec.named:
        return spec.named
    found = systems.find(spec.system)
    return found.currencies if found else ()


def currency(spec: SheetSpec, field: str) -> systems.Currency | None:
    return next((c for c in currencies(spec) if c.field == field), None)


def adjust_refusal(spec: SheetSpec) -> str:
    """Why only the GM may change a character's currencies and harm, in the campaign's words
    for them (each system names its own; a GM may name the table's currency)."""
    kept = [c.many for c in currencies(spec) if c.total_of is None]
    return f"Only the GM adjusts {listed(kept) or 'these values'}."


def currency_label(spec: SheetSpec, field: str) -> str:
    declared = currency(spec, field)
    return declared.label if declared else field.replace("_", " ").capitalize()


def currency_value(spec: SheetSpec, character: Any, declared: systems.Currency) -> Any:
    """A currency as tables show it: "2 / 5" when a column counts its total ever gained."""
    found = systems.get(spec.system)
    total = found.total_for(declared.field)
    value = getattr(character, declared.field)
    return f"{value} / {getattr(character, total.field)}" if total else value


def currency_stats(spec: SheetSpec, character: Any) -> tuple[Stat, ...]:
    """The currencies and harm the system tracks, as labelled values ("Plot points 2 / 5")."""
    found = systems.find(spec.system)
    stats = []
    for declared in currencies(spec):
        if declared.total_of:
            continue  # shown with the currency it counts
        counted = found is not None and found.total_for(declared.field) is not None
        label = declared.many.capitalize() if counted else declared.label
        stats.append(Stat(label, currency_value(spec, character, declared)))
    return tuple(stats)
