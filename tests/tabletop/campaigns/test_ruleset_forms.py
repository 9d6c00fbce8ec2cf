"""The generic ruleset editor on made-up rulesets: which editor a value gets, what it reads back,
and which field a rules error names. The real systems are in test_settings_page.py."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from tabletop.campaigns.ruleset_forms import (
    GROUP,
    JSON,
    LISTS,
    NAMES,
    NESTED,
    NUMBERS,
    RECORDS,
    ROWS_ADDED,
    ROWS_FIXED,
    ROWS_NULL,
    SCALAR,
    TABLE,
    Hint,
    RulesetForm,
    human_label,
    section_holding,
    section_named,
    shape_of,
)
from tabletop.campaigns.ruleset_shapes import ENTRIES_MAX, help_text
from tabletop.words import a_word
from tests.tabletop.campaigns.ruleset_pages import (
    cell,
    new_name,
    remove_box,
    row,
    section,
    untouched,
)

TOOLS = {
    "tools": [
        {"name": "Calibrate", "effect": "set", "dice": None, "fragile": False, "note": "Set one."},
        {"name": "Survey", "effect": "reveal", "dice": 2, "fragile": True, "note": ""},
    ]
}
LADDER = {
    "ladder": {
        "Easy": {"cost": 1, "mode": "keep_high", "rolled": 3},
        "Normal": {"cost": 2, "mode": "roll"},
    }
}
TRAVEL = {"travel": {"forage": 7, "supply": [12, 10, 8], "recover": "rest", "pace": 1.5}}


def bound(form, data: dict) -> QueryDict:
    query = QueryDict(mutable=True)
    for key, value in data.items():
        query.setlist(key, value if isinstance(value, list) else [value])
    return query


def resubmit(form_class, defaults, current=None, change=lambda form, data: None, **kwargs):
    """Render the form, let ``change`` edit what the browser would post, read it back."""
    current = defaults if current is None else current
    form = form_class(defaults=defaults, current=current, **kwargs)
    data = untouched(form)
    change(form, data)
    return form_class(bound(form, data), defaults=defaults, current=current, **kwargs)


# --- which editor -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        (6, SCALAR),
        ("d6", SCALAR),
        (["Knowledge", "Finesse"], NAMES),
        ([12, 10, 8], NUMBERS),
        ({"Easy": 3, "Hard": "never"}, TABLE),
        ({"Cunning": ["Black"], "Endurance": []}, LISTS),
        ([{"name": "Calibrate", "effect": "set_value", "dice": None}], RECORDS),
        ({"Trivial": {"cost": 0, "dice": "automatic_success"}}, NESTED),
        ({"forage": 7, "supply": [12, 10], "recover": "rest"}, GROUP),
        ({"flag": True}, GROUP),
        ({"deep": {"deeper": {"deepest": 1}}}, JSON),
        ([{"name": "x", "parts": [{"a": 1}]}], JSON),
        ({}, JSON),
    ],
)
def test_shape_of(value, shape):
    assert shape_of(value) == shape


def test_human_label():
    assert human_label("op_check_dice") == "Op check dice"


def test_no_made_up_shape_falls_back_to_json_except_a_truly_nested_one():
    defaults = {**TOOLS, **LADDER, **TRAVEL, "deep": {"a": {"b": {"c": 1}}}}
    form = RulesetForm(defaults=defaults, current=defaults)
    shapes = {s.key: s.shape for s in form.sections}
    assert shapes == {"tools": RECORDS, "ladder": NESTED, "travel": GROUP, "deep": JSON}


def test_a_stored_value_of_another_shape_is_edited_as_json():
    form = RulesetForm(defaults={"links": {"A": ["x"]}}, current={"links": ["oops"]})
    assert form.sections[0].shape == JSON


def test_a_hint_gives_an_empty_default_its_rows():
    hint = Hint(shape=NESTED, columns={"Movement": Hint(), "Magic": Hint()}, noun="condition")

    class Form(RulesetForm):
        hints = {"overrides": hint}

    form = Form(defaults={"overrides": {}}, current={"overrides": {}})
    assert form.sections[0].shape == NESTED
    assert form.sections[0].headings == ["Movement", "Magic"]
    assert not form.sections[0].has_entries


# --- untouched, the editor gives back what it was given -----------------------------------------


@pytest.mark.parametrize("defaults", [TOOLS, LADDER, TRAVEL], ids=["records", "nested", "group"])
def test_an_untouched_form_reads_back_its_value(defaults):
    form = resubmit(RulesetForm, defaults)
    assert form.is_valid(), form.errors
    assert form.cleaned_ruleset == defaults


# --- records: a list of dicts -----------------------------------------------------------------


def test_a_record_is_added_in_the_blank_row_and_blanks_mean_what_the_defaults_say():
    def change(form, data):
        data[cell(form, "tools", "New", "Name")] = "Shake Loose"
        data[cell(form, "tools", "New", "Effect")] = "reroll"

    form = resubmit(RulesetForm, TOOLS, change=change)
    assert form.is_valid(), form.errors
    # "dice" is null in a default record: blank is null; "note" is text: blank is empty text.
    assert form.cleaned_ruleset["tools"][-1] == {
        "name": "Shake Loose",
        "effect": "reroll",
        "dice": None,
        "fragile": False,
        "note": "",
    }


def test_a_record_is_removed():
    def change(form, data):
        data[remove_box(form, "tools", "Calibrate")] = "on"

    form = resubmit(RulesetForm, TOOLS, change=change)
    assert form.is_valid()
    assert [tool["name"] for tool in form.cleaned_ruleset["tools"]] == ["Survey"]


def test_a_blank_new_row_adds_nothing():
    form = resubmit(RulesetForm, TOOLS)
    assert form.is_valid()
    assert len(form.cleaned_ruleset["tools"]) == 2


def test_a_bad_number_in_a_record_names_the_row_and_the_column():
    def change(form, data):
        data[cell(form, "tools", "Survey", "Dice")] = "two"

    form = resubmit(RulesetForm, TOOLS, change=change)
    assert not form.is_valid()
    assert form.errors[cell(form, "tools", "Survey", "Dice")] == [
        "Survey · Dice: enter a whole number."
    ]
    assert "tools" not in form.cleaned_ruleset


def test_a_half_filled_new_record_needs_its_required_name():
    class Form(RulesetForm):
        hints = {"tools": Hint(noun="tool", columns={"name": Hint(label="Name", required=True)})}

    def change(form, data):
        data[cell(form, "tools", "New", "Dice")] = "3"

    form = resubmit(Form, TOOLS, change=change)
    assert not form.is_valid()
    assert form.errors[cell(form, "tools", "New", "Name")] == ["New tool · Name: give a value."]


# --- nested tables: names mapped to records ---------------------------------------------------


def test_a_nested_row_is_added_with_a_column_some_defaults_leave_out():
    def change(form, data):
        data[new_name(form, "ladder")] = "Hard"
        data[cell(form, "ladder", "New", "Cost")] = "3"
        data[cell(form, "ladder", "New", "Mode")] = "keep_low"

    form = resubmit(RulesetForm, LADDER, change=change)
    assert form.is_valid(), form.errors
    # "rolled" is missing from a default row: a blank leaves it out for the rules to fill in.
    assert form.cleaned_ruleset["ladder"]["Hard"] == {"cost": 3, "mode": "keep_low"}


def test_a_required_cell_left_blank_names_its_row_and_column():
    def change(form, data):
        data[cell(form, "ladder", "Normal", "Cost")] = ""

    form = resubmit(RulesetForm, LADDER, change=change)
    assert not form.is_valid()
    assert form.errors[cell(form, "ladder", "Normal", "Cost")] == ["Normal · Cost: give a number."]


def test_a_new_row_may_not_repeat_a_name_or_go_unnamed():
    def repeat(form, data):
        data[new_name(form, "ladder")] = "easy"
        data[cell(form, "ladder", "New", "Cost")] = "1"

    form = resubmit(RulesetForm, LADDER, change=repeat)
    assert not form.is_valid()
    assert "'easy' is already a row" in form.errors[new_name(form, "ladder")][0]

    def unnamed(form, data):
        data[cell(form, "ladder", "New", "Cost")] = "1"

    form = resubmit(RulesetForm, LADDER, change=unnamed)
    assert not form.is_valid()
    assert form.errors[new_name(form, "ladder")] == ["New entry: give it a name."]


def test_single_value_tables_keep_their_input_names():
    defaults = {"ladder": {"Easy": 3}}
    form = RulesetForm(
        {"ladder__0": "3", "ladder__new_name": "easy", "ladder__new_value": "4"},
        defaults=defaults,
        current=defaults,
    )
    assert not form.is_valid()
    assert "already a row" in form.errors["ladder__new_name"][0]


# --- groups: fixed sub-fields -------------------------------------------------------------------


def test_a_group_reads_numbers_lists_and_choices():
    class Form(RulesetForm):
        hints = {
            "travel": Hint(
                columns={
                    "supply": Hint(label="Supply dice", min=2, max=20),
                    "recover": Hint(label="Recover", choices=[("rest", "Rest"), ("day", "Day")]),
                }
            )
        }

    def change(form, data):
        data["travel__supply"] = "10, 8"
        data["travel__recover"] = "day"
        data["travel__pace"] = "2.5"

    form = resubmit(Form, TRAVEL, change=change)
    assert form.is_valid(), form.errors
    assert form.cleaned_ruleset["travel"] == {
        "forage": 7,
        "supply": [10, 8],
        "recover": "day",
        "pace": 2.5,
    }


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("travel__supply", "12, x", "Travel · Supply dice: “x” is not a whole number."),
        ("travel__supply", "12, 40", "Travel · Supply dice: 40 is above 20."),
        ("travel__recover", "never", "Travel · Recover: never is not one of the choices."),
        ("travel__forage", "", "Travel · Forage: give a number."),
    ],
)
def test_a_bad_group_input_names_the_field(name, value, message):
    class Form(RulesetForm):
        hints = {
            "travel": Hint(
                columns={
                    "supply": Hint(label="Supply dice", min=2, max=20),
                    "recover": Hint(label="Recover", choices=[("rest", "Rest"), ("day", "Day")]),
                }
            )
        }

    def change(form, data):
        data[name] = value

    form = resubmit(Form, TRAVEL, change=change)
    assert not form.is_valid()
    assert form.errors[name] == [message]
    assert "travel" not in form.cleaned_ruleset


# --- hints: bounds, choices, which rows may go ----------------------------------------------------


def test_bounds_are_on_the_input_and_their_messages_name_row_and_column():
    class Form(RulesetForm):
        hints = {"ladder": Hint(columns={"cost": Hint(label="Resource cost", min=0, max=9)})}

    form = Form(defaults=LADDER, current=LADDER)
    html = str(form[cell(form, "ladder", "Easy", "Resource cost")])
    assert 'min="0"' in html and 'max="9"' in html

    def change(form, data):
        data[cell(form, "ladder", "Easy", "Resource cost")] = "12"

    form = resubmit(Form, LADDER, change=change)
    assert form.errors[cell(form, "ladder", "Easy", "Resource cost")] == [
        "Easy · Resource cost: must be at most 9."
    ]


def test_fixed_rows_have_no_remove_box_and_no_new_row():
    class Form(RulesetForm):
        hints = {"ladder": Hint(rows=ROWS_FIXED)}

    form = Form(defaults=LADDER, current=LADDER)
    rows = section(form, "ladder").rows
    assert [r.label for r in rows] == ["Easy", "Normal"]
    assert all(r.remove is None for r in rows)


def test_only_added_rows_may_go_when_the_rules_bring_the_defaults_back():
    class Form(RulesetForm):
        hints = {"ladder": Hint(rows=ROWS_ADDED)}

    current = {"ladder": {**LADDER["ladder"], "Epic": {"cost": 5, "mode": "roll"}}}
    form = Form(defaults=LADDER, current=current)
    assert row(form, "ladder", "Easy").remove is None
    assert row(form, "ladder", "Epic").remove is not None


def test_rows_the_rules_merge_are_removed_as_null_and_stay_removed():
    class Form(RulesetForm):
        hints = {"skills": Hint(rows=ROWS_NULL)}

    defaults = {"skills": {"Poison": "never", "Weapon": "must"}}

    def change(form, data):
        data[remove_box(form, "skills", "Poison")] = "on"

    form = resubmit(Form, defaults, change=change)
    assert form.is_valid()
    assert form.cleaned_ruleset["skills"] == {"Weapon": "must", "Poison": None}
    # Saved again untouched (Poison no longer shown): still removed.
    form = resubmit(Form, defaults, current={"skills": {"Weapon": "must"}})
    assert form.is_valid()
    assert form.cleaned_ruleset["skills"] == {"Weapon": "must", "Poison": None}


def test_names_with_choices_are_tick_boxes_that_keep_the_order():
    choices = [("a", "A"), ("b", "B"), ("c", "C")]

    class Form(RulesetForm):
        hints = {"ends": Hint(choices=choices)}

    defaults = {"ends": ["c", "a"]}

    def change(form, data):
        data["ends"] = ["a", "b", "c"]

    form = resubmit(Form, defaults, change=change)
    assert form.is_valid()
    assert form.cleaned_ruleset["ends"] == ["c", "a", "b"]
    assert form["ends"].widget_type == "checkboxselectmultiple"


def test_a_custom_cell_is_parsed_and_its_error_named():
    def parse(text):
        if text.upper() != "X" and not text.lstrip("+-").isdigit():
            raise ValueError("write a number or X.")
        return {"formula": "x"} if text.upper() == "X" else int(text)

    class Form(RulesetForm):
        hints = {
            "table": Hint(
                shape=NESTED,
                columns={
                    "Magic": Hint(
                        parse=parse, show=lambda v: "X" if v == {"formula": "x"} else str(v)
                    )
                },
            )
        }

    defaults = {"table": {}}
    current = {"table": {"Stunned": {"Magic": {"formula": "x"}}}}
    form = Form(defaults=defaults, current=current)
    assert form[cell(form, "table", "Stunned", "Magic")].value() == "X"

    def change(form, data):
        data[cell(form, "table", "Stunned", "Magic")] = "lots"

    form = resubmit(Form, defaults, current=current, change=change)
    assert form.errors[cell(form, "table", "Stunned", "Magic")] == [
        "Stunned · Magic: write a number or X."
    ]


def test_to_form_and_from_form_reshape_a_field():
    class Form(RulesetForm):
        hints = {"span": Hint(shape=GROUP)}  # {"low": 6, "high": 95} would be a table

        def to_form(self, key, value):
            return {"low": value[0], "high": value[1]}

        def from_form(self, key, value):
            return [value["low"], value["high"]]

    form = resubmit(Form, {"span": [6, 95]}, change=lambda f, d: d.update({"span__low": "5"}))
    assert form.is_valid()
    assert form.cleaned_ruleset == {"span": [5, 95]}


# --- the rules' verdict ---------------------------------------------------------------------------


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


def test_the_error_summary_lists_every_message_with_where_to_go():
    def change(form, data):
        data[cell(form, "ladder", "Normal", "Cost")] = "two"

    form = resubmit(RulesetForm, LADDER, change=change)
    assert not form.is_valid()
    form.add_ruleset_error("The ruleset's 'ladder' is odd.")
    target = form[cell(form, "ladder", "Normal", "Cost")].id_for_label
    assert form.error_summary == [
        (target, "Normal · Cost: enter a whole number."),
        ("ruleset-ladder", "Ladder is odd."),
    ]


def test_a_table_may_not_grow_past_its_number_of_rows():
    full = {"ladder": {f"Step {n}": {"cost": n, "mode": "roll"} for n in range(ENTRIES_MAX)}}

    def change(form, data):
        data[new_name(form, "ladder")] = "One more"
        data[cell(form, "ladder", "New", "Cost")] = "3"
        data[cell(form, "ladder", "New", "Mode")] = "roll"

    form = resubmit(RulesetForm, full, change=change)
    assert not form.is_valid()
    assert [message for _, message in form.error_summary] == [
        f"Ladder: at most {ENTRIES_MAX} rows, not {ENTRIES_MAX + 1}; remove some first."
    ]


@pytest.mark.parametrize(
    ("noun", "phrase"),
    [
        ("ability", "an ability"),
        ("difficulty", "a difficulty"),
        ("attribute", "an attribute"),
        ("unit", "a unit"),
        ("hour", "an hour"),
        ("one-off rule", "a one-off rule"),
    ],
)
def test_a_label_built_from_a_noun_takes_its_article(noun, phrase):
    assert a_word(noun) == phrase
    assert help_text(NESTED, Hint(noun=noun)).startswith(f"Tick “Remove” to drop {phrase};")
