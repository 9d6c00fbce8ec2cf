"""Which parts of the character sheet each system uses, read from the campaign's ruleset.

Each system keeps its fields in its own sheet model (``System.sheet_model``, a subclass of
``Character``); a ``SheetSpec`` says which of them a campaign's sheet shows, their names (the
ruleset's attribute, colour, resource and challenge-type names, so a GM's edits to the ruleset
reach the sheet) and their sane ranges. ``clean_sheet`` checks a sheet dict against the spec;
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

# --- what lives where on the model --------------------------------------------------------------

SHEET_KEYS = (
    "notes",
    "attributes",
    "skills",
    "specialities",
    "mana",
    "resources",
    "training_perks",
    "difficulty",
    "quickness",
    "mv",
    "total_penalty",
)

NAME_MAX = 60


@dataclasses.dataclass(frozen=True)
class SheetSpec:
    """The sheet of one system in one campaign."""

    system: str
    #: fixed, named attributes
    attributes: tuple[str, ...] = ()
    attribute_range: tuple[int, int] = (0, 20)
    #: attribute -> linked colours (mana systems), or resource -> linked attributes
    attribute_links: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    colours: tuple[str, ...] = ()
    mana_range: tuple[int, int] = (0, 20)
    challenge_types: tuple[str, ...] = ()
    perk_range: tuple[int, int] = (0, 10)
    resources: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    resource_range: tuple[int, int] = (0, 99)
    #: skills: a list of {name, value[, specialisation]}
    uses_skills: bool = False
    skill_label: str = "Skill"
    skill_suggestions: tuple[str, ...] = ()
    skill_range: tuple[int, int] = (0, 10)
    #: only the ruleset's skills (the rules engine refuses others)
    skills_listed_only: bool = False
    uses_specialisation: bool = False
    may_specify: tuple[str, ...] = ()
    must_specify: tuple[str, ...] = ()
    #: free-form stats by name ({"Perceptivity": 5}) kept in ``attributes``
    uses_stats: bool = False
    stat_suggestions: tuple[str, ...] = ()
    stat_range: tuple[int, int] = (-100, 100)
    uses_specialities: bool = False
    uses_difficulty: bool = False
    default_difficulty: int = 3
    difficulty_range: tuple[int, int] = (1, 20)
    uses_movement: bool = False
    quickness_range: tuple[int, int] = (-100, 100)
    mv_range: tuple[int, int] = (0, 500)
    penalty_range: tuple[int, int] = (-500, 0)
    #: the currencies and harm this system tracks (changed by the GM's adjust only)
    currencies: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """The model fields this sheet writes (others keep whatever they hold)."""
        used = {
            "notes": True,
            "attributes": bool(self.attributes) or self.uses_stats,
            "skills": self.uses_skills,
            "specialities": self.uses_specialities,
            "mana": bool(self.colours),
            "resources": bool(self.resources),
            "training_perks": bool(self.challenge_types),
            "difficulty": self.uses_difficulty,
            "quickness": self.uses_movement,
            "mv": self.uses_movement,
            "total_penalty": self.uses_movement,
        }
        return tuple(key for key in SHEET_KEYS if used[key])


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
    return found.sheet(ruleset)


def spec_for(campaign: Campaign) -> SheetSpec:
    """The sheet of the campaign's system, under its effective ruleset."""
    return spec_for_ruleset(campaign.system, campaign.effective_ruleset())


# --- checking a sheet -------------------------------------------------------------------------


def _int_in(value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(f"{what} must be a whole number.")
    if not low <= value <= high:
        raise ValidationError(f"{what} must be between {low} and {high}.")
    return value


def _canonical(name: Any, options: Iterable[str], what: str) -> str:
    """``name`` matched case-insensitively against ``options``, in the ruleset's spelling."""
    if isinstance(name, str):
        for option in options:
            if option.casefold() == name.strip().casefold():
                return option
    raise ValidationError(f"Unknown {what} {name!r}; choose one of: {', '.join(options)}.")


def _text(value: Any, what: str, *, required: bool = True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValidationError(f"{what} must be text.")
    value = value.strip()
    if required and not value:
        raise ValidationError(f"{what} is required.")
    if len(value) > NAME_MAX:
        raise ValidationError(f"{what} may be at most {NAME_MAX} characters.")
    return value


def _named_values(spec: SheetSpec, raw: Any, names: Iterable[str], rng, what: str) -> dict:
    """{name: int} for exactly the given names (missing ones count as 0)."""
    if not isinstance(raw, Mapping):
        raise ValidationError(f"{what} must map each name to a number.")
    names = tuple(names)
    out = dict.fromkeys(names, 0)
    for key, value in raw.items():
        name = _canonical(key, names, what.lower())
        out[name] = _int_in(value, *rng, f"{what}: {name}")
    return out


def skill_key(name: str, specialisation: str = "") -> tuple[str, str]:
    return (name.casefold(), specialisation.casefold())


def skill_problem(spec: SheetSpec, name: str, specialisation: str) -> str | None:
    """Why a (name, specialisation) pair is not allowed, or None."""
    folded = name.casefold()
    listed = any(folded == known.casefold() for known in spec.skill_suggestions)
    if spec.skills_listed_only and not listed:
        return (
            f"Unknown skill {name!r}; this campaign's skills are: "
            + ", ".join(spec.skill_suggestions)
            + "."
        )
    if specialisation and not spec.uses_specialisation:
        return "This system's skills have no specialisations."
    if any(folded == must.casefold() for must in spec.must_specify) and not specialisation:
        return f"{name} must be specified: say which one the character is good at."
    may = any(folded == known.casefold() for known in spec.may_specify)
    if specialisation and listed and not may:
        return f"{name} is not an (S) skill and can't be specified."
    return None


def _skills(spec: SheetSpec, raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list | tuple):
        raise ValidationError("Skills must be a list.")
    out, seen = [], set()
    for row in raw:
        if not isinstance(row, Mapping):
            raise ValidationError("Each skill must have a name and a value.")
        name = _text(row.get("name"), "Skill name")
        # Use the seed's spelling for a listed skill typed in another case.
        for known in spec.skill_suggestions:
            if known.casefold() == name.casefold():
                name = known
        specialisation = _text(row.get("specialisation", ""), "Specialisation", required=False)
        problem = skill_problem(spec, name, specialisation)
        if problem:
            raise ValidationError(problem)
        key = skill_key(name, specialisation)
        if key in seen:
            raise ValidationError(
                f"The skill {display_skill(name, specialisation)} is listed twice."
            )
        seen.add(key)
        value = _int_in(row.get("value"), *spec.skill_range, f"{spec.skill_label} of {name}")
        skill = {"name": name, "value": value}
        if spec.uses_specialisation:
            skill["specialisation"] = specialisation
        out.append(skill)
    return out


def _stats(spec: SheetSpec, raw: Any) -> dict[str, int]:
    if not isinstance(raw, Mapping):
        raise ValidationError("Stats must map each stat to a number.")
    out: dict[str, int] = {}
    for key, value in raw.items():
        name = _text(key, "Stat name")
        if name.casefold() == "quickness":
            raise ValidationError("Quickness has its own field on the sheet.")
        if name.casefold() in {known.casefold() for known in out}:
            raise ValidationError(f"The stat {name} is listed twice.")
        out[name] = _int_in(value, *spec.stat_range, f"Stat {name}")
    return out


def _specialities(spec: SheetSpec, raw: Any) -> list[dict[str, str]]:
    if not isinstance(raw, list | tuple):
        raise ValidationError("Specialities must be a list.")
    out, seen = [], set()
    for row in raw:
        if not isinstance(row, Mapping):
            raise ValidationError("Each speciality needs a name and an attribute.")
        name = _text(row.get("name"), "Speciality name")
        attribute = _canonical(row.get("attribute"), spec.attributes, "attribute")
        if name.casefold() in seen:
            raise ValidationError(f"The speciality {name} is listed twice.")
        seen.add(name.casefold())
        out.append({"name": name, "attribute": attribute})
    return out


def _resources(spec: SheetSpec, raw: Any) -> dict[str, dict[str, int]]:
    if not isinstance(raw, Mapping):
        raise ValidationError("Resources must map each resource to its current and max.")
    out = {name: {"current": 0, "max": 0} for name in spec.resources}
    for key, value in raw.items():
        name = _canonical(key, spec.resources, "resource")
        if not isinstance(value, Mapping):
            raise ValidationError(f"{name} needs a current and a max value.")
        current = _int_in(value.get("current", 0), *spec.resource_range, f"{name} (current)")
        maximum = _int_in(value.get("max", 0), *spec.resource_range, f"{name} (max)")
        if current > maximum:
            raise ValidationError(f"{name}: current ({current}) can't be above max ({maximum}).")
        out[name] = {"current": current, "max": maximum}
    return out


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

    checks = {
        "notes": _long_text,
        "attributes": lambda raw: (
            _stats(spec, raw)
            if spec.uses_stats
            else _named_values(spec, raw, spec.attributes, spec.attribute_range, "Attribute")
        ),
        "skills": lambda raw: _skills(spec, raw),
        "specialities": lambda raw: _specialities(spec, raw),
        "mana": lambda raw: _named_values(spec, raw, spec.colours, spec.mana_range, "Mana"),
        "resources": lambda raw: _resources(spec, raw),
        "training_perks": lambda raw: _named_values(
            spec, raw, spec.challenge_types, spec.perk_range, "Training perk"
        ),
        "difficulty": lambda raw: _int_in(raw, *spec.difficulty_range, "Difficulty"),
        "quickness": lambda raw: _int_in(raw, *spec.quickness_range, "Quickness"),
        "mv": lambda raw: _int_in(raw, *spec.mv_range, "MV"),
        "total_penalty": lambda raw: _int_in(raw, *spec.penalty_range, "Total penalty"),
    }
    cleaned: dict[str, Any] = {}
    for key, raw in sheet.items():
        try:
            cleaned[key] = checks[key](raw)
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
    """A new character's sheet: every named value at 0, conductor difficulty at the default."""
    sheet: dict[str, Any] = {}
    if spec.uses_difficulty:
        sheet["difficulty"] = spec.default_difficulty
    if spec.attributes:
        sheet["attributes"] = dict.fromkeys(spec.attributes, 0)
    if spec.colours:
        sheet["mana"] = dict.fromkeys(spec.colours, 0)
    if spec.challenge_types:
        sheet["training_perks"] = dict.fromkeys(spec.challenge_types, 0)
    if spec.resources:
        sheet["resources"] = {name: {"current": 0, "max": 0} for name in spec.resources}
    return sheet


# --- reading a sheet for display --------------------------------------------------------------


def display_skill(name: str, specialisation: str = "") -> str:
    return f"{name} ({specialisation})" if specialisation else name


@dataclasses.dataclass(frozen=True)
class Stat:
    label: str
    value: Any
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Section:
    title: str
    stats: tuple[Stat, ...]
    empty: str = "None yet."


def sheet_sections(spec: SheetSpec, character: Any) -> list[Section]:
    """The sheet's stat cards, in reading order, for the template to loop over."""
    sections: list[Section] = []
    if spec.attributes:
        links = {name.casefold(): colours for name, colours in spec.attribute_links.items()}
        stats = []
        for name in spec.attributes:
            linked = links.get(name.casefold(), ())
            note = f"Linked to {', '.join(linked)}" if linked else ""
            stats.append(Stat(name, character.attributes.get(name, 0), note))
        sections.append(Section("Attributes", tuple(stats)))
    if spec.colours:
        sections.append(
            Section(
                "Mana",
                tuple(Stat(colour, character.mana.get(colour, 0)) for colour in spec.colours),
            )
        )
    if spec.uses_specialities:
        sections.append(
            Section(
                "Specialities",
                tuple(
                    Stat(row.get("name", ""), row.get("attribute", ""))
                    for row in character.specialities
                ),
            )
        )
    if spec.challenge_types:
        sections.append(
            Section(
                "Training perks",
                tuple(
                    Stat(kind, f"+{character.training_perks.get(kind, 0)}", "dice")
                    for kind in spec.challenge_types
                ),
            )
        )
    if spec.resources:
        stats = []
        for name, linked in spec.resources.items():
            value = character.resources.get(name, {})
            stats.append(
                Stat(
                    name,
                    f"{value.get('current', 0)} / {value.get('max', 0)}",
                    f"Pays for {' and '.join(linked)}",
                )
            )
        sections.append(Section("Resources", tuple(stats)))
    if spec.uses_stats:
        stats = [Stat("Quickness", character.quickness)]
        stats += [Stat(name, value) for name, value in character.attributes.items()]
        sections.append(Section("Stats", tuple(stats)))
    if spec.uses_movement:
        sections.append(
            Section(
                "Movement",
                (
                    Stat("MV", character.mv, "encumbered, per round"),
                    Stat("Total penalty", character.total_penalty),
                ),
            )
        )
    if spec.uses_skills:
        sections.append(
            Section(
                "Skills",
                tuple(
                    Stat(
                        display_skill(row.get("name", ""), row.get("specialisation", "")),
                        row.get("value", 0),
                    )
                    for row in character.skills
                ),
            )
        )
    if spec.uses_difficulty:
        sections.append(
            Section("Defence", (Stat("Difficulty", character.difficulty, "foes roll against it"),))
        )
    return sections


def currencies(spec: SheetSpec) -> tuple[systems.Currency, ...]:
    """The currencies and harm the sheet's system declares (``System.currencies``)."""
    found = systems.find(spec.system)
    return found.currencies if found else ()


def currency(spec: SheetSpec, field: str) -> systems.Currency | None:
    found = systems.find(spec.system)
    return found.currency(field) if found else None


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
