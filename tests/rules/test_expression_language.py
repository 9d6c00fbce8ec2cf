"""The dice language of issue 36: every construct's exact odds against independent computations.

Three independent checks, construct by construct:

- **Every roll, enumerated.** ``enumerate_rolls`` drives ``roll`` with a scripted generator that
  branches on every draw, so it walks every sequence of faces the roller can ask for (explosions
  capped by patching the roller's cap to the odds' depth, rerolls shown by patching theirs
  small) and weighs each path exactly. That is the exact distribution of what ``roll`` does,
  computed without the odds engine (``pools``/``polys``), which must give the same Fractions and
  the same tail.
- **icepool and d20** for the meaning of the constructs they share with us (exact distributions
  from icepool; empirical means from d20, a roller only).
- **Rolls against odds**: every example of the dice reference, rolled at a fixed seed, passes a
  chi-square test against its exact odds, and every card's total is what its dice show.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter
from fractions import Fraction

import d20
import icepool
import pytest

from rules import expression as ex
from rules.expression import rolling
from rules.expression.reference import GROUPS, REFERENCE, examples
from tests.rules.stats import chi_square_p_value

# --- every roll, enumerated ---------------------------------------------------------------------


class _Need(Exception):
    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high


class ScriptRng:
    """Answers ``randint`` from a script, and asks for a branch when the script runs out."""

    def __init__(self, script: tuple[int, ...]) -> None:
        self.script, self.at = script, 0

    def randint(self, low: int, high: int) -> int:
        if self.at < len(self.script):
            value = self.script[self.at]
            assert low <= value <= high
            self.at += 1
            return value
        raise _Need(low, high)


def enumerate_rolls(text: str, depth: int, monkeypatch) -> tuple[dict[int, Fraction], Fraction]:
    """(exact weights of each total over every complete roll, chance a roll is stopped)."""
    monkeypatch.setattr(rolling, "MAX_EXPLOSIONS", depth)
    monkeypatch.setattr(rolling, "SHOWN_REROLLS", 2)
    tree = ex.parse(text)
    out: Counter = Counter()
    tail = Fraction(0)
    stack = [((), Fraction(1))]
    while stack:
        script, p = stack.pop()
        try:
            result = ex.roll(tree, rng=ScriptRng(script))
        except _Need as need:
            share = p / (need.high - need.low + 1)
            stack.extend((script + (v,), share) for v in range(need.low, need.high + 1))
        except ex.ExpressionTooLargeError:
            tail += p
        else:
            out[result.total] += p
    return {k: v for k, v in out.items() if v}, tail


CASES = [
    # (expression, explosion depth for the enumeration)
    ("3dF", 0),
    ("2dF + 1", 0),
    ("3d4kh2", 0),
    ("3d4k>2", 0),
    ("3d4p<2", 0),
    ("3d4d=2", 0),
    ("2d4!", 2),
    ("2d4!<=1", 2),
    ("2d4x>2", 2),
    ("2d3!kl1", 2),
    ("2d3!!", 2),
    ("2d3!!kh1", 2),
    ("2d3!p", 2),
    ("2d3!pkh1", 2),
    ("3d3xo", 0),
    ("3d3xokl2", 0),
    ("2d4ra4", 0),
    ("2d4ra4kh1", 0),
    ("2d4r1", 0),
    ("2d4r<2kh1", 0),
    ("2d4ro1", 0),
    ("2d4ro<2", 0),
    ("2d4rr1!", 2),
    ("1d4r1!!", 2),
    ("3d4mi2", 0),
    ("3d4ma3", 0),
    ("3d4mi2ma3kh2", 0),
    ("4d4>=3", 0),
    ("4d4>3", 0),
    ("4d4cs>3", 0),
    ("4d4>=3f1", 0),
    ("4d4cf<2", 0),
    ("4d4kh2>=3", 0),
    ("3d4!>=4cs>=3", 2),
    ("(1d3)d4", 0),
    ("(1d3+1)d3kh1", 0),
    ("(1d2)d4!", 2),
    ("{1d4, 1d6}kh1", 0),
    ("{1d4, 1d4, 2}kl1", 0),
    ("{1d4, 1d4}>=3", 0),
    ("{1d4, 1d6}dh1", 0),
    ("(1d4, 1d4)k>2", 0),
    ("{1d3, 1d3} + 1", 0),
    ("1d4*1d4", 0),
    ("1d6/2", 0),
    ("-1d4/3", 0),
    ("(1d4-3)/2", 0),
    ("ceil(1d6/2)", 0),
    ("round(2d4/3)", 0),
    ("round((1d4-3)/2)", 0),
    ("abs(1d4-1d4)", 0),
    ("1d4//1d2", 0),
    ("1d4+1 >= 3", 0),
    ("1d4 > 1d4", 0),
    ("2d4 == 5", 0),
    ("1d4 <= 1d3", 0),
    ("1d4+2 [x] # y", 0),
    ("1d20 adv", 0),
    ("1d20+1 dis", 0),
]


@pytest.mark.parametrize(("text", "depth"), CASES)
def test_odds_are_exactly_what_the_roller_does(text, depth, monkeypatch):
    ex.clear_caches()
    dist, tail = enumerate_rolls(text, depth, monkeypatch)
    got, got_tail = ex.distribution_with_tail(text, depth=depth)
    assert got == dist
    assert got_tail == tail
    assert sum(got.values()) + got_tail == 1
    if depth == 0 and tail == 0:
        assert ex.distribution(text) == dist


# --- icepool: the meaning of the constructs it shares ------------------------------------------


def as_dist(die) -> dict[int, Fraction]:
    total = die.denominator()
    return {int(o): Fraction(die.quantity(o), total) for o in die.outcomes() if die.quantity(o)}


d4, d6, d8, d10, d20_ = icepool.d4, icepool.d6, icepool.d8, icepool.d10, icepool.d20


def _success(die, ok, bad=lambda x: False):
    return die.map(lambda x: 1 if ok(x) else -1 if bad(x) else 0)


@pytest.mark.parametrize(
    ("text", "build"),
    [
        ("4dF", lambda: 4 @ icepool.Die([-1, 0, 1])),
        ("4d6r1", lambda: 4 @ d6.reroll([1], depth="inf")),
        ("2d8r<2", lambda: 2 @ d8.reroll([1, 2], depth="inf")),
        ("2d8rr<2", lambda: 2 @ d8.reroll([1], depth="inf")),  # rr: strictly less
        ("4d6ro1", lambda: 4 @ d6.reroll([1], depth=1)),
        ("4d6mi2", lambda: 4 @ d6.map(lambda x: max(x, 2))),
        ("4d6ma5", lambda: 4 @ d6.map(lambda x: min(x, 5))),
        ("8d6>3", lambda: 8 @ _success(d6, lambda x: x >= 3)),  # Roll20: 3 or more
        ("8d6cs>3", lambda: 8 @ _success(d6, lambda x: x > 3)),  # Foundry: more than 3
        ("6d10cs>7df1", lambda: 6 @ _success(d10, lambda x: x > 7, lambda x: x == 1)),
        ("6d10>=8f<2", lambda: 6 @ _success(d10, lambda x: x >= 8, lambda x: x <= 2)),
        ("6d10cf<3", lambda: 6 @ _success(d10, lambda x: x < 3)),
        ("4d6k>3", lambda: 4 @ d6.map(lambda x: x if x > 3 else 0)),
        ("4d6p<3", lambda: 4 @ d6.map(lambda x: 0 if x < 3 else x)),
        ("5d6kh3", lambda: d6.pool(5).highest(3).sum()),
        ("4d6d1", lambda: d6.pool(4).highest(3).sum()),
        ("2d20kh", lambda: d20_.pool(2).highest(1).sum()),
        ("{1d20, 1d20}kh1", lambda: d20_.pool(2).highest(1).sum()),
        ("{1d6, 1d8}kh1", lambda: icepool.highest(d6, d8)),
        ("{1d6, 1d8, 1d10}kl2", lambda: icepool.lowest(d6, d8, d10, keep=2)),
        ("{2d6, 1d12}kh1", lambda: icepool.highest(2 @ d6, icepool.d12)),
        ("1d20+5 adv", lambda: d20_.pool(2).highest(1).sum() + 5),
        ("(1d4+1)d6", lambda: (d4 + 1) @ d6),
        ("1d20+5 >= 15", lambda: (d20_ + 5 >= 15).map(lambda x: int(x))),
        ("2d6 > 1d8", lambda: (2 @ d6 > d8).map(lambda x: int(x))),
        ("1d6/2", lambda: d6 // 2),
        ("ceil(1d6/2)", lambda: d6.map(lambda x: -(-x // 2))),
        ("abs(1d6-1d6)", lambda: (d6 - d6).map(abs)),
        ("1d4*1d4", lambda: d4 * d4),
        ("(1d6+2)*2", lambda: (d6 + 2) * 2),
        ("1d8+3 [slashing] # damage", lambda: d8 + 3),
    ],
)
def test_meaning_matches_icepool(text, build):
    assert ex.distribution(text) == as_dist(build())


@pytest.mark.parametrize(("text", "depth"), [("1d6!!", 3), ("2d6!!", 2), ("1d10x", 4)])
def test_compounding_and_foundry_explosions_match_icepool_below_the_depth(text, depth):
    # Below (depth+1)*6 no die needed more than `depth` explosions, so caps do not differ.
    count, sides = int(text[0]), int(text[2:].rstrip("!x"))
    ice = as_dist(count @ icepool.d(sides).explode(depth=depth))
    got, _ = ex.distribution_with_tail(text, depth=depth)
    limit = (depth + 1) * sides
    assert {x: p for x, p in got.items() if x < limit} == {
        x: p for x, p in ice.items() if x < limit
    }


# --- d20 (a roller only): empirical means against our exact means -----------------------------


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("1d20ro1", "1d20ro1"),
        ("1d20rr<3", "1d20rr<3"),
        ("4d6mi2", "4d6mi2"),
        ("4d6ma4", "4d6ma4"),
        ("(1d20, 1d20)kh1", "(1d20, 1d20)kh1"),
        ("4d6k>3", "4d6k>3"),
        ("4d6p<3", "4d6p<3"),
        ("3d6ra6", "3d6ra6"),
        ("3d6e6", "3d6e6"),
        ("1d20+5 >= 15", "1d20+5 >= 15"),
        ("(1d6+2)*2", "(1d6+2)*2"),
        ("1d20+5 [str]", "1d20+5 [str]"),
    ],
)
def test_mean_agrees_with_d20(monkeypatch, ours, theirs):
    monkeypatch.setattr(d20.expression, "random", random.Random(2024))
    runs = 3000
    rolled = [int(d20.roll(theirs).total) for _ in range(runs)]
    summary = ex.summary(ours)
    variance = sum((x - summary.mean) ** 2 * p for x, p in summary.distribution.items())
    error = abs(sum(rolled) / runs - float(summary.mean))
    assert error <= 5 * math.sqrt(float(variance) / runs) + 1e-9


# --- the reference: every example parses, rolls, has odds; rolls follow them -----------------


def test_the_reference_covers_every_spelling_of_the_table():
    from rules.expression.spellings import MODIFIERS

    written = " ".join(e.spellings for e in REFERENCE)
    missing = [s.text for s in MODIFIERS if s.text not in written]
    assert missing == []
    assert len(GROUPS) >= 8 and all(e.examples for e in REFERENCE)


@pytest.mark.parametrize("text", examples())
def test_every_reference_example_rolls_and_has_exact_odds(text):
    tree = ex.parse(text)
    assert ex.parse(str(tree)) == tree
    dist = ex.distribution(text)
    assert sum(dist.values()) == 1
    rng = random.Random(36)
    samples = [ex.roll(tree, rng=rng).total for _ in range(1500)]
    if len(dist) > 1:
        assert chi_square_p_value(samples, dist) > 0.001
    else:
        assert set(samples) == set(dist)


def recompute(node: dict) -> int:
    """A node's value from what its card shows (its dice, items and operands), independently
    of the roller's own bookkeeping."""
    kind = node["kind"]
    if kind == "number":
        return node["value"]
    if kind == "dice":
        kept = [d for d in node["dice"] if d["kept"]]
        if node["counting"]:
            return sum(d["counted"] for d in kept)
        return sum(d["value"] for d in kept)
    if kind == "set":
        values = [recompute(i) for i in node["items"]]
        if any(c is not None for c in node["counted"]):
            return sum(c for c in node["counted"] if c is not None)
        return sum(v for v, k in zip(values, node["kept"], strict=True) if k)
    if kind == "sum":
        return sum(s * recompute(t) for s, t in zip(node["signs"], node["terms"], strict=True))
    if kind == "multiply":
        return recompute(node["left"]) * recompute(node["right"])
    if kind == "divide":
        exact = Fraction(recompute(node["left"]), recompute(node["right"]))
        rounding = node["rounding"]
        if rounding == "floor":
            return math.floor(exact)
        return math.ceil(exact) if rounding == "ceil" else math.floor(exact + Fraction(1, 2))
    if kind == "abs":
        return abs(recompute(node["operand"]))
    if kind == "label":
        return recompute(node["operand"])
    assert kind == "compare"
    left, right = recompute(node["left"]), recompute(node["right"])
    ops = {">=": left >= right, "<=": left <= right, ">": left > right, "<": left < right}
    return int(ops.get(node["op"], left == right))


def check_values(node: dict) -> None:
    assert node["value"] == recompute(node), node["text"]
    for key in ("terms", "items"):
        for child in node.get(key) or ():
            check_values(child)
    for key in ("left", "right", "operand", "count"):
        if isinstance(node.get(key), dict):
            check_values(node[key])


@pytest.mark.parametrize("text", examples())
def test_a_card_total_is_what_its_dice_show(text):
    rng = random.Random(7)
    for _ in range(30):
        data = json.loads(json.dumps(ex.roll(text, rng=rng).to_dict()))
        assert data["total"] == recompute(data["root"])
        check_values(data["root"])
        # a dropped die never counts, a counted die is kept
        for d in _dice(data["root"]):
            assert d["kept"] or d["counted"] is None


def _dice(node: dict) -> list[dict]:
    out = list(node.get("dice") or ())
    for key in ("terms", "items"):
        for child in node.get(key) or ():
            out += _dice(child)
    for key in ("left", "right", "operand", "count"):
        if isinstance(node.get(key), dict):
            out += _dice(node[key])
    return out


def test_a_comparison_says_success_or_failure_and_keeps_both_sides():
    for seed in range(20):
        data = ex.roll("1d20+5 >= 15", rng=random.Random(seed)).to_dict()
        assert data["success"] == (data["left"] >= 15) == bool(data["total"])
        assert data["target"] == 15 and data["op"] == ">="
        assert data["breakdown"].endswith("success" if data["success"] else "failure")
    # The exact chance: 1d20 + 5 >= 15 needs 10 or more on the d20: 11 faces of 20.
    assert ex.distribution("1d20+5 >= 15") == {0: Fraction(9, 20), 1: Fraction(11, 20)}


def test_labels_and_the_comment_are_on_the_card_not_in_the_total():
    result = ex.roll("2d6 [fire] + 1d8 [cold] # dragon breath", rng=random.Random(3))
    data = result.to_dict()
    assert data["comment"] == "dragon breath"
    assert result.expression == "2d6 [fire] + 1d8 [cold] # dragon breath"
    assert "[fire]" in result.breakdown and "[cold]" in result.breakdown
    assert result.total == sum(d.value for d in result.dice)
    assert ex.distribution("2d6 [fire] + 1d8 [cold] # x") == ex.distribution("2d6 + 1d8")


def test_the_breakdown_is_a_string_and_callable():
    result = ex.roll("1d20+5", rng=random.Random(1))
    face = result.dice[0].value
    assert result.breakdown() == result.breakdown == f"1d20 ({face}) + 5 = {face + 5}"
    assert result.to_dict()["breakdown"] == result.breakdown()


def test_success_pool_dice_say_what_they_counted():
    # Worked by hand from the faces: 6 and 5 succeed (>= 5), the 1 is a failure that subtracts.
    result = ex.roll("4d6>=5f1", rng=ScriptRng((6, 1, 5, 3)))
    assert [d.counted for d in result.dice] == [1, -1, 1, 0]
    assert result.total == 1
    assert result.breakdown == "4d6cs>=5df1 (6✓, 1✗, 5✓, 3) = 1"


def test_rerolls_keep_the_faces_they_replaced():
    # 1, then 1 again, then 4: r1 rerolls until the die misses 1; ro1 only once.
    until = ex.roll("1d6r1", rng=ScriptRng((1, 1, 4)))
    assert until.dice[0].rerolled == (1, 1) and until.total == 4
    once = ex.roll("1d6ro1", rng=ScriptRng((1, 1)))
    assert once.dice[0].rerolled == (1,) and once.total == 1
    assert once.breakdown == "1d6ro1 (~~1~~ 1) = 1"


def test_compounding_and_penetrating_worked_by_hand():
    compound = ex.roll("1d6!!", rng=ScriptRng((6, 6, 2)))
    assert compound.total == 14 and compound.dice[0].chain == (6, 6, 2)
    assert len(compound.dice) == 1
    penetrate = ex.roll("1d6!p", rng=ScriptRng((6, 6, 2)))
    assert [d.value for d in penetrate.dice] == [6, 5, 1]  # each added die counts one less
    assert penetrate.total == 12


def test_reroll_until_many_faces_is_quick_and_lands_on_the_rest():
    start = time.perf_counter()
    rng = random.Random(5)
    for _ in range(200):
        assert ex.roll("1d1000r<999", rng=rng).total == 1000
    assert time.perf_counter() - start < 1
    assert ex.distribution("1d1000r<999") == {1000: 1}


# --- hostile and mistaken input: refused, with the position ----------------------------------


@pytest.mark.parametrize(
    ("text", "error", "fragment"),
    [
        (
            "(" * 13 + "1" + ")" * 13,
            ex.ExpressionTooLargeError,
            "Nested more than 12 deep (position 13",
        ),
        ("{" * 13 + "1" + "}" * 13, ex.ExpressionTooLargeError, "(position 13"),
        (
            "1000000d6",
            ex.ExpressionTooLargeError,
            "1000000 dice is too many; the most one expression rolls is 100 (position 1",
        ),
        (
            "(100d6)d6",
            ex.ExpressionTooLargeError,
            "600 dice is too many; the most one expression rolls is 100 (position 1",
        ),
        ("60d6 * 60d6", ex.ExpressionTooLargeError, "120 dice in all"),
        ("1d6!<=6", ex.ExpressionError, "never stop; explode on fewer faces (position 7"),
        ("1d6!!>=1", ex.ExpressionError, "never stop"),
        (
            "1d6r<6",
            ex.ExpressionError,
            "rerolls every face of a d6, so it would never stop (position 6",
        ),
        ("1d6rr<7", ex.ExpressionError, "never stop"),
        ("2dFr>=-1", ex.ExpressionError, "Unexpected '-'"),
        ("1d6x>6", ex.ExpressionError, "A d6 never rolls 7 or more, so it could never explode"),
        (
            "4d6kh3!",
            ex.ExpressionError,
            "Write explosions before keep/drop, like 4d6r1!kh3 (position 7",
        ),
        ("4d6!x", ex.ExpressionError, "Explode once per roll (position 5"),
        ("4d6r1ro2", ex.ExpressionError, "Reroll once or until, not both (position 6"),
        ("4d6f1", ex.ExpressionError, "give the success target first"),
        ("4d6>3cf1", ex.ExpressionError, "Count successes or failures"),
        ("4d6mi5ma3", ex.ExpressionError, "A minimum of 5 is above the maximum of 3"),
        ("1d20 advantag", ex.ExpressionError, "did you mean 'advantage'?"),
        ("1d20+5 dsi", ex.ExpressionError, "did you mean 'dis'?"),
        ("flor(1d6/2)", ex.ExpressionError, "did you mean 'floor'?"),
        ("4d6 khh3", ex.ExpressionError, "position 7"),
        ("1d6 adv", ex.ExpressionError, "needs a 1d20 (position 5"),
        ("1d6/0", ex.ExpressionError, "Can't divide by zero (position 4"),
        ("1d6 >= 3 >= 2", ex.ExpressionError, "Compare only once (position 10"),
        ("[fire]", ex.ExpressionError, "Unexpected '[' at position 1"),
        ("1d6 [fire", ex.ExpressionError, "needs its ']' (position 5"),
        ("{}", ex.ExpressionError, "Unexpected '}' at position 2"),
        ("{1d6", ex.ExpressionError, "Unexpected end at position 5"),
        ("(1d4-5)d6", ex.ExpressionError, "can't be below 0 (position 1"),
        ("999999*999999", ex.ExpressionError, "Multiply by at most 1000"),
        (
            "1d1000*1d1000*1d1000*1d1000",
            ex.ExpressionTooLargeError,
            "could pass 1,000,000,000; totals stay below it (position 21",
        ),
        ("{" + ",".join(["1"] * 21) + "}", ex.ExpressionTooLargeError, "at most 20 expressions"),
        ("1d6\n+1", ex.ExpressionError, "one line"),
        ("{1d6}mi2", ex.ExpressionError, "'mi' works on dice, not on a set (position 6"),
    ],
)
def test_bad_input_is_refused_with_its_position(text, error, fragment):
    start = time.perf_counter()
    with pytest.raises(error) as caught:
        ex.parse(text)
    assert fragment in str(caught.value)
    assert time.perf_counter() - start < 0.5


def test_a_division_by_a_rolled_zero_is_refused_at_the_roll_and_has_no_odds():
    with pytest.raises(ex.ExpressionError, match="divide by zero"):
        ex.distribution("1d6/(1d2-1)")
    outcomes = set()
    for seed in range(20):
        try:
            outcomes.add(ex.roll("1d6/(1d2-1)", rng=random.Random(seed)).total)
        except ex.ExpressionError as error:
            assert "divided by zero" in str(error)
            outcomes.add("refused")
    assert "refused" in outcomes and len(outcomes) > 1


@pytest.mark.parametrize(
    "text",
    [
        "20d20!!kh10",
        "10d10!!kh5",
        "{30d20!, 30d20!}kh1",
        "100d6!p",
        "(9d10)d10!",
        "50d1000cs>500 * 50d1000",
    ],
)
def test_too_costly_odds_are_refused_fast_and_the_roll_still_works(text):
    ex.clear_caches()
    start = time.perf_counter()
    with pytest.raises(ex.OddsTooCostlyError, match="It can still be rolled"):
        ex.distribution(text)
    assert time.perf_counter() - start < 2.0
    assert isinstance(ex.roll(text, rng=random.Random(5)).total, int)
