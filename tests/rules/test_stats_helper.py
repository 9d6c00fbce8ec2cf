"""The chi-square helper itself must be able to fail, or the frequency tests prove nothing."""

import random
from fractions import Fraction

from tests.rules.stats import chi_square_p_value

D6 = {face: Fraction(1, 6) for face in range(1, 7)}


def test_fair_die_passes():
    rng = random.Random(1)
    assert chi_square_p_value((rng.randint(1, 6) for _ in range(6000)), D6) > 0.001


def test_loaded_die_fails():
    rng = random.Random(1)
    loaded = (min(6, rng.randint(1, 7)) for _ in range(6000))
    assert chi_square_p_value(loaded, D6) < 1e-6


def test_known_value():
    # 2 cells, expected 50/50, observed 60/40: chi2 = 4, dof 1, p = 0.0455
    samples = [1] * 60 + [2] * 40
    p = chi_square_p_value(samples, {1: Fraction(1, 2), 2: Fraction(1, 2)})
    assert abs(p - 0.0455) < 0.0005
