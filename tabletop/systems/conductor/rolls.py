"""conductor roll kinds: the standard roll (d12 + skill over a difficulty) and the attack roll
((1 + skill) d6 against the foe's difficulty, sixes explode).

With a character, the roll form's ``skill_name`` picks one of the sheet's skills (shown as
"Weapon (Sword)"; a specified skill counts +1, ``rules.conductor.effective_skill``) or
"untrained" (skill 0). Without a character (the GM rolling for someone off-sheet) the numeric
``skill`` field is used. Bennies are spent after the roll (``spend_benny``, called by the scene's
``benny`` action); a foe's strike-back after a miss is ``foe_attack_outcome``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError

from rules import conductor
from rules.core import RulesError
from tabletop.systems.api import (
    RollKind,
    RollOutcome,
    display_skill,
    field_int,
    hits_band,
    odds_rows,
    percent,
)
from tabletop.systems.conductor import strike_back
from tabletop.systems.conductor.models import ConductorSheet
from tabletop.systems.conductor.strike_back import STATS_TOP, stats_hit_bands


def foe_difficulty(foe: Any) -> dict[str, Any]:
    """A roll against a foe is against its difficulty, a field of its sheet (seed 002)."""
    return {"difficulty": foe.difficulty}


#: This system's roll kinds, in the order its roll forms show them.
KINDS: list[RollKind] = []

#: The roll form's skill select: "no skill on the sheet, roll as untrained".
UNTRAINED = "untrained"
#: Bounds of the hand-typed numbers (the sheet's skills are 0..10, difficulties 1..20).
SKILL_MAX = 30
STANDARD_DIFFICULTY_MAX = 99
ATTACK_DIFFICULTY_MAX = 20
#: How many hit counts the odds chart lists past the pool before folding the tail ("N+ hits").
EXTRA_HIT_ROWS = 3


def hits_landed(outcome: RollOutcome, keys: tuple[str, ...]) -> str | None:
    """The band of hits a roll of hits landed in (as rolled: before any benny)."""
    return hits_band(outcome.detail.get("hits"), keys)


HIT_LABELS = {
    "0": "No hit",
    "1": "1 hit",
    **{str(n): f"{n} hits" for n in range(2, STATS_TOP)},
    f"{STATS_TOP}+": f"{STATS_TOP}+ hits",
}


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
    return int(character.sheet.bennies or 0) if character is not None else 0


# --- standard roll -------------------------------------------------------------------------------


def _standard_inputs(data, character, ruleset) -> tuple[str, int, int]:
    label, skill = _skill(data, character, ruleset)
    difficulty = field_int(
        data, "difficulty", label="Difficulty", low=0, high=STANDARD_DIFFICULTY_MAX
    )
    return label, skill, difficulty


def within_reach(needed: int, *, bennies: int | None, name: str = "") -> str:
    """What bennies would turn a failure into a success, said against what the character has:
    "2 bennies would make it", or "4 bennies would make it; Kestrel has 3" when that is out of
    reach (``bennies`` None: no character's purse to say it against)."""
    would = f"{needed} {'benny' if needed == 1 else 'bennies'} would make it"
    if bennies is None or needed <= bennies:
        return would
    return f"{would}; {name or 'the character'} has {bennies if bennies > 0 else 'none'}"


def standard_outcome(
    result: conductor.StandardResult, *, label: str, bennies: int | None = None, name: str = ""
) -> RollOutcome:
    """The card of a standard roll (also after bennies were spent on it). ``bennies``: what
    the character ``name`` has left to spend on it (None: a roll with no character)."""
    detail = result.to_dict()
    detail["skill_label"] = label
    verdict = "Success" if result.success else "Failure"
    summary = f"{verdict} ({result.total} vs {result.difficulty})"
    if not result.success:
        reach = within_reach(result.bennies_to_succeed, bennies=bennies, name=name)
        summary += f" — {reach}"
    return RollOutcome(
        title=f"d12 + {label} ({result.skill}) over {result.difficulty}",
        summary=summary,
        detail=detail,
        outcome="success" if result.success else "failure",
    )


def standard_roll(*, data, character, ruleset, rng) -> RollOutcome:
    label, skill, difficulty = _standard_inputs(data, character, ruleset)
    result = conductor.standard_roll(skill=skill, difficulty=difficulty, rng=rng)
    if character is None:
        return standard_outcome(result, label=label)
    return standard_outcome(result, label=label, bennies=_bennies(character), name=character.name)


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
        "chance": p,
        "goal": "to succeed",
        "bands": [("failure", 1 - p), ("success", p)],
    }


_STANDARD_LABELS = {"success": "Success", "failure": "Failure"}


# --- attack roll ---------------------------------------------------------------------------------


def _attack_inputs(data, character, ruleset) -> tuple[str, int, int]:
    label, skill = _skill(data, character, ruleset)
    # A foe picked from the list has already set the difficulty (see actions.roll).
    difficulty = field_int(
        data, "difficulty", label="Foe's difficulty", low=0, high=ATTACK_DIFFICULTY_MAX
    )
    return label, skill, difficulty


def attack_outcome(result: conductor.AttackResult, *, label: str, foe: str = "") -> RollOutcome:
    """The card of an attack roll (also after bennies were spent on it)."""
    detail = result.to_dict()
    detail["skill_label"] = label
    detail["foe"] = foe
    if result.foe_strikes_back:
        summary = "No hit"  # what comes of it is said once, below (card_spends.html)
    else:
        summary = f"{result.hits} {'hit' if result.hits == 1 else 'hits'}"
    pool = sum(1 for d in result.dice if d.source is None)
    target = f"{foe} ({result.difficulty})" if foe else str(result.difficulty)
    return RollOutcome(
        title=f"Attack with {label} ({pool}d6) vs {target}",
        summary=summary,
        detail=detail,
        outcome="failure" if result.hits == 0 else "success",
    )


def attack_roll(*, data, character, ruleset, rng) -> RollOutcome:
    label, skill, difficulty = _attack_inputs(data, character, ruleset)
    result = conductor.attack(skill=skill, difficulty=difficulty, rng=rng)
    foe = str(data.get("foe_name") or "")
    return attack_outcome(result, label=label, foe=foe)


def spend_benny(
    roll_kind: str,
    detail: Mapping[str, Any],
    *,
    die_index: Any,
    rng,
    bennies_left: int | None = None,
    name: str = "",
) -> RollOutcome:
    """One benny on a stored conductor roll: +1 to a standard roll, or +1 to one attack die
    (seed: "each BENNY spent grants a +1 to the roll of one die"; a die pushed to 6 explodes).
    ``bennies_left``: what the character ``name`` has after this one (the card says whether
    the rest is within reach)."""
    label = str(detail.get("skill_label", "skill"))
    if roll_kind == "conductor_standard":
        result = conductor.StandardResult.from_dict(detail)
        return standard_outcome(
            conductor.spend_bennies_on_standard(result, bennies=1),
            label=label,
            bennies=bennies_left,
            name=name,
        )
    if roll_kind == "conductor_attack":
        result = conductor.AttackResult.from_dict(detail)
        if die_index in (None, ""):
            raise ValidationError("Pick the die to put the benny on.")
        pushed = conductor.spend_benny_on_die(result, die_index=_die_index(die_index), rng=rng)
        return attack_outcome(pushed, label=label, foe=str(detail.get("foe", "")))
    raise ValidationError("Bennies go on standard and attack rolls.")


def _die_index(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ValidationError("Pick the die to put the benny on (a die of this roll).") from None


#: The roll kinds a benny can change after the roll.
BENNY_KINDS = ("conductor_standard", "conductor_attack")


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
    return {
        "rows": odds_rows(dist, labels=labels),
        "note": note,
        "chance": any_hit,
        "goal": "to hit",
        "bands": stats_hit_bands(skill=skill, difficulty=difficulty),
    }


def _mean(value: Fraction) -> str:
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


KINDS.append(
    RollKind(
        name="conductor_standard",
        label="Standard roll",
        card="systems/conductor/rolls/standard.html",
        form="systems/conductor/forms/standard.html",
        roll=standard_roll,
        odds=standard_odds,
        band_labels=_STANDARD_LABELS,
    )
)
KINDS.append(
    RollKind(
        name="conductor_attack",
        consequences=strike_back.after_attack,
        label="Attack roll",
        card="systems/conductor/rolls/attack.html",
        form="systems/conductor/forms/attack.html",
        roll=attack_roll,
        odds=attack_odds,
        band_of=hits_landed,
        band_labels=HIT_LABELS,
        against=foe_difficulty,
    )
)


# --- healing and poison: attack rolls with their own purpose -------------------------------------


def sheet_skill(character: Any, skill: str, *, ruleset: Any = None) -> tuple[str, int]:
    """(label, value) of one named skill on a sheet (Survival, Healing, Poison): the best of the
    sheet's entries for it (a specified one counts +1), or ("untrained", 0) without one."""
    best: tuple[str, int] | None = None
    for row in character.skills or []:
        name = str(row.get("name", ""))
        if name.casefold() != skill.casefold():
            continue
        specialisation = row.get("specialisation", "") or ""
        try:
            value = conductor.effective_skill(
                skill=name,
                value=row.get("value", 0),
                specification=specialisation or None,
                ruleset=ruleset,
            )
        except RulesError:
            continue  # an entry the campaign's ruleset no longer allows counts as untrained
        if best is None or value > best[1]:
            best = (display_skill(name, specialisation), value)
    return best or (UNTRAINED, 0)


def _named_skill(data, character, ruleset, skill: str) -> tuple[str, int]:
    # Healing heals with the Healing skill, poison is brewed with Poison (seed "Skill
    # Descriptions"); off-sheet the roll form's numeric skill is used, as for the other rolls.
    if character is None:
        value = field_int(data, "skill", label="Skill", low=0, high=SKILL_MAX)
        return f"skill {value}", value
    return sheet_skill(character, skill, ruleset=ruleset)


def _harm_difficulty(data, ruleset) -> int:
    """The harm's source's difficulty: a picked foe's (set by roll), the typed one, or the
    ruleset's ``healing_difficulty`` (seed: "or 3 if not specified") when left blank."""
    if data.get("difficulty") in (None, ""):
        return conductor.validate_ruleset(ruleset)["healing_difficulty"]
    return field_int(
        data, "difficulty", label="Harm's difficulty", low=0, high=ATTACK_DIFFICULTY_MAX
    )


def _patient(data, character) -> Any:
    """The character being healed: one of the healer's campaign (checked here, where the roll
    is made; the sheet changes when the heal is applied, ``actions.heal_apply``)."""
    if character is None:
        raise ValidationError("Pick the healer: the character whose Healing skill is rolled.")
    raw = data.get("patient")
    if raw in (None, ""):
        raise ValidationError("Pick the patient: the character being healed.")
    try:
        pk = int(str(raw))
    except ValueError:
        raise ValidationError("Pick the patient from the list.") from None
    patient = ConductorSheet.objects.filter(pk=pk, campaign_id=character.campaign_id).first()
    if patient is None:
        raise ValidationError("That patient is not in this campaign.")
    return patient


def heal_outcome(
    result: conductor.HealingResult, *, label: str, patient: Any, harm: str = ""
) -> RollOutcome:
    """The card of a heal: the attack roll's dice (flat, so the attack card shows them) and what
    it does to the patient: each hit heals one hit; no hit at all costs them 1 hit."""
    detail = {
        **result.roll.to_dict(),
        "skill_label": label,
        "foe": harm,
        "patient_id": patient.pk,
        "patient": patient.name,
        "hits_healed": result.hits_healed,
        "patient_takes_hit": result.patient_takes_hit,
        "time_spent": result.time_spent,
    }
    if result.patient_takes_hit:
        summary = f"No hit: {patient.name} takes 1 hit"
    else:
        healed = result.hits_healed
        summary = f"Heals {healed} {'hit' if healed == 1 else 'hits'} on {patient.name}"
    pool = sum(1 for d in result.roll.dice if d.source is None)
    against = f"{harm}'s harm ({result.roll.difficulty})" if harm else result.roll.difficulty
    return RollOutcome(
        title=f"{patient.name} treated with {label} ({pool}d6) vs {against}",
        summary=summary,
        detail=detail,
        outcome="failure" if result.patient_takes_hit else "success",
    )


def heal_roll(*, data, character, ruleset, rng) -> RollOutcome:
    patient = _patient(data, character)
    label, skill = _named_skill(data, character, ruleset, "Healing")
    difficulty = _harm_difficulty(data, ruleset)
    result = conductor.heal(skill=skill, harm_difficulty=difficulty, ruleset=ruleset, rng=rng)
    return heal_outcome(result, label=label, patient=patient, harm=str(data.get("foe_name") or ""))


def heal_odds(*, data, character, ruleset) -> dict[str, Any]:
    if character is None:
        raise ValidationError("Pick the healer to see the odds.")
    _, skill = _named_skill(data, character, ruleset, "Healing")
    difficulty = _harm_difficulty(data, ruleset)
    top = 1 + skill + EXTRA_HIT_ROWS
    dist = conductor.attack_hit_distribution(skill=skill, difficulty=difficulty, top=top)
    labels = {0: "No hit: the patient takes 1 hit", 1: "Heals 1 hit"}
    labels.update({h: f"Heals {h} hits" for h in range(2, top)})
    labels[top] = f"Heals {top}+ hits"
    note = (
        "Each hit heals one of the patient's hits (never below none). Harm from different "
        "sources heals separately; a heal takes a unit of time."
    )
    return {
        "rows": odds_rows(dist, labels=labels),
        "note": note,
        "chance": conductor.attack_hit_probability(skill=skill, difficulty=difficulty),
        "goal": "to heal at least one hit",
        "bands": stats_hit_bands(skill=skill, difficulty=difficulty),
    }


def poison_outcome(result: conductor.PoisonResult, *, label: str) -> RollOutcome:
    """The card of a poison: its hits are the difficulty of the foe it works on; it costs one
    unit of time and one of loot, which no sheet tracks, so the card says so."""
    detail = {
        **result.roll.to_dict(),
        "skill_label": label,
        "foe_difficulty": result.foe_difficulty,
        "time_spent": result.time_spent,
        "loot_spent": result.loot_spent,
    }
    strength = result.foe_difficulty
    if strength:
        summary = f"A poison for a foe of difficulty {strength}"
    else:
        summary = "A useless brew: it works on no foe"
    pool = sum(1 for d in result.roll.dice if d.source is None)
    return RollOutcome(
        title=f"Brewed with {label} ({pool}d6) vs {result.roll.difficulty}",
        summary=summary,
        detail=detail,
        outcome="success" if strength else "failure",
    )


def poison_roll(*, data, character, ruleset, rng) -> RollOutcome:
    label, skill = _named_skill(data, character, ruleset, "Poison")
    result = conductor.make_poison(skill=skill, ruleset=ruleset, rng=rng)
    return poison_outcome(result, label=label)


def poison_odds(*, data, character, ruleset) -> dict[str, Any]:
    _, skill = _named_skill(data, character, ruleset, "Poison")
    difficulty = conductor.validate_ruleset(ruleset)["poison_difficulty"]
    top = 1 + skill + EXTRA_HIT_ROWS
    dist = conductor.attack_hit_distribution(skill=skill, difficulty=difficulty, top=top)
    labels = {0: "Useless: works on no foe"}
    labels.update({h: f"For a foe of difficulty {h}" for h in range(1, top)})
    labels[top] = f"For a foe of difficulty {top}+"
    note = f"An attack roll against {difficulty}; costs one unit of time and one of loot."
    return {
        "rows": odds_rows(dist, labels=labels),
        "note": note,
        "chance": conductor.attack_hit_probability(skill=skill, difficulty=difficulty),
        "goal": "to brew a poison that works",
        "bands": stats_hit_bands(skill=skill, difficulty=difficulty),
    }


KINDS.append(
    RollKind(
        name="conductor_heal",
        label="Healing",
        card="systems/conductor/rolls/heal.html",
        form="systems/conductor/forms/heal.html",
        roll=heal_roll,
        odds=heal_odds,
        band_of=hits_landed,
        band_labels=HIT_LABELS,
        against=foe_difficulty,  # the foe that caused the harm sets the difficulty
    )
)
KINDS.append(
    RollKind(
        name="conductor_poison",
        label="Poison",
        card="systems/conductor/rolls/poison.html",
        form="systems/conductor/forms/poison.html",
        roll=poison_roll,
        odds=poison_odds,
        band_of=hits_landed,
        band_labels=HIT_LABELS,
    )
)

KINDS.append(
    RollKind(
        name="conductor_foe_attack",
        stale=frozenset({"party", "dashboard"}),  # hits on the sheet
        label="Foe strikes back",
        card="systems/conductor/rolls/foe_attack.html",
        on_roll_form=False,
        band_of=hits_landed,
        band_labels=HIT_LABELS,
    )
)
