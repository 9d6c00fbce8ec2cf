"""conductor roll kinds: the standard roll (d12 + skill over a difficulty) and the attack roll
((1 + skill) d6 against the foe's difficulty, sixes explode).

With a character, the panel's ``skill_name`` picks one of the sheet's skills (shown as
"Weapon (Sword)"; a specified skill counts +1, ``rules.conductor.effective_skill``) or
"untrained" (skill 0). Without a character (the GM rolling for someone off-sheet) the numeric
``skill`` field is used. Bennies are spent after the roll (a later step); the odds mention them.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError

from rules import conductor
from tabletop.characters.sheets import display_skill
from tabletop.scenes.systems import RollKind, RollOutcome, field_int, odds_rows, percent, register

#: The panel's skill select: "no skill on the sheet, roll as untrained".
UNTRAINED = "untrained"
#: Bounds of the hand-typed numbers (the sheet's skills are 0..10, difficulties 1..20).
SKILL_MAX = 30
STANDARD_DIFFICULTY_MAX = 99
ATTACK_DIFFICULTY_MAX = 20
#: How many hit counts the odds chart lists past the pool before folding the tail ("N+ hits").
EXTRA_HIT_ROWS = 3


def _skill(data: Mapping[str, Any], character: Any, ruleset: Any) -> tuple[str, int]:
    """(label, value) of the skill the roll uses."""
    if character is None:
        value = field_int(data, "skill", label="Skill", low=0, high=SKILL_MAX)
        return f"skill {value}", value
    wanted = str(data.get("skill_name") or "").strip()
    if not wanted:
        raise ValidationError("Pick a skill from the list.")
    if wanted == UNTRAINED:
        return "untrained", 0
    for row in character.skills or []:
        name = row.get("name", "")
        specialisation = row.get("specialisation", "") or ""
        label = display_skill(name, specialisation)
        if label.casefold() == wanted.casefold():
            value = conductor.effective_skill(
                skill=name,
                value=row.get("value", 0),
                specification=specialisation or None,
                ruleset=ruleset,
            )
            return label, value
    raise ValidationError(f"{character.name} has no {wanted[:60]} skill on their sheet.")


def _bennies(character: Any) -> int:
    return int(getattr(character, "bennies", 0) or 0) if character is not None else 0


# --- standard roll -------------------------------------------------------------------------------


def _standard_inputs(data, character, ruleset) -> tuple[str, int, int]:
    label, skill = _skill(data, character, ruleset)
    difficulty = field_int(
        data, "difficulty", label="Difficulty", low=0, high=STANDARD_DIFFICULTY_MAX
    )
    return label, skill, difficulty


def standard_roll(*, data, character, ruleset, rng) -> RollOutcome:
    label, skill, difficulty = _standard_inputs(data, character, ruleset)
    result = conductor.standard_roll(skill=skill, difficulty=difficulty, rng=rng)
    detail = result.to_dict()
    detail["skill_label"] = label
    verdict = "Success" if result.success else "Failure"
    summary = f"{verdict} ({result.total} vs {difficulty})"
    if not result.success:
        needed = result.bennies_to_succeed
        summary += f" — {needed} {'benny' if needed == 1 else 'bennies'} would make it"
    return RollOutcome(
        title=f"d12 + {label} ({skill}) over {difficulty}",
        summary=summary,
        detail=detail,
        outcome="success" if result.success else "failure",
    )


def standard_odds(*, data, character, ruleset) -> dict[str, Any]:
    _, skill, difficulty = _standard_inputs(data, character, ruleset)
    p = conductor.standard_probability(skill=skill, difficulty=difficulty)
    note = "Bennies: +1 to the total per benny, spent after the roll."
    bennies = _bennies(character)
    if bennies:
        with_all = conductor.standard_probability(
            skill=skill, difficulty=difficulty, bennies=bennies
        )
        note += f" Willing to spend all {bennies}: {percent(with_all)} success."
    return {
        "rows": odds_rows({"success": p, "failure": 1 - p}, labels=_STANDARD_LABELS),
        "note": note,
    }


_STANDARD_LABELS = {"success": "Success", "failure": "Failure"}


# --- attack roll ---------------------------------------------------------------------------------


def _attack_inputs(data, character, ruleset) -> tuple[str, int, int]:
    label, skill = _skill(data, character, ruleset)
    # A foe picked from the list fills the difficulty (its value is the foe's difficulty).
    source = "foe" if str(data.get("foe") or "").strip() else "difficulty"
    difficulty = field_int(
        data, source, label="Foe's difficulty", low=0, high=ATTACK_DIFFICULTY_MAX
    )
    return label, skill, difficulty


def attack_roll(*, data, character, ruleset, rng) -> RollOutcome:
    label, skill, difficulty = _attack_inputs(data, character, ruleset)
    result = conductor.attack(skill=skill, difficulty=difficulty, rng=rng)
    detail = result.to_dict()
    detail["skill_label"] = label
    if result.foe_strikes_back:
        detail["foe_strikes_back"] = True
        summary = "No hit — the foe strikes back!"
    else:
        summary = f"{result.hits} {'hit' if result.hits == 1 else 'hits'}"
    return RollOutcome(
        title=f"Attack with {label} ({1 + skill}d6) vs {difficulty}",
        summary=summary,
        detail=detail,
        outcome="failure" if result.hits == 0 else "success",
    )


def attack_odds(*, data, character, ruleset) -> dict[str, Any]:
    _, skill, difficulty = _attack_inputs(data, character, ruleset)
    top = 1 + skill + EXTRA_HIT_ROWS
    dist = conductor.attack_hit_distribution(skill=skill, difficulty=difficulty, top=top)
    labels = {0: "No hit (foe strikes back)", 1: "1 hit"}
    labels.update({h: f"{h} hits" for h in range(2, top)})
    labels[top] = f"{top}+ hits"
    any_hit = conductor.attack_hit_probability(skill=skill, difficulty=difficulty)
    expected = conductor.attack_expected_hits(skill=skill, difficulty=difficulty)
    note = (
        f"At least one hit: {percent(any_hit)}; {_mean(expected)} hits on average. "
        "Bennies: +1 to one die each, after the roll."
    )
    return {"rows": odds_rows(dist, labels=labels), "note": note}


def _mean(value: Fraction) -> str:
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


register(
    RollKind(
        name="conductor_standard",
        label="Standard roll",
        systems=("conductor",),
        roll=standard_roll,
        odds=standard_odds,
    )
)
register(
    RollKind(
        name="conductor_attack",
        label="Attack roll",
        systems=("conductor",),
        roll=attack_roll,
        odds=attack_odds,
    )
)
