"""two_dice (seed 003) "Opposing": pending actions, hinder, resist, stacking, storage."""

import itertools
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import core
from rules import two_dice as td
from tests.rules.stats import chi_square_p_value
from tests.support.dice import Faces

D6 = {face: Fraction(1, 6) for face in range(1, 7)}


def reaction(*, succeeds, rng=None):
    """A reactor's own check, made the normal way (Trivial always succeeds, Impossible fails)."""
    return td.check(
        attribute="Agility",
        attribute_value=3,
        difficulty="trivial" if succeeds else "impossible",
        resource="Stamina",
        resource_available=4,
        rng=rng or Faces(),
    )


def declare(**overrides):
    kwargs = {
        "actor": "Ayla",
        "targets": ["Bram", "Cora"],
        "attribute": "might",
        "attribute_value": 9,
        "difficulty": "Normal",
        "resource": "health",
        "resource_available": 5,
    }
    return td.declare_action(**{**kwargs, **overrides})


def test_hinder_hinder_resist_stack_worked_by_hand():
    action = declare()
    assert action.payment.paid == 2 and action.payment.remaining == 3
    # Dax and Eve hinder (penalty dice 3 and 2), Bram resists (penalty die 4).
    action, dax = action.add_hinder("Dax", reaction(succeeds=True), rng=Faces(3))
    action, eve = action.add_hinder("Eve", reaction(succeeds=True), rng=Faces(2))
    action, bram = action.add_resist("Bram", reaction(succeeds=True), rng=Faces(4))
    assert [(o.kind, o.reactor, o.penalty.amount) for o in (dax, eve, bram)] == [
        ("hinder", "Dax", 3),
        ("hinder", "Eve", 2),
        ("resist", "Bram", 4),
    ]
    assert bram.penalty.die.value == 4
    assert action.known_penalty() == 5
    assert action.known_penalty("Bram") == 9
    assert action.known_penalty("Cora") == 5
    # The action's dice are 6 and 5: 11 + Might 9 = 20.
    resolved, outcome = action.resolve(rng=Faces(6, 5))
    assert [d.value for d in outcome.check.dice] == [6, 5]
    # Both hinders count against everyone: 20 - 3 - 2 = 15, a success (against Cora too).
    assert outcome.check.total == 15 and outcome.check.band == "success"
    by_target = {t.target: t for t in outcome.targets}
    assert by_target["Cora"].total == 15 and by_target["Cora"].band == "success"
    # Bram's own resist counts only against Bram: 15 - 4 = 11, a failure.
    assert by_target["Bram"].total == 11 and by_target["Bram"].band == "failure"
    assert [(p.source, p.by, p.amount) for p in by_target["Bram"].penalties] == [
        ("hinder", "Dax", 3),
        ("hinder", "Eve", 2),
        ("resist", "Bram", 4),
    ]
    assert resolved.outcome == outcome


def test_failed_reaction_rolls_no_penalty_die():
    action = declare()
    # Faces() with no faces fails the test if any die is rolled.
    action, opposition = action.add_hinder("Dax", reaction(succeeds=False), rng=Faces())
    assert opposition.penalty is None and not opposition.reaction.succeeded
    assert action.known_penalty() == 0
    assert action.oppositions == (opposition,)


def test_unpaid_cost_and_gm_penalty_count_against_every_target():
    # Hard costs 3 and only 1 Health is left: 2 unpaid, plus a penalty of 1 for the dark.
    action = declare(difficulty="hard", resource_available=1, penalties=[("dark", 1)])
    assert action.known_penalty() == 3
    # Hard: three dice 2, 6, 4, the lower two 2 + 4 = 6; 6 + 9 - 3 = 12.
    _, outcome = action.resolve(rng=Faces(2, 6, 4))
    assert [d.kept for d in outcome.check.dice] == [True, False, True]
    assert [(p.source, p.amount) for p in outcome.check.penalties] == [
        ("unpaid_cost", 2),
        ("dark", 1),
    ]
    assert outcome.check.total == 12
    assert [t.total for t in outcome.targets] == [12, 12]


def test_seeded_stacking_matches_exact_odds_per_target():
    rng = random.Random(303)
    action = declare(targets=["Bram", "Cora", "Dara"])
    action, _ = action.add_hinder("Dax", reaction(succeeds=True), rng=rng)
    action, _ = action.add_hinder("Eve", reaction(succeeds=True), rng=rng)
    action, _ = action.add_resist("Cora", reaction(succeeds=True), rng=rng)
    hinders = sum(p.amount for p in action.hinder_penalties())
    resist = action.resist_penalties("Cora")[0].amount
    assert 2 <= hinders <= 12 and 1 <= resist <= 6
    assert action.odds() == td.check_distribution(attribute=9, difficulty="normal", penalty=hinders)
    assert action.odds("Cora") == td.check_distribution(
        attribute=9, difficulty="normal", penalty=hinders + resist
    )
    _, outcome = action.resolve(rng=rng)
    totals = {t.target: t.total for t in outcome.targets}
    assert totals["Bram"] == totals["Dara"] == outcome.check.dice_total + 9 - hinders
    assert totals["Cora"] == totals["Bram"] - resist


def test_action_without_targets_can_still_be_hindered():
    action = declare(targets=[])
    action, _ = action.add_hinder("Dax", reaction(succeeds=True), rng=Faces(6))
    _, outcome = action.resolve(rng=Faces(3, 3))
    assert outcome.targets == ()
    assert outcome.check.total == 3 + 3 + 9 - 6


def test_penalty_die_frequencies():
    # The hinder and resist dice are fair d6s.
    rng = random.Random(77)
    success = reaction(succeeds=True)
    hinders, resists = [], []
    for _ in range(3000):
        _, opposition = declare().add_hinder("Dax", success, rng=rng)
        hinders.append(opposition.penalty.amount)
        _, opposition = declare().add_resist("Bram", success, rng=rng)
        resists.append(opposition.penalty.amount)
    assert chi_square_p_value(hinders, D6) > 0.001
    assert chi_square_p_value(resists, D6) > 0.001


def test_resolve_frequencies_per_target():
    rng = random.Random(5)
    action = declare(difficulty="easy", targets=["Bram", "Cora"])
    action, _ = action.add_resist("Cora", reaction(succeeds=True), rng=Faces(3))
    outcomes = [action.resolve(rng=rng)[1] for _ in range(4000)]
    for target in ("Bram", "Cora"):
        expected = {b: p for b, p in action.odds(target).items() if p}
        bands = (next(t.band for t in o.targets if t.target == target) for o in outcomes)
        assert chi_square_p_value(bands, expected) > 0.001


@settings(max_examples=60, deadline=None)
@given(
    hinders=st.integers(min_value=0, max_value=4),
    resisters=st.sets(st.sampled_from(["Bram", "Cora", "Dara"])),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_penalties_always_stack(hinders, resisters, seed):
    rng = random.Random(seed)
    action = declare(targets=["Bram", "Cora", "Dara"])
    for i in range(hinders):
        action, _ = action.add_hinder(f"Foe{i}", reaction(succeeds=True), rng=rng)
    for name in sorted(resisters):
        action, _ = action.add_resist(name, reaction(succeeds=True), rng=rng)
    _, outcome = action.resolve(rng=rng)
    shared = sum(p.amount for p in action.hinder_penalties())
    assert outcome.check.penalty == shared
    for target in outcome.targets:
        own = sum(p.amount for p in action.resist_penalties(target.target))
        assert (own > 0) == (target.target in resisters)
        assert target.penalty == shared + own
        assert target.total == outcome.check.total - own
    assert json.loads(json.dumps(action.to_dict())) == action.to_dict()


def test_round_trip_through_json_at_every_stage():
    action = declare(penalties=[("dark", 1)])
    stages = [action]
    action, _ = action.add_hinder("Dax", reaction(succeeds=True), rng=Faces(2))
    stages.append(action)
    action, _ = action.add_resist("Bram", reaction(succeeds=False), rng=Faces())
    stages.append(action)
    action, outcome = action.resolve(rng=Faces(4, 4))
    stages.append(action)
    for stage in stages:
        stored = json.loads(json.dumps(stage.to_dict()))
        assert td.PendingAction.from_dict(stored) == stage
    assert td.ActionOutcome.from_dict(json.loads(json.dumps(outcome.to_dict()))) == outcome


# --- moves the rules forbid ---------------------------------------------------------------------


def test_illegal_reactions():
    action = declare()
    success = reaction(succeeds=True)
    with pytest.raises(core.IllegalMoveError, match="Ayla cannot hinder their own action"):
        action.add_hinder("Ayla", success, rng=Faces(1))
    with pytest.raises(core.IllegalMoveError, match="Dax is not a target of this action"):
        action.add_resist("Dax", success, rng=Faces(1))
    once, _ = action.add_hinder("Bram", success, rng=Faces(1))
    with pytest.raises(core.IllegalMoveError, match="Bram has already reacted to this action"):
        once.add_resist("Bram", success, rng=Faces(1))
    with pytest.raises(core.RulesError, match="needs the reacting character's check result"):
        action.add_hinder("Dax", {"band": "success"}, rng=Faces(1))
    with pytest.raises(core.RulesError, match="non-empty name"):
        action.add_hinder("", success, rng=Faces(1))
    done, _ = action.resolve(rng=Faces(1, 1))
    with pytest.raises(core.IllegalMoveError, match="already resolved"):
        done.add_hinder("Dax", success, rng=Faces(1))
    with pytest.raises(core.IllegalMoveError, match="already resolved"):
        done.resolve(rng=Faces(1, 1))


def test_bad_declarations():
    with pytest.raises(core.RulesError, match="listed twice"):
        declare(targets=["Bram", "Bram"])
    with pytest.raises(core.RulesError, match="targets must be a list"):
        declare(targets="Bram")
    with pytest.raises(core.RulesError, match="not linked"):
        declare(resource="Focus")
    with pytest.raises(core.UnknownNameError, match="Unknown difficulty"):
        declare(difficulty="heroic")
    with pytest.raises(core.RulesError, match="acting character must be a non-empty name"):
        declare(actor=" ")
    action = declare()
    with pytest.raises(core.UnknownNameError, match="'Zed' is not a target of Ayla's action"):
        action.odds("Zed")


def test_bad_stored_actions():
    good = declare().to_dict()
    with pytest.raises(core.RulesError, match="must be a mapping"):
        td.PendingAction.from_dict("nope")
    with pytest.raises(core.RulesError, match="missing its 'payment'"):
        td.PendingAction.from_dict({k: v for k, v in good.items() if k != "payment"})
    with pytest.raises(core.RulesError, match="unknown dice mode"):
        td.PendingAction.from_dict({**good, "dice_mode": "loaded"})
    with pytest.raises(core.RulesError, match="must be lists"):
        td.PendingAction.from_dict({**good, "oppositions": "none"})
    with pytest.raises(core.RulesError, match="hinder or resist"):
        td.Opposition.from_dict(
            {"kind": "dodge", "reactor": "Dax", "reaction": {}, "penalty": None}
        )
    with pytest.raises(core.RulesError, match="targets must be a list"):
        td.ActionOutcome.from_dict(
            {"actor": "Ayla", "check": reaction(succeeds=True).to_dict(), "targets": 3}
        )


@pytest.mark.parametrize("attribute", [3, 6, 9, 12])
@pytest.mark.parametrize("difficulty", ["Normal", "Easy", "Hard"])
def test_success_if_opposed_against_enumeration(attribute, difficulty):
    # What a hinder or resist would buy, if it succeeds: every roll of the action's dice and
    # every face of the penalty die, counted by hand.
    action = td.declare_action(
        actor="Ayla",
        targets=["Bram"],
        attribute="Might",
        attribute_value=attribute,
        difficulty=difficulty,
        resource="Health",
        resource_available=9,
    )
    rolled = 2 if difficulty == "Normal" else 3

    def kept(faces):
        ordered = sorted(faces)
        if difficulty == "Easy":
            return ordered[-2:]
        if difficulty == "Hard":
            return ordered[:2]
        return ordered

    rolls = list(itertools.product(range(1, 7), repeat=rolled))
    now = Fraction(sum(sum(kept(r)) + attribute >= 15 for r in rolls), len(rolls))
    then = Fraction(
        sum(sum(kept(r)) + attribute - face >= 15 for r in rolls for face in range(1, 7)),
        len(rolls) * 6,
    )
    assert action.success_if_opposed("hinder", "Cleo") == (now, then)
    assert action.success_if_opposed("resist", "Bram") == (now, then)
    with pytest.raises(core.UnknownNameError):
        action.success_if_opposed("resist", "Cleo")  # only targets resist
