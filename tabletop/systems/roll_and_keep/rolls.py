"""roll_and_keep roll kind: roll attribute + specialities d10, keep K by mana, count successes.

With a character: ``attribute`` names one of the ruleset's attributes (its value comes from the
sheet), each ticked ``speciality:<name>`` box adds one of the character's specialities (it must
belong to that attribute), and K comes from ``rules.roll_and_keep.dice_pool`` with the sheet's
mana and the campaign's links. Without a character (the GM rolling off-sheet): ``dice`` (the
attribute value), ``specialities`` (a count) and ``keep`` are typed in. ``difficulty`` is a
ladder name (or a number 1..10).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError

from rules import roll_and_keep as rak
from tabletop.systems.api import RollKind, RollOutcome, field_int, odds_rows, ordered_bands, percent

#: This system's roll kinds, in the order its roll forms show them.
KINDS: list[RollKind] = []

#: Checkbox fields of the roll form: "speciality:Deceit" = "on".
SPECIALITY_PREFIX = "speciality:"
POOL_MAX = 30


def _ticked(data: Mapping[str, Any]) -> set[str]:
    out = set()
    for key, value in data.items():
        ticked = value not in (None, "", False, "off", "false")
        if isinstance(key, str) and key.startswith(SPECIALITY_PREFIX) and ticked:
            out.add(key[len(SPECIALITY_PREFIX) :].strip().casefold())
    return out


def _difficulty(data: Mapping[str, Any], ruleset: Any) -> tuple[str, int]:
    raw = str(data.get("difficulty") or "").strip()
    if not raw:
        raise ValidationError("Pick a difficulty.")
    ladder = ruleset["difficulties"]
    if raw.isdigit():
        number = rak.difficulty_value(int(raw), ruleset=ruleset)
        names = [name for name, value in ladder.items() if value == number]
        return (names[0] if names else str(number)), number
    number = rak.difficulty_value(raw[:60], ruleset=ruleset)
    name = next(n for n in ladder if n.casefold() == raw.casefold())
    return name, number


def _pool(data: Mapping[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    """Everything the roll needs: attribute, its value, specialities, N, K."""
    if character is None:
        value = field_int(data, "dice", label="Attribute (dice)", low=0, high=POOL_MAX)
        count = field_int(data, "specialities", label="Specialities", low=0, high=POOL_MAX)
        keep = field_int(data, "keep", label="Dice kept", low=0, high=POOL_MAX)
        return {
            "attribute": "",
            "attribute_value": value,
            "speciality_names": [],
            "specialities": count,
            "rolled": value + count,
            "kept": rak.cap_kept(rolled=value + count, kept=keep),
            "keep_count": keep,
        }
    raw = str(data.get("attribute") or "").strip()
    if not raw:
        raise ValidationError("Pick an attribute.")
    attributes = ruleset["attributes"]
    attribute = next((a for a in attributes if a.casefold() == raw.casefold()), None)
    if attribute is None:
        raise ValidationError(f"Unknown attribute {raw[:40]!r}; choose one of the list.")
    sheet = {str(k).casefold(): v for k, v in (character.attributes or {}).items()}
    value = sheet.get(attribute.casefold(), 0)
    ticked = _ticked(data)
    names = []
    for row in character.specialities or []:
        name = str(row.get("name", ""))
        if name.casefold() not in ticked:
            continue
        if str(row.get("attribute", "")).casefold() != attribute.casefold():
            raise ValidationError(
                f"{name} goes with {row.get('attribute', '?')}, not {attribute}: untick it."
            )
        names.append(name)
    pool = rak.dice_pool(
        attribute=attribute,
        attribute_value=value,
        mana=character.mana or {},
        specialities=len(names),
        ruleset=ruleset,
    )
    return {
        "attribute": attribute,
        "attribute_value": value,
        "speciality_names": names,
        "specialities": len(names),
        "rolled": pool.rolled,
        "kept": pool.kept,
        "keep_count": pool.keep_count,
    }


def _describe(pool: dict[str, Any], difficulty_name: str, number: int) -> str:
    what = pool["attribute"] or f"{pool['attribute_value']} dice"
    if pool["speciality_names"]:
        what += " + " + ", ".join(pool["speciality_names"])
    elif pool["specialities"]:
        what += f" + {pool['specialities']} specialities"
    return f"{what}: roll {pool['rolled']}, keep {pool['kept']} vs {difficulty_name} ({number})"


def roll(*, data, character, ruleset, rng) -> RollOutcome:
    pool = _pool(data, character, ruleset)
    difficulty_name, number = _difficulty(data, ruleset)
    if pool["rolled"] == 0:
        raise ValidationError("There are no dice to roll (the attribute is 0).")
    result = rak.roll(
        attribute_value=pool["attribute_value"],
        specialities=pool["specialities"],
        kept=pool["kept"],
        difficulty=number,
        rng=rng,
        ruleset=ruleset,
    )
    detail = result.to_dict()
    detail.update(
        attribute=pool["attribute"],
        attribute_value=pool["attribute_value"],
        speciality_names=pool["speciality_names"],
        keep_count=pool["keep_count"],
        difficulty_name=difficulty_name,
    )
    if result.successes:
        plural = "success" if result.successes == 1 else "successes"
        summary = f"{result.successes} {plural}: {result.degree}"
        outcome = "success"
    else:
        summary = "Botch!" if result.botch else "Failure: no success"
        outcome = "botch" if result.botch else "failure"
    return RollOutcome(
        title=_describe(pool, difficulty_name, number),
        summary=summary,
        detail=detail,
        outcome=outcome,
    )


def odds(*, data, character, ruleset) -> dict[str, Any]:
    pool = _pool(data, character, ruleset)
    _, number = _difficulty(data, ruleset)
    if pool["rolled"] == 0:
        raise ValidationError("There are no dice to roll (the attribute is 0).")
    result = rak.odds(rolled=pool["rolled"], kept=pool["kept"], difficulty=number, ruleset=ruleset)
    note = (
        f"Roll {result.rolled}, keep {result.kept}. At least one success: "
        f"{percent(result.at_least_one_success)}; botch: {percent(result.botch)}."
    )
    return {
        "rows": odds_rows(result.degrees),
        "note": note,
        "chance": result.at_least_one_success,
        "goal": "to succeed",
        # Botch, Failure, Marginal, ...: the degrees worst to best (``rak.odds``).
        "bands": ordered_bands(result.degrees, list(result.degrees)),
    }


def degree_landed(outcome: RollOutcome, keys: tuple[str, ...]) -> str | None:
    """The degree a roll landed in (Botch, Failure or a degree of success)."""
    degree = outcome.detail.get("degree")
    return degree if degree in keys else None


KINDS.append(
    RollKind(
        name="roll_and_keep",
        label="Roll and keep",
        card="systems/roll_and_keep/rolls/roll.html",
        form="systems/roll_and_keep/forms/roll.html",
        roll=roll,
        odds=odds,
        band_of=degree_landed,
    )
)

KINDS.append(
    RollKind(
        name="rak_contest",
        stale=frozenset({"contests"}),
        label="Contest",
        card="systems/roll_and_keep/rolls/contest.html",
        on_roll_form=False,
        no_odds="a contest's odds depend on the other side's roll.",
    )
)
