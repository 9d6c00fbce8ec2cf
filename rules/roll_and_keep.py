"""Roll and keep (seed 001): roll N d10, keep the K highest, count the successes.

"player's roll an amount of ten-sided dice (d10s), and get to keep a certain number of them to
count towards the final result." N = attribute + relevant specialities; K comes from the
character's permanent mana (``keep_count``); each kept die equal to or over the difficulty is one
success (RULES-NOTES: "equal to or over" wins over "over").

Public functions and classes:

- ``DEFAULT_RULESET`` / ``validate_ruleset(data)``: colours, attributes, attribute-to-colour links,
  difficulty ladder and degree names (campaign data the GM may edit).
- ``keep_count(*, attribute, mana, specialities=0, links=None, ruleset=None) -> int``: K, not yet
  capped at N (it does not know N). ``cap_kept(*, rolled, kept)`` applies "K never exceeds N";
  ``dice_pool(...)`` gives both N and the capped K from the sheet pieces.
- ``difficulty_value(difficulty, *, ruleset=None)`` (ladder name or 1..10) and
  ``degree_name(successes, *, botch=False, ruleset=None)``.
- Exact odds: ``success_distribution``, ``botch_probability``, ``odds`` (everything the UI shows),
  ``indirect_odds``, ``direct_contest_distribution`` and ``direct_contest_odds``.
- Rolls: ``roll`` (unopposed), ``score_dice`` (reads dice already rolled, e.g. physical ones),
  ``roll_indirectly_opposed`` (difficulty from ``indirect_difficulty``),
  ``roll_directly_opposed`` / ``resolve_directly_opposed`` (net successes, winner, margin).
- ``ExtendedAction``: an immutable tracker of a complex or extended action
  (``add_round(result)`` returns a new tracker; ``to_dict`` / ``from_dict``).
- ``clear_caches()`` empties the odds caches (benchmarks measure uncached speed).

Results are frozen dataclasses (``RollResult``, ``RollOdds``, ``DirectContest``,
``ContestOdds``, ``DicePool``) with ``to_dict()``.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.core import (
    Die,
    IllegalMoveError,
    Result,
    Rng,
    RulesError,
    check_int,
    check_pool,
    convolve,
    lookup,
    resolve_rng,
    roll_dice,
)

__all__ = [
    "BOTCH",
    "DEFAULT_RULESET",
    "FAILURE",
    "SIDES",
    "ContestOdds",
    "DicePool",
    "DirectContest",
    "ExtendedAction",
    "ExtendedRound",
    "ExtendedStatus",
    "RollOdds",
    "RollResult",
    "botch_probability",
    "cap_kept",
    "clear_caches",
    "degree_name",
    "dice_pool",
    "difficulty_value",
    "direct_contest_distribution",
    "direct_contest_odds",
    "indirect_difficulty",
    "indirect_odds",
    "keep_count",
    "odds",
    "resolve_directly_opposed",
    "roll",
    "roll_directly_opposed",
    "roll_indirectly_opposed",
    "score_dice",
    "success_distribution",
    "validate_ruleset",
]

#: "ten-sided dice (d10s)".
SIDES = 10
#: The seed's words for no success ("Characters fail actions when they do not roll any
#: successes") and for a spectacular failure ("This is called a botch").
FAILURE = "Failure"
BOTCH = "Botch"

# --- ruleset (campaign data) -------------------------------------------------------------------

#: Colours and the difficulty ladder and degrees are the seed's; the attribute list and the
#: attribute-to-colour links are RULES-NOTES defaults (the seed's list is missing).
DEFAULT_RULESET: dict[str, Any] = {
    "colours": ["White", "Blue", "Black", "Red", "Green"],
    "attributes": [
        "Cunning",
        "Intelligence",
        "Strength",
        "Endurance",
        "Charisma",
        "Finesse",
        "Acuity",
    ],
    # attribute -> the colour(s) it is linked to
    "links": {
        "Cunning": ["Black"],
        "Intelligence": ["Blue"],
        "Strength": ["Red"],
        "Endurance": ["Green"],
        "Charisma": ["White"],
        "Finesse": ["Black"],
        "Acuity": ["Blue"],
    },
    # "successes are static numbers, determined by the difficulty of the action"
    "difficulties": {
        "Easy": 3,
        "Routine": 4,
        "Straightforward": 5,
        "Standard": 6,
        "Challenging": 7,
        "Difficult": 8,
        "Extremely difficult": 9,
        "Virtually impossible": 10,
    },
    # degree names for 1, 2, 3, ... successes; the last one also names every higher count
    "degrees": ["Marginal", "Moderate", "Complete", "Exceptional", "Phenomenal"],
}

_FIELDS = ("colours", "attributes", "links", "difficulties", "degrees")


def _names(value: Any, field: str) -> list[str]:
    """A non-empty list of distinct (case-insensitively) non-empty names."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise RulesError(f"Ruleset field {field!r} must be a list of names, not {value!r}.")
    names: list[str] = []
    seen: set[str] = set()
    for name in value:
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"Ruleset field {field!r}: every name must be text, not {name!r}.")
        name = name.strip()
        if name.casefold() in seen:
            raise RulesError(f"Ruleset field {field!r} names {name!r} twice.")
        seen.add(name.casefold())
        names.append(name)
    if not names:
        raise RulesError(f"Ruleset field {field!r} must name at least one entry.")
    return names


def _normalise_links(
    links: Any, *, colours: Sequence[str], attributes: Sequence[str] | None, field: str
) -> dict[str, list[str]]:
    """attribute -> list of canonical colour names; a single colour may be given as a string.

    With ``attributes`` given, every linked attribute must be one of them; otherwise any
    non-empty attribute name is accepted (a caller's own links may name new attributes).
    """
    if not isinstance(links, Mapping):
        raise RulesError(f"{field} must map each attribute to its colour(s), not {links!r}.")
    out: dict[str, list[str]] = {}
    for attribute, linked in links.items():
        if not isinstance(attribute, str) or not attribute.strip():
            raise RulesError(f"{field}: attribute names must be text, not {attribute!r}.")
        name = attribute.strip()
        if attributes is not None:
            name = lookup(name, attributes, f"attribute in {field}")
        if any(known.casefold() == name.casefold() for known in out):
            raise RulesError(f"{field} links attribute {name!r} twice.")
        if isinstance(linked, str):
            linked = [linked]
        if not isinstance(linked, Iterable):
            raise RulesError(f"{field}: {name!r} must link to a colour or a list of colours.")
        out[name] = []
        for colour in linked:
            canonical = lookup(colour, colours, f"colour in {field} for {name!r}")
            if canonical not in out[name]:
                out[name].append(canonical)
    return out


def validate_ruleset(data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Merge ``data`` over ``DEFAULT_RULESET``, check every field and return the full ruleset.

    Checks that colours and attributes are named, that every link names a known attribute and
    existing colours, that each difficulty is a number a d10 can meet (1..10) and that there is
    at least one degree name. Errors name the field at fault.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise RulesError(f"A ruleset must be a mapping of fields, not {data!r}.")
    unknown = [key for key in data if key not in _FIELDS]
    if unknown:
        raise RulesError(
            f"Unknown ruleset field(s) {', '.join(map(repr, unknown))}; "
            f"the fields are: {', '.join(_FIELDS)}."
        )
    merged = copy.deepcopy(DEFAULT_RULESET)
    merged.update(copy.deepcopy(dict(data)))

    colours = _names(merged["colours"], "colours")
    attributes = _names(merged["attributes"], "attributes")
    links = _normalise_links(
        merged["links"], colours=colours, attributes=attributes, field="Ruleset field 'links'"
    )
    ladder = merged["difficulties"]
    if not isinstance(ladder, Mapping) or not ladder:
        raise RulesError("Ruleset field 'difficulties' must map difficulty names to numbers.")
    _names(ladder.keys(), "difficulties")
    difficulties = {
        name.strip(): check_int(
            number, f"Ruleset field 'difficulties': {name!r}", low=1, high=SIDES
        )
        for name, number in ladder.items()
    }
    degrees = _names(merged["degrees"], "degrees")
    return {
        "colours": colours,
        "attributes": attributes,
        "links": links,
        "difficulties": difficulties,
        "degrees": degrees,
    }


_DEFAULT = validate_ruleset(None)


def _ruleset(ruleset: Mapping[str, Any] | None) -> dict[str, Any]:
    return _DEFAULT if ruleset is None else validate_ruleset(ruleset)


# --- how many dice are kept -------------------------------------------------------------------


def keep_count(
    *,
    attribute: str,
    mana: Mapping[str, int],
    specialities: int = 0,
    links: Mapping[str, Any] | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> int:
    """K, the number of dice kept, before "K never exceeds N" (see ``cap_kept``).

    Seed: "If a rolled attribute is linked to a colour of mana possessed by the character, the
    character can keep as many dice as they have mana in that colour" (permanent mana); if
    linked to several such colours, the largest (RULES-NOTES). "If the attribute is not linked
    to the character's mana, they can keep a number of dice equal to their total mana pool
    divided by the number of colours they don't have mana in (rounded down to a minimum of
    1)" — the divisor is at least 1. Then "+1 dice for each relevant Speciality".

    ``mana`` maps colour -> permanent mana (missing colours have none); ``links`` maps
    attribute -> colour(s), None meaning the ruleset's links.
    """
    rules = _ruleset(ruleset)
    colours: list[str] = rules["colours"]
    if links is None:
        linked_map = rules["links"]
    else:
        linked_map = _normalise_links(links, colours=colours, attributes=None, field="links")
    known = list(rules["attributes"])
    known += [a for a in linked_map if all(a.casefold() != k.casefold() for k in known)]
    name = lookup(attribute, known, "attribute")
    linked = next((c for a, c in linked_map.items() if a.casefold() == name.casefold()), [])
    check_int(specialities, "The number of relevant specialities", low=0)
    permanent = _permanent_mana(mana, colours)

    owned_links = [permanent[c] for c in linked if permanent[c] > 0]
    if owned_links:
        base = max(owned_links)
    else:
        missing = sum(1 for c in colours if permanent[c] == 0)
        base = max(1, sum(permanent.values()) // max(1, missing))
    return base + specialities


def _permanent_mana(mana: Any, colours: Sequence[str]) -> dict[str, int]:
    if not isinstance(mana, Mapping):
        raise RulesError(f"Mana must map each colour to the permanent mana in it, not {mana!r}.")
    permanent = dict.fromkeys(colours, 0)
    given: set[str] = set()
    for colour, amount in mana.items():
        canonical = lookup(colour, colours, "colour of mana")
        if canonical in given:
            raise RulesError(f"Mana lists the colour {canonical} twice.")
        given.add(canonical)
        permanent[canonical] = check_int(amount, f"{canonical} mana", low=0)
    return permanent


def cap_kept(*, rolled: int, kept: int) -> int:
    """The dice actually kept: K capped at N (RULES-NOTES "K never exceeds N"); 0 when N is 0."""
    check_pool(rolled, "The number of dice rolled")
    check_int(kept, "The number of dice kept", low=0)
    return min(rolled, kept)


@dataclasses.dataclass(frozen=True)
class DicePool(Result):
    """N dice rolled and the K kept (already capped at N); ``keep_count`` is K before the cap."""

    rolled: int
    kept: int
    keep_count: int


def dice_pool(
    *,
    attribute: str,
    attribute_value: int,
    mana: Mapping[str, int],
    specialities: int = 0,
    links: Mapping[str, Any] | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> DicePool:
    """N and K from the sheet: "roll his Cunning stat + 1 for the Deceit speciality, and keep 4".

    N = attribute value + relevant specialities; K = ``keep_count`` capped at N.
    """
    value = check_int(attribute_value, f"{attribute} (attribute value)", low=0)
    check_int(specialities, "The number of relevant specialities", low=0)
    rolled = check_pool(
        value + specialities, "The number of dice rolled (attribute + specialities)"
    )
    k = keep_count(
        attribute=attribute, mana=mana, specialities=specialities, links=links, ruleset=ruleset
    )
    return DicePool(rolled=rolled, kept=min(rolled, k), keep_count=k)


# --- difficulty and degrees -------------------------------------------------------------------


def difficulty_value(difficulty: int | str, *, ruleset: Mapping[str, Any] | None = None) -> int:
    """A difficulty as the number a kept die must equal or beat: a ladder name or 1..10.

    Seed ladder: "Easy – 3 … Virtually impossible – 10" (names match case-insensitively).
    """
    if isinstance(difficulty, str):
        ladder = _ruleset(ruleset)["difficulties"]
        return ladder[lookup(difficulty, ladder.keys(), "difficulty")]
    if isinstance(difficulty, bool) or not isinstance(difficulty, int):
        raise RulesError(
            f"A difficulty must be a number from 1 to {SIDES} or a difficulty name, "
            f"not {difficulty!r}."
        )
    return check_int(difficulty, "The difficulty", low=1, high=SIDES)


def degree_name(
    successes: int, *, botch: bool = False, ruleset: Mapping[str, Any] | None = None
) -> str:
    """Seed "degrees of success": 1 Marginal … 5 Phenomenal (5 or more, RULES-NOTES);
    0 successes is a failure, or a botch when a 1 was rolled."""
    check_int(successes, "The number of successes", low=0)
    if successes == 0:
        return BOTCH if botch else FAILURE
    degrees = _ruleset(ruleset)["degrees"]
    return degrees[min(successes, len(degrees)) - 1]


# --- exact odds -------------------------------------------------------------------------------


def _faces_meeting(difficulty: int) -> int:
    """How many d10 faces are equal to or over ``difficulty`` (0 past 10, all 10 at 1 or less)."""
    return min(SIDES, max(0, SIDES + 1 - difficulty))


@lru_cache(maxsize=4096)
def _success_counts(rolled: int, kept: int, difficulty: int) -> tuple[tuple[int, Fraction], ...]:
    # The K highest dice hold every die that meets the difficulty when there are at most K of
    # them, and are all successes otherwise, so kept successes = min(S, K) with S ~ Binomial(N, p)
    # over *all* N dice. This is the order-statistics DP collapsed to its closed form: O(N).
    hits = _faces_meeting(difficulty)
    misses = SIDES - hits
    denominator = SIDES**rolled
    weights = [0] * (kept + 1)
    for s in range(rolled + 1):
        w = math.comb(rolled, s) * hits**s * misses ** (rolled - s)
        if w:
            weights[min(s, kept)] += w
    return tuple((s, Fraction(w, denominator)) for s, w in enumerate(weights) if w)


@lru_cache(maxsize=4096)
def _botch(rolled: int, kept: int, difficulty: int) -> Fraction:
    # Kept dice are the highest, so "no kept success" means no die at all meets the difficulty
    # (or nothing is kept); then P(some die shows 1) = P(all miss) - P(all miss without a 1).
    misses = SIDES if kept == 0 else SIDES - _faces_meeting(difficulty)
    misses_without_one = max(0, misses - 1)
    return Fraction(misses**rolled - misses_without_one**rolled, SIDES**rolled)


def clear_caches() -> None:
    """Empty the odds caches (for benchmarks that measure uncached speed)."""
    _success_counts.cache_clear()
    _botch.cache_clear()
    _net_distribution.cache_clear()


def _pool_args(rolled: Any, kept: Any) -> tuple[int, int]:
    rolled = check_pool(rolled, "The number of dice rolled")
    kept = check_int(kept, "The number of dice kept", low=0)
    return rolled, min(rolled, kept)


def success_distribution(
    *,
    rolled: int,
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[int, Fraction]:
    """Exact distribution of successes among the K highest of N d10.

    Seed: "1 success is earned for each dice over a fixed value for the difficulty"; a die
    "equal to or over the required number" succeeds (RULES-NOTES). ``kept`` over ``rolled``
    keeps every die ("K never exceeds N"). Outcomes with probability 0 are left out.
    """
    rolled, kept = _pool_args(rolled, kept)
    number = difficulty_value(difficulty, ruleset=ruleset)
    return dict(_success_counts(rolled, kept, number))


def botch_probability(
    *,
    rolled: int,
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> Fraction:
    """P(botch): "Characters botch a roll when they roll a 1 with no accompanying successes" —
    no kept success and at least one rolled die (kept or not) showing 1 (RULES-NOTES)."""
    rolled, kept = _pool_args(rolled, kept)
    return _botch(rolled, kept, difficulty_value(difficulty, ruleset=ruleset))


@dataclasses.dataclass(frozen=True)
class RollOdds(Result):
    """Everything the UI shows before a roll: ``distribution`` (successes -> probability),
    ``degrees`` (Botch, Failure, Marginal, … -> probability, summing to 1), ``botch``,
    ``at_least_one_success`` and ``expected_successes``. ``kept`` is already capped at N."""

    rolled: int
    kept: int
    difficulty: int
    distribution: dict[int, Fraction]
    degrees: dict[str, Fraction]
    botch: Fraction
    at_least_one_success: Fraction
    expected_successes: Fraction


def _odds(rolled: int, kept: int, difficulty: int, ruleset: Mapping[str, Any] | None) -> RollOdds:
    distribution = dict(_success_counts(rolled, kept, difficulty))
    botch = _botch(rolled, kept, difficulty)
    nothing = distribution.get(0, Fraction(0))
    degrees = {BOTCH: botch, FAILURE: nothing - botch}
    names = _ruleset(ruleset)["degrees"]
    degrees.update(dict.fromkeys(names, Fraction(0)))
    for successes, p in distribution.items():
        if successes:
            degrees[names[min(successes, len(names)) - 1]] += p
    return RollOdds(
        rolled=rolled,
        kept=kept,
        difficulty=difficulty,
        distribution=distribution,
        degrees=degrees,
        botch=botch,
        at_least_one_success=1 - nothing,
        expected_successes=sum((s * p for s, p in distribution.items()), Fraction(0)),
    )


def odds(
    *,
    rolled: int,
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> RollOdds:
    """The odds of an unopposed roll of N dice keeping K against a difficulty (a ladder name or
    1..10): success distribution with degree names, botch chance, chance of at least one success
    ("Usually, 1 success … is enough to ensure an action resolves as desired")."""
    rolled, kept = _pool_args(rolled, kept)
    return _odds(rolled, kept, difficulty_value(difficulty, ruleset=ruleset), ruleset)


# --- rolling ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RollResult(Result):
    """One roll: every die in the order rolled (``kept`` False for dropped dice), N, K (capped),
    the difficulty number, the kept successes, the botch flag and the degree name."""

    dice: tuple[Die, ...]
    rolled: int
    kept: int
    difficulty: int
    successes: int
    botch: bool
    degree: str

    @property
    def succeeded(self) -> bool:
        return self.successes > 0


def _score(
    faces: Sequence[int], kept: int, difficulty: int, ruleset: Mapping[str, Any] | None
) -> RollResult:
    kept = min(kept, len(faces))
    # Keep the K highest; among equal faces the earlier die is kept (it makes no difference).
    order = sorted(range(len(faces)), key=lambda i: (-faces[i], i))
    kept_at = set(order[:kept])
    dice = tuple(
        Die(sides=SIDES, rolled=face, value=face, kept=i in kept_at) for i, face in enumerate(faces)
    )
    successes = sum(1 for d in dice if d.kept and d.value >= difficulty)
    botch = successes == 0 and any(d.value == 1 for d in dice)
    return RollResult(
        dice=dice,
        rolled=len(dice),
        kept=kept,
        difficulty=difficulty,
        successes=successes,
        botch=botch,
        degree=degree_name(successes, botch=botch, ruleset=ruleset),
    )


def score_dice(
    *,
    faces: Sequence[int],
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> RollResult:
    """Read dice already rolled (e.g. physical dice typed in): keep the ``kept`` highest and count
    each kept die "equal to or over the required number"."""
    if isinstance(faces, str) or not isinstance(faces, Sequence):
        raise RulesError(f"The dice must be a list of d10 faces, not {faces!r}.")
    check_pool(len(faces), "The number of dice rolled")
    for face in faces:
        check_int(face, "A d10 face", low=1, high=SIDES)
    check_int(kept, "The number of dice kept", low=0)
    number = difficulty_value(difficulty, ruleset=ruleset)
    return _score(tuple(faces), kept, number, ruleset)


def _rolled_count(attribute_value: Any, specialities: Any, who: str = "") -> int:
    check_int(attribute_value, f"The {who}attribute value", low=0)
    check_int(specialities, f"The {who}number of relevant specialities", low=0)
    return check_pool(
        attribute_value + specialities, f"The {who}number of dice rolled (attribute + specialities)"
    )


def roll(
    *,
    attribute_value: int,
    specialities: int = 0,
    kept: int,
    difficulty: int | str,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> RollResult:
    """An unopposed roll: "roll his Cunning stat + 1 for the Deceit speciality, and keep 4 dice".

    Rolls N = attribute value + relevant specialities d10 and keeps the K = ``kept`` highest
    (capped at N; use ``keep_count`` or ``dice_pool`` for K). ``difficulty`` is a ladder name
    or 1..10.
    """
    rolled = _rolled_count(attribute_value, specialities)
    check_int(kept, "The number of dice kept", low=0)
    number = difficulty_value(difficulty, ruleset=ruleset)
    rng = resolve_rng(rng)
    return _score(roll_dice(rolled, SIDES, rng), kept, number, ruleset)


# --- indirectly opposed -----------------------------------------------------------------------


def indirect_difficulty(*, passive_attribute_value: int, passive_specialities: int = 0) -> int:
    """Seed: "a difficulty equal to the passive character's relevant attribute and related
    specialities" — Acuity 2 gives 2; Acuity 4 and Acute Hearing gives 5.

    The number is returned as it is. A d10 cannot meet a difficulty over 10, so such a roll
    can gain no success (any 1 then makes it a botch); a difficulty of 0 or 1 is met by every
    kept die.
    """
    value = check_int(passive_attribute_value, "The passive character's attribute value", low=0)
    extra = check_int(
        passive_specialities, "The passive character's number of relevant specialities", low=0
    )
    return value + extra


def indirect_odds(
    *,
    rolled: int,
    kept: int,
    passive_attribute_value: int,
    passive_specialities: int = 0,
    ruleset: Mapping[str, Any] | None = None,
) -> RollOdds:
    """``odds`` of an indirectly opposed roll (difficulty from ``indirect_difficulty``; over 10
    means no success is possible)."""
    difficulty = indirect_difficulty(
        passive_attribute_value=passive_attribute_value, passive_specialities=passive_specialities
    )
    rolled, kept = _pool_args(rolled, kept)
    return _odds(rolled, kept, difficulty, ruleset)


def roll_indirectly_opposed(
    *,
    attribute_value: int,
    specialities: int = 0,
    kept: int,
    passive_attribute_value: int,
    passive_specialities: int = 0,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> RollResult:
    """Seed "Indirectly opposed actions": "acting characters roll the attribute and speciality
    dice for their action, with a difficulty equal to the passive character's relevant attribute
    and related specialities" ("Finesse 5 … against Acuity 2 would roll 5 dice at a difficulty
    of 2")."""
    rolled = _rolled_count(attribute_value, specialities)
    check_int(kept, "The number of dice kept", low=0)
    difficulty = indirect_difficulty(
        passive_attribute_value=passive_attribute_value, passive_specialities=passive_specialities
    )
    rng = resolve_rng(rng)
    return _score(roll_dice(rolled, SIDES, rng), kept, difficulty, ruleset)


# --- directly opposed -------------------------------------------------------------------------

OWN = "own"
OPPONENT = "opponent"


@dataclasses.dataclass(frozen=True)
class DirectContest(Result):
    """A directly opposed action: both rolls, ``net`` = own successes − opponent's, ``winner``
    ("own", "opponent", or None on a tie: the status quo holds) and the winning ``margin``."""

    own: RollResult
    opponent: RollResult
    net: int
    winner: str | None
    margin: int


def resolve_directly_opposed(*, own: RollResult, opponent: RollResult) -> DirectContest:
    """Seed "Directly opposed actions": both "roll their respective dice pools against a static
    difficulty determined by the GM, and subtract any kept successes from their opponent's
    successes. The character with the most successes after this wins"; a tie has no winner
    (RULES-NOTES)."""
    for which, result in (("own", own), ("opponent", opponent)):
        if not isinstance(result, RollResult):
            raise RulesError(f"The {which} roll must be a roll result, not {result!r}.")
    if own.difficulty != opponent.difficulty:
        raise RulesError(
            "Both sides of a directly opposed action roll against the same difficulty "
            f"(got {own.difficulty} and {opponent.difficulty})."
        )
    net = own.successes - opponent.successes
    winner = OWN if net > 0 else OPPONENT if net < 0 else None
    return DirectContest(own=own, opponent=opponent, net=net, winner=winner, margin=abs(net))


def roll_directly_opposed(
    *,
    attribute_value: int,
    specialities: int = 0,
    kept: int,
    opponent_attribute_value: int,
    opponent_specialities: int = 0,
    opponent_kept: int,
    difficulty: int | str,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> DirectContest:
    """Roll both sides of a directly opposed action against one GM difficulty (own side first)
    and resolve it with ``resolve_directly_opposed``."""
    own_rolled = _rolled_count(attribute_value, specialities)
    their_rolled = _rolled_count(opponent_attribute_value, opponent_specialities, "opponent's ")
    check_int(kept, "The number of dice kept", low=0)
    check_int(opponent_kept, "The opponent's number of dice kept", low=0)
    number = difficulty_value(difficulty, ruleset=ruleset)
    rng = resolve_rng(rng)
    own = _score(roll_dice(own_rolled, SIDES, rng), kept, number, ruleset)
    opponent = _score(roll_dice(their_rolled, SIDES, rng), opponent_kept, number, ruleset)
    return resolve_directly_opposed(own=own, opponent=opponent)


@lru_cache(maxsize=4096)
def _net_distribution(
    rolled: int, kept: int, opponent_rolled: int, opponent_kept: int, difficulty: int
) -> tuple[tuple[int, Fraction], ...]:
    mine = dict(_success_counts(rolled, kept, difficulty))
    theirs = {-s: p for s, p in _success_counts(opponent_rolled, opponent_kept, difficulty)}
    return tuple(sorted(convolve(mine, theirs).items()))


def direct_contest_distribution(
    *,
    rolled: int,
    kept: int,
    opponent_rolled: int,
    opponent_kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[int, Fraction]:
    """Exact distribution of the net successes (own − opponent's) of a directly opposed action:
    the convolution of the two success distributions (the rolls are independent)."""
    rolled, kept = _pool_args(rolled, kept)
    opponent_rolled = check_pool(opponent_rolled, "The opponent's number of dice rolled")
    opponent_kept = min(
        opponent_rolled, check_int(opponent_kept, "The opponent's number of dice kept", low=0)
    )
    number = difficulty_value(difficulty, ruleset=ruleset)
    return dict(_net_distribution(rolled, kept, opponent_rolled, opponent_kept, number))


@dataclasses.dataclass(frozen=True)
class ContestOdds(Result):
    """Odds of a directly opposed action for the UI: the net distribution and P(win/tie/lose)."""

    net: dict[int, Fraction]
    win: Fraction
    tie: Fraction
    lose: Fraction


def direct_contest_odds(
    *,
    rolled: int,
    kept: int,
    opponent_rolled: int,
    opponent_kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> ContestOdds:
    """P(win), P(tie: status quo) and P(lose) of a directly opposed action, exactly."""
    net = direct_contest_distribution(
        rolled=rolled,
        kept=kept,
        opponent_rolled=opponent_rolled,
        opponent_kept=opponent_kept,
        difficulty=difficulty,
        ruleset=ruleset,
    )
    zero = Fraction(0)
    return ContestOdds(
        net=net,
        win=sum((p for x, p in net.items() if x > 0), zero),
        tie=net.get(0, zero),
        lose=sum((p for x, p in net.items() if x < 0), zero),
    )


# --- complex and extended actions -------------------------------------------------------------


class ExtendedStatus(enum.StrEnum):
    IN_PROGRESS = "in_progress"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


@dataclasses.dataclass(frozen=True)
class ExtendedRound(Result):
    """One round of rolling in an extended action: its kept successes and whether it botched."""

    successes: int
    botch: bool = False


@dataclasses.dataclass(frozen=True)
class ExtendedAction(Result):
    """A complex or extended action (seed: "will require multiple rolls with a certain number of
    successes in each round of rolling. The exact number of successes required … is determined
    by the GM").

    ``target`` is the GM's total of successes; ``minimum`` (optional) the successes each round
    must reach. Successes accumulate round by round; the action succeeds once ``accumulated``
    reaches ``target``. A round under the minimum fails the action at once and its successes do
    not count (RULES-NOTES: "optionally a per-round minimum"). A botched round is recorded and
    counts as its 0 successes; whether it has further consequences is the GM's call.
    ``accumulated`` and ``status`` are worked out from the rounds, never set by hand.
    """

    target: int
    minimum: int | None = None
    rounds: tuple[ExtendedRound, ...] = ()
    accumulated: int = dataclasses.field(init=False)
    status: ExtendedStatus = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        check_int(self.target, "The successes needed for the action", low=1)
        if self.minimum is not None:
            check_int(self.minimum, "The successes needed in each round", low=0)
        if not isinstance(self.rounds, tuple) or not all(
            isinstance(r, ExtendedRound) for r in self.rounds
        ):
            raise RulesError("The rounds of an extended action must be a tuple of rounds.")
        accumulated, status = 0, ExtendedStatus.IN_PROGRESS
        for number, round_ in enumerate(self.rounds, start=1):
            if status is not ExtendedStatus.IN_PROGRESS:
                raise IllegalMoveError(
                    f"Round {number} comes after the action was already {status.value}."
                )
            check_int(round_.successes, "The successes of a round", low=0)
            if self.minimum is not None and round_.successes < self.minimum:
                status = ExtendedStatus.FAILED
            else:
                accumulated += round_.successes
                if accumulated >= self.target:
                    status = ExtendedStatus.SUCCEEDED
        object.__setattr__(self, "accumulated", accumulated)
        object.__setattr__(self, "status", status)

    @property
    def finished(self) -> bool:
        return self.status is not ExtendedStatus.IN_PROGRESS

    @property
    def succeeded(self) -> bool:
        return self.status is ExtendedStatus.SUCCEEDED

    @property
    def failed(self) -> bool:
        return self.status is ExtendedStatus.FAILED

    @property
    def remaining(self) -> int:
        """Successes still needed (0 once reached)."""
        return max(0, self.target - self.accumulated)

    @property
    def last_round(self) -> ExtendedRound | None:
        """What the latest ``add_round`` recorded (None before the first round)."""
        return self.rounds[-1] if self.rounds else None

    def add_round(self, result: RollResult | int) -> ExtendedAction:
        """A new tracker with one more round: a ``RollResult`` or a number of successes."""
        if self.finished:
            raise IllegalMoveError(
                f"This action has already {self.status.value}; it takes no more rounds."
            )
        if isinstance(result, RollResult):
            round_ = ExtendedRound(successes=result.successes, botch=result.botch)
        else:
            round_ = ExtendedRound(successes=check_int(result, "The successes of a round", low=0))
        return dataclasses.replace(self, rounds=(*self.rounds, round_))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExtendedAction:
        """Rebuild from ``to_dict()`` output; a stored total or status that disagrees with the
        stored rounds is refused."""
        if not isinstance(data, Mapping) or "target" not in data:
            raise RulesError("An extended action needs at least its 'target' of successes.")
        raw_rounds = data.get("rounds", [])
        if isinstance(raw_rounds, str | bytes) or not isinstance(raw_rounds, Iterable):
            raise RulesError("An extended action's 'rounds' must be a list.")
        rounds = []
        for raw in raw_rounds:
            if not isinstance(raw, Mapping) or "successes" not in raw:
                raise RulesError(f"A round must record its 'successes', not {raw!r}.")
            botch = raw.get("botch", False)
            if not isinstance(botch, bool):
                raise RulesError(f"A round's 'botch' must be true or false, not {botch!r}.")
            rounds.append(ExtendedRound(successes=raw["successes"], botch=botch))
        action = cls(target=data["target"], minimum=data.get("minimum"), rounds=tuple(rounds))
        if "accumulated" in data and data["accumulated"] != action.accumulated:
            raise RulesError("The stored successes so far disagree with the stored rounds.")
        if "status" in data and data["status"] != action.status.value:
            raise RulesError("The stored status disagrees with the stored rounds.")
        return action
