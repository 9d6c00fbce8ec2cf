"""conductor (seed 002): d12 + skill over a difficulty, exploding d6 attack pools, bennies,
skills, and the wilderness exploration procedure.

The seed's rolls (RULES-NOTES "conductor"):

- Standard roll: "rolls a d12 and adds their skill, attempting to roll over the difficulty"
  (strictly over); after seeing it the player may spend bennies, "+1 to the roll" each.
- Attack roll: "a 1d6 + Xd6 where X is the relevant skill's value". Each die equal to or above
  the difficulty is one hit; each die showing 6 or more explodes, causing one hit whatever the
  difficulty and adding one more d6 which may hit and explode in turn; if no die hits, the foe
  strikes back at once. Bennies: "+1 to the roll of one die" each, after the roll; a die
  pushed to 6 or more by bennies explodes then (a die explodes at most once). Foe attacks work
  the same way against the character's own difficulty (a sheet field, ruleset default 3).

Readings decided here (tested):

- Dice never sum: each die is compared alone with the difficulty. A die hits when it is equal
  to or above the difficulty, and also whenever it shows 6 or more: "Each die resulting in 6 or
  above explodes! Causing 1 hit" (RULES-NOTES: "causing 1 hit whatever the difficulty"). So
  against difficulty 7 or more only sixes hit (each one exploding), and a die pushed to 6 by
  bennies hits and explodes.
- Explosion cap: one roll may explode at most ``core.MAX_EXPLOSIONS`` times (bennies
  included). The next explosion raises ``PoolTooLargeError`` instead of rolling on: with fair
  dice that needs over a hundred sixes in one roll, so it only guards against a broken rng.
  The odds below are those of the uncapped rule (the difference is below 6**-100).
- Healing and poison are attack rolls (seed "Healing", "Poison"); they keep the attack roll
  inside their result, and bennies may be spent on them like on any player's attack.
  Bennies cannot be spent on a foe's attack (bennies are the PLAYER's).
- A specified (S) skill gives +1 within its specification and nothing outside it (the
  character rolls as if untrained there, skill 0, unless they also hold the general skill).

Public functions and values:

- ``DEFAULT_RULESET`` / ``validate_ruleset(data)``: difficulties the seed leaves to the sheet,
  the skill list with which skills may or must be specified, and the wilderness numbers.
- Odds (exact ``Fraction``): ``standard_probability(*, skill, difficulty, bennies=0)``,
  ``attack_hit_probability(*, skill, difficulty, bennies=0)``,
  ``attack_expected_hits(*, skill, difficulty)``,
  ``attack_hit_distribution(*, skill, difficulty, top=None)`` (hits, the last key holding
  "top or more"), and from the wilderness module ``forage_probability``,
  ``supply_probability``, ``wilderness_roll_distribution``.
- Rolls: ``standard_roll(*, skill, difficulty, rng=None)`` -> ``StandardResult``;
  ``spend_bennies_on_standard(result, *, bennies)``;
  ``attack(*, skill, difficulty, rng=None)`` -> ``AttackResult``;
  ``foe_attack(*, skill, difficulty=None, ruleset=None, rng=None)`` -> ``AttackResult``;
  ``heal(*, skill, harm_difficulty=None, ruleset=None, rng=None)`` -> ``HealingResult``;
  ``make_poison(*, skill, ruleset=None, rng=None)`` -> ``PoisonResult``;
  ``spend_benny_on_die(result, *, die_index, rng=None)`` (any of the three attack results).
- Spend odds (``spends``): ``standard_benny_effect(result, *, bennies=1)`` ->
  ``StandardBennyEffect`` (the total and verdict before and after);
  ``die_benny_effect(result, *, die_index, bennies=1)`` -> ``DieBennyEffect`` (the exact hits
  after a benny on one attack die, an explosion's new dice included).
- Skills: ``SKILLS``, ``skill_names(*, ruleset=None)``,
  ``effective_skill(*, skill, value, specification=None, within_specification=True,
  ruleset=None)``.
- Wilderness (defined in ``rules.conductor.wilderness``, re-exported here): ``Expedition``,
  ``start_expedition``, ``Member``, ``Travel``, the event classes, ``supply_roll``,
  ``wilderness_roll``, ``forage_probability``, ``supply_probability``,
  ``wilderness_roll_distribution``, ``PHASES``, ``ACTIONS``, ``TRAVEL_KINDS``.

Modules (every name above is defined in one of them and re-exported here): ``ruleset`` (the
ruleset and the skills), ``standard`` (the standard roll), ``attacks`` (attack, foe attack,
healing, poison, bennies on a die), ``spends`` (what bennies buy), ``wilderness_rolls`` (the
procedure's words, odds, single rolls and events) and ``wilderness`` (the ``Expedition``
state machine).
"""

from rules.conductor.attacks import (  # noqa: F401 -- also re-exports names outside __all__
    ATTACK_DIE,
    EXPLODES_AT,
    PURPOSES,
    AttackResult,
    HealingResult,
    PoisonResult,
    _hit_numerators,  # bench/ and tests/ time uncached odds
    attack,
    attack_expected_hits,
    attack_hit_distribution,
    attack_hit_probability,
    foe_attack,
    heal,
    hit_threshold,
    make_poison,
    spend_benny_on_die,
)
from rules.conductor.ruleset import (  # noqa: F401 -- also re-exports names outside __all__
    DEFAULT_RULESET,
    MOUNT_RECOVERY,
    SKILLS,
    SPECIFICATION_RULES,
    effective_skill,
    skill_names,
    validate_ruleset,
)
from rules.conductor.spends import (
    DieBennyEffect,
    StandardBennyEffect,
    die_benny_effect,
    standard_benny_effect,
)
from rules.conductor.standard import (  # noqa: F401 -- also re-exports names outside __all__
    STANDARD_DIE,
    StandardResult,
    spend_bennies_on_standard,
    standard_probability,
    standard_roll,
)
from rules.conductor.wilderness import (
    Expedition,
    Member,
    Travel,
    WildernessRules,
    start_expedition,
)
from rules.conductor.wilderness_rolls import (
    ACTIONS,
    ENCOUNTERS,
    PHASES,
    TRAVEL_KINDS,
    ActionTaken,
    ExpeditionEvent,
    Fed,
    ForageRolled,
    LastingHit,
    LastingHitsRecovered,
    MemberChanged,
    MountsRecovered,
    MountsTired,
    PhaseEnded,
    SupplyRoll,
    SupplyRolled,
    SupplySkipped,
    TravelTaken,
    WildernessRoll,
    WildernessRolled,
    forage_probability,
    supply_probability,
    supply_roll,
    wilderness_roll,
    wilderness_roll_distribution,
)

__all__ = [
    "DEFAULT_RULESET",
    "SKILLS",
    "SPECIFICATION_RULES",
    "AttackResult",
    "HealingResult",
    "PoisonResult",
    "StandardResult",
    "StandardBennyEffect",
    "DieBennyEffect",
    "die_benny_effect",
    "standard_benny_effect",
    "attack",
    "attack_expected_hits",
    "attack_hit_distribution",
    "attack_hit_probability",
    "effective_skill",
    "foe_attack",
    "heal",
    "hit_threshold",
    "make_poison",
    "skill_names",
    "spend_benny_on_die",
    "spend_bennies_on_standard",
    "standard_probability",
    "standard_roll",
    "validate_ruleset",
    "ACTIONS",
    "PHASES",
    "TRAVEL_KINDS",
    "ENCOUNTERS",
    "Expedition",
    "Member",
    "Travel",
    "SupplyRoll",
    "WildernessRoll",
    "WildernessRules",
    "ExpeditionEvent",
    "ActionTaken",
    "TravelTaken",
    "ForageRolled",
    "WildernessRolled",
    "MountsTired",
    "MountsRecovered",
    "SupplyRolled",
    "SupplySkipped",
    "LastingHit",
    "LastingHitsRecovered",
    "PhaseEnded",
    "Fed",
    "MemberChanged",
    "forage_probability",
    "supply_probability",
    "supply_roll",
    "start_expedition",
    "wilderness_roll",
    "wilderness_roll_distribution",
]
