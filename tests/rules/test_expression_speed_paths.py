"""The dice box's fast paths change nothing but time: a text's tree is parsed once and shared,
refusals are never kept, and a roll from text is the roll of its tree, die for die."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import expression as ex
from rules.expression import ExprDie as Die

TEXTS = ["3d6+2", "d%", "4d6!kh3", "2d20kl1 - 1d4 + 3", "10d6!>=5kh3", "6d6dl2", "3*2d6 - 1"]


def test_a_text_is_parsed_once_and_its_tree_shared():
    ex.clear_caches()
    first = ex.parse("3d6 + 2")
    assert ex.parse("3d6 + 2") is first
    ex.clear_caches()
    assert ex.parse("3d6 + 2") is not first and ex.parse("3d6 + 2") == first


def test_a_refused_text_is_refused_every_time():
    for _ in range(3):
        with pytest.raises(ex.ExpressionError, match="position 4"):
            ex.roll("3d6y", rng=random.Random(1))
    with pytest.raises(ex.ExpressionError, match="not 36"):
        ex.roll(36)  # type: ignore[arg-type]


@given(text=st.sampled_from(TEXTS), seed=st.integers(0, 2**32))
def test_a_roll_from_text_is_the_roll_of_its_tree(text, seed):
    from_text = ex.roll(text, rng=random.Random(seed))
    from_tree = ex.roll(ex.parse(text), rng=random.Random(seed))
    assert from_text == from_tree
    assert from_text.to_dict() == from_tree.to_dict()
    # Every die is a proper, frozen Die, equal to one built the usual way.
    for die in from_text.dice:
        fields = {f.name: getattr(die, f.name) for f in dataclasses.fields(Die)}
        assert die == Die(**fields) and hash(die) == hash(Die(**fields))
        with pytest.raises(dataclasses.FrozenInstanceError):
            die.value = 99  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        from_text.total = 0  # type: ignore[misc]
    assert from_text.total == sum(t.subtotal for t in from_text.terms)
