"""conductor (seed 002): the Wilderness Exploration Procedure (rules.conductor_wilderness)."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import conductor
from rules.conductor import (
    Expedition,
    Fed,
    ForageRolled,
    LastingHit,
    LastingHitsRecovered,
    MountsRecovered,
    MountsTired,
    PhaseEnded,
    SupplyRolled,
    SupplySkipped,
    TravelTaken,
    WildernessRolled,
    forage_probability,
    start_expedition,
    supply_probability,
    supply_roll,
    wilderness_roll,
    wilderness_roll_distribution,
)
from rules.core import IllegalMoveError, OutOfRangeError, RulesError, UnknownNameError, die
from tests.rules.stats import chi_square_p_value
from tests.support.dice import Faces

PARTY = {"a": "Ann", "b": "Bo", "c": "Cy"}


def kinds(events):
    return [e.kind for e in events]


def round_trip(expedition: Expedition) -> Expedition:
    again = Expedition.from_dict(json.loads(json.dumps(expedition.to_dict())))
    assert again == expedition
    return again


# --- odds and single rolls ------------------------------------------------------------------------


def test_odds_worked_by_hand():
    # Supply: "must roll above 3": a d12 keeps supplies on 4..12 (9 of 12), a d4 only on a 4.
    assert supply_probability(die=12) == Fraction(9, 12)
    assert supply_probability(die=4) == Fraction(1, 4)
    # Forage: d12 + Survival 2 over 7 needs 6..12 (7 of 12); a benny: 5..12 (8 of 12).
    assert forage_probability(survival=2) == Fraction(7, 12)
    assert forage_probability(survival=2, bennies=1) == Fraction(8, 12)
    # Wilderness d6: 1 adventure, 2-3 clues, 4-6 landmark.
    assert wilderness_roll_distribution() == {
        "adventure": Fraction(1, 6),
        "clues": Fraction(2, 6),
        "landmark": Fraction(3, 6),
    }
    ruleset = {"wilderness": {"supply_dice": [8, 6], "supply_target": 2, "forage_difficulty": 5}}
    assert supply_probability(die=8, ruleset=ruleset) == Fraction(6, 8)
    assert forage_probability(survival=0, ruleset=ruleset) == Fraction(7, 12)


def test_supply_die_steps_down_to_depletion():
    # Every failure steps the die down d12 -> d10 -> d8 -> d6 -> d4; failing the d4 depletes.
    sizes = []
    current = 12
    for sides in (12, 10, 8, 6, 4):
        result = supply_roll(die=current, rng=Faces((sides, 1)))
        assert not result.success and result.die.sides == sides
        sizes.append(result.die_after)
        current = result.die_after
    assert sizes == [10, 8, 6, 4, 4]
    assert result.depleted
    # Rolling exactly 3 fails ("above 3"); a 4 succeeds and keeps the die.
    assert not supply_roll(die=8, rng=Faces((8, 3))).success
    kept = supply_roll(die=6, rng=Faces((6, 4)))
    assert kept.success and kept.die_after == 6 and not kept.depleted


def test_supply_and_wilderness_roll_errors():
    with pytest.raises(RulesError, match="supply die must be one of d12, d10, d8, d6, d4"):
        supply_roll(die=20, rng=random.Random(1))
    with pytest.raises(RulesError, match="whole number"):
        supply_probability(die="d12")
    with pytest.raises(OutOfRangeError):
        forage_probability(survival=-2)


def test_supply_roll_chi_square():
    rng = random.Random(44)
    rolls = [supply_roll(die=8, rng=rng) for _ in range(4000)]
    assert chi_square_p_value([r.die.rolled for r in rolls], die(8)) > 0.001
    p = supply_probability(die=8)
    assert chi_square_p_value([r.success for r in rolls], {True: p, False: 1 - p}) > 0.001
    assert all(r.die_after == (8 if r.success else 6) for r in rolls)


def test_wilderness_roll_chi_square():
    rng = random.Random(45)
    samples = [wilderness_roll(rng=rng).encounter for _ in range(4000)]
    assert chi_square_p_value(samples, wilderness_roll_distribution()) > 0.001


def test_end_phase_rolls_chi_square():
    # The rolls the machine makes itself: the wilderness roll of every phase and the first
    # day's supply roll (at d12) of fresh expeditions.
    rng = random.Random(46)
    encounters, supplies = [], []
    for _ in range(1500):
        expedition = start_expedition(members={"a": "Ann"})
        for _ in range(3):
            expedition, events = expedition.end_phase(rng=rng)
            encounters += [e.roll.encounter for e in events if isinstance(e, WildernessRolled)]
            supplies += [e.roll.success for e in events if isinstance(e, SupplyRolled)]
    assert len(supplies) == 1500
    assert chi_square_p_value(encounters, wilderness_roll_distribution()) > 0.001
    p = supply_probability(die=12)
    assert chi_square_p_value(supplies, {True: p, False: 1 - p}) > 0.001


def test_forage_chi_square():
    rng = random.Random(47)
    start = start_expedition(members={"a": "Ann"})
    samples = []
    for _ in range(4000):
        _, events = start.choose_action("a", "Forage", survival=3, rng=rng)
        samples.append(events[-1].success)
    p = forage_probability(survival=3)
    assert chi_square_p_value(samples, {True: p, False: 1 - p}) > 0.001


# --- a full walk through --------------------------------------------------------------------------


def test_walk_through_days():
    expedition = start_expedition(members=PARTY)
    assert (expedition.day, expedition.phase, expedition.supply_die) == (1, "Morning", 12)
    assert expedition.leader == "a"

    # Day 1, Morning: the party treks one hex; nobody may then act alone.
    expedition, events = expedition.choose_travel("trek")
    assert events == (TravelTaken(travel="Trek", hexes=1, civilization=False),)
    with pytest.raises(IllegalMoveError, match="travelling"):
        expedition.choose_action("a", "Rest")
    expedition, events = expedition.end_phase(rng=Faces((6, 1)))
    assert kinds(events) == ["wilderness_roll", "phase_ended"]
    assert events[0].roll.encounter == "adventure"
    assert events[1] == PhaseEnded(day=1, phase="Morning", next_day=1, next_phase="Afternoon")
    assert expedition.hexes_travelled == 1 and expedition.travel is None
    expedition = round_trip(expedition)

    # Afternoon: Ann forages (d12 shows 4, +2 Survival = 6, not over 7), a benny makes 7:
    # still not over 7. Bo rests, Cy keeps watch.
    expedition, events = expedition.choose_action("Ann", "forage", survival=2, rng=Faces((12, 4)))
    assert kinds(events) == ["action", "forage"]
    assert events[1].roll.total == 6 and not events[1].success
    expedition, events = expedition.spend_bennies_on_forage("a", bennies=1)
    assert events[0].roll.total == 7 and not events[0].success
    expedition, _ = expedition.choose_action("b", "Rest")
    expedition, _ = expedition.choose_action("c", "Sentinel")
    with pytest.raises(IllegalMoveError, match="already acted"):
        expedition.choose_action("b", "Scouting")
    with pytest.raises(IllegalMoveError, match="travel takes the whole party"):
        expedition.choose_travel("Trek")
    expedition = round_trip(expedition)
    expedition, events = expedition.end_phase(rng=Faces((6, 3)))
    assert events[0].roll.encounter == "clues"
    assert expedition.foragers_today == ()

    # Night: Ann rests, Bo navigates, Cy does something of their own.
    expedition, _ = expedition.choose_action("a", "Rest")
    expedition, _ = expedition.choose_action("b", "Navigation")
    expedition, events = expedition.choose_action("c", "Fishing by the river")
    assert events[0].action == "Fishing by the river"
    # End of day 1: landmark; no forage succeeded, so the leader (Ann) rolls the d12 supply
    # die: a 3 is not above 3, it steps down to a d10. Cy never rested: a lasting hit.
    expedition, events = expedition.end_phase(rng=Faces((6, 5), (12, 3)))
    assert kinds(events) == ["wilderness_roll", "supply_roll", "lasting_hit", "phase_ended"]
    supply = events[1]
    assert supply.leader == "a" and supply.roll.die.rolled == 3
    assert not supply.roll.success and supply.roll.die_after == 10
    assert events[2] == LastingHit(character="c", cause="no rest")
    assert events[3] == PhaseEnded(day=1, phase="Night", next_day=2, next_phase="Morning")
    assert (expedition.day, expedition.phase, expedition.supply_die) == (2, "Morning", 10)
    assert [m.no_rest_hits for m in expedition.members] == [0, 0, 1]
    assert not any(m.rested_today for m in expedition.members)
    expedition = round_trip(expedition)

    # Day 2, Morning: Cy rests (the lasting hit recovers when the phase ends); Ann forages:
    # 9 + 2 = 11, over 7.
    expedition, _ = expedition.choose_action("c", "rest")
    expedition, events = expedition.choose_action("a", "Forage", survival=2, rng=Faces((12, 9)))
    assert events[1].success
    expedition, _ = expedition.choose_action("b", "Scouting")
    expedition, events = expedition.end_phase(rng=Faces((6, 4)))
    assert LastingHitsRecovered(character="c", cause="no rest", hits=1) in events
    assert expedition.foragers_today == ("a",)
    assert [m.no_rest_hits for m in expedition.members] == [0, 0, 0]
    # Afternoon: trek on. Night: Ann and Bo rest, Cy watches (Cy rested this morning).
    expedition, _ = expedition.choose_travel("Trek")
    expedition, _ = expedition.end_phase(rng=Faces((6, 2)))
    expedition, _ = expedition.choose_action("a", "Rest")
    expedition, _ = expedition.choose_action("b", "Rest")
    expedition, _ = expedition.choose_action("c", "Sentinel")
    # The forage succeeded: no supply roll (the script has no d10 to give), no hit at all.
    expedition, events = expedition.end_phase(rng=Faces((6, 6)))
    assert kinds(events) == ["wilderness_roll", "supply_skipped", "phase_ended"]
    assert events[1] == SupplySkipped(foragers=("a",))
    assert (expedition.day, expedition.supply_die, expedition.hexes_travelled) == (3, 10, 2)
    assert expedition.foragers_today == ()

    # Day 3 with the supplies down to a d4: all rest in the morning; the d4 shows 2: depleted,
    # every member takes a lasting hit until fed.
    stored = expedition.to_dict()
    stored["supply_die"] = 4
    expedition = Expedition.from_dict(stored)
    for who in PARTY:
        expedition, _ = expedition.choose_action(who, "Rest")
    expedition, _ = expedition.end_phase(rng=Faces((6, 4)))
    expedition, _ = expedition.end_phase(rng=Faces((6, 4)))
    expedition, events = expedition.end_phase(rng=Faces((6, 4), (4, 2)))
    assert kinds(events) == ["wilderness_roll", "supply_roll"] + ["lasting_hit"] * 3 + [
        "phase_ended"
    ]
    assert events[1].roll.depleted
    assert {e.character for e in events if isinstance(e, LastingHit)} == {"a", "b", "c"}
    assert all(e.cause == "supplies depleted" for e in events if isinstance(e, LastingHit))
    assert expedition.depleted and expedition.supply_odds() == 0

    # Day 4: nobody rests and the supplies stay depleted: no roll (no d4 is scripted), a hunger
    # hit and a no-rest hit for everyone.
    for _ in range(2):
        expedition, _ = expedition.end_phase(rng=Faces((6, 1)))
    expedition, events = expedition.end_phase(rng=Faces((6, 1)))
    hits = [(e.character, e.cause) for e in events if isinstance(e, LastingHit)]
    assert hits == [
        ("a", "supplies depleted"),
        ("a", "no rest"),
        ("b", "supplies depleted"),
        ("b", "no rest"),
        ("c", "supplies depleted"),
        ("c", "no rest"),
    ]
    assert [(m.hunger_hits, m.no_rest_hits) for m in expedition.members] == [(2, 1)] * 3
    expedition = round_trip(expedition)

    # Fed again: the hunger hits recover and the supplies are back to a d12.
    expedition, events = expedition.feed()
    assert events[:3] == tuple(
        LastingHitsRecovered(character=c, cause="supplies depleted", hits=2) for c in PARTY
    )
    assert events[3] == Fed(supply_die=12)
    assert not expedition.depleted and expedition.supply_die == 12
    # Bo rests at an inn: his no-rest hit recovers at once.
    expedition, events = expedition.rest("Bo")
    assert events == (LastingHitsRecovered(character="b", cause="no rest", hits=1),)
    assert [m.no_rest_hits for m in expedition.members] == [1, 0, 1]
    assert expedition.rest("b")[1] == ()  # nothing more to recover


# --- travel and mounts ----------------------------------------------------------------------------


def test_gallop_needs_every_member_mounted_and_fresh_mounts():
    expedition = start_expedition(members=PARTY, mounted=["a", "b"])
    with pytest.raises(IllegalMoveError, match="Gallop needs the whole party mounted; Cy"):
        expedition.choose_travel("Gallop")
    expedition, _ = expedition.set_mounted("c")
    expedition, events = expedition.choose_travel("gallop")
    assert events == (TravelTaken(travel="Gallop", hexes=2, civilization=False), MountsTired())
    assert expedition.mounts_tired and expedition.hexes_travelled == 2
    with pytest.raises(IllegalMoveError, match="already travels"):
        expedition.choose_travel("Trek")
    expedition, _ = expedition.end_phase(rng=random.Random(1))
    with pytest.raises(IllegalMoveError, match="tired"):
        expedition.choose_travel("Gallop")
    # Trekking does not rest the mounts (default: a phase without travel does).
    expedition, _ = expedition.choose_travel("Trek")
    expedition, events = expedition.end_phase(rng=random.Random(1))
    assert expedition.mounts_tired and not any(isinstance(e, MountsRecovered) for e in events)
    expedition, _ = expedition.choose_action("a", "Sentinel")
    expedition, events = expedition.end_phase(rng=random.Random(1))
    assert MountsRecovered() in events and not expedition.mounts_tired
    expedition, _ = expedition.set_mounted("b", False)
    with pytest.raises(IllegalMoveError, match="Bo on foot"):
        expedition.choose_travel("Gallop")


def test_gallop_into_civilization_does_not_tire():
    expedition = start_expedition(members=PARTY, mounted=PARTY)
    expedition, events = expedition.choose_travel("Gallop", civilization=True)
    assert not expedition.mounts_tired and kinds(events) == ["travel"]


@pytest.mark.parametrize(
    ("rule", "recovered_after"),
    [
        ("phase_without_travel", "Afternoon"),  # the afternoon the party camps
        ("party_rest", "Night"),  # only when every member rests
        ("new_day", "Night"),  # at dawn
    ],
)
def test_mount_recovery_rules(rule, recovered_after):
    ruleset = {"wilderness": {"mounts_recover": rule}}
    expedition = start_expedition(
        members={"a": "Ann", "b": "Bo"}, mounted=["a", "b"], ruleset=ruleset
    )
    expedition, _ = expedition.choose_travel("Gallop")  # Morning: the mounts tire
    expedition, _ = expedition.end_phase(rng=random.Random(2))
    assert expedition.mounts_tired
    # Afternoon: only Ann rests. Night: both rest.
    expedition, _ = expedition.choose_action("a", "Rest")
    expedition, events = expedition.end_phase(rng=random.Random(2))
    assert (MountsRecovered() in events) == (recovered_after == "Afternoon")
    expedition, _ = expedition.choose_action("a", "Rest")
    expedition, _ = expedition.choose_action("b", "Rest")
    expedition, events = expedition.end_phase(rng=random.Random(2))
    assert (MountsRecovered() in events) == (recovered_after == "Night")
    assert not expedition.mounts_tired


def test_ferry_needs_a_water_vehicle():
    expedition = start_expedition(members=PARTY)
    with pytest.raises(IllegalMoveError, match="water vehicle"):
        expedition.choose_travel("Ferry")
    expedition, _ = expedition.set_water_vehicle(True)
    expedition, events = expedition.choose_travel("ferry")
    assert events[0].hexes == 3 and expedition.hexes_travelled == 3
    on_boat = start_expedition(members=PARTY, water_vehicle=True)
    assert on_boat.choose_travel("Ferry")[0].hexes_travelled == 3


def test_travel_hexes_come_from_the_ruleset():
    ruleset = {"wilderness": {"trek_hexes": 2, "supply_dice": [8, 6]}}
    expedition = start_expedition(members=PARTY, ruleset=ruleset)
    assert expedition.supply_die == 8
    assert expedition.choose_travel("Trek")[0].hexes_travelled == 2
    assert round_trip(expedition).rules.supply_dice == (8, 6)


# --- illegal moves and bad input ------------------------------------------------------------------


def test_illegal_moves():
    expedition = start_expedition(members=PARTY)
    with pytest.raises(IllegalMoveError, match="travel action for the whole party"):
        expedition.choose_action("a", "Trek")
    with pytest.raises(RulesError, match="Survival"):
        expedition.choose_action("a", "Forage")
    with pytest.raises(RulesError, match="Only Forage"):
        expedition.choose_action("a", "Rest", survival=2)
    with pytest.raises(RulesError, match="non-empty"):
        expedition.choose_action("a", "   ")
    with pytest.raises(RulesError, match="too long"):
        expedition.choose_action("a", "x" * 201)
    with pytest.raises(UnknownNameError, match="not in the party; members: Ann"):
        expedition.choose_action("Dee", "Rest")
    with pytest.raises(IllegalMoveError, match="no Forage roll"):
        expedition.spend_bennies_on_forage("a", bennies=1)
    with pytest.raises(RulesError, match="Unknown travel action"):
        expedition.choose_travel("Fly")
    with pytest.raises(RulesError, match="civilization"):
        expedition.choose_travel("Trek", civilization="yes")
    with pytest.raises(IllegalMoveError, match="leads the party"):
        expedition.remove_member("a")
    with pytest.raises(IllegalMoveError, match="already in the party"):
        expedition.add_member("b", "Bob")
    foraging, _ = expedition.choose_action("a", "Forage", survival=1, rng=random.Random(3))
    with pytest.raises(OutOfRangeError, match="bennies must be at least 1"):
        foraging.spend_bennies_on_forage("a", bennies=0)


def test_bad_starts():
    with pytest.raises(RulesError, match="at least one member"):
        start_expedition(members={})
    with pytest.raises(RulesError, match="same id"):
        start_expedition(members=[("a", "Ann"), ("a", "Also Ann")])
    with pytest.raises(RulesError, match="member id"):
        start_expedition(members={None: "Ann"})
    with pytest.raises(RulesError, match="id -> name"):
        start_expedition(members=["Ann"])
    with pytest.raises(UnknownNameError):
        start_expedition(members=PARTY, leader="z")
    with pytest.raises(RulesError, match="water_vehicle"):
        start_expedition(members=PARTY, water_vehicle=1)
    with pytest.raises(RulesError, match="Unknown ruleset.wilderness field"):
        start_expedition(members=PARTY, ruleset={"wilderness": {"speed": 3}})
    with pytest.raises(RulesError, match="mounted must list member ids"):
        start_expedition(members=PARTY, mounted="ab")
    with pytest.raises(UnknownNameError):
        start_expedition(members=PARTY, mounted=["z"])
    with pytest.raises(RulesError, match="at most 100 members"):
        start_expedition(members={str(i): f"N{i}" for i in range(101)})
    with pytest.raises(RulesError, match="name must be a non-empty text"):
        start_expedition(members={"a": ""})
    crowd = start_expedition(members={str(i): f"N{i}" for i in range(100)})
    with pytest.raises(RulesError, match="at most 100 members"):
        crowd.add_member("x", "Extra")
    with pytest.raises(RulesError, match="mounted must be true or false"):
        crowd.add_member("x", "Extra", mounted="yes")


def test_party_changes():
    expedition = start_expedition(members={1: "Ann", 2: "Bo"}, leader="Bo")
    assert expedition.leader == "2" and expedition.members[0].id == "1"
    expedition, _ = expedition.add_member("3", "Cy", mounted=True)
    expedition, events = expedition.set_leader("Cy")
    assert expedition.leader == "3" and events[0].change == "leader"
    expedition, _ = expedition.remove_member(2)
    assert [m.name for m in expedition.members] == ["Ann", "Cy"]
    round_trip(expedition)


def test_party_changes_mid_day_count_at_the_days_end():
    # The web layer lets the GM change the party between phases; the day's end must follow.
    expedition = start_expedition(members=PARTY)
    expedition, _ = expedition.choose_action("b", "Forage", survival=3, rng=Faces((12, 8)))
    expedition, _ = expedition.end_phase(rng=Faces((6, 4)))
    assert expedition.foragers_today == ("b",)
    # Bo leaves with his forage: the supply roll is made after all.
    expedition, _ = expedition.remove_member("b")
    assert expedition.foragers_today == ()
    # Ann rests at an inn (outside the phases): it counts for today.
    expedition, events = expedition.rest("a")
    assert events == () and expedition.members[0].rested_today
    # Di joins at Night and never rests: a no-rest hit like everyone else who did not rest.
    expedition, _ = expedition.end_phase(rng=Faces((6, 4)))
    expedition, _ = expedition.add_member("d", "Di")
    expedition, events = expedition.end_phase(rng=Faces((6, 4), (12, 9)))
    assert kinds(events) == ["wilderness_roll", "supply_roll"] + ["lasting_hit"] * 2 + [
        "phase_ended"
    ]
    assert [e.character for e in events if isinstance(e, LastingHit)] == ["c", "d"]
    assert [(m.id, m.no_rest_hits) for m in expedition.members] == [("a", 0), ("c", 1), ("d", 1)]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("leader"), "lacks its 'leader'"),
        (lambda d: d.update(day=0), "day must be at least 1"),
        (lambda d: d.update(day="1"), "wrong type"),
        (lambda d: d.update(phase="Dusk"), "Unknown phase"),
        (lambda d: d.update(leader="z"), "not a member"),
        (lambda d: d.update(supply_die=7), "supply die must be one of"),
        (lambda d: d.update(members=[]), "1 to 100 members"),
        (lambda d: d["members"].append(dict(d["members"][0])), "same id"),
        (lambda d: d["members"][0].update(mounted="yes"), "mounted"),
        (lambda d: d["members"][0].update(no_rest_hits=-1), "no_rest_hits"),
        (lambda d: d["members"][0].update(forage={"die": {"rolled": 3}}), "whose action"),
        (lambda d: d.update(foragers_today=["z"]), "not a member"),
        (lambda d: d.update(travel={"kind": "Swim", "hexes": 1}), "Unknown travel action"),
        (lambda d: d.update(rules={"supply_dice": "d12"}), "supply_dice"),
        (lambda d: d.update(depleted=None), "wrong type"),
        (lambda d: d.update(travel=["Trek"]), "travel must be a mapping"),
        (lambda d: d["members"][0].update(action="Forage", forage=3), "Forage roll must be"),
        (lambda d: d["members"][0].update(action=""), "action must be a non-empty"),
        (lambda d: d["members"].__setitem__(0, "Ann"), "must be a mapping"),
        (
            lambda d: (
                d.update(travel={"kind": "Trek", "hexes": 1}),
                d["members"][0].update(action="Rest"),
            ),
            "both travel and",
        ),
    ],
)
def test_from_dict_errors(change, message):
    data = json.loads(json.dumps(start_expedition(members=PARTY).to_dict()))
    change(data)
    with pytest.raises(RulesError, match=message):
        Expedition.from_dict(data)
    with pytest.raises(RulesError, match="mapping"):
        Expedition.from_dict([1, 2])


def test_forage_roll_survives_storage_with_its_bennies():
    expedition = start_expedition(members=PARTY)
    expedition, _ = expedition.choose_action("a", "Forage", survival=1, rng=Faces((12, 5)))
    expedition, events = expedition.spend_bennies_on_forage("a", bennies=2)
    assert isinstance(events[0], ForageRolled) and events[0].roll.total == 8 and events[0].success
    again = round_trip(expedition)
    assert again.members[0].forage.bennies == 2 and again.members[0].forage.success
    # The success counts for the day when the phase ends.
    ended, _ = again.end_phase(rng=Faces((6, 2)))
    assert ended.foragers_today == ("a",)


# --- properties over random play ------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_play_keeps_the_books(seed):
    rng = random.Random(seed)
    expedition = start_expedition(members=PARTY, mounted=PARTY, water_vehicle=True)
    moves = ["Forage", "Navigation", "Scouting", "Sentinel", "Rest", "Sing"]
    supply_seen = [expedition.supply_die]
    for _ in range(15):
        if rng.random() < 0.3:
            try:
                expedition, _ = expedition.choose_travel(rng.choice(conductor.TRAVEL_KINDS))
            except IllegalMoveError:
                assert expedition.mounts_tired  # only a tired Gallop can fail here
        else:
            for who in PARTY:
                if rng.random() < 0.8:
                    move = rng.choice(moves)
                    survival = rng.randint(0, 4) if move == "Forage" else None
                    expedition, _ = expedition.choose_action(who, move, survival=survival, rng=rng)
        before = expedition
        rested = {m.id for m in before.members if m.rested_today or m.action == "Rest"}
        expedition, events = expedition.end_phase(rng=rng)
        if before.phase == "Night":
            no_rest = {
                e.character for e in events if isinstance(e, LastingHit) and e.cause == "no rest"
            }
            assert no_rest == set(PARTY) - rested
            assert expedition.day == before.day + 1
            supply_seen.append(expedition.supply_die)
        else:
            assert not any(isinstance(e, LastingHit) for e in events)
        assert sum(isinstance(e, WildernessRolled) for e in events) == 1
        expedition = round_trip(expedition)
    # The supply die only ever steps down (nobody fed the party).
    assert supply_seen == sorted(supply_seen, reverse=True)
    hunger = Counter(m.hunger_hits for m in expedition.members)
    assert len(hunger) == 1  # every member starves alike
