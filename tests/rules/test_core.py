from fractions import Fraction

import pytest

from rules import core


def test_sum_of_two_d6():
    dist = core.sum_of(2, 6)
    assert dist[7] == Fraction(1, 6)
    assert sum(dist.values()) == 1


def test_lookup_is_case_insensitive_and_clear():
    assert core.lookup("bLaCk", ["White", "Black"], "colour") == "Black"
    with pytest.raises(core.UnknownNameError, match="Unknown colour 'Purple'; choose one of"):
        core.lookup("Purple", ["White", "Black"], "colour")


def test_pool_cap():
    with pytest.raises(core.PoolTooLargeError, match="the most this table rolls"):
        core.check_pool(core.MAX_POOL + 1)
    with pytest.raises(core.RulesError, match="whole number"):
        core.check_pool("3")


def test_binomial_sums_to_one():
    dist = core.binomial(5, Fraction(1, 3))
    assert sum(dist.values()) == 1
    assert dist[0] == Fraction(2, 3) ** 5


def test_to_dict_is_plain():
    d = core.Die(sides=6, rolled=5, value=6, bonus=1)
    assert d.to_dict() == {
        "sides": 6,
        "rolled": 5,
        "value": 6,
        "kept": True,
        "exploded": False,
        "bonus": 1,
        "source": None,
    }
