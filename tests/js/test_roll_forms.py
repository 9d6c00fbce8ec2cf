"""Roll forms (static/js/scene/roll-forms.js): an option's data-sets names the field it fills
in and the value (templates/systems/conductor/forms/attack.html: a foe sets the difficulty)."""

from __future__ import annotations

import pytest

from tests.support.node import needs_node, one

pytestmark = needs_node


@pytest.mark.parametrize(
    ("spec", "sets"),
    [
        ("difficulty:7", ["difficulty", "7"]),
        ("difficulty:12", ["difficulty", "12"]),
        ("difficulty:", ["difficulty", ""]),
        ("note:at dawn: by the ford", ["note", "at dawn: by the ford"]),  # the first ":" only
        (":7", ["", "7"]),
    ],
)
def test_data_sets_names_a_field_and_its_value(spec, sets):
    assert one("roll-forms.js", "return m.setsField(c);", spec) == sets


@pytest.mark.parametrize(
    ("owner", "picked", "offered"),
    [
        ("12", "12", True),  # the picked character's skill
        ("12", "7", False),  # another character's
        ("12", "", False),  # the GM rolls for nobody: no sheet's skill
        (None, "7", True),  # not a character's (Untrained, "type the SV")
        ("", "7", True),
    ],
)
def test_a_form_offers_only_the_picked_character_s_own_choices(owner, picked, offered):
    assert one("roll-forms.js", "return m.offered(c[0], c[1]);", [owner, picked]) is offered
