"""Every roll made with exact odds stores its bands (worst to best, exact fractions as strings)
and the band it landed in; a hidden roll keeps them in its secret, where its commitment covers
them; the procedures' rolls carry them too where their odds are exactly computable."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import percentile, two_dice
from rules.conductor import attack_hit_distribution
from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.models import roll_data
from tabletop.scenes.rollkinds import ROLL_KINDS, headline_odds, stored_odds
from tabletop.stats.stats import stored_bands
from tabletop.systems.percentile import maneuvers
from tests.support.dice import Always, Faces
from tests.support.tables import make_table

pytestmark = pytest.mark.django_db

# (system, roll kind, the roll form's fields off-sheet, scripted dice)
ROLL_FORM_ROLLS = [
    ("conductor", "conductor_standard", {"skill": 3, "difficulty": 9}, Faces(8)),
    ("conductor", "conductor_attack", {"skill": 1, "difficulty": 4}, Faces(6, 4, 2)),
    ("percentile", "percentile", {"skill_value": 30, "column": "Movement"}, Faces(40)),
    ("percentile", "percentile_pure_chance", {"chance": 60}, Faces(55)),
    (
        "two_dice",
        "two_dice",
        {
            "attribute": "Agility",
            "difficulty": "Normal",
            "resource": "Stamina",
            "attribute_value": 3,
            "resource_available": 9,
        },
        Always(4),
    ),
    ("annulus", "annulus_check", {"difficulty": "hard", "type_1": "Knowledge"}, Always(5)),
    (
        "roll_and_keep",
        "roll_and_keep",
        {"dice": 3, "specialities": 1, "keep": 2, "difficulty": "Standard"},
        Always(7),
    ),
    ("conductor", "expression", {"expression": "3d6+1"}, Faces(2, 5, 6)),
]


def exact(odds) -> list[tuple[str, Fraction]]:
    return [(key, Fraction(p)) for key, p in odds["bands"]]


@pytest.mark.parametrize(
    ("system", "kind", "data", "dice"), ROLL_FORM_ROLLS, ids=[r[1] for r in ROLL_FORM_ROLLS]
)
def test_a_roll_form_s_roll_stores_its_exact_bands_and_where_it_landed(system, kind, data, dice):
    table = make_table(system)
    event = actions.roll(scene=table.scene, actor=table.alice, roll_kind=kind, data=data, rng=dice)
    odds = event.public["odds"]
    bands = exact(odds)
    assert sum(p for _, p in bands) == 1 and all(p > 0 for _, p in bands)
    assert all(isinstance(p, str) for _, p in odds["bands"])  # hashes the same everywhere
    assert odds["band"] in dict(bands)
    # The same bands the odds function gives for the same inputs, in its order.
    before = headline_odds(
        ROLL_KINDS[kind], data=data, character=None, ruleset=table.campaign.effective_ruleset()
    )
    assert before["bands"] == odds["bands"]
    assert stored_bands(odds) == (tuple(bands), odds["band"])


def test_the_band_landed_in_is_the_rolls_outcome():
    table = make_table("conductor")
    scene, alice = table.scene, table.alice
    fail = actions.roll(
        scene=scene,
        actor=alice,
        roll_kind="conductor_standard",
        data={"skill": 0, "difficulty": 9},
        rng=Faces(3),
    )
    assert fail.public["odds"]["band"] == "failure"
    assert exact(fail.public["odds"]) == [
        ("failure", Fraction(9, 12)),
        ("success", Fraction(3, 12)),
    ]
    # two sixes explode into a 5 and a 1: 3 hits against 4 (6, 6, 5), the bands 0..3, 4+
    attack = actions.roll(
        scene=scene,
        actor=alice,
        roll_kind="conductor_attack",
        data={"skill": 1, "difficulty": 4},
        rng=Faces(6, 6, 5, 1),
    )
    assert attack.public["result"]["hits"] == 3
    assert attack.public["odds"]["band"] == "3"
    dist = attack_hit_distribution(skill=1, difficulty=4, top=4)
    assert exact(attack.public["odds"]) == [(str(h), dist[h]) for h in range(3)] + [
        ("3", dist[3]),
        ("4+", dist[4]),
    ]
    box = actions.roll(
        scene=scene,
        actor=alice,
        roll_kind="expression",
        data={"expression": "2d6"},
        rng=Faces(6, 5),
    )
    assert box.public["odds"]["band"] == "11"
    assert dict(exact(box.public["odds"]))["11"] == Fraction(2, 36)


def test_a_wide_dice_box_spread_is_grouped_into_ranges_that_still_add_up():
    table = make_table("conductor")
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": "10d20"},
        rng=Always(1),
    )
    odds = event.public["odds"]
    bands = exact(odds)
    assert 2 <= len(bands) <= 40 and sum(p for _, p in bands) == 1
    assert bands[0][0].startswith("10") and odds["band"] == bands[0][0]  # all ones: 10


def test_a_hidden_rolls_bands_are_as_secret_as_its_dice():
    table = make_table("conductor")
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_standard",
        data={"skill": 3, "difficulty": 9},
        mode="blind",
        rng=Faces(8),
    )
    assert "odds" not in event.public
    assert event.secret["odds"]["band"] == "success"
    assert event.commitment  # over the secret, bands included


def test_only_an_exact_distribution_is_stored():
    # stored_odds refuses what is not an exact distribution, so nothing half-right is stored.
    assert stored_odds({"bands": [("a", Fraction(1, 2))]}) is None
    assert stored_odds({"bands": [("a", Fraction(1, 2)), ("a", Fraction(1, 2))]}) is None
    assert stored_odds({"bands": [("a", 0.5), ("b", 0.5)]}) is None
    assert stored_odds({"bands": [("a", Fraction(3, 2)), ("b", Fraction(-1, 2))]}) is None
    # a band that can't happen is left out
    assert stored_odds({"bands": [("a", Fraction(1)), ("b", Fraction(0))]}) == {
        "bands": [["a", "1"]]
    }


def test_a_tracked_maneuver_stores_its_odds_with_the_tracked_retries():
    table = make_table("percentile")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Ilse",
        skills=[{"name": "Climbing", "value": 20}],
    )
    data = {"skill": "Climbing", "column": "Movement", "task": "the wall"}
    first = maneuvers.maneuver_track(
        scene=table.scene, actor=table.alice, character=hero, data=data, rng=Faces(30)
    )
    second = maneuvers.maneuver_track(
        scene=table.scene, actor=table.alice, character=hero, data=data, rng=Faces(30)
    )
    expected_first = percentile.maneuver_odds(skill_value=20, ruleset=None)
    assert exact(first.public["odds"]) == [
        (b, expected_first.bands[b]) for b in percentile.BANDS if expected_first.bands[b]
    ]
    assert first.public["odds"]["band"] == first.public["outcome"]
    if first.public["outcome"] not in percentile.SUCCESS_OR_BETTER:
        # one failure on this attempt: the second try had -25, and its stored odds say so
        retry = percentile.maneuver_odds(skill_value=20, retry_failures=1, ruleset=None)
        assert exact(second.public["odds"]) == [
            (b, retry.bands[b]) for b in percentile.BANDS if retry.bands[b]
        ]


def test_the_gms_perception_roll_stores_its_odds_in_its_secret():
    table = make_table("percentile")
    hero = Character.objects.create(
        campaign=table.campaign, owner=table.alice, name="Ilse", attributes={"Perceptivity": 15}
    )
    event = maneuvers.perception_roll(
        scene=table.scene, actor=table.gm, character=hero, data={}, rng=Faces(50)
    )
    assert "odds" not in event.public
    odds = event.secret["odds"]
    expected = percentile.maneuver_odds(skill_value=15, ruleset=None)
    assert exact(odds) == [(b, expected.bands[b]) for b in percentile.BANDS if expected.bands[b]]
    assert odds["band"] == roll_data(event)["outcome"]


def test_two_dice_bands_are_the_check_distribution():
    table = make_table("two_dice")
    data = {
        "attribute": "Agility",
        "difficulty": "Normal",
        "resource": "Stamina",
        "attribute_value": 3,
        "resource_available": 0,
    }
    event = actions.roll(
        scene=table.scene, actor=table.alice, roll_kind="two_dice", data=data, rng=Always(4)
    )
    cost = two_dice.pay_cost(
        difficulty="Normal", resource="Stamina", available=0, attribute="Agility", ruleset=None
    )
    dist = two_dice.check_distribution(
        attribute=3, difficulty="Normal", penalty=cost.unpaid, ruleset=None
    )
    assert exact(event.public["odds"]) == [(b, dist[b]) for b in two_dice.BANDS if dist[b]]
    assert event.public["odds"]["band"] == event.public["result"]["band"]
