"""two_dice (seed 003): checks, difficulties, odds, resource costs, association, ruleset."""

import itertools
import json
import random
import time
from collections import Counter
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import core
from rules import two_dice as td
from tests.rules.stats import chi_square_p_value

DIFFICULTIES = ["trivial", "easy", "normal", "hard", "impossible"]
BANDS = ["critical_failure", "failure", "success", "critical_success"]


# --- an independent reading of the seed, for brute force -----------------------------------------


def seed_band(total, difficulty):
    """Seed "Making Checks" thresholds, with "always succeed" / "always fail" on top."""
    if total >= 20:
        band = "critical_success"
    elif total >= 15:
        band = "success"
    elif total <= 10:
        band = "critical_failure"
    else:
        band = "failure"
    if difficulty == "trivial" and band in ("critical_failure", "failure"):
        band = "success"
    if difficulty == "impossible" and band in ("success", "critical_success"):
        band = "failure"
    return band


def every_roll(difficulty):
    """Each equally likely throw, reduced to the sum of the two dice that count."""
    if difficulty == "trivial":
        return [12]  # "assume the dice rolled two 6s"
    if difficulty == "impossible":
        return [2]  # "assume the dice rolled two 1s"
    if difficulty == "normal":
        return [a + b for a, b in itertools.product(range(1, 7), repeat=2)]
    throws = itertools.product(range(1, 7), repeat=3)
    if difficulty == "easy":  # "Roll three dice, and use the higher two"
        return [sum(sorted(t)[1:]) for t in throws]
    return [sum(sorted(t)[:2]) for t in throws]  # hard: "use the lower two"


ROLLS = {d: every_roll(d) for d in DIFFICULTIES}


def brute_force(difficulty, attribute, penalty):
    rolls = ROLLS[difficulty]
    counts = Counter(seed_band(r + attribute - penalty, difficulty) for r in rolls)
    return {band: Fraction(counts[band], len(rolls)) for band in BANDS}


# --- the seed's rules, worked by hand ------------------------------------------------------------


def test_band_thresholds_from_the_seed():
    # "15 or higher, the action succeeds ... 14 or lower, the action fails";
    # "20 or higher ... critical success"; "10 or lower ... critical failure".
    assert td.band_of(14) == "failure"
    assert td.band_of(15) == "success"
    assert td.band_of(19) == "success"
    assert td.band_of(20) == "critical_success"
    assert td.band_of(11) == "failure"
    assert td.band_of(10) == "critical_failure"
    assert td.band_of(-5) == "critical_failure"


def test_costs_from_the_seed():
    # Trivial 0, Easy 1, Normal 2, Hard 3, Impossible 4 resource points.
    costs = {
        d: td.pay_cost(difficulty=d, resource="Health", available=10).cost for d in DIFFICULTIES
    }
    assert costs == {"trivial": 0, "easy": 1, "normal": 2, "hard": 3, "impossible": 4}


def test_unpaid_cost_becomes_a_penalty():
    # Hard costs 3; with 1 point of Health, 1 is paid and the unpaid 2 is the penalty.
    payment = td.pay_cost(difficulty="HARD", resource="health", available=1)
    assert (payment.paid, payment.unpaid, payment.penalty, payment.remaining) == (1, 2, 2, 0)
    assert payment.resource == "Health" and payment.difficulty == "Hard"
    full = td.pay_cost(difficulty="Easy", resource="Focus", available=4)
    assert (full.paid, full.unpaid, full.penalty, full.remaining) == (1, 0, 0, 3)
    broke = td.pay_cost(difficulty="Impossible", resource="Focus", available=0)
    assert (broke.paid, broke.unpaid, broke.penalty) == (0, 4, 4)


def test_check_applies_the_unpaid_cost_as_a_penalty():
    result = td.check(
        attribute="Might",
        attribute_value=4,
        difficulty="Hard",
        resource="Health",
        resource_available=1,
        penalties=[("wound", 1)],
        rng=random.Random(5),
    )
    assert [(p.source, p.amount) for p in result.penalties] == [("unpaid_cost", 2), ("wound", 1)]
    assert result.penalty == 3
    assert result.total == result.dice_total + 4 - 3


def test_trivial_always_succeeds_with_two_assumed_sixes():
    low = td.check(
        attribute="Wits",
        attribute_value=-10,
        difficulty="trivial",
        resource="Focus",
        resource_available=0,
        rng=random.Random(1),
    )
    assert low.assumed and [(d.value, d.kept) for d in low.dice] == [(6, True), (6, True)]
    assert low.payment.cost == 0 and low.penalty == 0
    assert low.total == 2 and low.band == "success" and low.succeeded  # 12 - 10
    high = td.check(
        attribute="Wits",
        attribute_value=8,
        difficulty="Trivial",
        resource="Focus",
        resource_available=0,
        rng=random.Random(1),
    )
    assert high.total == 20 and high.band == "critical_success"  # 6 + 6 + 8


def test_impossible_always_fails_with_two_assumed_ones():
    strong = td.check(
        attribute="Might",
        attribute_value=30,
        difficulty="impossible",
        resource="Resolve",
        resource_available=9,
        rng=random.Random(1),
    )
    assert [d.value for d in strong.dice] == [1, 1] and strong.assumed
    assert strong.total == 32 and strong.band == "failure" and not strong.succeeded
    weak = td.check(
        attribute="Might",
        attribute_value=8,
        difficulty="impossible",
        resource="Resolve",
        resource_available=9,
        rng=random.Random(1),
    )
    assert weak.total == 10 and weak.band == "critical_failure"  # 1 + 1 + 8
    assert weak.payment.paid == 4


def test_automatic_difficulties_exact_odds():
    assert td.check_distribution(attribute=7, difficulty="trivial")["success"] == 1
    assert td.check_distribution(attribute=8, difficulty="trivial")["critical_success"] == 1
    assert td.check_distribution(attribute=-9, difficulty="trivial", penalty=4)["success"] == 1
    assert td.check_distribution(attribute=9, difficulty="impossible")["failure"] == 1
    assert td.check_distribution(attribute=8, difficulty="impossible")["critical_failure"] == 1
    assert td.check_distribution(attribute=40, difficulty="impossible")["failure"] == 1


def test_normal_odds_worked_by_hand():
    # Attribute 8: success needs 2d6 >= 7 (21/36), critical needs 12 (1/36),
    # critical failure needs 2d6 <= 2 (1/36); failure is the rest, 3..6 (14/36).
    odds = td.check_distribution(attribute=8, difficulty="Normal")
    assert odds == {
        "critical_failure": Fraction(1, 36),
        "failure": Fraction(14, 36),
        "success": Fraction(20, 36),
        "critical_success": Fraction(1, 36),
    }
    assert list(odds) == BANDS


def test_easy_and_hard_keep_the_right_dice():
    rng = random.Random(11)
    for _ in range(300):
        for difficulty in ("easy", "hard"):
            result = td.check(
                attribute="Agility",
                attribute_value=5,
                difficulty=difficulty,
                resource="Stamina",
                resource_available=9,
                rng=rng,
            )
            values = [d.value for d in result.dice]
            kept = [d.value for d in result.dice if d.kept]
            dropped = [d.value for d in result.dice if not d.kept]
            assert len(values) == 3 and len(kept) == 2 and len(dropped) == 1
            # "use the higher two" drops the lowest die; "use the lower two" the highest.
            assert dropped[0] == (min(values) if difficulty == "easy" else max(values))
            assert result.dice_total == sum(kept)
            assert not result.assumed


# --- exact odds against brute force and icepool --------------------------------------------------


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_check_distribution_matches_brute_force(difficulty):
    for attribute in range(-3, 13):
        for penalty in range(0, 13):
            assert td.check_distribution(
                attribute=attribute, difficulty=difficulty, penalty=penalty
            ) == brute_force(difficulty, attribute, penalty), (attribute, penalty)


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_dice_distribution_matches_brute_force(difficulty):
    rolls = ROLLS[difficulty]
    expected = {s: Fraction(c, len(rolls)) for s, c in Counter(rolls).items()}
    assert td.dice_distribution(difficulty=difficulty) == expected


ICEPOOL_DICE = {
    "easy": icepool.d6.pool(3).highest(2).sum(),
    "normal": (icepool.d6 + icepool.d6),
    "hard": icepool.d6.pool(3).lowest(2).sum(),
}


@pytest.mark.parametrize("difficulty", sorted(ICEPOOL_DICE))
def test_check_distribution_matches_icepool(difficulty):
    for attribute in range(-3, 13):
        for penalty in range(0, 13):
            die = (ICEPOOL_DICE[difficulty] + (attribute - penalty)).map(
                lambda t: seed_band(t, difficulty)
            )
            theirs = {band: Fraction(die.probability(band)) for band in BANDS}
            ours = td.check_distribution(
                attribute=attribute, difficulty=difficulty, penalty=penalty
            )
            assert ours == theirs, (attribute, penalty)


def test_many_kept_dice_match_icepool():
    # A campaign difficulty rolling 20 dice and keeping the higher two (pools up to 20).
    ruleset = {
        "difficulties": {
            "Heroic": {"cost": 1, "dice": "keep_highest", "rolled": 20},
            "Doomed": {"cost": 3, "dice": "keep_lowest", "rolled": 7},
        }
    }
    for name, die in (
        ("heroic", icepool.d6.pool(20).highest(2).sum()),
        ("doomed", icepool.d6.pool(7).lowest(2).sum()),
    ):
        theirs = {t: Fraction(die.probability(t)) for t in die.outcomes()}
        assert td.dice_distribution(difficulty=name, ruleset=ruleset) == theirs


def test_odds_are_fast_uncached():
    slowest = 0.0
    for difficulty in DIFFICULTIES:
        td._kept_sum_counts.cache_clear()
        start = time.perf_counter()
        td.check_distribution(attribute=4, difficulty=difficulty, penalty=2)
        slowest = max(slowest, time.perf_counter() - start)
    assert slowest < 0.005


# --- properties ----------------------------------------------------------------------------------

attributes = st.integers(min_value=-20, max_value=30)
penalties = st.integers(min_value=0, max_value=30)
difficulties = st.sampled_from(DIFFICULTIES)


def at_least_success(odds):
    return odds["success"] + odds["critical_success"]


@settings(max_examples=150, deadline=None)
@given(attribute=attributes, penalty=penalties, difficulty=difficulties)
def test_distribution_sums_to_one(attribute, penalty, difficulty):
    odds = td.check_distribution(attribute=attribute, difficulty=difficulty, penalty=penalty)
    assert list(odds) == BANDS
    assert sum(odds.values()) == 1
    assert all(p >= 0 for p in odds.values())


@settings(max_examples=150, deadline=None)
@given(attribute=attributes, penalty=penalties, difficulty=difficulties)
def test_more_attribute_never_hurts_and_more_penalty_never_helps(attribute, penalty, difficulty):
    base = at_least_success(
        td.check_distribution(attribute=attribute, difficulty=difficulty, penalty=penalty)
    )
    better = td.check_distribution(attribute=attribute + 1, difficulty=difficulty, penalty=penalty)
    worse = td.check_distribution(attribute=attribute, difficulty=difficulty, penalty=penalty + 1)
    assert at_least_success(better) >= base
    assert at_least_success(worse) <= base


@settings(max_examples=150, deadline=None)
@given(attribute=attributes, penalty=penalties)
def test_easier_difficulty_never_hurts(attribute, penalty):
    chances = [
        at_least_success(td.check_distribution(attribute=attribute, difficulty=d, penalty=penalty))
        for d in DIFFICULTIES
    ]
    # trivial >= easy >= normal >= hard >= impossible
    assert chances == sorted(chances, reverse=True)


@settings(max_examples=100, deadline=None)
@given(
    attribute=st.sampled_from(["Might", "Agility", "Wits", "Presence"]),
    value=attributes,
    difficulty=difficulties,
    available=st.integers(min_value=0, max_value=6),
    extra=st.lists(st.integers(min_value=0, max_value=6), max_size=3),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_check_results_add_up(attribute, value, difficulty, available, extra, seed):
    resource = td.linked_resources(attribute=attribute)[seed % 2]
    result = td.check(
        attribute=attribute,
        attribute_value=value,
        difficulty=difficulty,
        resource=resource,
        resource_available=available,
        penalties=[("circumstance", e) for e in extra],
        rng=random.Random(seed),
    )
    kept = [d for d in result.dice if d.kept]
    assert len(kept) == 2 <= len(result.dice)
    assert all(1 <= d.value <= 6 and d.sides == 6 for d in result.dice)
    assert result.payment.paid + result.payment.unpaid == result.payment.cost
    assert result.payment.paid <= available
    assert result.penalty == result.payment.unpaid + sum(extra)
    assert result.total == sum(d.value for d in kept) + value - result.penalty
    assert result.band == seed_band(result.total, difficulty)
    assert result.succeeded == (result.band in ("success", "critical_success"))
    stored = json.loads(json.dumps(result.to_dict()))
    assert td.CheckResult.from_dict(stored) == result


# --- the dice are fair: chi-square against our own exact odds ------------------------------------


@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
def test_check_roll_frequencies(difficulty):
    rng = random.Random(2024)
    results = [
        td.check(
            attribute="Presence",
            attribute_value=7,
            difficulty=difficulty,
            resource="Resolve",
            resource_available=5,
            rng=rng,
        )
        for _ in range(4000)
    ]
    dice = td.dice_distribution(difficulty=difficulty)
    assert chi_square_p_value((r.dice_total for r in results), dice) > 0.001
    bands = td.check_distribution(attribute=7, difficulty=difficulty)
    expected = {b: p for b, p in bands.items() if p}
    assert chi_square_p_value((r.band for r in results), expected) > 0.001


@pytest.mark.parametrize(("difficulty", "total"), [("trivial", 12), ("impossible", 2)])
def test_automatic_rolls_never_touch_the_dice(difficulty, total):
    class NoDice:
        def randint(self, low, high):
            raise AssertionError("an automatic check must not roll")

    result = td.check(
        attribute="Might",
        attribute_value=0,
        difficulty=difficulty,
        resource="Health",
        resource_available=9,
        rng=NoDice(),
    )
    assert result.dice_total == total
    assert td.dice_distribution(difficulty=difficulty) == {total: 1}


# --- association ---------------------------------------------------------------------------------


def test_links_from_rules_notes():
    assert td.linked_resources(attribute="might") == ("Health", "Resolve")
    assert td.linked_resources(attribute="Agility") == ("Health", "Stamina")
    assert td.linked_attributes(resource="focus") == ("Wits", "Presence")
    assert td.linked_attributes(resource="Resolve") == ("Presence", "Might")


def test_association_options():
    # "associated with an attribute": that attribute checks, either linked resource pays.
    assert td.association_options(attribute="wits") == (("Wits", "Stamina"), ("Wits", "Focus"))
    # "associated with a resource": that resource pays, either linked attribute checks.
    assert td.association_options(resource="health") == (("Might", "Health"), ("Agility", "Health"))
    with pytest.raises(core.RulesError, match="attribute or a resource: give one"):
        td.association_options()
    with pytest.raises(core.RulesError, match="give one"):
        td.association_options(attribute="Wits", resource="Focus")


def test_unlinked_pair_is_refused_clearly():
    message = (
        "Might is not linked to Focus: a check with Might pays from Health or Resolve, "
        "and a cost paid from Focus is checked with Wits or Presence."
    )
    with pytest.raises(core.RulesError) as err:
        td.check_pairing(attribute="might", resource="focus")
    assert str(err.value) == message
    with pytest.raises(core.RulesError, match="not linked"):
        td.pay_cost(difficulty="normal", resource="Focus", available=3, attribute="Might")
    with pytest.raises(core.RulesError, match="not linked"):
        td.check(
            attribute="Might",
            attribute_value=3,
            difficulty="normal",
            resource="Focus",
            resource_available=3,
            rng=random.Random(1),
        )
    assert td.check_pairing(attribute="MIGHT", resource="resolve") == ("Might", "Resolve")


# --- bad input -----------------------------------------------------------------------------------


def test_unknown_names():
    with pytest.raises(core.UnknownNameError, match="Unknown difficulty 'tricky'"):
        td.check_distribution(attribute=3, difficulty="tricky")
    with pytest.raises(core.UnknownNameError, match="Unknown attribute 'Luck'"):
        td.linked_resources(attribute="Luck")
    with pytest.raises(core.UnknownNameError, match="Unknown resource 'Mana'"):
        td.pay_cost(difficulty="easy", resource="Mana", available=1)
    with pytest.raises(core.UnknownNameError, match="Unknown difficulty"):
        td.dice_distribution(difficulty=None)


def test_numbers_out_of_range():
    with pytest.raises(core.OutOfRangeError, match="penalty must be at least 0"):
        td.check_distribution(attribute=3, difficulty="normal", penalty=-1)
    with pytest.raises(core.RulesError, match="whole number"):
        td.check_distribution(attribute="3", difficulty="normal")
    with pytest.raises(core.OutOfRangeError, match="at most 999"):
        td.check_distribution(attribute=10**6, difficulty="normal")
    with pytest.raises(core.OutOfRangeError, match="Available Health must be at least 0"):
        td.pay_cost(difficulty="easy", resource="Health", available=-2)
    with pytest.raises(core.RulesError, match="whole number"):
        td.band_of(14.5)
    with pytest.raises(core.RulesError, match="whole number"):
        td.check(
            attribute="Might",
            attribute_value=None,
            difficulty="normal",
            resource="Health",
            resource_available=3,
        )


def test_bad_penalties():
    base = {
        "attribute": "Might",
        "attribute_value": 3,
        "difficulty": "normal",
        "resource": "Health",
        "resource_available": 3,
        "rng": random.Random(1),
    }
    with pytest.raises(core.RulesError, match=r"\(source, amount\)"):
        td.check(**base, penalties=[5])
    with pytest.raises(core.RulesError, match="list of"):
        td.check(**base, penalties="hinder")
    with pytest.raises(core.OutOfRangeError, match="wound penalty must be at least 0"):
        td.check(**base, penalties=[("wound", -2)])
    with pytest.raises(core.RulesError, match="source must be a non-empty name"):
        td.check(**base, penalties=[("", 2)])
    with pytest.raises(core.RulesError, match="missing its 'amount'"):
        td.check(**base, penalties=[{"source": "wound"}])
    ok = td.check(
        **base, penalties=[td.Penalty(source="dark", amount=1), {"source": "x", "amount": 2}]
    )
    assert ok.penalty == 3


def test_stored_check_errors():
    good = td.check(
        attribute="Might",
        attribute_value=3,
        difficulty="easy",
        resource="Health",
        resource_available=3,
        rng=random.Random(1),
    ).to_dict()
    with pytest.raises(core.RulesError, match="must be a mapping"):
        td.CheckResult.from_dict([])
    with pytest.raises(core.RulesError, match="missing its 'payment'"):
        td.CheckResult.from_dict({k: v for k, v in good.items() if k != "payment"})
    with pytest.raises(core.RulesError, match="unknown dice mode"):
        td.CheckResult.from_dict({**good, "dice_mode": "roll_twice"})
    with pytest.raises(core.RulesError, match="exactly two dice"):
        td.CheckResult.from_dict({**good, "dice": good["dice"][:1]})
    with pytest.raises(core.RulesError, match="dice must be a list"):
        td.CheckResult.from_dict({**good, "dice": 7})


# --- ruleset -------------------------------------------------------------------------------------


def test_default_ruleset_is_json_and_validates():
    assert json.loads(json.dumps(td.DEFAULT_RULESET)) == td.DEFAULT_RULESET
    rules = td.validate_ruleset(None)
    assert rules["attributes"] == ["Might", "Agility", "Wits", "Presence"]
    assert rules["difficulties"]["Easy"] == {"cost": 1, "dice": "keep_highest", "rolled": 3}
    assert rules["difficulties"]["Trivial"] == {"cost": 0, "dice": "automatic_success", "rolled": 0}
    assert td.validate_ruleset(rules) == rules


def test_campaign_ruleset_renames_and_reprices():
    ruleset = {
        "attributes": ["Body", "Mind"],
        "resources": {"Grit": ["Body", "Mind"], "Nerve": ["mind", "body"]},
        "difficulties": {
            "Routine": {"cost": 0, "dice": "keep_highest", "rolled": 4},
            "Tough": {"cost": 5, "dice": "roll"},
        },
    }
    rules = td.validate_ruleset(ruleset)
    assert rules["resources"]["Nerve"] == ["Mind", "Body"]
    assert td.linked_resources(attribute="body", ruleset=ruleset) == ("Grit", "Nerve")
    payment = td.pay_cost(difficulty="tough", resource="grit", available=2, ruleset=ruleset)
    assert (payment.cost, payment.penalty) == (5, 3)
    four = [sum(sorted(t)[2:]) for t in itertools.product(range(1, 7), repeat=4)]
    expected = {s: Fraction(c, len(four)) for s, c in Counter(four).items()}
    assert td.dice_distribution(difficulty="routine", ruleset=ruleset) == expected
    with pytest.raises(core.UnknownNameError, match="choose one of: Routine, Tough"):
        td.check_distribution(attribute=1, difficulty="normal", ruleset=ruleset)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "must be a mapping"),
        ({"colours": []}, r"Unknown ruleset field\(s\) \['colours'\]"),
        ({"attributes": "Might"}, "ruleset.attributes must be a list"),
        ({"attributes": []}, "at least one attribute"),
        ({"attributes": ["Might", "might"]}, "attribute 'might' appears twice"),
        ({"attributes": ["Might", ""]}, "non-empty name"),
        ({"resources": {}}, "ruleset.resources must map"),
        ({"resources": {"Health": "Might"}}, "ruleset.resources.Health must be a list"),
        (
            {"resources": {"Health": ["Might"]}},
            r"ruleset.resources.Health must link to exactly two different attributes",
        ),
        (
            {"resources": {"Health": ["Might", "Might"]}},
            "exactly two different attributes",
        ),
        ({"resources": {"Health": ["Might", "Luck"]}}, "Unknown attribute 'Luck'"),
        (
            {
                "resources": {
                    "Health": ["Might", "Agility"],
                    "Stamina": ["Agility", "Wits"],
                    "Focus": ["Wits", "Presence"],
                    "Resolve": ["Presence", "Agility"],
                }
            },
            r"attribute Might must link to exactly two resources \(it links to \['Health'\]\)",
        ),
        (
            {"attributes": ["Might", "Health"], "resources": {"Health": ["Might", "Health"]}},
            "cannot be both an attribute and a resource",
        ),
        ({"difficulties": {}}, "ruleset.difficulties must map"),
        ({"difficulties": {"Easy": 1}}, "ruleset.difficulties.Easy must be a mapping"),
        ({"difficulties": {"Easy": {"dice": "roll"}}}, "ruleset.difficulties.Easy.cost is missing"),
        (
            {"difficulties": {"Easy": {"cost": -1, "dice": "roll"}}},
            "ruleset.difficulties.Easy.cost must be at least 0",
        ),
        ({"difficulties": {"Easy": {"cost": 1}}}, "ruleset.difficulties.Easy.dice is missing"),
        (
            {"difficulties": {"Easy": {"cost": 1, "dice": "3d6"}}},
            "ruleset.difficulties.Easy.dice is '3d6'; choose one of",
        ),
        (
            {"difficulties": {"Easy": {"cost": 1, "dice": "roll", "rolled": 3}}},
            "ruleset.difficulties.Easy.rolled can only be 2",
        ),
        (
            {"difficulties": {"Easy": {"cost": 1, "dice": "keep_highest", "rolled": 1}}},
            "ruleset.difficulties.Easy.rolled must be at least 2",
        ),
        (
            {"difficulties": {"Easy": {"cost": 1, "dice": "keep_lowest", "rolled": 500}}},
            "ruleset.difficulties.Easy.rolled must be at most 100",
        ),
        (
            {"difficulties": {"Easy": {"cost": 1, "dice": "roll", "bonus": 1}}},
            r"ruleset.difficulties.Easy has unknown field\(s\) \['bonus'\]",
        ),
    ],
)
def test_bad_rulesets_are_named(data, message):
    with pytest.raises(core.RulesError, match=message):
        td.validate_ruleset(data)
