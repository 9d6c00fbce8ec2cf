"""The generic ruleset editor's pieces: which editor a value gets, which field an error names."""

from __future__ import annotations

import pytest

from tabletop.campaigns.ruleset_forms import (
    JSON,
    LISTS,
    NAMES,
    SCALAR,
    TABLE,
    RulesetForm,
    human_label,
    section_holding,
    section_named,
    shape_of,
)


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        (6, SCALAR),
        ("d6", SCALAR),
        (["Knowledge", "Finesse"], NAMES),
        ({"Easy": 3, "Hard": "never"}, TABLE),
        ({"Cunning": ["Black"], "Endurance": []}, LISTS),
        ([{"name": "Calibrate", "effect": "set_value"}], JSON),
        ({"Trivial": {"cost": 0}}, JSON),
        ({}, JSON),
        ({"flag": True}, JSON),
    ],
)
def test_shape_of(value, shape):
    assert shape_of(value) == shape


def test_human_label():
    assert human_label("op_check_dice") == "Op check dice"


@pytest.mark.parametrize(
    ("message", "key"),
    [
        ("Unknown colour in Ruleset field 'links' for 'Cunning' 'Purple'.", "links"),
        ("ruleset.resources.Stamina must link to exactly two different attributes.", "resources"),
        ("The ruleset's 'check_target' must be at most 6 (got 9).", "check_target"),
        ("ruleset: attribute Might must link to exactly two resources.", "resources"),
        ("Unknown effect for toolkit ability 'x'.", "toolkit"),
        ("Something went wrong.", None),
    ],
)
def test_section_named(message, key):
    keys = ["attributes", "resources", "links", "check_target", "toolkit", "colours"]
    assert section_named(message, keys) == key


def test_section_holding_finds_the_one_field_with_the_quoted_name():
    ruleset = {"attributes": ["Might"], "resources": {"Health": ["Brawn", "Might"]}}
    assert section_holding("Unknown attribute 'Brawn'.", ruleset) == "resources"
    assert section_holding("Unknown attribute 'Might'.", ruleset) is None  # in both


def test_a_stored_value_of_another_shape_is_edited_as_json():
    form = RulesetForm(defaults={"links": {"A": ["x"]}}, current={"links": ["oops"]})
    assert form.sections[0].kind == JSON


def test_a_new_entry_needs_a_name_and_may_not_repeat_one():
    defaults = {"ladder": {"Easy": 3}}
    form = RulesetForm(
        {"ladder__0": "3", "ladder__new_name": "easy", "ladder__new_value": "4"},
        defaults=defaults,
        current=defaults,
    )
    assert not form.is_valid()
    assert "already an entry" in form.errors["ladder__new_name"][0]
    form = RulesetForm(
        {"ladder__0": "3", "ladder__new_value": "4"}, defaults=defaults, current=defaults
    )
    assert not form.is_valid()
    assert form.errors["ladder__new_name"]
