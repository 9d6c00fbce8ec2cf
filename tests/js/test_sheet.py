"""The Sheet tool (static/js/scene/sheet.js): a rollable's fields, as the server writes them in
data-fields (tabletop/scenes/tools.py, json.dumps of Rollable.fields), become the values its
roll form's fields are set to."""

from __future__ import annotations

import json

import pytest

from tests.support.node import needs_node, one

pytestmark = needs_node

BODY = "return m.rollableFields(c);"


def test_the_servers_fields_become_name_and_value_pairs_in_order():
    fields = {"skill_name": "Weapon (Sword)", "speciality": "Fencing", "attribute": "Agility"}
    assert one("sheet.js", BODY, json.dumps(fields)) == [list(pair) for pair in fields.items()]


def test_values_become_texts_as_a_forms_fields_hold_them():
    # A select's option or a radio is matched by its value text: 7 must be "7".
    fields = {"dice": 7, "bonus": -1, "wild": True, "note": "a: b"}
    assert one("sheet.js", BODY, json.dumps(fields)) == [
        ["dice", "7"],
        ["bonus", "-1"],
        ["wild", "true"],
        ["note", "a: b"],
    ]


@pytest.mark.parametrize("text", [None, "", "{}", "{not json", '{"skill_name": '])
def test_no_fields_or_unreadable_ones_set_nothing(text):
    # The character is still picked and the roll form opened; the rollable's fields are left alone.
    assert one("sheet.js", BODY, text) == []
