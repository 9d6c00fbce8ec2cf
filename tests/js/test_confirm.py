"""A form that asks first (static/js/scene/confirm.js): a ws-send form with data-confirm goes only
once the user says yes to its words; a form without one goes at once, asking nothing."""

from __future__ import annotations

from tests.support.node import needs_node, run

pytestmark = needs_node

FORM = """
const form = {
  getAttribute: function (name) { return name === "data-confirm" ? c.question : null; }
};
const asked = [];
const goes = m.confirmed(form, function (q) { asked.push(q); return c.answer; });
return { goes: goes, asked: asked };
"""


def test_a_form_with_a_question_goes_only_on_yes_and_one_without_asks_nothing():
    question = "Brannoc has not acted yet. End Heroes's turn anyway?"
    answers = run(
        "confirm.js",
        FORM,
        [
            {"question": question, "answer": True},
            {"question": question, "answer": False},
            {"question": None, "answer": False},
        ],
    )
    assert answers == [
        {"goes": True, "asked": [question]},
        {"goes": False, "asked": [question]},
        {"goes": True, "asked": []},
    ]
